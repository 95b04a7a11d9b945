"""`ParticleFilter`: a bounded-cost belief, for games where the exhaustive board set grows too large.

Particles are compact boards held in a `BoardSet` store (same rows, same numba kernels),
at most ``budget`` distinct ones, each with a weight; duplicates are merged, so a
particle's weight is its multiplicity. With ``w`` the weights, ``pi`` the opponent-move
model (:mod:`blindchess.beliefs.move_model`, uniform over RBC outcomes by default) and
``L`` the sense likelihood (:mod:`blindchess.beliefs.likelihood`), one turn is::

    opponent moved, capture c:  every particle s is expanded into all its children
        s' = T(s, m), m in M(s) agreeing with c,   w(s') = sum w(s) pi(m | s)
    sense o:                    w(s') <- w(s') L(o | s'), zero-weight particles dropped
    then, if the particles exceed the budget or ESS = 1 / sum w^2 < ess_threshold * rows:
        systematic resampling of ``budget`` draws; w(s') <- number of draws on s'
    own move:                   the board set's exact filter (a move result is never noisy)

Expanding every particle is the proposal ``pi`` enumerated instead of sampled: the sense
then weighs all children, so far more particles survive an exact sense than one sampled
child each would give. Rows between an opponent move and the sense are at most
``MAX_CHILDREN * budget``; time and memory per update are linear in the budget.

Deprivation: when an event leaves no particle (the truth was resampled away), the filter
replays the events since each of its last ``recovery_turns`` turn-start snapshots (oldest
first, then the game start) with ``recovery_factor`` times the budget. Oldest first because
a newer snapshot descends from the resampling that lost the truth, so an older one more
often still holds it (docs/benchmarks.md measures the gain). If every replay is deprived too, it rebuilds from the game start
with a capped exact `BoardSet` (whose backlog always recovers a consistent board; noisy
sense results are left out of that rebuild). Only
an observation sequence no board explains raises `InconsistentObservationError`, and then
the filter is left exactly as it was (particles, weights, counters and the resampling
generator's state: the failed recovery's draws are undone). ``recoveries`` counts the rebuilds.

The budget can follow the clock: with ``seconds_per_update`` set, after each own turn the
budget is scaled (at most 2x either way, within ``min_particles..max_particles``) so that
the mean time per update approaches it. Such a filter is no longer deterministic by seed.

``is_exact`` holds while no consistent board was ever dropped (no resampling, exact
sensing): then the particles are the exact posterior, the weighted board set.
"""

from __future__ import annotations

import copy as copying
import logging
import time
from typing import Optional

import numpy as np

from blindchess.arbiter.game.observations import GameStarted, MoveResult, Observation, OpponentMoved, SenseResult

from .base import InconsistentObservationError, NotInitialisedError, UnexpectedObservationError
from .belief_queries import DelegatedQueries
from .board_set import BoardSet
from .likelihood import ALWAYS_WRONG, ExactSensing, SenseLikelihood, window_codes, window_mismatches
from .move_model import UNIFORM, OpponentMoveModel
from .particle_store import opponent_rows, own_piece_types, reweighted
from .validation import check_event, game_over

logger = logging.getLogger(__name__)


