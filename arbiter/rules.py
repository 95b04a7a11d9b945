"""The rules of Reconnaissance Blind Chess on the 8x8 board, as pure functions over `chess.Board`.

Rule text implemented (reconchess rules, seed 000, point 5c)::

    i.   The move is legal on the game board.
    ii.  The moving piece is a queen, bishop, or rook and the move is illegal on the
         game board because one or more opponent pieces block the path of the moving
         piece. Then the destination becomes the first obstructing opponent piece,
         which is captured. (This rule does not apply to a castling king.)
    iii. The moving piece is a pawn moving two squares forward on its first move, and
         the move is illegal because an opponent's piece blocks the path. Then the
         pawn moves only one square if that is legal, otherwise the move is illegal.
    iv.  Otherwise the move is illegal (or a pass): nothing changes on the board.

A move onto the last rank without a promotion piece promotes to a queen. King
capture wins; check, checkmate and stalemate do not exist.

Where the text is silent we follow reconchess 1.6.9 exactly (and a differential
test holds us to it):

- The move actions are what a player can try knowing only their own pieces: the
  pseudo-legal moves with every opponent piece removed, plus every pawn diagonal
  that does not land on an own piece (capture-promotions both with and without a
  promotion piece). Castling is offered whenever the rights exist and no own piece
  stands between king and rook.
- Castling through or out of check stands; castling with any piece (of either
  colour) between king and rook, or without the rights, is illegal.
- A pawn diagonal onto an empty square (not en passant) is illegal; a pawn push
  onto an occupied square is illegal.
- An illegal move or a pass pushes a null move: the half-move clock advances and
  the en-passant square clears.
"""

from __future__ import annotations

from typing import Optional

import chess

from .observations import SenseWindow
from .types import Square

_BACK_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8
_PROMOTION_PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def without_opponent_pieces(board: chess.Board) -> chess.Board:
    """A copy of `board` holding only the side to move's pieces (what that player knows for sure)."""
    mine = board.occupied_co[board.turn]
    return board.transform(lambda bb: bb & mine)


def move_actions(board: chess.Board) -> list[chess.Move]:
    """Every move the side to move may request, knowing only its own pieces.

    >>> len(move_actions(chess.Board()))
    34
    """
    actions = list(without_opponent_pieces(board).generate_pseudo_legal_moves())
    own = board.occupied_co[board.turn]
    for pawn in chess.scan_forward(board.pawns & own):
        for target in chess.scan_forward(chess.BB_PAWN_ATTACKS[board.turn][pawn] & ~own):
            actions.append(chess.Move(pawn, target))
            if chess.BB_SQUARES[target] & _BACK_RANKS:
                actions.extend(chess.Move(pawn, target, piece) for piece in _PROMOTION_PIECES)
    return actions


def sense_actions() -> list[Square]:
    """Every square is a sense action; a sense centred on an edge square shows a clipped window."""
    return list(chess.SQUARES)


def sense_window(board: chess.Board, square: Square) -> SenseWindow:
    """The 3x3 window centred on `square`, rank descending then file ascending (reconchess's order).

    >>> [chess.square_name(s) for s, _ in sense_window(chess.Board(), chess.A1)]
    ['a2', 'b2', 'a1', 'b1']
    """
    rank, file = chess.square_rank(square), chess.square_file(square)
    return tuple(
        (chess.square(f, r), board.piece_at(chess.square(f, r)))
        for r in (rank + 1, rank, rank - 1)
        if 0 <= r <= 7
        for f in (file - 1, file, file + 1)
        if 0 <= f <= 7
    )


def with_default_promotion(board: chess.Board, move: chess.Move) -> chess.Move:
    """`move` with a queen promotion added when a pawn moves onto the last rank without a promotion piece."""
    if (
        move.promotion is None
        and chess.BB_SQUARES[move.to_square] & _BACK_RANKS
        and board.piece_type_at(move.from_square) == chess.PAWN
    ):
        return chess.Move(move.from_square, move.to_square, chess.QUEEN)
    return move


def is_illegal_castle(board: chess.Board, move: chess.Move) -> bool:
    """True for a castling move without the rights, or with any piece between king and rook."""
    if not board.is_castling(move):
        return False
    kingside = board.is_kingside_castling(move)
    if kingside and not board.has_kingside_castling_rights(board.turn):
        return True
    if not kingside and not board.has_queenside_castling_rights(board.turn):
        return True
    rook_square = chess.square(7 if kingside else 0, chess.square_rank(move.from_square))
    return bool(chess.between(move.from_square, rook_square) & board.occupied)


def _slide(board: chess.Board, move: chess.Move) -> Optional[chess.Move]:
    """The longest pseudo-legal prefix of a straight move: it stops on the first blocker, capturing it."""
    path = list(chess.SquareSet(chess.between(move.from_square, move.to_square)))
    if move.to_square > move.from_square:
        path.reverse()
    for square in [move.to_square, *path]:
        revised = chess.Move(move.from_square, square, move.promotion)
        if board.is_pseudo_legal(revised):
            return revised
    return None


def revise_move(board: chess.Board, move: chess.Move) -> Optional[chess.Move]:
    """The move the arbiter makes for a requested move (already in `move_actions`, promotion defaulted).

    Returns None when the request is illegal on the true board (rule iv).
    Unchecked: `move` must come from `move_actions(board)`.
    """
    if board.is_castling(move):
        return None if is_illegal_castle(board, move) else move
    if board.is_pseudo_legal(move):
        return move
    if board.piece_type_at(move.from_square) in (chess.PAWN, chess.BISHOP, chess.ROOK, chess.QUEEN):
        return _slide(board, move)
    return None


def capture_square_of_move(board: chess.Board, move: Optional[chess.Move]) -> Optional[Square]:
    """Where `move` (about to be made on `board`) captures, or None; en passant captures beside the target."""
    if move is None or not board.is_capture(move):
        return None
    if board.is_en_passant(move):
        return move.to_square + (-8 if board.turn == chess.WHITE else 8)
    return move.to_square


def push(board: chess.Board, taken_move: Optional[chess.Move]) -> None:
    """Make `taken_move` on `board` in place; None (pass or illegal) pushes a null move."""
    board.push(taken_move if taken_move is not None else chess.Move.null())


def king_captured(board: chess.Board) -> Optional[bool]:
    """The colour whose king is gone, or None while both kings stand."""
    if not board.kings & board.occupied_co[chess.WHITE]:
        return chess.WHITE
    if not board.kings & board.occupied_co[chess.BLACK]:
        return chess.BLACK
    return None
