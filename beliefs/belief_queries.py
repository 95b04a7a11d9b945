"""`DelegatedQueries`: a belief's read-only queries, answered by the board collection it holds inside.

Contract: a subclass defines `_started`, which returns the inner collection once the game has
started and raises `NotInitialisedError` before; its length, weights, piece grid, boards,
marginals, entropy and samples are then the belief's.

Why: the particle filter keeps its particles in a `BoardSet` store, and the hybrid belief holds
either the exact set or a particle filter; both answer every query by asking that collection.
One copy of the delegation keeps the two answering alike.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol

import chess
import numpy as np


class BoardQueries(Protocol):
    """What the inner collection answers (a `BoardSet`, or a `ParticleFilter` inside a hybrid belief)."""

    def __len__(self) -> int: ...

    def weights(self) -> np.ndarray: ...

    def piece_grid(self) -> np.ndarray: ...

    def board(self, index: int) -> chess.Board: ...

    def marginals(self) -> np.ndarray: ...

    def entropy(self) -> float: ...

    def sample(self, n: int, rng: np.random.Generator) -> list[chess.Board]: ...


class DelegatedQueries(ABC):
    """The queries of `blindchess.beliefs.base.Belief` and `WeightedBoards`, each asked of `_started()`."""

    @abstractmethod
    def _started(self) -> BoardQueries:
        """The inner collection; raises `NotInitialisedError` before GameStarted."""

    def __len__(self) -> int:
        return len(self._started())

    def weights(self) -> np.ndarray:
        """Board probabilities, aligned with `piece_grid`, summing to one."""
        return self._started().weights()

    def piece_grid(self) -> np.ndarray:
        """Shape (N, 64) uint8: the marginal channel of every square of every board."""
        return self._started().piece_grid()

    def board(self, index: int) -> chess.Board:
        """Board ``index`` (aligned with `piece_grid`) as a `chess.Board`."""
        return self._started().board(index)

    def marginals(self) -> np.ndarray:
        return self._started().marginals()

    def entropy(self) -> float:
        """Entropy of the board weights in bits (an estimate, below the true entropy when the belief is inexact)."""
        return self._started().entropy()

    def sample(self, n: int, rng: np.random.Generator) -> list[chess.Board]:
        return self._started().sample(n, rng)
