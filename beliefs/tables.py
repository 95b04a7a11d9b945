"""Lookup tables shared by the compiled board-set kernels (numba freezes them as constants).

Bitboards follow python-chess: bit ``s`` of a ``uint64`` is square ``s`` (a1 = 0, h8 = 63).
Piece types are indexed 0..5 (pawn..king), i.e. ``chess.PieceType - 1``.

Castling rights are 4 bits per board, one per rook corner, mirroring python-chess's
``castling_rights`` bitboard restricted to the corners: bit 0 = a1, bit 1 = h1,
bit 2 = a8, bit 3 = h8.
"""

from __future__ import annotations

import numpy as np

# shared with the arbiter's compiled game, which may not import the beliefs; re-exported for the belief kernels
from blindchess.arbiter.bitboard_tables import (
    BIT,
    COLOR_CASTLING_BITS,
    CORNER_BITS,
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    PAWN_ATTACKS,
    RAY_LENGTHS,
    RAY_SQUARES,
)

__all__ = [
    "BIT",
    "COLOR_CASTLING_BITS",
    "CORNER_BITS",
    "DIRECTION_TO",
    "KING_ATTACKS",
    "KNIGHT_ATTACKS",
    "PAWN_ATTACKS",
    "RAY_LENGTHS",
    "RAY_SQUARES",
    "SLIDER_DIRECTIONS",
]

SLIDER_DIRECTIONS = np.array([[0, 0], [4, 8], [0, 4], [0, 8]], dtype=np.int8)
"""``SLIDER_DIRECTIONS[k]`` = (first, stop) direction range for bishop (1), rook (2), queen (3)."""


def _between_direction() -> np.ndarray:
    out = np.full((64, 64), -1, dtype=np.int8)
    for d in range(8):
        for s in range(64):
            for t in RAY_SQUARES[d, s, : RAY_LENGTHS[d, s]]:
                out[s, t] = d
    return out


DIRECTION_TO = _between_direction()
"""``DIRECTION_TO[s, t]``: the ray direction leading from ``s`` to ``t`` (-1 if none)."""
