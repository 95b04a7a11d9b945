"""`BeliefBot`: a player composed of a belief, a sense planner and a move selector.

The bot receives the arbiter's observation events through the one callback adapter
(:class:`~blindchess.arbiter.observing_player.ObservingPlayer`), folds them into the
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
* A planner or selector that raises is logged and replaced for that call by the safe choice
  (no sense; the selector's panic path or a pass), never propagated to the arbiter.
* Stockfish crashes are absorbed by the engine pool (restart and retry, see
  :mod:`blindchess.evaluation.stockfish`).
* Under `low_clock_seconds` the planner is skipped (no sense) so the move gets what is left.

Example::

    bot = BeliefBot(lambda: BoardSet(max_boards=50_000), EntropySensePlanner(), StockfishMoveSelector(), rng=7)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Optional

import chess
import numpy as np

from blindchess.arbiter import ObservingPlayer, Square
from blindchess.arbiter.observations import (
    GameEnded,
    GameStarted,
    MoveResult,
    Observation,
    OpponentMoved,
    SenseResult,
)
from blindchess.beliefs.base import Belief, BeliefError, MalformedObservationError
from blindchess.moving.base import MoveContext, MoveSelector
from blindchess.sensing.base import SenseContext, SensePlanner

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
    """

    def __init__(
        self,
        belief_factory: Callable[[], Belief],
        sense_planner: SensePlanner,
        move_selector: MoveSelector,
        rng: SeedLike = None,
        *,
        low_clock_seconds: float = 12.0,
    ) -> None:
        self.belief_factory = belief_factory
        self.sense_planner = sense_planner
        self.move_selector = move_selector
        self.rng = np.random.default_rng(rng)
        self.low_clock_seconds = low_clock_seconds
        self.belief: Belief = belief_factory()
        self.events: list[Observation] = []
        self.rebuilds = 0
        """How many times an inconsistent observation forced a rebuild of the belief."""
        self.belief_stale = False
        """True once a rebuild failed: the bot plays on its last good belief and stops rebuilding."""
        self.increment = 0.0
        self._capture_square: Optional[Square] = None
        self._move_clock: Optional[tuple[float, float]] = None  # (seconds_left, monotonic) when choose_move began
        self._turn_end: Optional[float] = None  # monotonic time our last turn ended

    # ------------------------------------------------------------------ belief upkeep

    def observe(self, event: Observation) -> None:
        """Fold one event into the belief, rebuilding it if the event contradicts it."""
        if isinstance(event, GameStarted):
            self.belief = self.belief_factory()
            self.events = []
            self.rebuilds = 0
            self.belief_stale = False
            self._move_clock = self._turn_end = None
        elif isinstance(event, OpponentMoved):
            self._capture_square = event.capture_square
        self.events.append(event)
        try:
            self.belief.update(event)
        except MalformedObservationError as error:
            logger.error("dropped a malformed event (%s); the belief is unchanged", error)
            self.events.pop()  # no rebuild can use it
        except BeliefError as error:
            if self.belief_stale:
                return  # the update changed nothing: the belief is still the last good one
            logger.warning("belief update failed (%s: %s); rebuilding from %d events", type(error).__name__, error, len(self.events))
            self.rebuilds += 1
            rebuilt = self._rebuilt()
            self.belief_stale = rebuilt is None
            if rebuilt is not None:
                self.belief = rebuilt
        finally:
            if isinstance(event, MoveResult):
                self._turn_end = time.monotonic()
            elif isinstance(event, GameEnded):
                self.move_selector.close()

    def _rebuilt(self) -> Optional[Belief]:
        """A fresh belief fed every event so far, skipping sense results it cannot fit; None if impossible."""
        belief = self.belief_factory()
        kept: list[Observation] = []
        for event in self.events:
            try:
                belief.update(event)
            except BeliefError:
                if isinstance(event, SenseResult):
                    continue
                logger.error("cannot rebuild the belief past %r; keeping the last good one", event)
                return None
            kept.append(event)
        self.events = kept
        return belief

    # ------------------------------------------------------------------ choices

    def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
        self._measure_increment(seconds_left)
        if seconds_left < self.low_clock_seconds:
            return None
        context = SenseContext(self.color, self._capture_square, tuple(move_actions))
        try:
            square = self.sense_planner.choose_sense(self.belief, sense_actions, seconds_left, self.rng, context)
        except Exception:
            logger.exception("sense planner %r failed; not sensing", self.sense_planner)
            square = None
        return square if square in sense_actions else None

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        self._move_clock = (seconds_left, time.monotonic())
        context = MoveContext(self.color, self.increment)
        try:
            move = self.move_selector.choose_move(self.belief, move_actions, seconds_left, self.rng, context)
        except Exception:
            logger.exception("move selector %r failed; passing", self.move_selector)
            move = None
        return move if move in move_actions else None

    # ------------------------------------------------------------------ clock

    def _measure_increment(self, seconds_left: float) -> None:
        """Estimate the increment: the clock now minus the clock when our last turn ended."""
        if self._move_clock is None or self._turn_end is None:
            return
        clock_at_move, started = self._move_clock
        clock_at_turn_end = clock_at_move - (self._turn_end - started)
        self.increment = max(0.0, round(seconds_left - clock_at_turn_end, 1))
