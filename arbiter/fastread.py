"""Fast readers of an 8x8 `chess.Board`: the FEN histories record, and sense windows.

Why: the arbiter reads the truth board every turn. python-chess's `fen()` visits all
64 squares through `piece_at`; at about 40 microseconds a call, the two FENs of a
turn would cost more than the rest of the turn. `fen` builds the placement from the
twelve piece bitboards and compresses empty squares with string replacement;
`sense_window` reads the nine squares from precomputed square lists. Boards these
were not written for (Chess960, subclasses, castling rights that are not clean) go to
python-chess and `rules`. `tests/unit/test_arbiter_fast_readers.py` holds each equal
to its reference.
"""

from __future__ import annotations

import chess

from . import rules
from .observations import SenseWindow

_RUNS = tuple(("1" * length, str(length)) for length in range(8, 1, -1))
_PIECES = tuple(
    (piece_type, color, chess.Piece(piece_type, color).symbol()) for color in chess.COLORS for piece_type in chess.PIECE_TYPES
)
_CORNERS = {  # colour -> (king home, ((rook corner, letter), ...)) in python-chess's order (h side first)
    chess.WHITE: (chess.E1, ((chess.H1, "K"), (chess.A1, "Q"))),
    chess.BLACK: (chess.E8, ((chess.H8, "k"), (chess.A8, "q"))),
}


def _castling(board: chess.Board) -> str:
    letters = []
    for color in (chess.WHITE, chess.BLACK):
        home, corners = _CORNERS[color]
        own = board.occupied_co[color]
        if not own & board.kings & ~board.promoted & chess.BB_SQUARES[home]:
            continue
        for corner, letter in corners:
            if board.castling_rights & board.rooks & own & chess.BB_SQUARES[corner]:
                letters.append(letter)
    return "".join(letters) or "-"


def fen(board: chess.Board) -> str:
    """``board.fen(en_passant="fen")``, faster.

    >>> fen(chess.Board()) == chess.Board().fen(en_passant="fen")
    True
    """
    if type(board) is not chess.Board or board.chess960 or board.castling_rights & ~board.clean_castling_rights():
        return board.fen(en_passant="fen")
    cells = ["1"] * 64
    occupied_co = board.occupied_co
    for piece_type, color, symbol in _PIECES:
        bb = board.pieces_mask(piece_type, color)
        while bb:
            lowest = bb & -bb
            cells[lowest.bit_length() - 1] = symbol
            bb ^= lowest
    placement = "/".join("".join(cells[start : start + 8]) for start in range(56, -8, -8))
    for run, digit in _RUNS:
        placement = placement.replace(run, digit)
    ep_square = board.ep_square
    return " ".join(
        (
            placement,
            "w" if board.turn else "b",
            _castling(board),
            chess.SQUARE_NAMES[ep_square] if ep_square is not None else "-",
            str(board.halfmove_clock),
            str(board.fullmove_number),
        )
    )


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
    window = []
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
