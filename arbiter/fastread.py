"""Fast readers of an 8x8 `chess.Board`: the FEN histories record, and sense windows.

Why: the arbiter reads the truth board every turn. python-chess's `fen()` visits all
64 squares through `piece_at`; at about 40 microseconds a call, the two FENs of a
turn would cost more than the rest of the turn. `fen` builds the placement from the
twelve piece bitboards and compresses empty squares with string replacement;
`sense_window` reads the nine squares from precomputed square lists. Boards these
were not written for (Chess960, subclasses) go to python-chess and `rules`. `tests/unit/test_arbiter_fast_readers.py` holds each equal
to its reference.
"""

from __future__ import annotations

from typing import Optional

import chess

from . import rules
from .observations import SenseWindow

PositionKey = tuple[int, int, int, int, int, int, int, int, int, bool, int, Optional[int], int, int]
"""Everything a FEN shows, as plain values: pawns, knights, bishops, rooks, queens, kings, white, black,
promoted, turn, castling rights, en-passant square, half-move clock, full-move number."""

_RUNS = tuple(("1" * length, str(length)) for length in range(8, 1, -1))
_SYMBOLS = (("P", "p"), ("N", "n"), ("B", "b"), ("R", "r"), ("Q", "q"), ("K", "k"))
_CORNERS = (  # (colour slot in the key, king home, ((rook corner, letter), ...)) in python-chess's order
    (6, chess.BB_E1, ((chess.BB_H1, "K"), (chess.BB_A1, "Q"))),
    (7, chess.BB_E8, ((chess.BB_H8, "k"), (chess.BB_A8, "q"))),
)


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
    white, black = key[6], key[7]
    cells = ["1"] * 64
    for pieces, (white_symbol, black_symbol) in zip(key[:6], _SYMBOLS):
        for bb, symbol in ((pieces & white, white_symbol), (pieces & black, black_symbol)):
            while bb:
                lowest = bb & -bb
                cells[lowest.bit_length() - 1] = symbol
                bb ^= lowest
    placement = "/".join(["".join(cells[start : start + 8]) for start in range(56, -8, -8)])
    for run, digit in _RUNS:
        placement = placement.replace(run, digit)
    kings, rooks, promoted, rights = key[5], key[3], key[8], key[10]
    castling = ""
    for slot, home, corners in _CORNERS:
        own = white if slot == 6 else black
        if own & kings & ~promoted & home:
            for corner, letter in corners:
                if rights & rooks & own & corner:
                    castling += letter
    ep_square = key[11]
    return (
        f"{placement} {'w' if key[9] else 'b'} {castling or '-'} "
        f"{chess.SQUARE_NAMES[ep_square] if ep_square is not None else '-'} {key[12]} {key[13]}"
    )


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


_WINDOWS = tuple(_window_squares(center) for center in chess.SQUARES)


def sense_window(board: chess.Board, square: int) -> SenseWindow:
    """`rules.sense_window`, faster: the 3x3 window around `square`, rank descending then file ascending.

    Unchecked: `square` must be a square (0..63); other boards go to the reference.

    >>> sense_window(chess.Board(), chess.A1) == rules.sense_window(chess.Board(), chess.A1)
    True
    """
    if type(board) is not chess.Board:
        return rules.sense_window(board, square)
    occupied, white = board.occupied, board.occupied_co[chess.WHITE]
    pawns, knights, bishops, rooks, queens = board.pawns, board.knights, board.bishops, board.rooks, board.queens
    Piece = chess.Piece
    window: list[tuple[int, Optional[chess.Piece]]] = []
    for seen in _WINDOWS[square]:
        bb = 1 << seen
        if not occupied & bb:
            window.append((seen, None))
            continue
        if bb & pawns:
            piece_type = chess.PAWN
        elif bb & knights:
            piece_type = chess.KNIGHT
        elif bb & bishops:
            piece_type = chess.BISHOP
        elif bb & rooks:
            piece_type = chess.ROOK
        elif bb & queens:
            piece_type = chess.QUEEN
        else:
            piece_type = chess.KING
        window.append((seen, Piece(piece_type, bool(white & bb))))
    return tuple(window)
