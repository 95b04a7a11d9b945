"""The Stockfish selector's settings: one frozen, typed, documented tree of tables (`SelectorConfig`).

Every number the selector plans with is a field here, with its default; the flagship's config
tree (`blindchess.bots.flagship_config`) holds one as its ``selector`` table, so a TOML file, a
``--settings`` string and Python all set these names (``selector.hunt.weight``). The scoring
settings sit at the top; each stage of the selector with settings of its own has a table:
``search``, ``candidates``, ``safety``, ``hunt``, ``panic``, ``engine``, ``ponder`` and ``coverage``. The clock
is no table here: the bot's time manager plans it (`blindchess.moving.time_management`, the
flagship's ``clock`` table), and so does the selector when no manager gives it a budget.
Settings that can be off take a value that means off (TOML has no null): ``search.depth = 0``
searches by time, ``hunt.material = inf`` never hunts. docs/moving.md explains the choices and
where they were measured.

>>> SelectorConfig().hunt.weight, SelectorConfig(search=SearchSettings(depth=1)).search.depth
(0.03, 1)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Annotated

from blindchess.config_tree import Bound, Count, Settings, Share
from blindchess.evaluation.king_hunt import HUNT_MATERIAL

from .base import MoveSelectionError, SearchRule

Seconds = Annotated[float, Bound(gt=0.0)]
"""A length of time that cannot be zero."""
CLOCKS = ("wall", "cpu")
"""What `SearchSettings.clock` may measure a move's budget in."""


class Table(Settings):
    """A table of the selector's settings: a value out of its bounds raises `MoveSelectionError`."""

    __slots__ = ()
    bound_error = MoveSelectionError


@dataclass(frozen=True, slots=True)
class SearchSettings(Table):
    """How each position is searched: to a fixed depth, or by time."""

    depth: Annotated[int, Bound(ge=0, note="0: search by time")] = 0
    """Search every position to this depth and sample fixed numbers of boards (deterministic for a seed); 0 searches by time."""
    share: Annotated[float, Bound(gt=0.0, le=1.0)] = 0.9
    """Share of an evaluation's seconds given to its searches (the rest pays for the Python around them)."""
    overhead: Annotated[float, Bound(ge=0.0)] = 0.003
    """Seconds taken off each search's limit for its round trip to Stockfish."""
    max_position_seconds: Seconds = 5.0
    """The longest search of one position."""
    clock: str = "wall"
    """What a move's budget measures: ``wall`` seconds (the competition's rule) or ``cpu`` seconds of this process
    and its engines (`blindchess.moving.process_clock`): the same work whatever the machine's load."""

    def __post_init__(self) -> None:
        Table.__post_init__(self)
        if self.clock not in CLOCKS:
            raise MoveSelectionError(f"clock must be one of {', '.join(CLOCKS)}, got {self.clock!r}")

    @property
    def rule(self) -> SearchRule:
        """The timed search's rule from `share`, `overhead` and `max_position_seconds`."""
        return SearchRule(self.share, self.overhead, self.max_position_seconds)


@dataclass(frozen=True, slots=True)
class CandidateSettings(Table):
    """Which moves are scored on every board, and when a close call is looked at again."""

    count: Count = 8
    """The most candidate moves scored on every board."""
    share: Share = 0.3
    """Share of the time left that the engine's own move on each board may take (choosing candidates)."""
    search_seconds: float = 0.1
    """The longest search for the engine's own move on one board (choosing candidates)."""
    close_margin: float = 0.03
    """Candidates scoring within this of the best make a close call, which a timed search looks at again."""
    second_look: Count = 3
    """How many of the best candidates a second look scores again, on twice as many fresh boards."""


