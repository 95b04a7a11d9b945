"""A `BoardSet` used as a particle store: its rows and reweighting.

The particle filter and the hybrid keep their boards in `BoardSet` objects so that the
set's compact rows, kernels and exact filters are reused rather than copied; these are the
few package-internal places that reach into the set's arrays. A store is never changed in
place after it is built (every update works on a copy), so stores can be shared.
"""

from __future__ import annotations

import chess
import numpy as np

from .board_set import BoardSet


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

