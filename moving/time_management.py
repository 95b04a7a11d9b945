"""How much of the clock a sense and a move may take.

RBC's clock is a chess clock with an increment: ``seconds_left`` runs down during our turn
(sense, move and the belief updates between them) and grows by the increment ``inc`` after
it. A bot that spends a fixed amount per turn is either too slow at short clocks or leaves
most of a long clock unused (docs/clock.md). The rule here is the classic engine one, adapted
to a game whose length we cannot see:

.. code-block:: text

    usable     = max(0, seconds_left - reserve)
    turns_left = max(min_turns_left, expected_turns - turn)                 short game (own turns)
               = max(min_turns_left, E[L - turn | L > turn])                long game: L, the game's own turns, log-normal
    weight     = difficulty                                                 short game
               = difficulty / (mean difficulty of the game's turns so far)  long game
    base       = usable / turns_left + increment_share * inc
    cap        = min(usable / cap_divisor + increment_share * inc, usable / 2)
    turn       = min(base * weight, cap) - overhead
    sense      = sense_share * turn,      move = (1 - sense_share) * turn
    hard       = max(move, min(hard_factor * move, cap - overhead))
    move, hard += what the sense left unused     (`Allotment.after_sense`; long games only)
    move, hard *= min(1, work / move)            (`Allotment.within`; long games only)

* In a short game ``usable / turns_left`` spends a share of the bank that grows as the game goes on: over the
  first ``expected_turns - min_turns_left`` turns the bank shrinks to
  ``min_turns_left / expected_turns`` of itself (the product telescopes), then by a factor
  ``1 - 1/min_turns_left`` a turn. With the defaults (30, 12) a game of 25 own turns uses about
  78% of the starting clock, and a longer game more; the increment is spent almost entirely
  each turn, as it comes. That is what makes the bot use most of a short clock in a game of
  ordinary length, and still have a bank in a long endgame.
* In a long game the horizon is the game's expected own turns still to play, given that it has
  lasted ``turn`` (`residual_turns`): the game's length ``L`` in own turns is log-normal, median
  ``m = game_median_turns`` and ``sigma = game_turns_sigma`` (the spread of ``log L``), fitted to
  the records of games against StrangeFish2 at 900 + 5 (28 to 75 own turns, mean 46;
  experiments/game_lengths.py). With ``mu = log m``, ``Phi`` the standard normal distribution
  function and ``mean = exp(mu + sigma^2 / 2)``:

  .. code-block:: text

      E[L - t | L > t] = mean * Phi((mu + sigma^2 - log t) / sigma) / Phi((mu - log t) / sigma) - t     (t > 0; E[L] at t = 0)

  Why this horizon: if a turn's value grows as the log of its seconds (the measured returns of
  more time fall off fast, docs/clock.md), the spending that maximises the expected value of
  the turns a game actually plays, ``sum_t P(L > t) log s_t`` for a bank ``B = sum_t s_t``, is
  ``s_t = B P(L > t) / E[L]``; planned afresh from the bank ``B_t`` left at turn ``t`` it is
  ``s_t = B_t P(L > t) / sum_{u >= t} P(L > u) = B_t / E[L - t | L > t]``. At the defaults
  (median 44, sigma 0.35) the horizon is 47 own turns at the first, 27 at the 20th, 15 at the
  46th and never under 13: a game of 46 own turns leaves its last turn more than half what its
  first got (the old horizon of 30 turns, 0.23 of it; docs/clock.md, "A time plan for long
  games"), and the tail, which grows again (a game that has lasted 90 turns is likely a long
  endgame), keeps a bank for games of 100 turns and more. The weight is relative in a long game
  (a turn gets its difficulty against the game's own mean so far), so a game whose every turn is
  hard still spends the bank at the horizon's pace instead of by its 30th turn. The price is
  paid by quick games, which end with more of the clock unspent (at 900 + 5, 82% of the clock
  used over the records' lengths, where the fixed horizon used 93%).
* ``difficulty`` (0.5 to 2) scales the turn with how much there is to decide: a belief of many
  boards needs more samples and more senses; a threat to our king deserves more; a certain
  board with nothing at stake deserves less (`difficulty`). A close call between the best
  moves is the selector's business: it may run past ``move`` up to ``hard`` (see
  :mod:`blindchess.moving.stockfish_selector`).
* ``work`` is what the move can still buy: the seconds the selector would need to cover its
  belief (a selector that can say so reports it, `blindchess.moving.base.CoverageReporter`;
  otherwise ``cover_board_seconds`` a board, `cover_seconds`). A turn on a belief of a few boards
  cannot use a long budget; what it does not take stays in the bank for the turns after it.
* The cap keeps a single turn from eating the bank (the increment is earned after the turn,
  so a turn never plans with more than half of what it has now), and ``reserve`` is never planned with:
  it pays for the belief updates, which the bot does not control, and for the callbacks'
  overhead. The time the bot's own bookkeeping takes per turn (measured, `overhead`) is taken
  off ``turn`` before it is split.

A game whose clock starts with `long_clock` seconds or more (default 600: the competitions'
900 + 5) is a long game: its horizon is the fitted game length, its weight relative, the move
gets what the sense left unused (capped by the work it can buy), and the selector searches by
its own fuller rule. A shorter game keeps the spending judged at short clocks: the fixed
horizon, the sense's unused share stays on the clock and the selector searches by the short rule
the manager hands it (`TimeManager.search_rule`, through ``MoveContext.search``). The fuller
spending is needed to use a long clock and was measured to cost strength at short ones
(docs/clock.md, "Only in long games"), so each kind of game keeps the spending it was measured with.

Nothing here can lose on time by itself: a turn that takes its whole sense and hard move
budgets plus its overhead spends at most ``sense + hard + overhead <= 1.2 cap <= 0.6 usable``,
so the clock never falls below ``reserve`` (`tests/unit/moving/test_time_management.py` plays that
worst case for whole games, short and long).
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

    def within(self, work: float) -> Allotment:
        """The move's share shrunk to the `work` seconds it can still buy: move and hard scaled by ``min(1, work / move)``.

        A belief of a few boards is covered, every candidate searched deep on every board, long
        before a long clock's budget runs out; the rest of the budget would buy nothing and
        stays in the bank for the turns after. An unbounded plan (no clock) stays unbounded:
        the selector's own limits apply.

        >>> Allotment(sense=0.0, move=20.0, hard=50.0).within(4.0)
        Allotment(sense=0.0, move=4.0, hard=10.0)
        >>> Allotment(sense=0.0, move=20.0, hard=50.0).within(30.0)
        Allotment(sense=0.0, move=20.0, hard=50.0)
        """
        if not math.isfinite(self.move) or self.move <= max(0.0, work):
            return self
        shrink = max(0.0, work) / self.move
        return Allotment(self.sense, self.move * shrink, self.hard * shrink)


@dataclass(frozen=True, slots=True)
class TimeManager(Settings):
    """The clock plan of the module docstring: the ``clock`` table of the flagship's settings.

    >>> manager = TimeManager()
    >>> round(manager.allot(900.0, 5.0, turn=0, start_seconds=900.0).move, 2)  # a 15-minute game's first move
    18.65
    >>> round(manager.allot(900.0, 5.0, turn=0).move, 2)  # ... planned for 30 turns, as a short game is
    27.19
    >>> round(manager.allot(30.0, 1.0, turn=0, start_seconds=30.0).move, 2)   # a 30-second game's
    1.27
    >>> manager.allot(5.0, 0.0, turn=10)                   # under the reserve: nothing to plan with
    Allotment(sense=0.0, move=0.0, hard=0.0)
    """

    reserve: Annotated[float, Bound(ge=0.0)] = 8.0
    """Seconds of the clock never planned with."""
    expected_turns: int = 30
    """Own turns a short game is expected to last, from the start (at least `min_turns_left`; a long game's horizon is `residual_turns`)."""
    min_turns_left: Count = 12
    """The fewest own turns the bank is ever spread over."""
    game_median_turns: Annotated[float, Bound(gt=0.0, lt=math.inf)] = 44.0
    """Median own turns of a long game: the log-normal fit to the games against StrangeFish2 at 900 + 5 (experiments/game_lengths.py)."""
    game_turns_sigma: Annotated[float, Bound(gt=0.0, lt=math.inf)] = 0.35
    """Spread of a long game's length: the standard deviation of the log of its own turns (the fit's, for a new game)."""
    cover_board_seconds: Annotated[float, Bound(gt=0.0, lt=math.inf)] = 4.0
    """In a long game, the seconds the move may take per board of its belief when the selector cannot say what
    covering it would take (`cover_seconds`): 8 candidates searched 0.5 s each."""
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

    def turns_left(self, turn: int, long_game: bool = False) -> float:
        """Own turns the bank is spread over at own turn `turn` (0-based): ``expected_turns - turn`` in a short
        game, `residual_turns` in a long one, never under `min_turns_left`.

        >>> manager = TimeManager()
        >>> manager.turns_left(0), manager.turns_left(25), round(manager.turns_left(0, long_game=True), 1)
        (30, 12, 46.8)
        """
        left = self.residual_turns(turn) if long_game else self.expected_turns - max(0, turn)
        return max(self.min_turns_left, left)

    def residual_turns(self, turn: int) -> float:
        """``E[L - turn | L > turn]``: own turns still to play, this one included, in a long game that has lasted
        `turn` own turns, its length ``L`` log-normal (the module docstring has the formula and why).

        ``Phi`` is computed as ``erfc(-x / sqrt 2) / 2``, exact in the tail where ``1 + erf`` would cancel;
        where even that underflows (``Phi`` under 1e-300, millions of turns) the tail's asymptote
        ``sigma^2 t / (log t - mu)`` stands in.

        >>> [round(TimeManager().residual_turns(t)) for t in (0, 20, 46, 75, 120)]
        [47, 27, 15, 13, 14]
        """
        mu, sigma = math.log(self.game_median_turns), self.game_turns_sigma
        mean = math.exp(mu + sigma * sigma / 2.0)
        if turn <= 0:
            return mean
        below = (mu - math.log(turn)) / sigma
        survival = _normal_cdf(below)
        if survival < 1e-300:
            return sigma * sigma * turn / (math.log(turn) - mu)
        return max(0.0, mean * _normal_cdf(below + sigma) / survival - turn)

    def cover_seconds(self, boards: int) -> float:
        """The seconds a move on a belief of `boards` boards can use when its selector cannot say
        (`blindchess.moving.base.CoverageReporter`): ``cover_board_seconds`` a board, one board at least.

        >>> TimeManager().cover_seconds(1), TimeManager().cover_seconds(60_000) > 10_000
        (4.0, True)
        """
        return max(1, boards) * self.cover_board_seconds

    def allot(
        self,
        seconds_left: float,
        increment: float,
        turn: int,
        difficulty: float = 1.0,
        overhead: float = 0.0,
        *,
        start_seconds: float = 0.0,
        mean_difficulty: float = 1.0,
    ) -> Allotment:
        """The plan for the turn that starts with `seconds_left` on the clock (see the module docstring).

        Args:
            seconds_left: our clock now (``math.inf`` for an untimed game: the plan is then
                unbounded and the caller's own limits apply).
            increment: seconds added after each of our turns.
            turn: our own turn number, 0-based.
            difficulty: the turn's weight, clipped to [0.5, 2] (see `difficulty`).
            overhead: seconds per turn the bot spends outside the planner and selector.
            start_seconds: our clock at our first turn: a long game (`is_long`) plans by the
                game's length and relative weights (the default, 0, plans a short game).
            mean_difficulty: in a long game, the mean difficulty of the game's turns so far,
                this one included: the turn is weighted ``difficulty / mean_difficulty``.
        """
        long_game = self.is_long(start_seconds)
        weight = _clipped(difficulty) / _clipped(mean_difficulty) if long_game else difficulty
        turn_seconds = self._turn_seconds(seconds_left, increment, turn, weight, long_game)
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
        """``min(base * difficulty, cap)`` of the module docstring in a short game: the turn's seconds before the overhead
        and the split.

        With the defaults (turn 0, difficulty 1) it is also the whole plan of a selector that no
        bot hands a budget (`blindchess.moving.stockfish_selector.StockfishMoveSelector.budget`):
        the clock is planned here and nowhere else.

        >>> TimeManager().turn_budget(68.0, 0.0)  # (68 - 8) / 30
        2.0
        """
        return self._turn_seconds(seconds_left, increment, turn, difficulty, long_game=False)

    def _turn_seconds(self, seconds_left: float, increment: float, turn: int, weight: float, long_game: bool) -> float:
        """``min(base * weight, cap)``, the weight clipped to [0.5, 2]."""
        if math.isinf(seconds_left):
            return math.inf
        usable = max(0.0, seconds_left - self.reserve)
        if usable <= 0.0:
            return 0.0
        earned = self.increment_share * max(0.0, increment)
        return min((usable / self.turns_left(turn, long_game) + earned) * _clipped(weight), self._cap(usable, increment))

    def _cap(self, usable: float, increment: float) -> float:
        return min(usable / self.cap_divisor + self.increment_share * max(0.0, increment), usable / 2.0)


def _normal_cdf(x: float) -> float:
    """The standard normal distribution function, accurate in its lower tail (`erfc`, not ``1 + erf``)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _clipped(weight: float) -> float:
    """A turn's weight within [0.5, 2]."""
    return float(min(2.0, max(0.5, weight)))


def difficulty(boards: int, king_threat: float) -> float:
    """A turn's weight in [0.5, 2]: ``(0.75 + 0.25 log10 boards) * (1 + 2 king_threat)``.

    One known board weighs 0.75, ten 1.0, a thousand 1.5, sixty thousand about 1.95; a
    probability `king_threat` that our king is attacked now raises it up to threefold (to the
    cap): that is where games are lost in one move.

    >>> difficulty(1, 0.0), difficulty(10, 0.0), round(difficulty(1000, 0.25), 2)
    (0.75, 1.0, 2.0)
    """
    return _clipped((0.75 + 0.25 * math.log10(max(1, boards))) * (1.0 + 2.0 * min(1.0, max(0.0, king_threat))))
