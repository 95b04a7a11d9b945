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

`request_outcome` puts the promotion default, rules ii-iv and the capture together for one
request on one board: the arbiter's answer, which planners and selectors score instead of
the request (`fast_revision.request_outcome` is the same from bitboards).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import chess

from ..types import Color, PieceType, SenseWindow, Square

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


@dataclass(frozen=True, slots=True)
class RequestOutcome:
    """What requesting a move does on one board (rules ii-iv above), and the board after it.

    Build it with `request_outcome`. It holds `board` itself, not a copy, and answers
    questions about the position after the move (who attacks a square, where a king
    stands) from bitboards, without making the move: scoring every move action on
    hundreds of boards per turn cannot afford a copy and a push per pair. `after()` makes
    the move on a copy, for whoever needs the whole board (an engine), and is the slow
    reference the fast queries are tested against. Don't change `board` while the outcome
    is in use.

    Attributes:
        board: the board the move was requested on, the requester to move.
        taken: the move the arbiter makes (None: a pass or a refused request, nothing moves).
        capture_square: where it captures (None if it does not; beside the target en passant).
        captured: the piece captured there (None if none).
    """

    board: chess.Board
    taken: Optional[chess.Move]
    capture_square: Optional[Square]
    captured: Optional[chess.Piece]

    @property
    def captures_king(self) -> bool:
        """True when the move captures the opponent's king (it wins the game)."""
        return self.captured is not None and self.captured.piece_type == chess.KING

    def after(self) -> chess.Board:
        """A copy of the board with the move made (a null move for a pass or refusal), the opponent to move."""
        after = self.board.copy(stack=False)
        push(after, self.taken)
        return after

    def occupied_after(self) -> chess.Bitboard:
        """The occupied squares after the move (unchecked: not for castling, which moves two pieces)."""
        occupied = self.board.occupied
        taken = self.taken
        if taken is None:
            return occupied
        if self.capture_square is not None:
            occupied &= ~chess.BB_SQUARES[self.capture_square]
        return (occupied & ~chess.BB_SQUARES[taken.from_square]) | chess.BB_SQUARES[taken.to_square]

    def attackers_after(self, color: Color, square: Square) -> chess.Bitboard:
        """The squares of `color`'s pieces that attack `square` after the move.

        >>> outcome = request_outcome(chess.Board("4k3/8/8/8/n7/8/8/R3K3 w - - 0 1"), chess.Move.from_uci("a1a8"))
        >>> outcome.taken, outcome.captured
        (Move.from_uci('a1a4'), Piece.from_symbol('n'))
        >>> [chess.square_name(s) for s in chess.SquareSet(outcome.attackers_after(chess.WHITE, chess.A8))]
        ['a4']
        """
        board, taken = self.board, self.taken
        if taken is None:
            return board.attackers_mask(color, square)
        if board.is_castling(taken):
            return self.after().attackers_mask(color, square)
        occupied = self.occupied_after()
        attackers = board.attackers_mask(color, square, occupied)
        if color != board.turn:
            return attackers if self.capture_square is None else attackers & ~chess.BB_SQUARES[self.capture_square]
        attackers &= ~chess.BB_SQUARES[taken.from_square]
        moved = taken.promotion or board.piece_type_at(taken.from_square)
        if moved is not None and _attacks(moved, color, taken.to_square, occupied) & chess.BB_SQUARES[square]:
            attackers |= chess.BB_SQUARES[taken.to_square]
        return attackers

    def is_attacked_after(self, color: Color, square: Square) -> bool:
        """True when a piece of `color` attacks `square` after the move."""
        return bool(self.attackers_after(color, square))

    def king_after(self, color: Color) -> Optional[Square]:
        """Where `color`'s king stands after the move (None once captured)."""
        board, taken = self.board, self.taken
        if taken is not None and color == board.turn and taken.from_square == board.king(color):
            return self.after().king(color) if board.is_castling(taken) else taken.to_square
        king = board.king(color)
        return None if king is None or king == self.capture_square else king

    def exposes_king(self, color: Color) -> bool:
        """True when `color`'s king stands attacked after the move (the other side could take it)."""
        king = self.king_after(color)
        return king is not None and self.is_attacked_after(not color, king)


def request_outcome(board: chess.Board, move: Optional[chess.Move]) -> RequestOutcome:
    """The RBC outcome of requesting `move` (None: pass) on `board`, the requester to move.

    The promotion is defaulted, the request revised (`revise_move`) and the capture found
    (`capture_square_of_move`), exactly as the arbiter does; `board` is not changed.
    Unchecked: `move` must be one of `move_actions(board)`.

    >>> board = chess.Board("4k3/8/8/8/8/8/8/R2NK3 w Q - 0 1")
    >>> request_outcome(board, chess.Move.from_uci("e1c1")).taken is None  # a piece stands between king and rook
    True
    """
    taken = None if move is None else revise_move(board, with_default_promotion(board, move))
    square = capture_square_of_move(board, taken)
    return RequestOutcome(board, taken, square, None if square is None else board.piece_at(square))


def _attacks(piece_type: PieceType, color: Color, square: Square, occupied: chess.Bitboard) -> chess.Bitboard:
    """The squares a `piece_type` of `color` on `square` attacks, with `occupied` blocking slides."""
    if piece_type == chess.PAWN:
        return chess.BB_PAWN_ATTACKS[color][square]
    if piece_type == chess.KNIGHT:
        return chess.BB_KNIGHT_ATTACKS[square]
    if piece_type == chess.KING:
        return chess.BB_KING_ATTACKS[square]
    attacks = 0
    if piece_type in (chess.BISHOP, chess.QUEEN):
        attacks = chess.BB_DIAG_ATTACKS[square][chess.BB_DIAG_MASKS[square] & occupied]
    if piece_type in (chess.ROOK, chess.QUEEN):
        attacks |= chess.BB_RANK_ATTACKS[square][chess.BB_RANK_MASKS[square] & occupied]
        attacks |= chess.BB_FILE_ATTACKS[square][chess.BB_FILE_MASKS[square] & occupied]
    return attacks
