"""Tournament configs (TOML) and the schedule of games they describe.

A config names the players and how they meet::

    [tournament]
    name = "smoke"
    format = "round-robin"     # every pair of players; or "gauntlet": `gauntlet` meets every other
    games_per_pairing = 4
    repeat = true              # colour-swapped pairs on the same seeds (cutechess's -repeat)
    seed = 1
    variant = "rbc"            # see blindchess.tournament.task.VARIANTS
    seconds = 60               # each player's clock; leave out for none (deterministic bots)
    increment = 1
    full_turn_limit = 50       # a draw after this many full turns
    clock = "cpu"              # charge each bot its own CPU time (isolated, in a cgroup); default "wall"

    [players.random]
    bot = "random"

    [players.trout-d1]
    bot = "trout"
    settings = { limit = { depth = 1 } }

    [players.mine]
    bot = "bots/my_bot.py"     # a bot from a file plays in its own process by default
    isolate = true             # false runs it in the worker (faster; a crash then costs the worker)
    memory_limit_mib = 1024    # an isolated bot's address-space limit (default 2048)
    ponder = true              # think on the opponent's turn (implies isolate; see docs/pondering.md)
    tc = "60+2"                # its own clock, SECONDS[+INCREMENT] (default: [tournament]'s seconds + increment)

Every key is checked: a typo is an error naming the key and the closest known one.

Seeds: game ``g`` of pair ``p`` of the pairing of players A and B (labels sorted) gives A and B
the two words of ``SeedSequence([seed, crc32("A vs B"), p])``; both games of a colour-swapped
pair use the same two seeds, each bot keeping its own. A pairing's seeds depend only on its
labels, so adding a player to a config schedules only the new player's games.
"""

from __future__ import annotations

import json
import re
import sys
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from blindchess.arbiter.game.time_control import TimeControl, TimeControlError
from blindchess.arbiter.sandbox.cpu_clock import CLOCK_MODES
from blindchess.arbiter.sandbox.pondering import PonderingNeedsIsolationError
from blindchess.errors import BlindchessError, did_you_mean

from .spec import BotSpec, GameSpec
from .task import BotSettingError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]  # mypy checks as 3.10

__all__ = [
    "ConfigError", "SelfPairingError", "TournamentConfig", "load_config", "pairing_games", "parse_config", "parse_settings", "tomllib"
]

FORMATS = ("round-robin", "gauntlet")
_TOURNAMENT_KEYS = {
    "name": str, "format": str, "gauntlet": str, "games_per_pairing": int, "repeat": bool, "seed": int,
    "variant": str, "seconds": (int, float), "increment": (int, float), "full_turn_limit": int, "clock": str,
}  # fmt: skip
_PLAYER_KEYS = {"bot": str, "settings": dict, "isolate": bool, "memory_limit_mib": int, "ponder": bool, "tc": str}
_LABEL = re.compile(r"^[A-Za-z0-9_.+-]+$")


class ConfigError(BlindchessError, ValueError):
    """A config that cannot be run; the message names the file, the table and the key."""


class SelfPairingError(ConfigError):
    """Two sides of a pairing are the same bot with the same settings."""


@dataclass(frozen=True)
class TournamentConfig:
    """A parsed, checked config (see the module docstring for the keys)."""

    name: str
    players: tuple[BotSpec, ...]
    format: str = "round-robin"
    gauntlet: str | None = None
    games_per_pairing: int = 2
    repeat: bool = True
    seed: int = 0
    variant: str = "rbc"
    seconds: float | None = None
    increment: float = 0.0
    full_turn_limit: int | None = None
    clock_mode: str = "wall"

    def pairings(self) -> list[tuple[BotSpec, BotSpec]]:
        """The pairs of players who meet, each ordered by label."""
        players = sorted(self.players, key=lambda player: player.label)
        if self.format == "gauntlet":
            hub = next(player for player in players if player.label == self.gauntlet)
            return [tuple(sorted((hub, other), key=lambda p: p.label)) for other in players if other is not hub]  # type: ignore[misc]
        return [(a, b) for index, a in enumerate(players) for b in players[index + 1 :]]

    def schedule(self) -> list[GameSpec]:
        """Every game of the tournament, pairing by pairing."""
        return [game for first, second in self.pairings() for game in pairing_games(first, second, self)]