def systematic_counts(weights: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Systematic resampling: how many of `draws` evenly spaced draws land on each row.

    Every row gets ``floor(draws * w)`` or ``ceil(draws * w)`` draws (lowest variance of
    the standard schemes), from a single uniform number.

    >>> systematic_counts(np.array([0.5, 0.25, 0.25]), 4, np.random.default_rng(0)).tolist()
    [2, 1, 1]
    """
    cumulative = np.cumsum(weights / weights.sum())
    cumulative[-1] = 1.0
    positions = (rng.random() + np.arange(draws)) / draws
    return np.bincount(np.searchsorted(cumulative, positions, side="right"), minlength=len(weights))


class ParticleFilter(DelegatedQueries):
    """A belief of at most ``budget`` weighted particles (see the module docstring).

    Args:
        particles: the budget (distinct particles kept after each sense).
        move_model: the opponent-move model (the proposal); uniform by default.
        likelihood: the sense likelihood; `ExactSensing` (RBC) by default.
        ess_threshold: resample when ESS falls below this fraction of the rows.
        recovery_turns: turn-start snapshots kept for deprivation recovery.
        recovery_factor: budget multiplier of recovery replays and the capped rebuild.
        seed: seeds the resampling generator (same seed and events, same belief).
        seconds_per_update: when set, the budget follows this target time per update.
        min_particles, max_particles: bounds of the clock-following budget.
    """

    def __init__(
        self,
        particles: int = 1000,
        *,
        move_model: OpponentMoveModel = UNIFORM,
        likelihood: Optional[SenseLikelihood] = None,
        ess_threshold: float = 0.5,
        recovery_turns: int = 4,
        recovery_factor: int = 50,
        seed: int = 0,
        seconds_per_update: Optional[float] = None,
        min_particles: int = 100,
        max_particles: int = 100_000,
    ) -> None:
        if particles < 1 or not 1 <= min_particles <= max_particles:
            raise ValueError(
                f"need particles >= 1 and 1 <= min_particles <= max_particles, got {particles}, {min_particles}, {max_particles}"
            )
        if not 0.0 <= ess_threshold <= 1.0:
            raise ValueError(f"ess_threshold must lie in [0, 1], got {ess_threshold!r}")
        if recovery_turns < 0 or recovery_factor < 1:
            raise ValueError(f"need recovery_turns >= 0 and recovery_factor >= 1, got {recovery_turns}, {recovery_factor}")
        if seconds_per_update is not None and seconds_per_update <= 0:
            raise ValueError(f"seconds_per_update must be positive, got {seconds_per_update!r}")
        self.budget = particles
        self.move_model = move_model
        self.likelihood: SenseLikelihood = likelihood or ExactSensing()
        self.ess_threshold = ess_threshold
        self.recovery_turns = recovery_turns
        self.recovery_factor = recovery_factor
        self.seconds_per_update = seconds_per_update
        self.min_particles, self.max_particles = min_particles, max_particles
        self.recoveries = 0
        """How many times deprivation forced a rebuild."""
        self.spread = 1
        """Particles left by the last sense before resampling: at most the budget means the belief has concentrated."""
        self._rng = np.random.default_rng(seed)
        self._store: Optional[BoardSet] = None
        self._exact = True
        self._events: list[Observation] = []
        self._snapshots: list[tuple[int, BoardSet, bool]] = []  # (index of the next event, store, exact)
        self._turn_seconds = 0.0

    # ------------------------------------------------------------------ construction

    def _fresh_store(self, max_boards: Optional[int] = None) -> BoardSet:
        return BoardSet(max_boards=max_boards, move_model=self.move_model)

    def seeded(self, board_set: BoardSet, events: list[Observation]) -> ParticleFilter:
        """This (unstarted) filter taking over from `board_set`, which followed `events` (GameStarted first).

        `board_set` must be weighted by this filter's move model; it is resampled to the
        budget and kept (unreduced) as the oldest recovery snapshot.
        """
        if not events or not isinstance(events[0], GameStarted):
            raise ValueError("seeded needs the events so far, GameStarted first")
        store = board_set.subset(np.arange(len(board_set)))  # no backlog: a plain store
        start = self._fresh_store()
        start.update(events[0])
        self._events = list(events)
        self._snapshots = [(1, start, True), (len(events), store, board_set.is_exact)]
        self._store, dropped = self._reduced(store, self.budget)
        self._exact = board_set.is_exact and not dropped
        return self

    # ------------------------------------------------------------------ state

    @property
    def is_exact(self) -> bool:
        return self._exact and self.likelihood.is_exact

    def _started(self) -> BoardSet:
        if self._store is None:
            raise NotInitialisedError("the particle filter has not received GameStarted")
        return self._store

    def __contains__(self, board: object) -> bool:
        return self._store is not None and board in self._store

    # ------------------------------------------------------------------ updates

    def update(self, observation: Observation) -> None:
        """Fold one event in; on deprivation, recover (see the module docstring)."""
        started = time.monotonic()
        check_event(observation, ended=game_over(self._events))
        if isinstance(observation, GameStarted):
            store = self._fresh_store()
            store.update(observation)
            self._store, self._exact, self._events = store, True, [observation]
            self._snapshots = [(1, store, True)]
            return
        store = self._started()
        self._validate(store, observation)
        events = self._events + [observation]
        try:
            new_store, dropped = self._advance(store, observation, self.budget)
            exact = self._exact and not dropped
        except InconsistentObservationError:
            new_store, exact = self._recovered_or_unchanged(events)
            self.recoveries += 1
        if isinstance(observation, OpponentMoved) and self.recovery_turns:
            # the game-start snapshot stays; the turn starts kept are the latest `recovery_turns`
            recent = self._snapshots[1:] + [(len(self._events), store, self._exact)]
            self._snapshots = self._snapshots[:1] + recent[-self.recovery_turns :]
        self._store, self._exact, self._events = new_store, exact, events
        self._follow_clock(observation, time.monotonic() - started)

    def _validate(self, store: BoardSet, event: Observation) -> None:
        """Reject bad input before any work, leaving the filter as it was."""
        if not isinstance(event, SenseResult):
            return
        if store.turn != store.color:
            raise UnexpectedObservationError(f"{event!r}: a sense result while the opponent is to move")
        if self.likelihood.is_exact and (self._codes(store, event)[1] == ALWAYS_WRONG).any():
            raise InconsistentObservationError(f"{event!r}: the window disagrees with our own pieces")

    @staticmethod
    def _codes(store: BoardSet, event: SenseResult) -> tuple[np.ndarray, np.ndarray]:
        return window_codes(event.window, store.color, own_piece_types(store))

    def _advance(self, store: BoardSet, event: Observation, budget: int) -> tuple[BoardSet, bool]:
        """`store` after `event` (a new store) and whether a consistent particle was dropped.

        Raises:
            InconsistentObservationError: no particle survives (deprivation).
        """
        if isinstance(event, SenseResult):
            sensed = self._sensed(store, event)
            self.spread = len(sensed)
            return self._reduced(sensed, budget)
        store = store.copy()
        store.update(event)
        return store, False

    def _sensed(self, store: BoardSet, event: SenseResult) -> BoardSet:
        squares, codes = self._codes(store, event)
        if squares.size == 0:
            return store
        factors = self.likelihood.factors(window_mismatches(opponent_rows(store), squares, codes), len(squares))
        weights = store.weights() * factors
        rows = np.flatnonzero(weights > 0)
        if rows.size == 0:
            raise InconsistentObservationError(f"no particle agrees with {event!r}")
        return reweighted(store, rows, weights[rows])

    def _reduced(self, store: BoardSet, budget: int) -> tuple[BoardSet, bool]:
        """Systematic resampling to `budget` draws when over budget or ESS is low; merged counts become the weights."""
        weights = store.weights()
        rows = len(weights)
        ess = 1.0 / float(np.sum(weights * weights))
        if rows <= budget and ess >= self.ess_threshold * rows:
            return store, False
        counts = systematic_counts(weights, budget, self._rng)
        kept = np.flatnonzero(counts)
        return reweighted(store, kept, counts[kept]), kept.size < rows

    # ------------------------------------------------------------------ deprivation

    def _recovered_or_unchanged(self, events: list[Observation]) -> tuple[BoardSet, bool]:
        """`_recovered`, or, if nothing fits, its error with the generator and ``spread`` as they were before it."""
        generator, spread = self._rng.bit_generator.state, self.spread
        try:
            return self._recovered(events)
        except BaseException:
            self._rng.bit_generator.state, self.spread = generator, spread
            raise

    def _recovered(self, events: list[Observation]) -> tuple[BoardSet, bool]:
        """A non-empty store after `events`: snapshot replays, then a capped exact rebuild."""
        budget = self.recovery_factor * self.budget
        for index, snapshot, exact in self._snapshots[1:] + self._snapshots[:1]:  # oldest recent first, the game start last
            try:
                store, dropped = snapshot, False
                for event in events[index:]:
                    store, lost = self._advance(store, event, budget)
                    dropped |= lost
            except InconsistentObservationError:
                continue
            logger.info("particle filter deprived; replayed %d events from a snapshot", len(events) - index)
            return store, exact and not dropped
        logger.info("particle filter deprived; rebuilding from the game start")
        rebuilt = self._fresh_store(max_boards=budget * 32)
        for event in events:
            if isinstance(event, SenseResult) and not self.likelihood.is_exact:
                continue  # a noisy report cannot be applied as a hard filter
            rebuilt.update(event)  # raises only if no board at all explains the events
        exact = rebuilt.is_exact and self.likelihood.is_exact
        return rebuilt.subset(np.arange(len(rebuilt))), exact

    # ------------------------------------------------------------------ budget

    def _follow_clock(self, event: Observation, seconds: float) -> None:
        self._turn_seconds += seconds
        if self.seconds_per_update is None or not isinstance(event, MoveResult):
            return
        per_update = max(self._turn_seconds / 3.0, 1e-6)
        scale = min(2.0, max(0.5, self.seconds_per_update / per_update))
        self.budget = int(min(self.max_particles, max(self.min_particles, round(self.budget * scale))))
        self._turn_seconds = 0.0

    # ------------------------------------------------------------------ queries

    def copy(self) -> ParticleFilter:
        """An independent copy; stores are never changed in place, so they are shared."""
        other = copying.copy(self)
        other._rng = copying.deepcopy(self._rng)
        other._events = list(self._events)
        other._snapshots = list(self._snapshots)
        return other
