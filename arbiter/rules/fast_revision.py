"""Fast move revision on the 8x8 board: `rules.revise_move`, `rules.capture_square_of_move` and `rules.request_outcome` from bitboards.

Why: the reference asks python-chess whether the requested move is pseudo-legal on the
true board (which, for a pawn, generates the pawn's moves) and, when it is not, tries
each square of the path in turn. Because the request is one of the move actions (a
move that is pseudo-legal when only the mover's own pieces are on the board), the
answer follows from a few bitboard tests:

- a knight or a king step is always made; it captures whatever opponent piece is there;
- a bishop, rook or queen is made when nothing stands between its squares; otherwise
  it stops on the first piece in its path (always an opponent's: own pieces already
  bound the move actions) and captures it;
- a pawn push is made onto an empty square; a blocked double step becomes a single
  step when the square in front is empty;
- a pawn diagonal is made onto an opponent piece or onto the en-passant square
  (capturing the pawn beside it).

Castling and boards this was not written for (Chess960, subclasses) go to the
reference. Unchecked: `move` must be a move action of `board` with the default
promotion added (`rules.with_default_promotion`). `tests/unit/arbiter/test_fast_revision.py`
holds both functions equal to the references on every move action of many positions.
"""

from __future__ import annotations

from typing import Optional

import chess
from chess import BB_SQUARES

from ..types import Square
from . import reference as rules
from .frozen import frozen_move

_BETWEEN = tuple(tuple(chess.between(a, b) for b in chess.SQUARES) for a in chess.SQUARES)


def revise_move(board: chess.Board, move: chess.Move) -> Optional[chess.Move]:
    """The move the arbiter makes for the request `move`, or None (rule iv); equal to `rules.revise_move`.

    A revised slide is a shared `FrozenMove` (see :mod:`blindchess.arbiter.rules.frozen`).
    """
    from_square, to_square = move.from_square, move.to_square
    from_bb = BB_SQUARES[from_square]
    if type(board) is not chess.Board or board.chess960:
        return rules.revise_move(board, move)
    if board.knights & from_bb:
        return move
    if board.kings & from_bb:
        if abs((from_square & 7) - (to_square & 7)) > 1:  # castling
            return rules.revise_move(board, move)
        return move
    occupied = board.occupied
    if board.pawns & from_bb:
        diff = to_square - from_square
        if diff in (8, -8):
            return None if occupied & BB_SQUARES[to_square] else move
        if diff in (16, -16):
            middle = from_square + diff // 2
            if occupied & BB_SQUARES[middle]:
                return None
            return frozen_move(from_square, middle, move.promotion) if occupied & BB_SQUARES[to_square] else move
        if board.occupied_co[not board.turn] & BB_SQUARES[to_square] or to_square == board.ep_square:
            return move
        return None
    path = _BETWEEN[from_square][to_square] & occupied
    if not path:
        return move
    blocker = (path & -path).bit_length() - 1 if to_square > from_square else path.bit_length() - 1
    return frozen_move(from_square, blocker, move.promotion)


def capture_square(board: chess.Board, move: Optional[chess.Move]) -> Optional[Square]:
    """Where `move` (a revised move, about to be made) captures, or None; equal to `rules.capture_square_of_move`."""
    if move is None:
        return None
    if type(board) is not chess.Board or board.chess960:
        return rules.capture_square_of_move(board, move)
    to_square = move.to_square
    if board.occupied_co[not board.turn] & BB_SQUARES[to_square]:
        return to_square
    if (
        to_square == board.ep_square
        and board.pawns & BB_SQUARES[move.from_square]
        and to_square - move.from_square in (7, 9, -7, -9)
        and not board.occupied & BB_SQUARES[to_square]
    ):
        return to_square + (-8 if board.turn == chess.WHITE else 8)
    return None


def request_outcome(board: chess.Board, move: Optional[chess.Move]) -> rules.RequestOutcome:
    """`rules.request_outcome` with the move revised and its capture found from bitboards (equal to it).

    Unchecked, like the reference: `move` must be one of `rules.move_actions(board)` (or None).
    """
    taken = None if move is None else revise_move(board, rules.with_default_promotion(board, move))
    square = capture_square(board, taken)
    return rules.RequestOutcome(board, taken, square, None if square is None else board.piece_at(square))
