"""How much a selector searches: a `Deadline` for the move, and a policy for timed or fixed-depth search.

The selector asks its policy how many boards to sample, how many to check for exposure, what
limit each engine search gets and whether a close call may be looked at again. A `Timed`
policy answers from the move's budget (more time buys more boards and longer searches, each
growing as the square root of the budget past `SelectorConfig.boards`); a `FixedDepth` policy
answers the same whatever the clock, which makes the selector deterministic for a seed. The
selector's config picks one (`policy_for`); in a game, the bot's time manager hands over the
timed search's rule (`MoveContext.search`), which a fixed-depth policy ignores.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Optional, Protocol, Union

import chess.engine

from .base import SearchRule
from .selector_config import SelectorConfig


@dataclass(frozen=True, slots=True)
class Deadline:
    """A move's clock: seconds since `started` against its `budget` and, for a close call, its `hard` budget.

    The seconds are `clock`'s: wall time by default, or CPU time (`blindchess.moving.process_clock`).

    >>> deadline = Deadline(started=time.monotonic(), budget=2.0, hard=5.0)
    >>> 1.9 < deadline.left() <= 2.0 and 4.9 < deadline.hard_left() <= 5.0
    True
    """

    started: float
    budget: float
    hard: float
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)

    @classmethod
    def start(cls, budget: float, hard: Optional[float] = None, clock: Callable[[], float] = time.monotonic) -> Deadline:
        """A deadline starting now on `clock`; the hard budget is never below the budget."""
        return cls(clock(), budget, max(budget, budget if hard is None else hard), clock)

    def elapsed(self) -> float:
        return self.clock() - self.started

    def left(self) -> float:
        """Seconds left of the budget (negative once it is spent)."""
        return self.budget - self.elapsed()

    def hard_left(self) -> float:
        """Seconds left of the hard budget."""
        return self.hard - self.elapsed()


class SearchPolicy(Protocol):
    """What a selector's searches may spend (see the module docstring)."""

    @property
    def second_look(self) -> bool:
        """Whether a close call may be scored again while hard budget is left."""
        ...

    def boards(self, budget: float) -> int:
        """Boards to sample for a move of `budget` seconds."""
        ...

    def safety_boards(self, budget: float) -> int:
        """Boards to check our king's exposure on."""
        ...

    def pressed(self, budget: float) -> bool:
        """Whether `budget` is too short to search at all (the proxy alone decides)."""
        ...

    def position_limit(self, seconds: float, positions: int) -> chess.engine.Limit:
        """The limit of each of `positions` position searches sharing `seconds`."""
        ...

    def play_limit(self, seconds: float, floor: float, longest: float = math.inf) -> chess.engine.Limit:
        """The limit of one search for the engine's own move: `seconds`, at least `floor`, at most `longest`
        and the longest search of one position."""
        ...

    def under(self, rule: Optional[SearchRule]) -> SearchPolicy:
        """This policy with the timed search's `rule` replaced (None: unchanged)."""
        ...


@dataclass(frozen=True, slots=True)
class FixedDepth:
    """Every search to `depth`, `board_count` boards and `safety_count` exposure boards, whatever the clock."""

    depth: int
    board_count: int
    safety_count: int
    second_look: bool = False

    def boards(self, budget: float) -> int:
        return self.board_count

    def safety_boards(self, budget: float) -> int:
        return self.safety_count

    def pressed(self, budget: float) -> bool:
        return False

    def position_limit(self, seconds: float, positions: int) -> chess.engine.Limit:
        return chess.engine.Limit(depth=self.depth)

    def play_limit(self, seconds: float, floor: float, longest: float = math.inf) -> chess.engine.Limit:
        return chess.engine.Limit(depth=self.depth)

    def under(self, rule: Optional[SearchRule]) -> FixedDepth:
        return self


@dataclass(frozen=True, slots=True)
class Timed:
    """Searches limited by time: the work scales with the move's budget (see `boards`).

    Attributes:
        rule: how an evaluation's seconds become each search's time limit.
        config: the selector's settings the counts come from.
    """

    rule: SearchRule
    config: SelectorConfig
    second_look: bool = True

    def boards(self, budget: float) -> int:
        """``budget / board_seconds`` up to `boards`, past that ``boards * sqrt(budget / full)`` up to `max_boards`.

        >>> policy = Timed(SelectorConfig().search.rule, SelectorConfig())
        >>> [policy.boards(t) for t in (0.1, 1.0, 1.92, 7.68, 30.0)]
        [2, 12, 24, 48, 94]
        """
        config = self.config
        full = config.boards * config.board_seconds
        if budget <= full:
            return max(config.min_boards, min(config.boards, int(budget / config.board_seconds)))
        return min(max(config.boards, config.max_boards), int(config.boards * math.sqrt(budget / full)))

    def safety_boards(self, budget: float) -> int:
        config = self.config
        return int(min(max(budget * config.safety.boards_per_second, config.safety.min_boards), config.safety.boards))

    def pressed(self, budget: float) -> bool:
        return budget < self.config.panic.budget

    def position_limit(self, seconds: float, positions: int) -> chess.engine.Limit:
        return chess.engine.Limit(time=self.rule.limit(seconds, positions))

    def play_limit(self, seconds: float, floor: float, longest: float = math.inf) -> chess.engine.Limit:
        return chess.engine.Limit(time=max(floor, min(longest, self.rule.longest, seconds)))

    def under(self, rule: Optional[SearchRule]) -> Timed:
        return self if rule is None else dataclasses.replace(self, rule=rule)


def policy_for(config: SelectorConfig) -> Union[FixedDepth, Timed]:
    """The policy `config` asks for: fixed depth when `SearchSettings.depth` is set, else timed."""
    if config.search.depth:
        return FixedDepth(config.search.depth, config.boards, config.safety.boards)
    return Timed(config.search.rule, config)
