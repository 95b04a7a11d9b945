"""`BeliefBot`: a player composed of a belief, a sense planner and a move selector.

The bot receives the arbiter's observation events through the one callback adapter
(:class:`~blindchess.arbiter.game.observing_player.ObservingPlayer`), folds them into the
belief, asks the planner where to sense and the selector what to move, and measures the
clock increment from its own clock readings (the `Player` API does not tell it).

Robustness, because a bot that crashes or flags loses the game:

* An update that raises `InconsistentObservationError` (no board the belief holds explains
  what was seen, e.g. the truth fell past the size cap) rebuilds the belief by replaying
  every event so far into a fresh one, dropping only the sense results it cannot fit; if
  even that fails, the bot keeps its last good belief and plays on with it (`belief_stale`).
  A malformed event (`MalformedObservationError`) is logged and dropped. No copy is needed
  for any of it: an update that raises leaves the belief exactly as it was (the `Belief`
  protocol's contract), so the last good belief is the belief itself.
* A planner or selector that raises is logged at ERROR and replaced for that call by the safe
  choice (no sense, or a pass), never propagated to the arbiter; each such call is counted in
  `failures` for the game, and `failure_report` words the counts, which the tournament's game
  task adds to the game's faults (so a match, an SPRT or a tournament shows them).
* Stockfish crashes are absorbed by the engine pool (restart and retry, see
  :mod:`blindchess.evaluation.stockfish`).
* Under `low_clock_seconds` the planner is skipped (no sense) so the move gets what is left.

Time: with a `TimeManager` (:mod:`blindchess.moving.time_management`) the bot plans each turn
when it is asked to sense: the turn's weight comes from the belief's size and the share of
`difficulty_boards` sampled boards on which our king is attacked or nearly so (`difficulty`), the bot's own
overhead per turn (belief updates and bookkeeping: the turn's wall time minus what the
planner and selector took, averaged) is taken off, and the sense and move budgets reach the
planner and selector through their contexts. In a game the manager calls long (by the clock
at the bot's first turn, `TimeManager.is_long`) what the sense leaves unused goes to the move
(`Allotment.after_sense`), the move is capped by the seconds it can still buy on the belief
(`Allotment.within`: the selector's own word if it is a `CoverageReporter`, else
`TimeManager.cover_seconds`), and each turn's weight counts against the game's mean; the manager
also hands the selector the game's search rule (`TimeManager.search_rule`, in `MoveContext.search`).
Without a manager, each keeps its own fixed plan.

Thinking on the opponent's turn (`ponder`, run by :mod:`blindchess.arbiter.sandbox.pondering` between
our move and our next turn): the bot expands a copy of its belief over every opponent move
that captures nothing, the answer to the most common next event. When that event comes
(``OpponentMoved(None)``) the copy replaces the belief instead of expanding it again; after a
capture the copy is dropped and the belief expands as usual. The expansion is the costliest
update of a turn (seconds, on a large set), so pondering takes it off our clock. Then, on that
expanded belief (our moves next turn are known: nothing of ours was captured), it chooses the
next sense with the planner, which the next turn takes as it is if the belief it was chosen on
is the belief the turn begins with; and a selector that can ponder (`PonderingSelector`, the
Stockfish selector) scores the positions the next move will likely ask for, until stopped.
Pondering draws from its own generator, so the bot's own draws are those of a game without it.

Example::

    bot = BeliefBot(lambda: BoardSet(max_boards=50_000), EntropySensePlanner(), StockfishMoveSelector(), rng=7)
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Optional

import chess
import numpy as np

from blindchess.arbiter import (
    GameEnded,
    GameStarted,
    MoveResult,
    Observation,
    ObservingPlayer,
    OpponentMoved,
    SenseResult,
    Square,
)
from blindchess.arbiter.rules.fast_actions import move_actions as own_move_actions
from blindchess.beliefs.base import Belief, BeliefError, MalformedObservationError
from blindchess.beliefs.samples import draw
from blindchess.moving.base import CoverageReporter, MoveContext, MoveSelector, PonderingSelector
from blindchess.moving.time_management import Allotment, TimeManager, difficulty
from blindchess.sensing.base import ClosingPlanner, SenseContext, SensePlanner

from .game_state import GameState
from .random_bot import SeedLike

logger = logging.getLogger(__name__)


class BeliefBot(ObservingPlayer):
    """A composable RBC player.

    Args:
        belief_factory: builds a fresh, uninitialised belief (called at game start and on rebuilds).
        sense_planner: chooses the sense square.
        move_selector: chooses the move; closed at the end of each game.
        rng: seed or generator for every random choice the bot makes.
        low_clock_seconds: below this clock the bot does not sense.
        difficulty_boards: boards sampled each turn to weigh its difficulty (with a time manager).
        time_manager: plans each turn's sense and move time (None: the planner and selector
            keep their own fixed plans).
    """

    def __init__(
        self,
        belief_factory: Callable[[], Belief],
        sense_planner: SensePlanner,
        move_selector: MoveSelector,
        rng: SeedLike = None,
        *,
        low_clock_seconds: float = 12.0,
        difficulty_boards: int = 64,
        time_manager: Optional[TimeManager] = None,
    ) -> None:
        self.belief_factory = belief_factory
        self.sense_planner = sense_planner
        self.move_selector = move_selector
        self.rng = np.random.default_rng(rng)
        self.low_clock_seconds = low_clock_seconds
        self.difficulty_boards = difficulty_boards
        self.time_manager = time_manager
        self.game = GameState(belief_factory())
        """What the bot learned in the game it plays (a fresh `GameState` at every `GameStarted`)."""
        self._ponder_rng: Optional[np.random.Generator] = None

    @property
    def belief(self) -> Belief:
        """The belief of the game in play."""
        return self.game.belief

    # ------------------------------------------------------------------ belief upkeep

    def observe(self, event: Observation) -> None:
        """Fold one event into the belief, rebuilding it if the event contradicts it."""
        if isinstance(event, GameStarted):
            self.game = GameState(self.belief_factory())
        elif isinstance(event, OpponentMoved):
            self.game.capture_square = event.capture_square
            self.game.turn_start, self.game.thinking = time.monotonic(), 0.0
        self.game.events.append(event)
        pondered, self.game.pondered = self.game.pondered, None
        if isinstance(event, OpponentMoved) and event.capture_square is None and pondered and pondered[0] is self.belief:
            self.game.belief = pondered[1]  # what `update(event)` would compute: done on the opponent's time
            self.game.pondered_turns += 1
            return
        try:
            self.belief.update(event)
        except MalformedObservationError as error:
            logger.error("dropped a malformed event (%s); the belief is unchanged", error)
            self.game.events.pop()  # no rebuild can use it
        except BeliefError as error:
            if self.game.belief_stale:
                return  # the update changed nothing: the belief is still the last good one
            logger.warning("belief update failed (%s: %s); rebuilding from %d events", type(error).__name__, error, len(self.game.events))
            self.game.rebuilds += 1
            rebuilt = self._rebuilt()
            self.game.belief_stale = rebuilt is None
            if rebuilt is not None:
                self.game.belief = rebuilt
        finally:
            if isinstance(event, MoveResult):
                self.game.turn_end = time.monotonic()
                self._end_turn(self.game.turn_end)
            elif isinstance(event, GameEnded):
                logger.info(
                    "game over after %d turns: %d began on the pondered belief, %d sensed where pondering chose",
                    self.game.turns, self.game.pondered_turns, self.game.pondered_senses,
                )
                self.close()

    def close(self) -> None:
        """Stop the selector's engines and the planner's, if it holds any (they start again when next needed).

        The end of a game does this; a caller that drives the bot without ending a game (an experiment
        that plays one turn) calls it, or each turn leaves its Stockfish processes running.
        """
        self.move_selector.close()
        if isinstance(self.sense_planner, ClosingPlanner):
            self.sense_planner.close()

    def ponder(self, stop: threading.Event) -> None:
        """Expand a copy of the belief over the opponent's non-capturing moves (see the module docstring).

        One expansion, not interruptible: if our turn starts first, the arbiter's wrapper
        waits for it on our clock, and the turn then uses it.
        """
        if stop.is_set() or self.game.belief_stale:
            return
        origin = self.belief
        expanded = origin.copy()
        try:
            expanded.update(OpponentMoved(None))
        except BeliefError:
            return  # the real event will meet the same problem and be handled there
        self.game.pondered = (origin, expanded)
        if self._ponder_rng is None:
            self._ponder_rng = self.rng.spawn(1)[0]  # spawning draws nothing from the bot's own generator
        rng = self._ponder_rng
        boards = expanded.sample(1, rng)
        if stop.is_set() or not boards or not self.game.sense_actions:
            return
        board = boards[0]
        board.turn = self.color
        moves = own_move_actions(board)  # ours only: the same on every board of the belief
        context = SenseContext(self.color, None, tuple(moves), None if self.game.allotment is None else self.game.allotment.sense)
        turn_end = self._clock_at_turn_end()  # the clock stands still until our next turn, which adds the increment
        next_clock = math.inf if turn_end is None else turn_end + self.game.increment
        square = self.sense_planner.choose_sense(expanded, self.game.sense_actions, next_clock, rng, context)
        self.game.pondered_sense = (expanded, tuple(moves), square)
        if isinstance(self.move_selector, PonderingSelector):
            self.move_selector.ponder(expanded, moves, self.color, stop, rng)

    def _rebuilt(self) -> Optional[Belief]:
        """A fresh belief fed every event so far, skipping sense results it cannot fit; None if impossible."""
        belief = self.belief_factory()
        kept: list[Observation] = []
        for event in self.game.events:
            try:
                belief.update(event)
            except BeliefError:
                if isinstance(event, SenseResult):
                    continue
                logger.error("cannot rebuild the belief past %r; keeping the last good one", event)
                return None
            kept.append(event)
        self.game.events = kept
        return belief

    # ------------------------------------------------------------------ choices

    def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
        self._measure_increment(seconds_left)
        if self.game.turn_start is None:
            self.game.turn_start, self.game.thinking = time.monotonic(), 0.0
        if self.game.start_clock is None:
            self.game.start_clock = seconds_left
        self.game.allotment, self.game.sense_seconds = self._plan(seconds_left), 0.0
        if seconds_left < self.low_clock_seconds:
            return None
        self.game.sense_actions = sense_actions
        pondered, self.game.pondered_sense = self.game.pondered_sense, None
        if pondered is not None and pondered[0] is self.belief and pondered[1] == tuple(move_actions):
            self.game.pondered_senses += 1
            return pondered[2] if pondered[2] in sense_actions else None
        budget = None if self.game.allotment is None else self.game.allotment.sense
        context = SenseContext(self.color, self.game.capture_square, tuple(move_actions), budget)
        started = time.monotonic()
        try:
            square = self.sense_planner.choose_sense(self.belief, sense_actions, seconds_left, self.rng, context)
        except Exception as error:
            self._failed("choose_sense", error, "not sensing")
            square = None
        self.game.sense_seconds = time.monotonic() - started
        self.game.thinking += self.game.sense_seconds
        return square if square in sense_actions else None

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        started = time.monotonic()
        self.game.move_clock = (seconds_left, started)
        if self.game.allotment is None or self.time_manager is None or self.game.start_clock is None:
            context = MoveContext(self.color, self.game.increment)
        else:
            long_game = self.time_manager.is_long(self.game.start_clock)
            allotment = self.game.allotment
            if long_game:
                allotment = allotment.after_sense(self.game.sense_seconds).within(self._work(move_actions))
            search = self.time_manager.search_rule(self.game.start_clock)
            context = MoveContext(self.color, self.game.increment, allotment.move, allotment.hard, search=search)
        try:
            move = self.move_selector.choose_move(self.belief, move_actions, seconds_left, self.rng, context)
        except Exception as error:
            self._failed("choose_move", error, "passing")
            move = None
        self.game.thinking += time.monotonic() - started
        return move if move in move_actions else None

    def _work(self, move_actions: list[chess.Move]) -> float:
        """Seconds this move can still buy on the belief: the selector's own word (`CoverageReporter`), else the clock plan's."""
        assert self.time_manager is not None
        if isinstance(self.move_selector, CoverageReporter):
            try:
                return self.move_selector.cover_seconds(self.belief, move_actions, self.color)
            except Exception as error:
                self._failed("cover_seconds", error, "capping the move by the clock plan's estimate")
        return self.time_manager.cover_seconds(len(self.belief))

    def _failed(self, callback: str, error: Exception, instead: str) -> None:
        """Count and log (at ERROR, with the traceback) a planner or selector call that raised."""
        self.game.failures[callback] += 1
        self.game.first_failure.setdefault(callback, f"{type(error).__name__}: {error}")
        logger.exception("%s failed (%d this game); %s", callback, self.game.failures[callback], instead)

    def failure_report(self) -> tuple[str, ...]:
        """One line per callback that failed this game: how often, and the first error (empty: none failed)."""
        return tuple(
            f"{callback} raised on {count} turn{'s' if count > 1 else ''} (first: {self.game.first_failure[callback]})"
            for callback, count in sorted(self.game.failures.items())
        )

    # ------------------------------------------------------------------ time

    def _plan(self, seconds_left: float) -> Optional[Allotment]:
        """This turn's allotment from the time manager (None without one)."""
        if self.time_manager is None:
            return None
        levels = draw(self.belief, self.difficulty_boards, self.rng, self.color).threat_levels()
        threat = float(((levels == 2) + (levels == 1) / 3.0).mean()) if len(levels) else 0.0
        weight = difficulty(len(self.belief), threat)
        self.game.difficulty_total += weight
        mean = self.game.difficulty_total / (self.game.turns + 1)
        start = self.game.start_clock if self.game.start_clock is not None else seconds_left
        return self.time_manager.allot(
            seconds_left, self.game.increment, self.game.turns, weight, self.game.overhead, start_seconds=start, mean_difficulty=mean
        )

    def _end_turn(self, now: float) -> None:
        """Count the turn and fold its overhead (wall time less thinking) into the moving average."""
        if self.game.turn_start is not None:
            spent = max(0.0, now - self.game.turn_start - self.game.thinking)
            self.game.overhead = spent if self.game.turns == 0 else 0.7 * self.game.overhead + 0.3 * spent
        self.game.turns += 1
        self.game.turn_start = None

    # ------------------------------------------------------------------ clock

    def _clock_at_turn_end(self) -> Optional[float]:
        """Our clock when our last turn ended (None before one): the clock at the move less the move's time."""
        if self.game.move_clock is None or self.game.turn_end is None:
            return None
        clock_at_move, started = self.game.move_clock
        return clock_at_move - (self.game.turn_end - started)

    def _measure_increment(self, seconds_left: float) -> None:
        """Estimate the increment: the clock now minus the clock when our last turn ended."""
        clock_at_turn_end = self._clock_at_turn_end()
        if clock_at_turn_end is not None:
            self.game.increment = max(0.0, round(seconds_left - clock_at_turn_end, 1))
