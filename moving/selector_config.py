"""The Stockfish selector's settings: one frozen, typed, documented config (`SelectorConfig`).

Every number the selector plans with is a field here, with its default; the flagship's config
tree (`blindchess.bots.flagship_config`) holds one as its ``selector`` table, so a TOML file, a
``--settings`` string and Python all set these names. Settings that can be off take a value
that means off (TOML has no null): ``search_depth = 0`` searches by time, ``hunt_material = inf``
never hunts. docs/moving.md explains the choices and where they were measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blindchess.config_tree import check_types
from blindchess.evaluation.king_hunt import HUNT_MATERIAL

from .base import MoveSelectionError, SearchRule


@dataclass(frozen=True, slots=True)
class SelectorConfig:
    """The settings of `blindchess.moving.stockfish_selector.StockfishMoveSelector` (its docstring has the formulas)."""

    boards: int = 24
    """Boards sampled per turn at a full budget (``boards * board_seconds`` seconds); the fixed count at fixed depth."""
    max_boards: int = 96
    """The most boards sampled when the budget is large (never fewer than `boards`)."""
    min_boards: int = 2
    """The fewest boards sampled by a timed search."""
    board_seconds: float = 0.08
    """Seconds of budget per sampled board, up to `boards`; past it boards grow as the square root of the budget."""
    candidates: int = 8
    """The most candidate moves scored on every board."""
    candidate_share: float = 0.3
    """Share of the time left that the engine's own move on each board may take (choosing candidates)."""
    candidate_search_seconds: float = 0.1
    """The longest search for the engine's own move on one board (choosing candidates)."""
    worst_case_weight: float = 0.3
    """``lam``: 0 scores by expectation over the boards, 1 by the worst board."""
    king_capture_threshold: float = 0.5
    """A king capture at least this likely is taken without further thought."""
    safety_boards: int = 160
    """Boards sampled for the cheap own-king exposure check (the fixed count at fixed depth)."""
    safety_boards_per_second: float = 60.0
    """Exposure boards per second of budget in a timed search, between `min_safety_boards` and `safety_boards`."""
    min_safety_boards: int = 16
    """The fewest exposure boards of a timed search."""
    exposure_penalty: float = 10.0
    """Subtracted from a move's score per unit probability that it leaves our king capturable."""
    threat_boost: float = 4.0
    """Boards where our king is attacked weigh this many times their belief weight (a third of the extra next to it)."""
    close_margin: float = 0.03
    """Candidates scoring within this of the best make a close call, which a timed search looks at again."""
    second_look_candidates: int = 3
    """How many of the best candidates a second look scores again, on twice as many fresh boards."""
    max_position_seconds: float = 5.0
    """The longest search of one position."""
    search_share: float = 0.9
    """Share of an evaluation's seconds given to its searches (the rest pays for the Python around them)."""
    search_overhead: float = 0.003
    """Seconds taken off each search's limit for its round trip to Stockfish."""
    search_depth: int = 0
    """Search every position to this depth and sample fixed numbers of boards (deterministic for a seed); 0 searches by time."""
    engines: int = 1
    """Stockfish processes, one scoring thread each."""
    engine_threads: int = 1
    """Stockfish's ``Threads`` option."""
    engine_hash_mib: int = 16
    """Stockfish's ``Hash`` option (MiB)."""
    engine_cache: int = 4096
    """Positions whose answers the engine pool keeps."""
    score_cache: int = 65_536
    """Position values pondering keeps for the next turns (`ScoreCache`); 0 keeps none."""
    ponder_boards: int = 48
    """Boards drawn while pondering; their positions are scored likeliest first until the opponent's turn ends."""
    moves_to_go: int = 30
    """Without a time manager's budget, the clock is spread over this many future turns."""
    reserve_seconds: float = 8.0
    """Without a time manager's budget, seconds of the clock never planned with."""
    budget_cap_divisor: float = 6.0
    """Without a time manager's budget, a move takes at most this share (1/x) of the usable clock."""
    increment_share: float = 0.5
    """Without a time manager's budget, share of the increment each move spends."""
    unclocked_move_seconds: float = 2.0
    """A move's budget when the clock is unbounded (a game with no clock: ``sprt``'s default); also its hard budget."""
    panic_seconds: float = 15.0
    """Below this clock the engine is skipped: the proxy alone picks the move."""
    panic_budget: float = 0.3
    """A timed search given a budget below this skips the engine too."""
    panic_boards: int = 8
    """Boards the proxy reads when the engine is skipped."""
    panic_safety_boards: int = 16
    """Exposure boards when the engine is skipped."""
    hunt_material: float = HUNT_MATERIAL
    """From this mean material lead (pawns) on, hunt the king; ``inf`` never hunts."""
    hunt_weight: float = 0.03
    """Score added to the engine's own move on the hunted boards, in proportion to their weight share."""
    hunt_boards: int = 4
    """On how many of the likeliest sampled boards the engine chooses its move while hunting."""
    hunt_share: float = 0.3
    """Share of the move's budget those hunting searches take."""

    def __post_init__(self) -> None:
        check_types(self)
        counts = (
            "boards", "candidates", "engines", "min_boards", "panic_boards", "hunt_boards", "second_look_candidates", "ponder_boards",
        )
        for name in counts:
            if getattr(self, name) < 1:
                raise MoveSelectionError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if self.search_depth < 0:
            raise MoveSelectionError(f"search_depth must be >= 0 (0: search by time), got {self.search_depth!r}")
        for name in ("worst_case_weight", "candidate_share", "hunt_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise MoveSelectionError(f"{name} must be in [0, 1], got {getattr(self, name)!r}")
        if not 0.0 < self.unclocked_move_seconds < math.inf:
            raise MoveSelectionError(f"unclocked_move_seconds must be a finite number > 0, got {self.unclocked_move_seconds!r}")
        if self.score_cache < 0:
            raise MoveSelectionError(f"score_cache must be >= 0 (0 keeps none), got {self.score_cache!r}")
        if self.board_seconds <= 0.0 or self.budget_cap_divisor < 1.0:
            raise MoveSelectionError(
                f"need board_seconds > 0 and budget_cap_divisor >= 1, got {self.board_seconds!r}, {self.budget_cap_divisor!r}"
            )
        self.search_rule  # noqa: B018  # refuses an impossible rule now, not at the first move

    @property
    def search_rule(self) -> SearchRule:
        """The timed search's rule from `search_share`, `search_overhead` and `max_position_seconds`."""
        return SearchRule(self.search_share, self.search_overhead, self.max_position_seconds)

    @property
    def engine_options(self) -> dict[str, int]:
        """The UCI options every engine gets."""
        return {"Threads": self.engine_threads, "Hash": self.engine_hash_mib}
