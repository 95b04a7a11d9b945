"""Fast move actions for the 8x8 board: `rules.move_actions`, without copying the board.

Why: the reference (:func:`blindchess.arbiter.rules.reference.move_actions`, reconchess's
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
to the reference. `tests/unit/arbiter/test_fast_actions_and_reading.py` holds the two equal.
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

from . import reference as rules
from .frozen import frozen_move

_PUSH_PROMOTIONS = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
_DIAGONAL_PROMOTIONS = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
_BACK_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8
# Per colour: (back rank, king home, per side (kingside first): the rook's square, the squares that
# must hold no other own piece (both paths and both targets), the castling move)
_CASTLING = {
    color: (
        backrank,
        home,
        tuple(
            (
                BB_SQUARES[rook_square],
                chess.between(home, king_target) | chess.between(rook_square, rook_target)
                | BB_SQUARES[king_target] | BB_SQUARES[rook_target],
                frozen_move(home, king_target),
            )
            for rook_square, king_target, rook_target in sides
        ),
    )
    for color, (backrank, home, sides) in {
        chess.WHITE: (chess.BB_RANK_1, chess.E1, ((chess.H1, chess.G1, chess.F1), (chess.A1, chess.C1, chess.D1))),
        chess.BLACK: (chess.BB_RANK_8, chess.E8, ((chess.H8, chess.G8, chess.F8), (chess.A8, chess.C8, chess.D8))),
    }.items()
}


def _subsets(bb: int) -> list[int]:
    """Every subset of the squares of `bb` (as bitboards)."""
    subsets = [0]
    for square in _low_to_high(bb):
        subsets += [subset | BB_SQUARES[square] for subset in subsets]
    return subsets


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


MovesOf = dict[int, tuple[Move, ...]]
"""A target bitboard (the squares a piece or the pawns may go to) -> the moves, in generation order."""

CACHE_LIMIT = 4096
"""Entries per cache table before it is emptied: bounds memory (at most a few MB in all) whatever the games."""


def _remember(table: MovesOf, key: int, moves: tuple[Move, ...]) -> tuple[Move, ...]:
    if len(table) >= CACHE_LIMIT:
        table.clear()
    table[key] = moves
    return moves


def _piece_moves(origin: int, targets: int) -> tuple[Move, ...]:
    """A non-pawn piece's moves from `origin` to each square of `targets`, high to low."""
    moves_from = _PLAIN_MOVES[origin]
    return _remember(_PIECE_MOVES[origin], targets, tuple([moves_from[target] for target in _high_to_low(targets)]))


def _single_push_moves(turn: bool, targets: int) -> tuple[Move, ...]:
    """Single pawn steps onto `targets`, high to low, each promotion spelled out (Q, R, B, N) on the last rank."""
    step = -8 if turn == chess.WHITE else 8
    moves: list[Move] = []
    for target in _high_to_low(targets):
        if BB_SQUARES[target] & _BACK_RANKS:
            moves.extend(frozen_move(target + step, target, piece) for piece in _PUSH_PROMOTIONS)
        else:
            moves.append(_PLAIN_MOVES[target + step][target])
    return _remember(_SINGLE_PUSHES[turn], targets, tuple(moves))


def _double_push_moves(turn: bool, targets: int) -> tuple[Move, ...]:
    step = -16 if turn == chess.WHITE else 16
    return _remember(_DOUBLE_PUSHES[turn], targets, tuple([_PLAIN_MOVES[target + step][target] for target in _high_to_low(targets)]))


def _diagonal_moves(pawn: int, targets: int) -> tuple[Move, ...]:
    """A pawn's diagonals onto `targets`, low to high, each plain and then (last rank) N, B, R, Q."""
    moves: list[Move] = []
    for target in _low_to_high(targets):
        moves.append(frozen_move(pawn, target))
        if BB_SQUARES[target] & _BACK_RANKS:
            moves.extend(frozen_move(pawn, target, piece) for piece in _DIAGONAL_PROMOTIONS)
    return tuple(moves)


