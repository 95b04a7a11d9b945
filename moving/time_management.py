"""How much of the clock a sense and a move may take.

RBC's clock is a chess clock with an increment: ``seconds_left`` runs down during our turn
(sense, move and the belief updates between them) and grows by the increment ``inc`` after
it. A bot that spends a fixed amount per turn is either too slow at short clocks or leaves
most of a long clock unused (docs/clock.md). The rule here is the classic engine one, adapted
to a game whose length we cannot see:

.. code-block:: text

    usable     = max(0, seconds_left - reserve)
    turns_left = max(min_turns_left, expected_turns - turn)            (own turns)
    base       = usable / turns_left + increment_share * inc
    cap        = min(usable / cap_divisor + increment_share * inc, usable / 2)
    turn       = min(base * difficulty, cap) - overhead
    sense      = sense_share * turn,      move = (1 - sense_share) * turn
    hard       = max(move, min(hard_factor * move, cap - overhead))
    move, hard += what the sense left unused     (`Allotment.after_sense`; long games only)

* ``usable / turns_left`` spends a share of the bank that grows as the game goes on: over the
  first ``expected_turns - min_turns_left`` turns the bank shrinks to
  ``min_turns_left / expected_turns`` of itself (the product telescopes), then by a factor
  ``1 - 1/min_turns_left`` a turn. With the defaults (30, 12) a game of 25 own turns uses about
  78% of the starting clock, and a longer game more; the increment is spent almost entirely
  each turn, as it comes. That is what makes the bot use most of a long clock in a game of
  ordinary length, and still have a bank in a long endgame.
* ``difficulty`` (0.5 to 2) scales the turn with how much there is to decide: a belief of many
  boards needs more samples and more senses; a threat to our king deserves more; a certain
  board with nothing at stake deserves less (`difficulty`). A close call between the best
  moves is the selector's business: it may run past ``move`` up to ``hard`` (see
  :mod:`blindchess.moving.stockfish_selector`).
* The cap keeps a single turn from eating the bank (the increment is earned after the turn,
  so a turn never plans with more than half of what it has now), and ``reserve`` is never planned with:
  it pays for the belief updates, which the bot does not control, and for the callbacks'
  overhead. The time the bot's own bookkeeping takes per turn (measured, `overhead`) is taken
  off ``turn`` before it is split.

A game whose clock starts with `long_clock` seconds or more (default 600: the competitions'
900 + 5) is a long game: the move gets what the sense left unused and the selector searches by
its own fuller rule. A shorter game keeps the spending judged at short clocks: the sense's
unused share stays on the clock and the selector searches by the short rule the manager hands
it (`TimeManager.search_rule`, through ``MoveContext.search``). The fuller spending is needed
to use a long clock and was measured to cost strength at short ones (docs/clock.md, "Only in
long games"), so each kind of game keeps the spending it was measured with.

Nothing here can lose on time by itself: a turn that takes its whole sense and hard move
budgets plus its overhead spends at most ``sense + hard + overhead <= 1.2 cap <= 0.6 usable``,
so the clock never falls below ``reserve`` (`tests/unit/moving/test_time_management.py` plays that
worst case for whole games).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated

from blindchess.config_tree import Bound, Count, Settings, Share
from blindchess.errors import BlindchessError

from .base import SearchRule


class TimeManagementError(BlindchessError, ValueError):
    """Settings that cannot make a time plan (the message names the setting)."""


@dataclass(frozen=True, slots=True)
class Allotment:
    """Seconds for one turn's sense and move.

    Attributes:
        sense: what the sense planner should take.
        move: what the move selector should aim for.
        hard: what the move selector may take on a close call (at least `move`).
    """

    sense: float
    move: float
    hard: float

    def after_sense(self, spent: float) -> Allotment:
        """The move's share once the sense took `spent` seconds: what the sense left unused goes to the move.

        A turn's time is one pot: the value-of-information planner often decides in a small
        fraction of its sense budget on a small belief (docs/clock.md), and without this the
        unused share of every such turn would stay on the clock. A sense that
        overran takes nothing from the move (the next turn's plan sees the clock). A turn whose
        sense kept to its share still spends at most ``sense + hard``, so the module's
        no-loss-on-time bound holds.

        >>> Allotment(sense=4.0, move=16.0, hard=40.0).after_sense(0.5)
        Allotment(sense=0.0, move=19.5, hard=43.5)
        """
        unused = max(0.0, self.sense - max(0.0, spent))
        return Allotment(0.0, self.move + unused, self.hard + unused)


@dataclass(frozen=True, slots=True)
class TimeManager(Settings):
    """The clock plan of the module docstring: the ``clock`` table of the flagship's settings.

    >>> manager = TimeManager()
    >>> round(manager.allot(900.0, 5.0, turn=0).move, 2)  # a 15-minute game's first move
    27.19
    >>> round(manager.allot(30.0, 1.0, turn=0).move, 2)   # a 30-second game's
    1.27
    >>> manager.allot(5.0, 0.0, turn=10)                   # under the reserve: nothing to plan with
    Allotment(sense=0.0, move=0.0, hard=0.0)
    """

    reserve: Annotated[float, Bound(ge=0.0)] = 8.0
    """Seconds of the clock never planned with."""
    expected_turns: int = 30
    """Own turns a game is expected to last, from the start (at least `min_turns_left`)."""
    min_turns_left: Count = 12
    """The fewest own turns the bank is ever spread over."""
    increment_share: Share = 0.85
    """Share of the increment spent in the turn that earns it."""
    sense_share: Share = 0.2
    """Share of a turn's time given to the sense."""
    cap_divisor: Annotated[float, Bound(ge=1.0)] = 6.0
    """One turn takes at most ``usable / cap_divisor`` plus its increment share (and never more than half of ``usable``)."""
    hard_factor: Annotated[float, Bound(ge=1.0)] = 2.5
    """A close call may take this many times the move's share."""
    long_clock: Annotated[float, Bound(ge=0.0, note="seconds")] = 600.0
    """A game whose clock starts with at least this many seconds is a long game (``inf``: none is)."""
    short_search_share: Annotated[float, Bound(gt=0.0, le=1.0)] = 0.7
    """In a short game, share of an evaluation's seconds the selector's searches get (`search_rule`)."""
    short_search_overhead: Annotated[float, Bound(ge=0.0)] = 0.0
    """In a short game, seconds taken off each search's limit."""
    short_search_longest: Annotated[float, Bound(gt=0.0)] = 0.5
    """In a short game, the longest search of one position."""

    bound_error = TimeManagementError

    def __post_init__(self) -> None:
        Settings.__post_init__(self)
        if self.expected_turns < self.min_turns_left:
            raise TimeManagementError(f"expected_turns must be >= min_turns_left ({self.min_turns_left}), got {self.expected_turns!r}")

    def is_long(self, start_seconds: float) -> bool:
        """Whether a game whose clock started at `start_seconds` is a long game (the module docstring).

        >>> TimeManager().is_long(900.0), TimeManager().is_long(300.0)
        (True, False)
        """
        return start_seconds >= self.long_clock

    @property
    def short_search(self) -> SearchRule:
        """The searches of a short game: ``min(longest, share * seconds / positions - overhead)`` each."""
        return SearchRule(self.short_search_share, self.short_search_overhead, self.short_search_longest)

    def search_rule(self, start_seconds: float) -> SearchRule | None:
        """The selector's search rule in a game whose clock started at `start_seconds`: `short_search`
        in a short game, None (the selector's own) in a long one.

        >>> TimeManager().search_rule(900.0) is None, TimeManager().search_rule(60.0) == TimeManager().short_search
        (True, True)
        """
        return None if self.is_long(start_seconds) else self.short_search

    def turns_left(self, turn: int) -> int:
        """Own turns the bank is spread over at own turn `turn` (0-based)."""
        return max(self.min_turns_left, self.expected_turns - max(0, turn))

    def allot(self, seconds_left: float, increment: float, turn: int, difficulty: float = 1.0, overhead: float = 0.0) -> Allotment:
        """The plan for the turn that starts with `seconds_left` on the clock (see the module docstring).

        Args:
            seconds_left: our clock now (``math.inf`` for an untimed game: the plan is then
                unbounded and the caller's own limits apply).
            increment: seconds added after each of our turns.
            turn: our own turn number, 0-based.
            difficulty: the turn's weight, clipped to [0.5, 2] (see `difficulty`).
            overhead: seconds per turn the bot spends outside the planner and selector.
        """
        turn_seconds = self.turn_budget(seconds_left, increment, turn, difficulty)
        if math.isinf(turn_seconds):
            return Allotment(math.inf, math.inf, math.inf)
        usable = max(0.0, seconds_left - self.reserve)
        if usable <= 0.0:
            return Allotment(0.0, 0.0, 0.0)
        cap = self._cap(usable, increment)
        turn_seconds = max(0.0, turn_seconds - max(0.0, overhead))
        move = (1.0 - self.sense_share) * turn_seconds
        return Allotment(self.sense_share * turn_seconds, move, max(move, min(self.hard_factor * move, cap - overhead)))

    def turn_budget(self, seconds_left: float, increment: float, turn: int = 0, difficulty: float = 1.0) -> float:
        """``min(base * difficulty, cap)`` of the module docstring: the turn's seconds before the overhead and the split.

        With the defaults (turn 0, difficulty 1) it is also the whole plan of a selector that no
        bot hands a budget (`blindchess.moving.stockfish_selector.StockfishMoveSelector.budget`):
        the clock is planned here and nowhere else.

        >>> TimeManager().turn_budget(68.0, 0.0)  # (68 - 8) / 30
        2.0
        """
        if math.isinf(seconds_left):
            return math.inf
        usable = max(0.0, seconds_left - self.reserve)
        earned = self.increment_share * max(0.0, increment)
        weight = float(min(2.0, max(0.5, difficulty)))
        return min((usable / self.turns_left(turn) + earned) * weight, self._cap(usable, increment)) if usable > 0.0 else 0.0

    def _cap(self, usable: float, increment: float) -> float:
        return min(usable / self.cap_divisor + self.increment_share * max(0.0, increment), usable / 2.0)


def difficulty(boards: int, king_threat: float) -> float:
    """A turn's weight in [0.5, 2]: ``(0.75 + 0.25 log10 boards) * (1 + 2 king_threat)``.

    One known board weighs 0.75, ten 1.0, a thousand 1.5, sixty thousand about 1.95; a
    probability `king_threat` that our king is attacked now raises it up to threefold (to the
    cap): that is where games are lost in one move.

    >>> difficulty(1, 0.0), difficulty(10, 0.0), round(difficulty(1000, 0.25), 2)
    (0.75, 1.0, 2.0)
    """
    weight = (0.75 + 0.25 * math.log10(max(1, boards))) * (1.0 + 2.0 * min(1.0, max(0.0, king_threat)))
    return float(min(2.0, max(0.5, weight)))
