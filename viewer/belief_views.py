"""Beliefs rebuilt from a history, ply by ply, for the viewer's overlays.

The belief shown for a colour at ply ``p`` is a fresh belief (built from its settings
only) that has folded in ``observations_at(history.observations(color), p)``: exactly
what the player had been told by then (see :mod:`blindchess.viewer.replay`). Stepping
through a game must not redo the whole game at each ply, so a `BeliefTrack` keeps
copies of the belief at the plies it has passed (checkpoints, most recently used kept,
within a budget of boards) and advances a copy of the nearest earlier one. Along the
way it notes each ply's support size and entropy, the series the page charts.

Beliefs are chosen by name (`BELIEFS`); the small teaching boards use the enumerated
belief, whose Bayes steps (prior, likelihood, posterior of each event) the teaching
view shows.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

import chess
import numpy as np

from blindchess.arbiter.game.observations import Observation
from blindchess.beliefs import (
    Belief,
    BoardSet,
    HybridBelief,
    OpponentMoveModel,
    ParticleFilter,
)
from blindchess.beliefs.base import BeliefError
from blindchess.errors import BlindchessError

from .replay import check_ply, event_plies

BeliefFactory = Callable[[int], Belief]
"""Builds a fresh belief given the viewer's size cap (boards or particles)."""

BELIEFS: dict[str, BeliefFactory] = {
    "boardset": lambda cap: BoardSet(max_boards=cap),
    "boardset-weighted": lambda cap: BoardSet(max_boards=cap, move_model=OpponentMoveModel.capture_biased()),
    "particles": lambda cap: ParticleFilter(min(cap, 2_000), seed=0),
    "hybrid": lambda cap: HybridBelief(switch_boards=cap, particles=min(cap, 2_000), seed=0),
}
"""The beliefs an 8x8 replay can overlay, by the name the page and the URL use."""

DEFAULT_MAX_BOARDS = 200_000
"""The viewer's default cap on a board set (a capped set says so: ``exact`` turns false)."""


class UnknownBeliefError(BlindchessError, ValueError):
    """A belief name the viewer does not know; the message lists the known ones."""


class BeliefFailedError(BlindchessError, ValueError):
    """The belief could not follow the observations (e.g. a history of another variant); the message says where."""


@dataclass(frozen=True, slots=True)
class PlyStats:
    """What the chart shows for one ply."""

    size: int
    entropy: float
    exact: bool


class BeliefTrack:
    """One colour's belief over one game, at any ply, with checkpoints.

    Args:
        events: the colour's observation stream (``history.observations(color)``).
        plies: the game's number of plies (turns).
        make: builds the fresh belief.
        checkpoint_boards: keep checkpoints (besides ply 0) while their sizes add up to at most this.
    """

    def __init__(self, events: list[Observation], plies: int, make: Callable[[], Belief], checkpoint_boards: int = 4_000_000) -> None:
        known = event_plies(events)
        self.plies = plies
        self._events = events
        # _counts[p]: how many leading events the player knew at ply p (GameEnded never counted)
        self._counts = [sum(1 for k in known if 0 <= k <= p) for p in range(plies + 1)]
        self._make = make
        self._budget = checkpoint_boards
        self._checkpoints: OrderedDict[int, Belief] = OrderedDict()
        self._stats: dict[int, PlyStats] = {}
        self._lock = threading.Lock()

    def event_count(self, ply: int) -> int:
        """How many of the events the belief at `ply` has folded in."""
        return self._counts[check_ply(ply, self.plies)]

    def at(self, ply: int) -> Belief:
        """The belief at `ply` (shared with the cache: copy it before changing it).

        Raises:
            PlyOutOfRangeError: `ply` is not a ply of the game.
            BeliefFailedError: an event could not be folded in.
        """
        check_ply(ply, self.plies)
        with self._lock:
            if ply in self._checkpoints:
                self._checkpoints.move_to_end(ply)
                return self._checkpoints[ply]
            start = max((p for p in self._checkpoints if p < ply), default=None)
            if start is None:
                belief, start, done = self._make(), 0, 0
            else:
                belief, done = self._checkpoints[start].copy(), self._counts[start]
            for p in range(start, ply + 1):
                for index in range(done, self._counts[p]):
                    try:
                        belief.update(self._events[index])
                    except BeliefError as error:
                        raise BeliefFailedError(f"the belief failed at ply {p} on {self._events[index]!r}: {error}") from error
                done = self._counts[p]
                self._stats[p] = PlyStats(len(belief), belief.entropy(), belief.is_exact)
                if p < ply and p % 8 == 0 and p not in self._checkpoints:
                    self._keep(p, belief.copy())
            self._keep(ply, belief)
            return belief

    def _keep(self, ply: int, belief: Belief) -> None:
        self._checkpoints[ply] = belief
        self._checkpoints.move_to_end(ply)
        while len(self._checkpoints) > 2 and sum(len(b) for b in self._checkpoints.values()) > self._budget:
            oldest = next(p for p in self._checkpoints if p not in (0, ply))
            del self._checkpoints[oldest]

    def series(self, ply: int) -> list[Optional[PlyStats]]:
        """Support size and entropy at plies ``0..ply`` (computing the belief at `ply` first)."""
        self.at(ply)
        return [self._stats.get(p) for p in range(ply + 1)]


def belief_view(belief: Belief, color: chess.Color, samples: int, seed: int = 0) -> dict[str, Any]:
    """The overlay data of one belief: marginals, size, entropy and a few sampled boards.

    The heat map's number on a square is the probability that an opponent piece stands
    there, ``sum over the opponent's 6 channels of marginals[square]``; the page can also
    show one channel (a piece type) alone.
    """
    marginals = belief.marginals()
    offset = 7 if color == chess.WHITE else 1
    opponent = marginals[:, offset : offset + 6].sum(axis=1)
    boards = belief.sample(samples, np.random.default_rng(seed)) if samples > 0 and len(belief) > 0 else []
    return {
        "size": len(belief),
        "entropy": belief.entropy(),
        "exact": belief.is_exact,
        "marginals": marginals.tolist(),
        "opponent": opponent.tolist(),
        "opponent_channels": list(range(offset, offset + 6)),
        "samples": [board.board_fen() for board in boards],
    }


def belief_factory(name: str, max_boards: int) -> Callable[[], Belief]:
    """A builder of the belief called `name`.

    Raises:
        UnknownBeliefError: `name` is not in `BELIEFS`.
    """
    if name not in BELIEFS:
        raise UnknownBeliefError(f"unknown belief {name!r}; the viewer knows {', '.join(sorted(BELIEFS))}")
    make = BELIEFS[name]
    return lambda: make(max_boards)
