"""What one game needs and what it gives back: plain, picklable value objects any executor can ship.

A `GameSpec` holds everything that decides a game (both bots with their settings, their seeds,
the clocks, the variant); a `GameResult` everything the game produced. Nothing else is shared
between the process that schedules games and the one that plays them, so a game can run in
this process, in a pool worker or on a Ray node, and, for bots that are deterministic given
their seed, comes out the same on all three.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from blindchess.arbiter.game.time_control import TimeControl
from blindchess.arbiter.sandbox.pondering import PonderingNeedsIsolationError


@dataclass(frozen=True)
class BotSpec:
    """A player: its label in tables, the bot (registered name, module or file) and constructor settings.

    Settings are keyword arguments of the bot's constructor (JSON values; see
    :func:`blindchess.tournament.task.build_player` for the one conversion, ``limit``).

    Attributes:
        isolate: play the bot in its own process (:mod:`blindchess.arbiter.sandbox.isolation`), where
            ``os._exit``, a segfault or the memory limit ends only its game, as its fault.
            None (the default) isolates bots loaded from a ``.py`` file, code we have not read,
            and runs registered bots and modules in the worker's process (see
            :func:`blindchess.tournament.task.isolated`).
        memory_limit_mib: an isolated bot's address-space limit beyond its process's start,
            in MiB; None for the arbiter's default (`blindchess.arbiter.sandbox.isolation.MEMORY_LIMIT_BYTES`).
        ponder: let the bot think on its opponent's turn (:mod:`blindchess.arbiter.sandbox.pondering`).
            It implies isolation: in the worker's process its thread would take the GIL, and so
            clock time, from the opponent; ``isolate=False`` with it is an error.
        clock: this player's own clock (time odds, as cutechess's per-engine ``tc=``), in place
            of the game's `GameSpec.seconds` and `GameSpec.increment`; None: the game's.

    Raises:
        PonderingNeedsIsolationError: `ponder` with ``isolate=False``.
    """

    label: str
    bot: str
    settings: dict[str, Any] = field(default_factory=dict)
    isolate: bool | None = None
    memory_limit_mib: int | None = None
    ponder: bool = False
    clock: TimeControl | None = None

    def __post_init__(self) -> None:
        if self.ponder and self.isolate is False:
            raise PonderingNeedsIsolationError(
                f"player {self.label!r}: pondering needs the bot in its own process (isolate), but isolate is false"
            )

    def same_player(self, other: BotSpec) -> bool:
        """The same bot with the same settings (labels aside): pairing them is pairing a bot with itself.

        Pondering and the clock count as settings: a bot against its pondering self measures what
        pondering gains, against itself with more time what time gains.
        """
        mine = (self.bot, _canonical(self.settings), self.ponder, self.clock)
        return mine == (other.bot, _canonical(other.settings), other.ponder, other.clock)


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game.

    Attributes:
        key: unique name of the game in its schedule (the database's primary key).
        pairing: the two labels, sorted and joined by ``" vs "``: groups a pairing's games.
        pair: index of the colour-swapped pair within the pairing (games of a pair share seeds).
        seconds: each player's clock; None for no clock (deterministic bots need no deadline).
            A player's `BotSpec.clock` replaces it and `increment` for that player.
        variant: a name in :data:`blindchess.tournament.task.VARIANTS`.
        clock_mode: what the clocks charge: ``wall`` time (the default, the competition's rule)
            or each bot's own ``cpu`` time (:mod:`blindchess.arbiter.sandbox.cpu_clock`; it plays
            both bots isolated, each in a cgroup of its own).
    """

    key: str
    white: BotSpec
    black: BotSpec
    white_seed: int
    black_seed: int
    pairing: str = ""
    pair: int = 0
    seconds: float | None = None
    increment: float = 0.0
    full_turn_limit: int | None = None
    variant: str = "rbc"
    clock_mode: str = "wall"

    def time_control(self, white: bool) -> TimeControl:
        """White's (`white`) or Black's clock in this game: its own `BotSpec.clock`, else the game's."""
        own = (self.white if white else self.black).clock
        if own is not None:
            return own
        return TimeControl(math.inf if self.seconds is None else self.seconds, self.increment)

    def to_json(self) -> str:
        """The spec as canonical JSON (sorted keys): stored with the result, compared on resume.

        A bot's isolation fields, and the clock mode, are left out while at their defaults, so a
        database written before they existed still resumes; a value set in the config is recorded.
        """
        data = asdict(self)
        if data["clock_mode"] == "wall":
            del data["clock_mode"]
        for side in ("white", "black"):
            data[side] = {
                name: value
                for name, value in data[side].items()
                if name not in _ADDED_DEFAULTS or value != _ADDED_DEFAULTS[name]
            }
        return json.dumps(data, sort_keys=True)


@dataclass(frozen=True)
class GameResult:
    """What a game produced; `error` is set (and the rest empty) when it could not be played.

    Attributes:
        winner: True White, False Black, None a draw (or no result when `error` is set).
        reason: the `WinReason` name, or None.
        faults: the bots' fault messages (see :mod:`blindchess.arbiter.play`).
        history: the reconchess GameHistory JSON text.
        error: why the game has no result (a worker died, the bot could not be built, ...).
        setup_error: the error is the setup's (an unknown bot, no Stockfish), not this game's:
            every other game would fail the same way, so a run stops instead of recording it.
        attempts: how many times the game was started.
        clock_share: per colour (White, Black), the share of its clock it used: seconds used
            over the start plus the increments of the turns it began (None without a clock).
    """

    key: str
    winner: bool | None = None
    reason: str | None = None
    turns: int = 0
    seconds: float = 0.0
    faults: tuple[str, ...] = ()
    history: str | None = None
    error: str | None = None
    setup_error: bool = False
    attempts: int = 1
    clock_share: tuple[float | None, float | None] = (None, None)

    @property
    def ok(self) -> bool:
        return self.error is None

    def white_score(self) -> float:
        """1, 1/2 or 0 for White (a played game only)."""
        return 0.5 if self.winner is None else 1.0 if self.winner else 0.0


def failed(key: str, error: str, attempts: int = 1, setup_error: bool = False) -> GameResult:
    """The result of a game that could not be played."""
    return GameResult(key=key, error=error, attempts=attempts, setup_error=setup_error)


_ADDED_DEFAULTS: dict[str, Any] = {"isolate": None, "memory_limit_mib": None, "ponder": False, "clock": None}
"""Fields added after databases were first written, and the values that leave them out of `GameSpec.to_json`."""


def _canonical(settings: dict[str, Any]) -> str:
    return json.dumps(settings, sort_keys=True)