def pairing_games(
    first: BotSpec, second: BotSpec, config: TournamentConfig, start_pair: int = 0, pairs: int | None = None
) -> Iterator[GameSpec]:
    """The games between `first` and `second` (see the module docstring for seeds and colours).

    With `pairs` given, that many pairs (or games, without `repeat`) from `start_pair` on, else the config's count.
    """
    pairing = f"{first.label} vs {second.label}"
    per_pair = 2 if config.repeat else 1
    count = pairs if pairs is not None else config.games_per_pairing // per_pair
    for pair in range(start_pair, start_pair + count):
        sequence = np.random.SeedSequence([config.seed, zlib.crc32(pairing.encode()), pair])
        seed_first, seed_second = (int(word) for word in sequence.generate_state(2))
        for game in range(per_pair):
            first_white = (pair + game) % 2 == 0
            white, black = (first, second) if first_white else (second, first)
            white_seed, black_seed = (seed_first, seed_second) if first_white else (seed_second, seed_first)
            yield GameSpec(
                key=f"{pairing}#{pair}.{game}",
                white=white,
                black=black,
                white_seed=white_seed,
                black_seed=black_seed,
                pairing=pairing,
                pair=pair,
                seconds=config.seconds,
                increment=config.increment,
                full_turn_limit=config.full_turn_limit,
                variant=config.variant,
                clock_mode=config.clock_mode,
            )


def load_config(path: str | Path) -> TournamentConfig:
    """Read and check the TOML config at `path`.

    Raises:
        ConfigError: unreadable TOML, an unknown key, a value of the wrong type, too few players,
            a gauntlet player who is not listed, two players that are the same bot and settings.
    """
    source = Path(path)
    try:
        document = tomllib.loads(source.read_text())
    except OSError as error:
        raise ConfigError(f"cannot read config {str(source)!r}: {error.strerror or error}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source}: not valid TOML: {error}") from error
    return parse_config(document, str(source))


def parse_config(document: Mapping[str, Any], source: str = "<config>") -> TournamentConfig:
    """Check a parsed TOML document (see `load_config`)."""
    _check_keys(document, {"tournament": dict, "players": dict}, source, "the top level")
    table = document.get("tournament", {})
    _check_keys(table, _TOURNAMENT_KEYS, source, "[tournament]")
    players_table = document.get("players", {})
    players = []
    for label, entry in players_table.items():
        where = f"[players.{label}]"
        if not _LABEL.match(label):
            raise ConfigError(f"{source}: player label {label!r} may hold only letters, digits and . _ + -")
        if not isinstance(entry, dict):
            raise ConfigError(f"{source}: {where} must be a table with a 'bot' key, got {entry!r}")
        _check_keys(entry, _PLAYER_KEYS, source, where)
        if "bot" not in entry:
            raise ConfigError(f"{source}: {where} has no 'bot' key (a registered name, module or file)")
        memory_limit = entry.get("memory_limit_mib")
        if memory_limit is not None and memory_limit < 1:
            raise ConfigError(f"{source}: {where} memory_limit_mib = {memory_limit!r} must be >= 1")
        try:
            clock = TimeControl.parse(entry["tc"]) if "tc" in entry else None
            player = BotSpec(
                label, entry["bot"], dict(entry.get("settings", {})), entry.get("isolate"), memory_limit, entry.get("ponder", False),
                clock,
            )
        except TimeControlError as error:
            raise ConfigError(f"{source}: {where} tc: {error}") from error
        except PonderingNeedsIsolationError as error:
            raise ConfigError(f"{source}: {where} ponder = true needs the bot in its own process; drop isolate = false") from error
        players.append(player)
    if len(players) < 2:
        raise ConfigError(f"{source}: a tournament needs at least two [players.NAME] tables, got {len(players)}")
    for index, player in enumerate(players):
        for other in players[index + 1 :]:
            if player.same_player(other):
                raise SelfPairingError(
                    f"{source}: players {player.label!r} and {other.label!r} are the same bot ({player.bot!r}) with the same"
                    " settings: a pairing of a bot with itself"
                )
    fmt = table.get("format", "round-robin")
    if fmt not in FORMATS:
        raise ConfigError(f"{source}: [tournament] format {fmt!r} is not one of {FORMATS}{did_you_mean(fmt, FORMATS)}")
    gauntlet = table.get("gauntlet")
    labels = [player.label for player in players]
    if fmt == "gauntlet" and gauntlet not in labels:
        raise ConfigError(f"{source}: [tournament] gauntlet = {gauntlet!r} is not a player{did_you_mean(str(gauntlet), labels)}")
    repeat = table.get("repeat", True)
    games = table.get("games_per_pairing", 2)
    if games < 1 or (repeat and games % 2):
        raise ConfigError(f"{source}: [tournament] games_per_pairing = {games!r} must be >= 1, and even with repeat = true")
    from .task import variant_rules

    variant = table.get("variant", "rbc")
    try:
        variant_rules(variant)
    except ValueError as error:
        raise ConfigError(f"{source}: [tournament] {error}") from error
    seconds = table.get("seconds")
    clock_mode = table.get("clock", "wall")
    if clock_mode not in CLOCK_MODES:
        raise ConfigError(f"{source}: [tournament] clock = {clock_mode!r} must be one of {', '.join(CLOCK_MODES)}")
    return TournamentConfig(
        name=table.get("name", Path(source).stem),
        players=tuple(players),
        format=fmt,
        gauntlet=gauntlet,
        games_per_pairing=games,
        repeat=repeat,
        seed=table.get("seed", 0),
        variant=variant,
        seconds=None if seconds is None else float(seconds),
        increment=float(table.get("increment", 0.0)),
        full_turn_limit=table.get("full_turn_limit"),
        clock_mode=clock_mode,
    )


