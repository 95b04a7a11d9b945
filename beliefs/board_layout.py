"""The compact board layout of the board set, and conversions to and from `chess.Board`.

The player always knows its own pieces exactly, so a board in the set is the
shared own-piece state plus, per board::

    opp[i, 0:6]  uint64   the opponent's pawn, knight, bishop, rook, queen, king bitboards   48 bytes
    castling[i]  uint8    castling rights of both colours, one bit per rook corner            1 byte
    ep[i]        int8     python-chess's raw en-passant square (set after any double push)   1 byte
    weight[i]    float64  unnormalised probability                                            8 bytes

58 bytes a board. Two boards are the same board when their `board_key` is equal:
piece placement, side to move, castling rights (python-chess's corner bitboard)
and raw en-passant square. Move counters are not part of a board here: they never
change what a player can observe before the reversible-move limit.
"""

from __future__ import annotations

import chess
import numpy as np

from .base import channel

_GRID_ROWS = 1 << 16
"""Rows unpacked at once by `piece_grid` (bounds its temporary memory)."""

BoardKey = tuple[int, ...]
"""12 piece bitboards (white P..K, black P..K), side to move, castling corner bitboard, en-passant square or -1."""

_CORNER_SQUARES = (chess.A1, chess.H1, chess.A8, chess.H8)
BYTES_PER_BOARD = 6 * 8 + 1 + 1 + 8


def piece_bitboards(board: chess.BaseBoard, color: chess.Color) -> np.ndarray:
    """The six bitboards (pawn..king) of `color`'s pieces on `board`, as uint64."""
    mask = board.occupied_co[color]
    return np.array([board.pieces_mask(t, color) & mask for t in chess.PIECE_TYPES], dtype=np.uint64)


def castling_bits(castling_rights: int) -> int:
    """python-chess's castling bitboard -> the 4 corner bits (a1, h1, a8, h8)."""
    return sum(1 << n for n, s in enumerate(_CORNER_SQUARES) if castling_rights & chess.BB_SQUARES[s])


def castling_bitboard(bits: int) -> int:
    """The 4 corner bits -> python-chess's castling bitboard."""
    return sum(chess.BB_SQUARES[s] for n, s in enumerate(_CORNER_SQUARES) if bits >> n & 1)


def board_key(board: chess.Board) -> BoardKey:
    """The identity of a board for belief purposes (see the module docstring)."""
    pieces = tuple(board.pieces_mask(t, c) for c in (chess.WHITE, chess.BLACK) for t in chess.PIECE_TYPES)
    ep = board.ep_square if board.ep_square is not None else -1
    return (*pieces, int(board.turn), board.castling_rights & chess.BB_CORNERS, ep)


def row_key(own: np.ndarray, opp_row: np.ndarray, color: chess.Color, turn: chess.Color, castling: int, ep: int) -> BoardKey:
    """`board_key` of a compact row (own pieces `own`, opponent's `opp_row`)."""
    white, black = (own, opp_row) if color == chess.WHITE else (opp_row, own)
    pieces = tuple(int(x) for x in white) + tuple(int(x) for x in black)
    return (*pieces, int(turn), castling_bitboard(int(castling)), int(ep))


def row_board(
    own: np.ndarray, opp_row: np.ndarray, color: chess.Color, turn: chess.Color, castling: int, ep: int
) -> chess.Board:
    """A `chess.Board` of a compact row (move counters at their defaults)."""
    board = chess.Board.empty()
    white, black = (own, opp_row) if color == chess.WHITE else (opp_row, own)
    for bbs, piece_color in ((white, chess.WHITE), (black, chess.BLACK)):
        for t, bb in zip(chess.PIECE_TYPES, bbs, strict=True):
            for square in chess.scan_forward(int(bb)):
                board._set_piece_at(square, t, piece_color)
    board.turn = turn
    board.castling_rights = castling_bitboard(int(castling))
    board.ep_square = int(ep) if ep >= 0 else None
    return board


def own_grid(own: np.ndarray, color: chess.Color) -> np.ndarray:
    """Shape (64,) uint8: the marginal channel of our pieces `own` on every square (0 where none of ours stands)."""
    grid = np.zeros(64, dtype=np.uint8)
    for t, bb in zip(chess.PIECE_TYPES, own, strict=True):
        for square in chess.scan_forward(int(bb)):
            grid[square] = channel(chess.Piece(t, color))
    return grid


def piece_grid(own: np.ndarray, opp: np.ndarray, color: chess.Color) -> np.ndarray:
    """Shape (N, 64) uint8: the marginal channel of every square of the rows `opp` beside our pieces `own`."""
    offset = channel(chess.Piece(chess.PAWN, not color))
    grid = np.empty((len(opp), 64), dtype=np.uint8)
    own_channels = own_grid(own, color)
    channels = np.arange(offset, offset + 6, dtype=np.uint8)[None, :, None]
    for start in range(0, len(opp), _GRID_ROWS):
        raw = np.ascontiguousarray(opp[start : start + _GRID_ROWS]).view(np.uint8).reshape(-1, 6, 8)
        bits = np.unpackbits(raw, axis=2, bitorder="little")
        grid[start : start + _GRID_ROWS] = own_channels + (bits * channels).sum(axis=1, dtype=np.uint8)
    return grid
