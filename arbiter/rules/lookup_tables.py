"""Bitboard lookup tables and bit helpers for compiled (numba) code over 8x8 boards.

Bitboards follow python-chess: bit ``s`` of a ``uint64`` is square ``s`` (a1 = 0, h8 = 63).
Numba freezes these module-level arrays as constants in the kernels that read them. They
live in the arbiter, the lowest layer, so that the arbiter's compiled game
(:mod:`blindchess.arbiter.rules.compiled_game`) and the belief kernels
(:mod:`blindchess.beliefs.board_set_updates`) share one set.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import chess
import numba as nb
import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

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


_TRAILING_ZEROS = cast(Callable[[np.uint64], np.uint64], trailing_zeros)
_LEADING_ZEROS = cast(Callable[[np.uint64], np.uint64], leading_zeros)
"""LLVM's bit counts (numba intrinsics, typed for mypy as the calls compiled code makes)."""


@nb.njit(cache=True)
def lsb(x: np.uint64) -> int:
    """Index of the lowest set bit of a non-zero bitboard (LLVM's count of trailing zeros: one instruction)."""
    index: int = np.int64(_TRAILING_ZEROS(x))
    return index


@nb.njit(cache=True)
def msb(x: np.uint64) -> int:
    """Index of the highest set bit of a non-zero bitboard (63 less LLVM's count of leading zeros)."""
    index: int = 63 - np.int64(_LEADING_ZEROS(x))
    return index


@nb.njit(cache=True)
def mirror(x: np.uint64) -> np.uint64:
    """The bitboard flipped top to bottom (square ``s`` to ``s ^ 56``): its eight bytes reversed."""
    x = ((x >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | ((x & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8))
    x = ((x >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | ((x & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16))
    mirrored: np.uint64 = (x >> np.uint64(32)) | (x << np.uint64(32))
    return mirrored
