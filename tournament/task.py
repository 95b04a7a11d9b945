"""`play_game(spec) -> result`: one game as a pure task, the unit every executor runs.

The task builds both bots from their specs (seeded), plays the game with the arbiter's
`play_local_game` (bot faults become results, see :mod:`blindchess.arbiter.play`), and returns
a `GameResult`, whose faults also count a belief bot's planner and selector failures
(`failures`). It never raises: anything that stops the game from being played is returned
as a failed result with the reason, so no executor can lose a game to an exception.

Determinism: our bots draw only from the generator built from their seed, and reconchess's
bots from the `random` module, which is seeded from both seeds before each game; with no clock
(``seconds=None``) nothing depends on timing. A bot whose play depends on the clock (Stockfish
with a time limit, a belief capped by seconds) is not reproducible on any executor.

Variants (``spec.variant``): ``rbc`` (8x8, the default), ``recon-minichess``, ``recon-imcs``
and the teaching boards ``teaching-4x4`` and ``teaching-4x5``. A bot whose constructor takes
``rules`` is handed the variant's rules; the others must cope with the action lists they get
(``random`` plays every variant). Simulchess has its own arbiter and runs through
``blindchess simulchess``.
"""

from __future__ import annotations

import functools
import inspect
import logging
import math
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

import chess
import chess.engine

from blindchess.arbiter import LocalGame, Player, play_local_game
from blindchess.arbiter.game.loading import PlayerLoadError
from blindchess.arbiter.rules.ruleset import STANDARD, Rules
from blindchess.arbiter.sandbox.cpu_clock import CpuClockUnavailableError
from blindchess.arbiter.sandbox.isolation import (
    MEMORY_LIMIT_BYTES,
    BotProcessDied,
    IsolatedBotError,
    IsolatedPlayer,
    isolated_player,
)
from blindchess.arbiter.sandbox.pondering import PonderingUnsupportedError, supports_pondering
from blindchess.bots.registry import BOTS, BotConstructionError, make_bot, resolve_bot
from blindchess.errors import BlindchessError, did_you_mean

# The variant table moved to the variants layer (the learning environment reads it too); imported under
# the same names, so `blindchess.tournament.task.VARIANTS` and its helpers keep working.
from blindchess.variants.catalog import VARIANTS as VARIANTS
from blindchess.variants.catalog import UnknownVariantError as UnknownVariantError
from blindchess.variants.catalog import variant_rules as variant_rules

from .commit_bot import CommitBot, CommitBotError, commit_bot_class, split_commit
from .spec import BotSpec, GameResult, GameSpec, failed

logger = logging.getLogger(__name__)

_SETTING_CONVERSIONS: dict[str, Callable[[Any], Any]] = {
    "limit": lambda value: chess.engine.Limit(**value) if isinstance(value, dict) else value,
}
"""Settings whose JSON value becomes an object: ``limit = {depth = 1}`` is ``chess.engine.Limit(depth=1)``."""


class BotSettingError(BlindchessError, ValueError):
    """A setting the bot's constructor does not take (the message lists the ones it does)."""


def resolve_player_class(bot: str) -> type[Player]:
    """The class of `bot`: a bot at a commit (``flagship@HEAD~20``, :mod:`blindchess.tournament.commit_bot`), else whatever
    `resolve_bot` accepts.

    Raises:
        PlayerLoadError: unknown bot (the message names it and suggests the closest name), or a bot at a commit
            that cannot be exported or played there.
    """
    at_commit = split_commit(bot)
    if at_commit is not None:
        try:
            return commit_bot_class(*at_commit)
        except (CommitBotError, BotConstructionError) as error:  # the commit, or the bot there, cannot be had
            raise PlayerLoadError(str(error)) from error
    return resolve_bot(bot)[1]


def plays(player_class: type[Player], variant: str) -> bool:
    """Whether bots of `player_class` can play `variant` (`Player.variants`: 8x8 RBC unless the class says more).

    >>> from blindchess.bots.random_bot import RandomBot
    >>> from blindchess.bots.trout_bot import TroutBot
    >>> plays(RandomBot, "teaching-4x4"), plays(TroutBot, "teaching-4x4"), plays(TroutBot, "rbc")
    (True, False, True)
    """
    played = getattr(player_class, "variants", Player.variants)
    return played is None or variant in played


def bots_playing(variant: str) -> list[str]:
    """The short names of the bots that can play `variant`, for the error that refuses one that cannot.

    Imports every registered bot's module (a few seconds, the neural ones' torch included): only
    the refusal, after a bot has already failed the check, asks for this list.
    """
    names = []
    for name in sorted(BOTS):
        try:
            player_class = resolve_player_class(name)
        except (ImportError, PlayerLoadError):  # a bot whose optional dependency is missing plays nothing here
            continue
        if plays(player_class, variant):
            names.append(name)
    return names