@dataclass(frozen=True, slots=True)
class SafetySettings(Table):
    """The cheap own-king exposure check, on a larger sample than the engine's."""

    boards: int = 160
    """Boards sampled for the exposure check (the fixed count at fixed depth)."""
    boards_per_second: float = 60.0
    """Exposure boards per second of budget in a timed search, between `min_boards` and `boards`."""
    min_boards: int = 16
    """The fewest exposure boards of a timed search."""
    exposure_penalty: float = 10.0
    """Subtracted from a move's score per unit probability that it leaves our king capturable."""


@dataclass(frozen=True, slots=True)
class HuntSettings(Table):
    """Converting a won game: the engine's own move on the likeliest boards gains a bonus."""

    material: float = HUNT_MATERIAL
    """From this mean material lead (pawns) on, hunt the king; ``inf`` never hunts."""
    weight: float = 0.03
    """Score added to the engine's own move on the hunted boards, in proportion to their weight share."""
    boards: Count = 4
    """On how many of the likeliest sampled boards the engine chooses its move while hunting."""
    share: Share = 0.3
    """Share of the move's budget those hunting searches take."""


@dataclass(frozen=True, slots=True)
class PanicSettings(Table):
    """Too little clock or budget to search: the proxy alone picks the move."""

    seconds: float = 15.0
    """Below this clock the engine is skipped."""
    budget: float = 0.3
    """A timed search given a budget below this skips the engine too."""
    boards: Count = 8
    """Boards the proxy reads when the engine is skipped."""
    safety_boards: int = 16
    """Exposure boards when the engine is skipped."""


@dataclass(frozen=True, slots=True)
class EngineSettings(Table):
    """The Stockfish processes and what they keep."""

    processes: Count = 1
    """Stockfish processes, one scoring thread each."""
    threads: int = 1
    """Stockfish's ``Threads`` option."""
    hash_mib: int = 16
    """Stockfish's ``Hash`` option (MiB)."""
    cache: int = 4096
    """Positions whose answers the engine pool keeps."""

    @property
    def options(self) -> dict[str, int]:
        """The UCI options every engine gets."""
        return {"Threads": self.threads, "Hash": self.hash_mib}


@dataclass(frozen=True, slots=True)
class PonderSettings(Table):
    """Thinking on the opponent's turn."""

    boards: Count = 48
    """Boards drawn while pondering; their positions are scored likeliest first until the opponent's turn ends."""
    score_cache: Annotated[int, Bound(ge=0, note="0 keeps none")] = 65_536
    """Position values pondering keeps for the next turns (`ScoreCache`); 0 keeps none."""


@dataclass(frozen=True, slots=True)
class CoverageSettings(Table):
    """Long budgets: the candidates scored on many boards at a fixed depth, until the choice is stable
    (`StockfishMoveSelector.cover`), in place of timed searches on a few boards."""

    move_seconds: Annotated[float, Bound(gt=0.0, note="inf: never cover")] = 3.0
    """A timed search given at least this move budget covers; ``inf`` never does (fixed-depth presets never do)."""
    depth: Count = 8
    """The depth of every search (the engine's own move too): fixed, so values are reused across turns."""
    boards: Count = 1024
    """The most boards: the whole belief when it holds no more and can list them, else this many draws."""
    batch: Count = 8
    """Boards added at a time; the choice's stability and the deadline are checked between batches."""
    min_boards: Count = 32
    """Boards scored before the choice may be called stable or a candidate dropped."""
    probes: Annotated[int, Bound(ge=0)] = 2
    """Boards of each batch on which the engine's own move is asked for: one not yet a candidate becomes one."""
    max_candidates: Count = 16
    """The most candidates scored (the first batch starts with `CandidateSettings.count`)."""
    stable_z: Annotated[float, Bound(ge=0.0)] = 3.0
    """The best candidate's lead over the second must exceed this many standard errors of their mean difference."""
    drop_margin: Annotated[float, Bound(ge=0.0)] = 0.3
    """A candidate trailing the best by more than this (in s(b, m)'s units) is no longer scored."""
    deepen: Annotated[int, Bound(ge=0, note="0 never deepens")] = 2
    """Plies added to every search once the choice is stable or every board is scored, while budget is left; 0 never deepens."""
    max_depth: Count = 16
    """The deepest the boards are searched again."""
    deepen_in_part: bool = False
    """Start a deeper pass once one batch of it fits in the budget left, not only the whole pass: the heaviest
    boards (scored first) go deeper first, and the deadline may end the pass part way."""


