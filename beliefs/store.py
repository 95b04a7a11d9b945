"""A `BoardSet` used as a particle store: its rows, reweighting, and compiled marginals.

The particle filter and the hybrid keep their boards in `BoardSet` objects so that the
set's compact rows, kernels and exact filters are reused rather than copied; these are the
few package-internal places that reach into the set's arrays. A store is never changed in
place after it is built (every update works on a copy), so stores can be shared.
"""

from __future__ import annotations

import chess
import numba as nb
import numpy as np

from .base import N_CHANNELS
from .board_set import BoardSet
from .kernels import lsb

_ONE = np.uint64(1)


def opponent_rows(store: BoardSet) -> np.ndarray:
    """The store's ``(N, 6)`` uint64 opponent bitboards (read only)."""
    return store._opp


def reweighted(store: BoardSet, rows: np.ndarray, weights: np.ndarray) -> BoardSet:
    """Rows `rows` of `store` with new (unnormalised, positive) `weights`, as a new store."""
    out = store.subset(rows)
    out._weights = np.asarray(weights, dtype=np.float64)
    return out


def own_piece_types(store: BoardSet) -> dict[int, int]:
    """Square -> piece type index (0 pawn .. 5 king) of our own pieces (the same on every board)."""
    return {int(s): t for t in range(6) for s in chess.scan_forward(int(store._own[t]))}


@nb.njit(cache=True)
def _opponent_marginals(opp: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Shape (64, 6): the weight of the boards with each opponent piece type on each square. Unchecked."""
    out = np.zeros((64, 6))
    for i in range(opp.shape[0]):
        w = weights[i]
        for t in range(6):
            bb = opp[i, t]
            while bb:
                out[lsb(bb), t] += w
                bb &= bb - _ONE
    return out


def store_marginals(store: BoardSet) -> np.ndarray:
    """`BoardSet.marginals` in one compiled pass over the pieces (no per-square unpacking; large stores are common here)."""
    result = np.zeros((64, N_CHANNELS))
    offset = 7 if store.color == chess.WHITE else 1
    result[:, offset : offset + 6] = _opponent_marginals(opponent_rows(store), store.weights())
    own_offset = 1 if store.color == chess.WHITE else 7
    for square, piece in own_piece_types(store).items():
        result[square, own_offset + piece] = 1.0
    result[:, 0] = np.clip(1.0 - result[:, 1:].sum(axis=1), 0.0, 1.0)
    return result