def check_bot(spec: BotSpec, variant: str = "rbc") -> None:
    """Raise now what would make every game of `spec` fail: an unknown bot, one that cannot play `variant`,
    or a setting it does not take.

    Raises:
        PlayerLoadError: the bot cannot be found.
        BotSettingError: the bot cannot play `variant`, a setting is not a parameter of the bot's
            constructor, or `spec` asks to ponder of a bot with no ``ponder`` method.
    """
    player_class = resolve_player_class(spec.bot)
    if not plays(player_class, variant):
        raise BotSettingError(
            f"player {spec.label!r}: bot {spec.bot!r} cannot play {variant}"
            f" (it plays {', '.join(sorted(player_class.variants or ()))}); bots that can: {', '.join(bots_playing(variant))}"
        )
    if spec.ponder and not supports_pondering(player_class):
        raise BotSettingError(f"player {spec.label!r}: bot {spec.bot!r} cannot ponder (it has no ponder(stop) method)")
    configured = getattr(player_class, "configured", None)  # a bot built from a config tree checks its own settings
    if callable(configured):
        try:
            configured(spec.settings)
        except ValueError as error:
            raise BotSettingError(f"player {spec.label!r}: bot {spec.bot!r}: {error}") from error
        return
    try:
        parameters = inspect.signature(player_class).parameters
    except (TypeError, ValueError):
        return
    if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters.values()):
        return
    for name in spec.settings:
        if name not in parameters or name == "rng":
            known = [parameter for parameter in parameters if parameter != "rng"]
            raise BotSettingError(
                f"player {spec.label!r}: bot {spec.bot!r} has no setting {name!r}{did_you_mean(name, known)}"
                f" (its settings: {', '.join(known) or 'none'})"
            )


def isolated(spec: BotSpec, cpu_clock: bool = False) -> bool:
    """Whether `spec`'s bot plays in its own process: under a CPU clock always, else as it says, else when it ponders
    or is loaded from a ``.py`` file.

    >>> isolated(BotSpec("mine", "bots/my_bot.py")), isolated(BotSpec("r", "random"))
    (True, False)
    >>> isolated(BotSpec("mine", "bots/my_bot.py", isolate=False)), isolated(BotSpec("r", "random", ponder=True))
    (False, True)
    >>> isolated(BotSpec("r", "random"), cpu_clock=True)
    True
    """
    if cpu_clock:
        return True
    return spec.isolate if spec.isolate is not None else spec.ponder or spec.bot.endswith(".py")


def build_player(spec: BotSpec, seed: int, rules: Rules[Any], cpu_clock: bool = False) -> Player:
    """The bot `spec` names, seeded, in this process or (see `isolated`) in its own.

    With `cpu_clock` it plays in its own process, in a cgroup of its own whose CPU its clock is
    charged (see :mod:`blindchess.arbiter.sandbox.cpu_clock`); ``isolate = false`` cannot go with it.

    Raises:
        BotConstructionError: the bot cannot be built (in its own process: it raised or died),
            or a CPU clock is asked of a bot that must not be isolated, or where no cgroup can be made.
    """
    if cpu_clock and spec.isolate is False:
        raise BotConstructionError(f"player {spec.label!r}: a CPU clock plays every bot in its own process, but isolate is false")
    if not isolated(spec, cpu_clock):
        return _build_here(spec, seed, rules)
    limit = MEMORY_LIMIT_BYTES if spec.memory_limit_mib is None else spec.memory_limit_mib * 2**20
    player_class = resolve_player_class(spec.bot)
    try:
        player: Player = isolated_player(
            player_class, functools.partial(_build_here, spec, seed, rules), limit, ponder=spec.ponder, cpu_clock=cpu_clock
        )
    except (IsolatedBotError, BotProcessDied, PonderingUnsupportedError, CpuClockUnavailableError) as error:
        raise BotConstructionError(f"cannot build {player_class.__name__} in its own process: {error}") from error
    return player


