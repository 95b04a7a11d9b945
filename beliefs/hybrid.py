"""`HybridBelief`: the exact board set while it is small, a particle filter past a size threshold, and back.

The belief a bot writer should reach for. Early in a game, and whenever senses pin the
board down, the exhaustive `BoardSet` is cheap and exact; in long murky games it grows
past what fits in a turn, and the `ParticleFilter` bounds the cost. The rule:

* exact mode: a `BoardSet` weighted by the opponent-move model, its expansion capped at
  ``expansion_factor * switch_boards`` children. After a sense or an own move leaves more
  than ``switch_boards`` boards (or an expansion hits the cap), the set is handed to a
  particle filter (resampled to its budget; the full set stays as its recovery snapshot).
* particle mode: the filter. The last exact set is kept as a *base*; after own turns on which
  the particles have concentrated (the sense left no more than the budget; with a doubling
  back-off after a failure) the base is replayed exactly through the events since, for at most
  ``rebuild_seconds``, under the same cap. The replay's progress is kept as the new base, so the
  exact set is caught up a piece at a time; when it reaches the present with at most ``switch_boards`` boards, exact mode resumes.

An update that raises leaves the belief exactly as it was: the active part is
transactional itself, and the hybrid's own bookkeeping (events, base, counters) is
changed only after it accepted the event.

Sensing is RBC's exact sensor here (the board set's filter); for a noisy sensor use
`ParticleFilter` with a `NoisySensing` likelihood.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Optional, Union

import numpy as np

from blindchess.arbiter.game.observations import GameStarted, MoveResult, Observation, OpponentMoved, SenseResult

from .base import InconsistentObservationError, NotInitialisedError
from .belief_queries import DelegatedQueries
from .board_set import BoardSet
from .drawn_boards import Rows
from .move_model import UNIFORM, OpponentMoveModel
from .particle_filter import ParticleFilter
from .validation import check_event, game_over

logger = logging.getLogger(__name__)


class HybridBelief(DelegatedQueries):
    """Exact `BoardSet` below ``switch_boards`` boards, `ParticleFilter` above (see the module docstring).

    Args:
        switch_boards: the size past which the particles take over.
        particles: the particle budget.
        move_model: the opponent-move model of both parts (uniform by default).
        expansion_factor: the exact set's expansion cap, in multiples of ``switch_boards``.
        rebuild_seconds: time allowed per attempt to bring the exact set back.
        seed: seeds the particle filter.
        **particle_settings: further `ParticleFilter` settings (``ess_threshold``,
            ``recovery_turns``, ``seconds_per_update``, ...).
    """

    def __init__(
        self,
        switch_boards: int = 100_000,
        particles: int = 1000,
        *,
        move_model: OpponentMoveModel = UNIFORM,
        expansion_factor: int = 40,
        rebuild_seconds: float = 1.0,
        seed: int = 0,
        **particle_settings: Any,
    ) -> None:
        if switch_boards < 1 or expansion_factor < 1:
            raise ValueError(f"need switch_boards >= 1 and expansion_factor >= 1, got {switch_boards}, {expansion_factor}")
        self.switch_boards = switch_boards
        self.particles = particles
        self.move_model = move_model
        self.expansion_cap = expansion_factor * switch_boards
        self.rebuild_seconds = rebuild_seconds
        self.seed = seed
        self.particle_settings = particle_settings
        ParticleFilter(particles, **particle_settings)  # reject bad settings now, not at the first hand-over
        self.handovers = 0
        """How many times the exact set handed over to particles."""
        self.returns = 0
        """How many times an exact rebuild brought exact mode back."""
        self._past_recoveries = 0
        self._active: Union[BoardSet, ParticleFilter, None] = None
        self._events: list[Observation] = []
        self._base: Optional[tuple[int, BoardSet]] = None  # (index of the next event, exact set then)
        self._backoff = 1
        self._turns_to_rebuild = 1

    @property
    def recoveries(self) -> int:
        """Deprivation rebuilds of this game's particle filters (see `ParticleFilter.recoveries`)."""
        active = self._active.recoveries if isinstance(self._active, ParticleFilter) else 0
        return self._past_recoveries + active

    @property
    def mode(self) -> str:
        """``"exact"`` or ``"particles"``."""
        return "particles" if isinstance(self._active, ParticleFilter) else "exact"

    def _started(self) -> Union[BoardSet, ParticleFilter]:
        if self._active is None:
            raise NotInitialisedError("the hybrid belief has not received GameStarted")
        return self._active

    def sample_rows(self, n: int, rng: np.random.Generator) -> Optional[Rows]:
        """While exact, the set's `Rows` with the draws `sample` makes; None under particles (nothing drawn)."""
        active = self._started()
        return active.sample_rows(n, rng) if isinstance(active, BoardSet) else None

    def _exact_set(self) -> BoardSet:
        return BoardSet(max_boards=self.expansion_cap, move_model=self.move_model)

    # ------------------------------------------------------------------ updates

    def update(self, observation: Observation) -> None:
        check_event(observation, ended=game_over(self._events))
        if isinstance(observation, GameStarted):
            fresh = self._exact_set()
            fresh.update(observation)
            self._active, self._events, self._base = fresh, [observation], None
            self.handovers = self.returns = self._past_recoveries = 0
            return
        active = self._started()
        base = None
        if isinstance(active, BoardSet) and isinstance(observation, OpponentMoved):
            base = (len(self._events), active.copy())  # the last exact set, before it grows
        active.update(observation)  # transactional: if it raises, nothing here has changed
        if base is not None:
            self._base = base
        self._events.append(observation)
        if isinstance(active, BoardSet):
            too_big = isinstance(observation, (SenseResult, MoveResult)) and len(active) > self.switch_boards
            if too_big or not active.is_exact:
                self._hand_over(active)
        elif isinstance(observation, MoveResult):
            self._turns_to_rebuild -= 1
            if self._turns_to_rebuild <= 0 and active.spread <= active.budget:
                self._try_rebuild()

    def _hand_over(self, board_set: BoardSet) -> None:
        logger.info("hybrid belief: %d boards, handing over to %d particles", len(board_set), self.particles)
        particles = ParticleFilter(self.particles, move_model=self.move_model, seed=self.seed + self.handovers, **self.particle_settings)
        self._active = particles.seeded(board_set, self._events)
        if board_set.is_exact:
            self._base = (len(self._events), board_set)
        self.handovers += 1
        self._backoff = self._turns_to_rebuild = 1

    def _try_rebuild(self) -> None:
        """Replay the exact base towards the present (see the module docstring); resume exact mode if it arrives small."""
        if self._base is None:
            return
        deadline = time.monotonic() + self.rebuild_seconds
        index, rebuilt = self._base
        rebuilt = rebuilt.copy()
        capped = False
        try:
            while index < len(self._events):
                before = (index, rebuilt.copy()) if isinstance(self._events[index], OpponentMoved) else None
                rebuilt.update(self._events[index])
                index += 1
                if not rebuilt.is_exact:
                    capped = True
                    if before is not None:
                        index, rebuilt = before
                    break
                if time.monotonic() > deadline:
                    break
        except InconsistentObservationError:  # cannot happen from an exact base; keep the particles
            logger.warning("hybrid belief: the exact rebuild emptied; keeping the particles")
            self._base = None
            return
        if not capped or index > self._base[0]:
            self._base = (index, rebuilt)
        if index == len(self._events) and not capped and len(rebuilt) <= self.switch_boards:
            logger.info("hybrid belief: exact set rebuilt with %d boards; back to exact mode", len(rebuilt))
            self._past_recoveries = self.recoveries
            self._active, self.returns = rebuilt, self.returns + 1
            return
        self._backoff = self._backoff * 2 if capped else 1
        self._turns_to_rebuild = self._backoff

    # ------------------------------------------------------------------ queries (delegated)

    @property
    def is_exact(self) -> bool:
        return self._active is None or self._active.is_exact

    def __contains__(self, board: object) -> bool:
        return self._active is not None and board in self._active

    def copy(self) -> HybridBelief:
        """An independent copy (the exact set copied; particle stores and the base are never changed in place)."""
        other = HybridBelief.__new__(HybridBelief)
        other.__dict__.update(self.__dict__)
        other._active = None if self._active is None else self._active.copy()
        other._events = list(self._events)
        return other
