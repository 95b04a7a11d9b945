"""Lookup tables shared by the compiled board-set kernels (numba freezes them as constants).

Bitboards follow python-chess: bit ``s`` of a ``uint64`` is square ``s`` (a1 = 0, h8 = 63).
Piece types are indexed 0..5 (pawn..king), i.e. ``chess.PieceType - 1``.

Castling rights are 4 bits per board, one per rook corner, mirroring python-chess's
``castling_rights`` bitboard restricted to the corners: bit 0 = a1, bit 1 = h1,
bit 2 = a8, bit 3 = h8.
"""

from __future__ import annotations

import chess
import numpy as np

BIT = np.array([1 << s for s in range(64)], dtype=np.uint64)
"""``BIT[s]`` is the bitboard of square ``s``."""

KNIGHT_ATTACKS = np.array(chess.BB_KNIGHT_ATTACKS, dtype=np.uint64)
KING_ATTACKS = np.array(chess.BB_KING_ATTACKS, dtype=np.uint64)
PAWN_ATTACKS = np.array([chess.BB_PAWN_ATTACKS[chess.BLACK], chess.BB_PAWN_ATTACKS[chess.WHITE]], dtype=np.uint64)
"""``PAWN_ATTACKS[c, s]``: squares a pawn of colour ``c`` (0 black, 1 white) on ``s`` attacks."""

_CORNERS = {chess.A1: 1, chess.H1: 2, chess.A8: 4, chess.H8: 8}
CORNER_BITS = np.array([_CORNERS.get(s, 0) for s in range(64)], dtype=np.uint8)
"""``CORNER_BITS[s]``: the castling bit a move from or to ``s`` clears (0 off the corners)."""

COLOR_CASTLING_BITS = np.array([12, 3], dtype=np.uint8)
"""``COLOR_CASTLING_BITS[c]``: both castling bits of colour ``c`` (cleared when its king moves)."""

_DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))
"""(file step, rank step): the four rook directions, then the four bishop directions."""


def _rays() -> tuple[np.ndarray, np.ndarray]:
    squares = np.full((8, 64, 7), -1, dtype=np.int8)
    lengths = np.zeros((8, 64), dtype=np.int8)
    for d, (df, dr) in enumerate(_DIRECTIONS):
        for s in range(64):
            f, r, n = chess.square_file(s) + df, chess.square_rank(s) + dr, 0
            while 0 <= f < 8 and 0 <= r < 8:
                squares[d, s, n] = chess.square(f, r)
                f, r, n = f + df, r + dr, n + 1
            lengths[d, s] = n
    return squares, lengths


RAY_SQUARES, RAY_LENGTHS = _rays()
"""``RAY_SQUARES[d, s, :RAY_LENGTHS[d, s]]``: the squares from ``s`` outwards in direction ``d``."""

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