def _build_here(spec: BotSpec, seed: int, rules: Rules[Any]) -> Player:
    """A fresh, seeded instance of the bot `spec` names, with its settings (and the variant's rules if it takes them)."""
    player_class = resolve_player_class(spec.bot)
    if issubclass(player_class, CommitBot):  # the commit builds the bot from the settings as written
        return player_class(seed, spec.settings)
    settings = {name: _SETTING_CONVERSIONS.get(name, _identity)(value) for name, value in spec.settings.items()}
    if rules is not STANDARD and "rules" in _parameters(player_class):
        settings["rules"] = rules
    if not settings:
        return make_bot(player_class, seed)
    import numpy as np

    try:
        return player_class(rng=np.random.default_rng(seed), **settings)  # type: ignore[call-arg]
    except Exception as error:
        raise BotConstructionError(f"cannot construct {player_class.__name__}: {type(error).__name__}: {error}") from error


def play_game(spec: GameSpec) -> GameResult:
    """Play the game `spec` describes; never raises (see the module docstring)."""
    players: list[Player] = []
    try:
        rules = variant_rules(spec.variant)
        cpu_clock = spec.clock_mode == "cpu"
        players.append(build_player(spec.white, spec.white_seed, rules, cpu_clock))
        players.append(build_player(spec.black, spec.black_seed, rules, cpu_clock))
    except (PlayerLoadError, BotConstructionError, BotSettingError, UnknownVariantError) as error:
        _close(players)
        return failed(spec.key, str(error), setup_error=True)
    try:
        return _play(spec, rules, players[0], players[1])
    finally:
        _close(players)  # an isolated bot's process ends with its game, however the game ended


def _close(players: list[Player]) -> None:
    for player in players:
        if isinstance(player, IsolatedPlayer):
            player.close()


def _play(spec: GameSpec, rules: Rules[Any], white: Player, black: Player) -> GameResult:
    random.seed((spec.white_seed << 64) | spec.black_seed)  # reconchess's bots draw from the random module
    turn_limit = spec.full_turn_limit if spec.full_turn_limit is not None else getattr(rules, "full_turn_limit", None)
    clocks = (spec.time_control(white=True), spec.time_control(white=False))
    meters = None
    if spec.clock_mode == "cpu":
        assert isinstance(white, IsolatedPlayer) and isinstance(black, IsolatedPlayer), "a CPU clock plays bots isolated"
        meters = (white.cpu_seconds, black.cpu_seconds)
    game: LocalGame[Any] = LocalGame(full_turn_limit=turn_limit, rules=rules, time_controls=clocks, meters=meters)
    started = time.monotonic()
    try:
        winner, reason, history = play_local_game(white, black, game=game)
    except Exception as error:  # the arbiter itself failed: record why rather than lose the game
        logger.exception("game %s failed", spec.key)
        return failed(spec.key, f"arbiter error: {type(error).__name__}: {error}")
    return GameResult(
        key=spec.key,
        winner=winner,
        reason=None if reason is None else reason.name,
        turns=history.num_turns(),
        seconds=time.monotonic() - started,
        faults=tuple(fault.message for fault in history.faults) + failures(white, chess.WHITE) + failures(black, chess.BLACK),
        history=history.to_json(),
        clock_share=(clock_share(game, chess.WHITE, history.num_turns()), clock_share(game, chess.BLACK, history.num_turns())),
    )


def failures(player: Player, color: bool) -> tuple[str, ...]:
    """The planner and selector failures `player` counted this game (`BeliefBot.failure_report`), named like faults.

    A `BeliefBot` survives a planner or selector that raises (no sense, or a pass), which would
    otherwise hide a broken bot behind ordinary-looking losses. A bot in its own process sends
    its report back with the game's end (`IsolatedPlayer.failure_report`). Any bot with a
    ``failure_report()`` is asked, so that building the match's parser (``--help``) does not
    import the belief bot and the numba kernels beneath it.
    """
    report: Callable[[], tuple[str, ...]] | None = getattr(player, "failure_report", None)
    if report is None:
        return ()
    return tuple(f"{type(player).__name__} ({chess.COLOR_NAMES[color]}) {line}" for line in report())


def clock_share(game: LocalGame[Any], color: bool, turns: int) -> float | None:
    """The share of `color`'s clock it used in a finished game of `turns` turns (both players' counted).

    ``used / (start + increment * own turns begun)``: an unfinished last turn earned no
    increment, so the share of a game that ended on `color`'s turn reads slightly low.
    """
    clock = game.time_controls[color]
    if math.isinf(clock.seconds):
        return None
    own_turns = (turns + 1) // 2 if color == chess.WHITE else turns // 2
    available = clock.seconds + clock.increment * own_turns
    used = available - game.seconds_left_by_color[color]
    return max(0.0, used / available) if available > 0 else None


def _identity(value: Any) -> Any:
    return value


def _parameters(player_class: type[Player]) -> Mapping[str, inspect.Parameter]:
    try:
        return inspect.signature(player_class).parameters
    except (TypeError, ValueError):
        return {}