_PLAIN_MOVES = tuple(tuple(frozen_move(origin, target) for target in chess.SQUARES) for origin in chess.SQUARES)
_PIECE_MOVES: tuple[MovesOf, ...] = tuple({} for _ in chess.SQUARES)  # per origin
# Per origin, its tables in one tuple (one lookup per piece): the square's bitboard, knight and king
# attacks, the diagonal, rank and file (occupancy mask, attacks by occupancy), and its `_PIECE_MOVES`.
_GEOMETRY = tuple(
    (
        BB_SQUARES[origin], BB_KNIGHT_ATTACKS[origin], BB_KING_ATTACKS[origin],
        BB_DIAG_MASKS[origin], BB_DIAG_ATTACKS[origin], BB_RANK_MASKS[origin], BB_RANK_ATTACKS[origin],
        BB_FILE_MASKS[origin], BB_FILE_ATTACKS[origin], _PIECE_MOVES[origin],
    )  # fmt: skip
    for origin in chess.SQUARES
)
_SINGLE_PUSHES: dict[bool, MovesOf] = {chess.WHITE: {}, chess.BLACK: {}}
_DOUBLE_PUSHES: dict[bool, MovesOf] = {chess.WHITE: {}, chess.BLACK: {}}
# Per colour and pawn square: (the diagonal squares, {the free ones -> their moves}), every subset precomputed.
_PAWN_DIAGONALS = {
    color: tuple(
        (
            BB_PAWN_ATTACKS[color][pawn],
            {free: _diagonal_moves(pawn, free) for free in _subsets(BB_PAWN_ATTACKS[color][pawn])},
        )
        for pawn in chess.SQUARES
    )
    for color in chess.COLORS
}


def move_actions(board: chess.Board) -> list[chess.Move]:
    """The move actions of the side to move; equal (same order) to :func:`rules.move_actions`.

    The moves are shared `FrozenMove` instances (see :mod:`blindchess.arbiter.rules.frozen`):
    each piece's moves are looked up by the squares it may reach, built once and reused.

    >>> move_actions(chess.Board()) == rules.move_actions(chess.Board())
    True
    """
    turn = board.turn
    own = board.occupied_co[turn]
    own_kings = own & board.kings
    if board.chess960 or type(board) is not chess.Board or own_kings & (own_kings - 1):  # more than one king
        return rules.move_actions(board)
    not_own = ~own
    pawns = board.pawns & own
    knights, kings = board.knights, board.kings
    diagonal_sliders, straight_sliders = board.bishops | board.queens, board.rooks | board.queens
    actions: list[chess.Move] = []
    extend = actions.extend

    pieces = own & ~pawns
    while pieces:
        origin = pieces.bit_length() - 1
        bb, knight, king, diagonal_mask, diagonal, rank_mask, rank, file_mask, file, known = _GEOMETRY[origin]
        pieces ^= bb
        if bb & knights:
            targets = knight & not_own
        elif bb & kings:
            targets = king & not_own
        elif bb & diagonal_sliders:
            targets = diagonal[diagonal_mask & own]
            if bb & straight_sliders:
                targets |= rank[rank_mask & own] | file[file_mask & own]
            targets &= not_own
        else:
            targets = (rank[rank_mask & own] | file[file_mask & own]) & not_own
        moves = known.get(targets)
        extend(moves if moves is not None else _piece_moves(origin, targets))

    if board.castling_rights & own and own & board.kings:
        _append_castling(board, own, actions)

    if pawns:
        if turn == chess.WHITE:
            single = pawns << 8 & not_own & chess.BB_ALL
            double = single << 8 & not_own & (chess.BB_RANK_3 | chess.BB_RANK_4)
        else:
            single = pawns >> 8 & not_own
            double = single >> 8 & not_own & (chess.BB_RANK_6 | chess.BB_RANK_5)
        moves = _SINGLE_PUSHES[turn].get(single)
        extend(moves if moves is not None else _single_push_moves(turn, single))
        if double:
            moves = _DOUBLE_PUSHES[turn].get(double)
            extend(moves if moves is not None else _double_push_moves(turn, double))
        diagonals = _PAWN_DIAGONALS[turn]
        while pawns:
            lowest = pawns & -pawns
            pawns ^= lowest
            attacks, moves_by_free = diagonals[lowest.bit_length() - 1]
            extend(moves_by_free[attacks & not_own])
    return actions


def _append_castling(board: chess.Board, own: int, actions: list[chess.Move]) -> None:
    """python-chess's castling generation on the own-only board, where no square is attacked (one own king)."""
    backrank, home, sides = _CASTLING[board.turn]
    king = BB_SQUARES[home]
    # clean_castling_rights() of the own-only board (its move stack is always empty): the king at home, unpromoted
    if not own & board.kings & ~board.promoted & king:
        return
    rights = board.castling_rights & board.rooks & own & backrank
    for rook, must_be_free, move in sides:
        if rights & rook and not (own ^ king ^ rook) & must_be_free:
            actions.append(move)