def _check_keys(table: Mapping[str, Any], known: Mapping[str, Any], source: str, where: str) -> None:
    for key, value in table.items():
        if key not in known:
            raise ConfigError(f"{source}: unknown key {key!r} in {where}{did_you_mean(key, known)}; known keys: {', '.join(known)}")
        expected = known[key]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            names = " or ".join(t.__name__ for t in (expected if isinstance(expected, tuple) else (expected,)))
            raise ConfigError(f"{source}: {where} {key} = {value!r} must be {names}")


def parse_settings(text: str, flag: str) -> dict[str, Any]:
    """The settings of ``--settings 'selector.boards = 2, x = 1'``: the inside of a TOML inline table.

    >>> parse_settings('preset = "fast", selector.boards = 4', "--settings")
    {'preset': 'fast', 'selector': {'boards': 4}}
    >>> parse_settings("path=sf", "--settings")
    Traceback (most recent call last):
    ...
    blindchess.tournament.task.BotSettingError: --settings path=sf: 'sf' is no number, true/false or table; quote a string: path="sf"

    Raises:
        BotSettingError: `text` is no such thing: the message names `flag` and the setting as typed, not a TOML column.
    """
    try:
        return dict(tomllib.loads(f"settings = {{{text}}}")["settings"])
    except tomllib.TOMLDecodeError as error:
        raise BotSettingError(_settings_error(text, flag, error)) from error


def _settings_error(text: str, flag: str, error: tomllib.TOMLDecodeError) -> str:
    """What is wrong with `text` in words a user typed: the first setting that does not parse alone, or the whole."""
    for item in _top_level_items(text):
        try:
            tomllib.loads(f"settings = {{{item}}}")
        except tomllib.TOMLDecodeError:
            name, equals, value = (part.strip() for part in item.partition("="))
            if not equals or not name:
                return f"{flag} {item.strip()!r} is not NAME=VALUE (settings are NAME=VALUE, NAME=VALUE, ...)"
            if not value:
                return f"{flag} {item.strip()}: no value after '='"
            if value[0] in "[{":
                return f"{flag} {name}={value}: not a TOML array or table (strings in it need quotes too)"
            return (
                f"{flag} {name}={value}: {value!r} is no number, true/false or table; quote a string: {name}={json.dumps(value)}"
            )
    reason = re.sub(r" \(at (line \d+, )?(end of document|column \d+)\)", "", str(error))
    return f"{flag} {text!r} is not a list of settings NAME=VALUE, NAME=VALUE, ...: {reason}"


def _top_level_items(text: str) -> list[str]:
    """`text` split at the commas outside quotes, brackets and braces.

    >>> _top_level_items('a = 1, b = { c = 2, d = "x,y" }')
    ['a = 1', ' b = { c = 2, d = "x,y" }']
    """
    items, depth, quote, start = [], 0, "", 0
    for at, char in enumerate(text):
        if quote:
            quote = "" if char == quote and text[at - 1] != "\\" else quote
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:at])
            start = at + 1
    return [*items, text[start:]]
