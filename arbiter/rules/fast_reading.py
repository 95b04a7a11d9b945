"""Fast readers of an 8x8 `chess.Board`: the FEN histories record, and sense windows.

Why: the arbiter reads the truth board every turn. python-chess's `fen()` visits all
64 squares through `piece_at`; at about 40 microseconds a call, the two FENs of a
turn would cost more than the rest of the turn. `fen` builds the placement from the
twelve piece bitboards and compresses empty squares with string replacement;
`sense_window` reads the nine squares from precomputed square lists. Boards these
were not written for (Chess960, subclasses) go to python-chess and `rules`.
`tests/unit/arbiter/test_fast_actions_and_reading.py` holds each equal to its reference.
"""

from __future__ import annotations

from typing import Optional

import chess

from ..types import SenseWindow
from . import reference as rules
from .frozen import frozen_piece

PositionKey = tuple[int, int, int, int, int, int, int, int, int, bool, int, Optional[int], int, int]
"""Everything a FEN shows, as plain values: pawns, knights, bishops, rooks, queens, kings, white, black,
promoted, turn, castling rights, en-passant square, half-move clock, full-move number."""

_RUNS = tuple(("1" * length, str(length)) for length in range(8, 1, -1))
_SYMBOLS = (("P", "p"), ("N", "n"), ("B", "b"), ("R", "r"), ("Q", "q"), ("K", "k"))
_LETTERS = ((chess.BB_H1, "K"), (chess.BB_A1, "Q"), (chess.BB_H8, "k"), (chess.BB_A8, "q"))  # python-chess's order


def position_key(board: chess.Board) -> PositionKey:
    """A cheap, comparable snapshot of `board` (about a tenth of the cost of `board.copy()`)."""
    return (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.promoted, board.turn,
        board.castling_rights, board.ep_square, board.halfmove_clock, board.fullmove_number,
    )  # fmt: skip


def fen_of_key(key: PositionKey) -> str:
    """The FEN (``en_passant="fen"``) of a standard board's `position_key`.

    Castling letters follow the clean castling rights, as python-chess prints them for a
    board without a move stack (and for any board whose rights are clean, which a game
    from a legal start keeps).
    """
    white, black, kings, promoted = key[6], key[7], key[5], key[8]
    corner_rooks = key[10] & key[3] & _ROOK_CORNERS
    if corner_rooks:
        if not white & kings & ~promoted & chess.BB_E1:
            corner_rooks &= ~chess.BB_RANK_1
        if not black & kings & ~promoted & chess.BB_E8:
            corner_rooks &= ~chess.BB_RANK_8
        castling = _CASTLING_TEXT[corner_rooks & (white & chess.BB_RANK_1 | black & chess.BB_RANK_8)]
    else:
        castling = "-"
    ep_square = key[11]
    return (
        f"{_placement(key)} {'w' if key[9] else 'b'} {castling} "
        f"{chess.SQUARE_NAMES[ep_square] if ep_square is not None else '-'} {key[12]} {key[13]}"
    )


_ROOK_CORNERS = chess.BB_A1 | chess.BB_H1 | chess.BB_A8 | chess.BB_H8
# The castling field for each set of corner rooks that still carry rights, in python-chess's letter order.
_CASTLING_TEXT = {
    corners: "".join(letter for corner, letter in _LETTERS if corners & corner) or "-"
    for corners in (
        a1 | h1 | a8 | h8
        for a1 in (0, chess.BB_A1) for h1 in (0, chess.BB_H1) for a8 in (0, chess.BB_A8) for h8 in (0, chess.BB_H8)
    )
}


RANK_CACHE_LIMIT = 65536
"""Rank texts remembered before the cache is emptied (bounds memory: a few MB at most)."""

_rank_texts: dict[int, str] = {}
_last_placement: Optional[tuple[PositionKey, list[str]]] = None  # the last key converted and its 8 rank texts


