"""Fast move actions for the 8x8 board: `rules.move_actions`, without copying the board.

Why: the reference (:func:`blindchess.arbiter.rules.move_actions`, reconchess's
definition) copies the board with the opponent's pieces removed and runs python-chess's
generic generator over it; that is over a third of an arbiter turn. This module reads
the own-piece bitboards directly and emits the same moves in the same order:

1. piece moves, pieces from h8 down to a1, targets from high to low squares, with
   slides stopped only by own pieces;
2. castling (kingside first), when the rights are clean and no own piece stands
   between king and rook (with no opponent pieces, nothing is ever attacked);
3. pawn pushes onto squares free of own pieces, single steps (promotions Q, R, B, N)
   then double steps, high to low; the own-only board has no pawn captures and, as
   python-chess transforms it, never an en passant square;
4. every pawn diagonal not onto an own piece, pawns and targets low to high, each with
   the promotion-less move first and then N, B, R, Q on the last rank.

Boards it was not written for (Chess960, subclasses, several kings of a colour) go
to the reference. `tests/unit/test_arbiter_movegen.py` holds the two equal.
"""

from __future__ import annotations

import chess
from chess import (
    BB_DIAG_ATTACKS,
    BB_DIAG_MASKS,
    BB_FILE_ATTACKS,
    BB_FILE_MASKS,
    BB_KING_ATTACKS,
    BB_KNIGHT_ATTACKS,
    BB_PAWN_ATTACKS,
    BB_RANK_ATTACKS,
    BB_RANK_MASKS,
    BB_SQUARES,
    Move,
)

from . import rules

_PUSH_PROMOTIONS = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
_DIAGONAL_PROMOTIONS = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
_BACK_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8
# (backrank, king home, kingside and queenside (rook square, king target, rook target)) per colour
_CASTLING = {
    chess.WHITE: (chess.BB_RANK_1, chess.E1, ((chess.H1, chess.G1, chess.F1), (chess.A1, chess.C1, chess.D1))),
    chess.BLACK: (chess.BB_RANK_8, chess.E8, ((chess.H8, chess.G8, chess.F8), (chess.A8, chess.C8, chess.D8))),
}


def _targets_low_to_high(attacks: int) -> tuple[tuple[int, int, bool], ...]:
    """(target, its bitboard, on a back rank) for each square of `attacks`, low to high."""
    return tuple((target, BB_SQUARES[target], bool(BB_SQUARES[target] & _BACK_RANKS)) for target in _low_to_high(attacks))


def _high_to_low(bb: int) -> list[int]:
    squares = []
    while bb:
        square = bb.bit_length() - 1
        squares.append(square)
        bb ^= 1 << square
    return squares


def _low_to_high(bb: int) -> list[int]:
    squares = []
    while bb:
        lowest = bb & -bb
        squares.append(lowest.bit_length() - 1)
        bb ^= lowest
    return squares


# Per colour and square: the pawn diagonals from that square (precomputed: the loop over them is the hot path).
_PAWN_DIAGONALS = {
    color: tuple(_targets_low_to_high(BB_PAWN_ATTACKS[color][square]) for square in chess.SQUARES) for color in chess.COLORS
}
_KNIGHT_TARGETS = tuple(tuple((target, BB_SQUARES[target]) for target in _high_to_low(BB_KNIGHT_ATTACKS[s])) for s in chess.SQUARES)
_KING_TARGETS = tuple(tuple((target, BB_SQUARES[target]) for target in _high_to_low(BB_KING_ATTACKS[s])) for s in chess.SQUARES)


def move_actions(board: chess.Board) -> list[chess.Move]:
    """The move actions of the side to move; equal (same order) to :func:`rules.move_actions`.

    >>> move_actions(chess.Board()) == rules.move_actions(chess.Board())
    True
    """
    turn = board.turn
    own = board.occupied_co[turn]
    if board.chess960 or type(board) is not chess.Board or chess.popcount(own & board.kings) > 1:
        return rules.move_actions(board)
    not_own = ~own
    pawns = board.pawns & own
    knights, kings = board.knights, board.kings
    diagonal_sliders, straight_sliders = board.bishops | board.queens, board.rooks | board.queens
    actions: list[chess.Move] = []
    append = actions.append

    pieces = own & ~pawns
    while pieces:
        origin = pieces.bit_length() - 1
        bb = BB_SQUARES[origin]
        pieces ^= bb
        if bb & (knights | kings):
            for target, target_bb in (_KNIGHT_TARGETS if bb & knights else _KING_TARGETS)[origin]:
                if not own & target_bb:
                    append(Move(origin, target))
            continue
        attacks = 0
        if bb & diagonal_sliders:
            attacks = BB_DIAG_ATTACKS[origin][BB_DIAG_MASKS[origin] & own]
        if bb & straight_sliders:
            attacks |= BB_RANK_ATTACKS[origin][BB_RANK_MASKS[origin] & own] | BB_FILE_ATTACKS[origin][BB_FILE_MASKS[origin] & own]
        targets = attacks & not_own
        while targets:
            target = targets.bit_length() - 1
            append(Move(origin, target))
            targets ^= BB_SQUARES[target]

    if own & kings:
        _append_castling(board, own, actions)

    if pawns:
        if turn == chess.WHITE:
            single = pawns << 8 & not_own
            double = single << 8 & not_own & (chess.BB_RANK_3 | chess.BB_RANK_4)
            step = -8
        else:
            single = pawns >> 8 & not_own
            double = single >> 8 & not_own & (chess.BB_RANK_6 | chess.BB_RANK_5)
            step = 8
        for target in _high_to_low(single):
            if BB_SQUARES[target] & _BACK_RANKS:
                actions.extend(Move(target + step, target, piece) for piece in _PUSH_PROMOTIONS)
            else:
                append(Move(target + step, target))
        for target in _high_to_low(double):
            append(Move(target + 2 * step, target))

        diagonals = _PAWN_DIAGONALS[turn]
        while pawns:
            lowest = pawns & -pawns
            pawns ^= lowest
            pawn = lowest.bit_length() - 1
            for target, target_bb, back_rank in diagonals[pawn]:
                if own & target_bb:
                    continue
                append(Move(pawn, target))
                if back_rank:
                    for piece in _DIAGONAL_PROMOTIONS:
                        append(Move(pawn, target, piece))
    return actions


def _append_castling(board: chess.Board, own: int, actions: list[chess.Move]) -> None:
    """python-chess's castling generation on the own-only board, where no square is attacked."""
    backrank, home, sides = _CASTLING[board.turn]
    king = own & board.kings & ~board.promoted & backrank
    king &= -king
    if not king:
        return
    # clean_castling_rights() of the own-only board (its move stack is always empty)
    if not own & board.kings & ~board.promoted & BB_SQUARES[home]:
        return
    rights = board.castling_rights & board.rooks & own & backrank
    king_square = king.bit_length() - 1
    for rook_square, king_target, rook_target in sides:
        rook = BB_SQUARES[rook_square]
        if not rights & rook:
            continue
        king_path = chess.between(king_square, king_target)
        rook_path = chess.between(rook_square, rook_target)
        if not (own ^ king ^ rook) & (king_path | rook_path | BB_SQUARES[king_target] | BB_SQUARES[rook_target]):
            actions.append(Move(king_square, king_target))
