"""Lookup tables of the board set's bitboards (numba freezes them as constants).

Bitboards follow python-chess: bit ``s`` of a ``uint64`` is square ``s`` (a1 = 0, h8 = 63).
Piece types are indexed 0..5 (pawn..king), i.e. ``chess.PieceType - 1``.

Castling rights are 4 bits per board, one per rook corner, mirroring python-chess's
``castling_rights`` bitboard restricted to the corners: bit 0 = a1, bit 1 = h1,
bit 2 = a8, bit 3 = h8. The rules over them are compiled once, in
:mod:`blindchess.arbiter.compiled_rules`.
"""

from __future__ import annotations

# shared with the arbiter's compiled code, which may not import the beliefs; re-exported for the board set
from blindchess.arbiter.bitboard_tables import BIT, COLOR_CASTLING_BITS, CORNER_BITS

__all__ = ["BIT", "COLOR_CASTLING_BITS", "CORNER_BITS"]
