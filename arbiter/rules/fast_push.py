"""Making a move on an 8x8 `chess.Board` without python-chess's undo stack.

Why: `chess.Board.push` saves a copy of the whole board state and the move on two
stacks so that `pop` can undo it. The arbiter never undoes a move, and that
bookkeeping is most of the cost of `push` (a null move, a pass, is almost nothing but
bookkeeping). `push` here changes every field exactly as `Board.push` does (pieces,
promoted, castling rights, en-passant square, clocks, turn), and leaves the two stacks
alone: after it, `board.move_stack` does not show the move and `board.pop()` cannot
undo it. Castling rights are stored clean (`clean_castling_rights()`), which is what
`Board.push` stores too. Boards it was not written for (Chess960, subclasses, drops)
go to `Board.push`. `tests/unit/arbiter/test_fast_push.py` holds the two equal.
"""

from __future__ import annotations

from typing import Optional

import chess
from chess import BB_SQUARES

_BACK_RANK = {chess.WHITE: chess.BB_RANK_1, chess.BLACK: chess.BB_RANK_8}
# A standard-notation castling move (king square, king target) -> the rook square python-chess moves the king onto
_CASTLING_ROOK = {
    (chess.E1, chess.G1): chess.H1, (chess.E1, chess.C1): chess.A1, (chess.E8, chess.G8): chess.H8, (chess.E8, chess.C8): chess.A8
}

# (colour, towards the a-file) -> where king and rook stand after castling
_CASTLED = {
    (chess.WHITE, True): (chess.C1, chess.D1),
    (chess.WHITE, False): (chess.G1, chess.F1),
    (chess.BLACK, True): (chess.C8, chess.D8),
    (chess.BLACK, False): (chess.G8, chess.F8),
}


def push(board: chess.Board, move: Optional[chess.Move]) -> None:
    """Make `move` on `board` in place, as ``board.push(move)`` would, without the undo stacks; None is a null move.

    Unchecked: `move` must be pseudo-legal on `board` (or None), as for `Board.push`.

    >>> board = chess.Board()
    >>> push(board, chess.Move.from_uci("e2e4")); push(board, None)
    >>> board.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"
    True
    """
    if type(board) is not chess.Board or board.chess960 or (move is not None and move.drop):
        board.push(move if move is not None else chess.Move.null())
        return
    if board.castling_rights:
        board.castling_rights = board.clean_castling_rights()
    ep_square = board.ep_square
    board.ep_square = None
    board.halfmove_clock += 1
    turn = board.turn
    if turn == chess.BLACK:
        board.fullmove_number += 1
    board.turn = not turn
    if move is None or not move:
        return

    from_square, to_square = move.from_square, move.to_square
    from_bb, to_bb = BB_SQUARES[from_square], BB_SQUARES[to_square]
    rook_square = _CASTLING_ROOK.get((from_square, to_square)) if board.kings & from_bb else None
    if rook_square is not None and not board.rooks & to_bb:  # python-chess's _to_chess960: e1g1 becomes e1h1
        to_square, to_bb = rook_square, BB_SQUARES[rook_square]
    if (from_bb ^ to_bb) & (board.pawns | board.occupied_co[not turn]):
        board.halfmove_clock = 0

    promoted = bool(board.promoted & from_bb)
    piece_type = _remove(board, from_square)
    assert piece_type is not None, f"push() expects a pseudo-legal move, got {move} in {board.board_fen()}"
    captured_piece_type = board.piece_type_at(to_square)

    board.castling_rights &= ~to_bb & ~from_bb
    if piece_type == chess.KING and not promoted:
        board.castling_rights &= ~_BACK_RANK[turn]
    elif captured_piece_type == chess.KING and not board.promoted & to_bb:
        if turn == chess.WHITE and to_square >> 3 == 7:
            board.castling_rights &= ~chess.BB_RANK_8
        elif turn == chess.BLACK and to_square >> 3 == 0:
            board.castling_rights &= ~chess.BB_RANK_1

    if piece_type == chess.PAWN:
        diff = to_square - from_square
        if diff == 16 and from_square >> 3 == 1:
            board.ep_square = from_square + 8
        elif diff == -16 and from_square >> 3 == 6:
            board.ep_square = from_square - 8
        elif to_square == ep_square and abs(diff) in (7, 9) and not captured_piece_type:
            _remove(board, ep_square + (-8 if turn == chess.WHITE else 8))

    if move.promotion:
        promoted = True
        piece_type = move.promotion

    if piece_type == chess.KING and board.occupied_co[turn] & to_bb:  # castling, as python-chess decides it
        _remove(board, to_square)
        king_target, rook_target = _CASTLED[turn, to_square & 7 < from_square & 7]
        for square, placed in ((king_target, chess.KING), (rook_target, chess.ROOK)):
            _remove(board, square)
            _place(board, BB_SQUARES[square], placed, turn, False)
    else:
        if captured_piece_type:
            _remove(board, to_square)
        _place(board, to_bb, piece_type, turn, promoted)


def _remove(board: chess.Board, square: chess.Square) -> Optional[chess.PieceType]:
    """``board._remove_piece_at(square)``, with one call fewer (python-chess's asks `piece_type_at` and then
    tests the type again per bitboard)."""
    piece_type = board.piece_type_at(square)
    if piece_type is None:
        return None
    bb = BB_SQUARES[square]
    field = _PIECE_FIELDS[piece_type]
    setattr(board, field, getattr(board, field) ^ bb)
    board.occupied ^= bb
    board.occupied_co[chess.WHITE] &= ~bb
    board.occupied_co[chess.BLACK] &= ~bb
    board.promoted &= ~bb
    return piece_type


def _place(board: chess.Board, bb: int, piece_type: chess.PieceType, color: chess.Color, promoted: bool) -> None:
    """``board._set_piece_at`` for the square of `bb`, which must be empty."""
    field = _PIECE_FIELDS[piece_type]
    setattr(board, field, getattr(board, field) | bb)
    board.occupied ^= bb
    board.occupied_co[color] ^= bb
    if promoted:
        board.promoted ^= bb


_PIECE_FIELDS = ("", "pawns", "knights", "bishops", "rooks", "queens", "kings")
"""The board's bitboard of each piece type, by type (index 0 is no piece type)."""