@dataclass(frozen=True, slots=True)
class SelectorConfig(Table):
    """The settings of `blindchess.moving.stockfish_selector.StockfishMoveSelector` (its docstring has the formulas)."""

    boards: Count = 24
    """Boards sampled per turn at a full budget (``boards * board_seconds`` seconds); the fixed count at fixed depth."""
    max_boards: int = 96
    """The most boards sampled when the budget is large (never fewer than `boards`)."""
    min_boards: Count = 2
    """The fewest boards sampled by a timed search."""
    board_seconds: Seconds = 0.08
    """Seconds of budget per sampled board, up to `boards`; past it boards grow as the square root of the budget."""
    worst_case_weight: Share = 0.3
    """``lam``: 0 scores by expectation over the boards, 1 by the worst board."""
    king_capture_threshold: float = 0.5
    """A king capture at least this likely is taken without further thought."""
    threat_boost: float = 4.0
    """Boards where our king is attacked weigh this many times their belief weight (a third of the extra next to it)."""
    unclocked_move_seconds: Annotated[float, Bound(gt=0.0, lt=math.inf)] = 2.0
    """A move's budget when the clock is unbounded (a game with no clock: ``sprt``'s default); also its hard budget."""
    search: SearchSettings = field(default_factory=SearchSettings)
    """How each position is searched."""
    candidates: CandidateSettings = field(default_factory=CandidateSettings)
    """Which moves are scored."""
    safety: SafetySettings = field(default_factory=SafetySettings)
    """The own-king exposure check."""
    hunt: HuntSettings = field(default_factory=HuntSettings)
    """The king hunt."""
    panic: PanicSettings = field(default_factory=PanicSettings)
    """Skipping the engine on a low clock."""
    engine: EngineSettings = field(default_factory=EngineSettings)
    """The Stockfish processes."""
    ponder: PonderSettings = field(default_factory=PonderSettings)
    """Thinking on the opponent's turn."""
    coverage: CoverageSettings = field(default_factory=CoverageSettings)
    """Many boards at a fixed depth where the budget allows."""


RENAMED: Mapping[str, str] = MappingProxyType({
    **{old: f"search.{new}" for old, new in (
        ("search_depth", "depth"), ("search_share", "share"), ("search_overhead", "overhead"),
        ("max_position_seconds", "max_position_seconds"),
    )},
    **{old: f"candidates.{new}" for old, new in (
        ("candidates", "count"), ("candidate_share", "share"), ("candidate_search_seconds", "search_seconds"),
        ("close_margin", "close_margin"), ("second_look_candidates", "second_look"),
    )},
    **{old: f"safety.{new}" for old, new in (
        ("safety_boards", "boards"), ("safety_boards_per_second", "boards_per_second"), ("min_safety_boards", "min_boards"),
        ("exposure_penalty", "exposure_penalty"),
    )},
    **{f"hunt_{name}": f"hunt.{name}" for name in ("material", "weight", "boards", "share")},
    **{f"panic_{name}": f"panic.{name}" for name in ("seconds", "budget", "boards", "safety_boards")},
    **{old: f"engine.{new}" for old, new in (
        ("engines", "processes"), ("engine_threads", "threads"), ("engine_hash_mib", "hash_mib"), ("engine_cache", "cache"),
    )},
    "ponder_boards": "ponder.boards",
    "score_cache": "ponder.score_cache",
})
"""The flat names of the settings before they had tables (old name -> new name, both under ``selector``).
The four that planned the clock a second time went to the ``clock`` table (`blindchess.bots.flagship_config.RENAMED`)."""
