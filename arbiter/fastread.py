"""Fast FEN for the 8x8 board: ``board.fen(en_passant="fen")``, built from the bitboards.

Why: a history records the truth position before and after every move, and
python-chess's `fen()` visits all 64 squares through `piece_at`; at about 40
microseconds a call, two FENs a turn would cost more than the rest of the turn.
This builds the placement from the twelve piece bitboards and compresses empty
squares with string replacement. Boards it was not written for (Chess960,
subclasses, castling rights that are not clean) go to python-chess.
`tests/unit/test_arbiter_movegen.py` holds the two equal.
"""

from __future__ import annotations

import chess

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