def _placement(key: PositionKey) -> str:
    """The FEN piece placement, rebuilding only the ranks that differ from the last key converted.

    Why: a history converts its positions in play order, and one move changes at most two
    ranks (a pass none), so diffing against the previous position skips most of the work.
    Any previous key gives the right answer; a key from another game just differs in more
    ranks. The memo is one tuple, swapped whole, so threads converting at once stay correct.
    """
    global _last_placement
    last = _last_placement
    if last is None:
        changed = chess.BB_ALL
        ranks = ["" for _ in range(8)]
    else:
        previous, previous_ranks = last
        changed = (
            (key[0] ^ previous[0]) | (key[1] ^ previous[1]) | (key[2] ^ previous[2]) | (key[3] ^ previous[3])
            | (key[4] ^ previous[4]) | (key[5] ^ previous[5]) | (key[6] ^ previous[6]) | (key[7] ^ previous[7])
        )  # fmt: skip
        if not changed:
            return "/".join(previous_ranks)
        ranks = list(previous_ranks)
    pawns, knights, bishops, rooks, queens, kings, white = key[0], key[1], key[2], key[3], key[4], key[5], key[6]
    while changed:
        rank = (changed & -changed).bit_length() - 1 >> 3
        shift = 8 * rank
        changed &= ~(255 << shift)
        code = (
            (pawns >> shift & 255) | (knights >> shift & 255) << 8 | (bishops >> shift & 255) << 16
            | (rooks >> shift & 255) << 24 | (queens >> shift & 255) << 32 | (kings >> shift & 255) << 40
            | (white >> shift & 255) << 48
        )  # fmt: skip
        text = _rank_texts.get(code)
        ranks[7 - rank] = text if text is not None else _rank_text(code)
    _last_placement = (key, ranks)
    return "/".join(ranks)


def _rank_text(code: int) -> str:
    """One rank of a FEN placement from its packed code (a byte per piece type, then White's byte)."""
    cells = ["1"] * 8
    white = code >> 48
    for index, (white_symbol, black_symbol) in enumerate(_SYMBOLS):
        files = code >> (8 * index) & 255
        while files:
            lowest = files & -files
            files ^= lowest
            cells[lowest.bit_length() - 1] = white_symbol if white & lowest else black_symbol
    text = "".join(cells)
    for run, digit in _RUNS:
        if run in text:
            text = text.replace(run, digit)
    if len(_rank_texts) >= RANK_CACHE_LIMIT:
        _rank_texts.clear()
    _rank_texts[code] = text
    return text


def fen(board: chess.Board) -> str:
    """``board.fen(en_passant="fen")``, faster (see `fen_of_key` for castling).

    >>> fen(chess.Board()) == chess.Board().fen(en_passant="fen")
    True
    """
    if type(board) is not chess.Board or board.chess960:
        return board.fen(en_passant="fen")
    return fen_of_key(position_key(board))


def _window_squares(center: int) -> tuple[int, ...]:
    rank, file = chess.square_rank(center), chess.square_file(center)
    return tuple(
        chess.square(f, r) for r in (rank + 1, rank, rank - 1) if 0 <= r <= 7 for f in (file - 1, file, file + 1) if 0 <= f <= 7
    )


def _window_table(center: int) -> tuple[int, SenseWindow, dict[int, int]]:
    """(the window's squares as a bitboard, the window with every square empty, square -> its slot in the window)."""
    squares = _window_squares(center)
    mask = 0
    for square in squares:
        mask |= chess.BB_SQUARES[square]
    return mask, tuple((square, None) for square in squares), {square: slot for slot, square in enumerate(squares)}


_WINDOWS = tuple(_window_table(center) for center in chess.SQUARES)
# Per square, its (square, piece) window entries: index t for White's piece type t, t + 6 for Black's (0: empty)
_OCCUPIED: tuple[tuple[tuple[chess.Square, Optional[chess.Piece]], ...], ...] = tuple(
    ((square, None), *((square, frozen_piece(t, color)) for color in (chess.WHITE, chess.BLACK) for t in chess.PIECE_TYPES))
    for square in chess.SQUARES
)


def sense_window(board: chess.Board, square: int) -> SenseWindow:
    """`rules.sense_window`, faster: the 3x3 window around `square`, rank descending then file ascending.

    Starts from the window's empty template and fills in only the occupied squares, with
    shared read-only pieces (see :mod:`blindchess.arbiter.rules.frozen`).
    Unchecked: `square` must be a square (0..63); other boards go to the reference.

    >>> sense_window(chess.Board(), chess.A1) == rules.sense_window(chess.Board(), chess.A1)
    True
    """
    if type(board) is not chess.Board:
        return rules.sense_window(board, square)
    window_mask, empty_window, slot_of = _WINDOWS[square]
    seen = board.occupied & window_mask
    if not seen:
        return empty_window
    window = list(empty_window)
    white = board.occupied_co[chess.WHITE]
    while seen:
        bb = seen & -seen
        seen ^= bb
        if bb & board.pawns:
            piece_type = chess.PAWN
        elif bb & board.knights:
            piece_type = chess.KNIGHT
        elif bb & board.bishops:
            piece_type = chess.BISHOP
        elif bb & board.rooks:
            piece_type = chess.ROOK
        elif bb & board.queens:
            piece_type = chess.QUEEN
        else:
            piece_type = chess.KING
        occupied_square = bb.bit_length() - 1
        window[slot_of[occupied_square]] = _OCCUPIED[occupied_square][piece_type if white & bb else piece_type + 6]
    return tuple(window)
