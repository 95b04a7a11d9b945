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
to the reference. `tests/unit/test_arbiter_fast_readers.py` holds the two equal.
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
from .frozen_move import frozen_move

_PUSH_PROMOTIONS = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
_DIAGONAL_PROMOTIONS = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
_BACK_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8
# (backrank, king home, kingside and queenside (rook square, king target, rook target)) per colour
_CASTLING = {
    chess.WHITE: (chess.BB_RANK_1, chess.E1, ((chess.H1, chess.G1, chess.F1), (chess.A1, chess.C1, chess.D1))),
    chess.BLACK: (chess.BB_RANK_8, chess.E8, ((chess.H8, chess.G8, chess.F8), (chess.A8, chess.C8, chess.D8))),
}


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
"""A cache key (the own pieces that bound a piece's or the pawns' moves) -> the moves, in generation order."""

CACHE_LIMIT = 32768
"""Entries in all cache tables together before they are emptied: bounds memory (a few MB) whatever the games."""

_TABLES: list[MovesOf] = []  # every cache table, so that the limit can empty them all
_entries = 0  # entries in them; an approximate count when threads race, which only moves the bound a little


def _remember(table: MovesOf, key: int, moves: tuple[Move, ...]) -> tuple[Move, ...]:
    global _entries
    if _entries >= CACHE_LIMIT:
        for each in _TABLES:
            each.clear()
        _entries = 0
    table[key] = moves
    _entries += 1
    return moves


def _table() -> MovesOf:
    table: MovesOf = {}
    _TABLES.append(table)
    return table


def _reach(origin: int, piece_type: chess.PieceType) -> int:
    """The squares a piece of `piece_type` on `origin` attacks on an empty board."""
    if piece_type == chess.KNIGHT:
        return BB_KNIGHT_ATTACKS[origin]
    if piece_type == chess.KING:
        return BB_KING_ATTACKS[origin]
    reach = 0
    if piece_type in (chess.BISHOP, chess.QUEEN):
        reach |= BB_DIAG_ATTACKS[origin][0]
    if piece_type in (chess.ROOK, chess.QUEEN):
        reach |= BB_RANK_ATTACKS[origin][0] | BB_FILE_ATTACKS[origin][0]
    return reach


def _piece_moves(origin: int, piece_type: chess.PieceType, own: int) -> tuple[Move, ...]:
    """A non-pawn piece's moves from `origin` with `own` pieces on the board, targets high to low."""
    if piece_type == chess.KNIGHT or piece_type == chess.KING:
        attacks = _reach(origin, piece_type)
    else:
        attacks = 0
        if piece_type in (chess.BISHOP, chess.QUEEN):
            attacks = BB_DIAG_ATTACKS[origin][BB_DIAG_MASKS[origin] & own]
        if piece_type in (chess.ROOK, chess.QUEEN):
            attacks |= BB_RANK_ATTACKS[origin][BB_RANK_MASKS[origin] & own] | BB_FILE_ATTACKS[origin][BB_FILE_MASKS[origin] & own]
    moves_from = _PLAIN_MOVES[origin]
    return tuple([moves_from[target] for target in _high_to_low(attacks & ~own)])


def _pawn_moves(turn: bool, pawns: int, own: int) -> tuple[Move, ...]:
    """Every pawn move of `turn` (the own pawns `pawns`, the own pieces `own`), in generation order.

    Single steps (promotions Q, R, B, N on the last rank) and then double steps, high to
    low; then each pawn's diagonals not onto an own piece, pawns and targets low to high.
    """
    not_own = ~own
    if turn == chess.WHITE:
        single = pawns << 8 & not_own & chess.BB_ALL
        double = single << 8 & not_own & (chess.BB_RANK_3 | chess.BB_RANK_4)
        step = -8
    else:
        single = pawns >> 8 & not_own
        double = single >> 8 & not_own & (chess.BB_RANK_6 | chess.BB_RANK_5)
        step = 8
    moves: list[Move] = []
    for target in _high_to_low(single):
        if BB_SQUARES[target] & _BACK_RANKS:
            moves.extend(frozen_move(target + step, target, piece) for piece in _PUSH_PROMOTIONS)
        else:
            moves.append(_PLAIN_MOVES[target + step][target])
    moves.extend(_PLAIN_MOVES[target + 2 * step][target] for target in _high_to_low(double))
    for pawn in _low_to_high(pawns):
        for target in _low_to_high(BB_PAWN_ATTACKS[turn][pawn] & not_own):
            moves.append(frozen_move(pawn, target))
            if BB_SQUARES[target] & _BACK_RANKS:
                moves.extend(frozen_move(pawn, target, piece) for piece in _DIAGONAL_PROMOTIONS)
    return tuple(moves)


_PLAIN_MOVES = tuple(tuple(frozen_move(origin, target) for target in chess.SQUARES) for origin in chess.SQUARES)
# Per origin: its bitboard, then for knight, king, bishop, rook and queen in turn the piece's reach
# from there and its table {own pieces within that reach -> the piece's moves}.
_PIECES = tuple(
    (BB_SQUARES[origin],)
    + tuple(
        part
        for piece_type in (chess.KNIGHT, chess.KING, chess.BISHOP, chess.ROOK, chess.QUEEN)
        for part in (_reach(origin, piece_type), _table())
    )
    for origin in chess.SQUARES
)
# Per colour: {the own pawns (above bit 64) and the own pieces on their push and diagonal squares -> the pawn moves}.
_PAWNS = {chess.WHITE: _table(), chess.BLACK: _table()}


def move_actions(board: chess.Board) -> list[chess.Move]:
    """The move actions of the side to move; equal (same order) to :func:`rules.move_actions`.

    The moves are shared `FrozenMove` instances (see :mod:`blindchess.arbiter.frozen_move`).
    Each piece's moves are looked up by the own pieces within its reach, and the pawns'
    by the own pawns and the own pieces on their push and diagonal squares: built once
    and reused, so a turn costs a few lookups per piece.

    >>> move_actions(chess.Board()) == rules.move_actions(chess.Board())
    True
    """
    turn = board.turn
    own = board.occupied_co[turn]
    if board.chess960 or type(board) is not chess.Board or chess.popcount(own & board.kings) > 1:
        return rules.move_actions(board)
    knights, kings, bishops, rooks = board.knights, board.kings, board.bishops, board.rooks
    pawns = board.pawns & own
    actions: list[chess.Move] = []
    extend = actions.extend
    pieces = own & ~pawns
    while pieces:
        origin = pieces.bit_length() - 1
        bb, knight_reach, knight_table, king_reach, king_table, bishop_reach, bishop_table, rook_reach, rook_table, queen_reach, queen_table = _PIECES[origin]  # fmt: skip
        pieces ^= bb
        if bb & knights:
            piece_type, table, key = chess.KNIGHT, knight_table, own & knight_reach
        elif bb & kings:
            piece_type, table, key = chess.KING, king_table, own & king_reach
        elif bb & bishops:
            piece_type, table, key = chess.BISHOP, bishop_table, own & bishop_reach
        elif bb & rooks:
            piece_type, table, key = chess.ROOK, rook_table, own & rook_reach
        else:
            piece_type, table, key = chess.QUEEN, queen_table, own & queen_reach
        moves = table.get(key)
        extend(moves if moves is not None else _remember(table, key, _piece_moves(origin, piece_type, key)))

    if board.castling_rights & own and own & kings:
        _append_castling(board, own, actions)

    if pawns:
        if turn == chess.WHITE:
            ahead = pawns << 8
            around = ahead | ahead << 8 | (pawns & ~chess.BB_FILE_A) << 7 | (pawns & ~chess.BB_FILE_H) << 9
        else:
            ahead = pawns >> 8
            around = ahead | ahead >> 8 | (pawns & ~chess.BB_FILE_A) >> 9 | (pawns & ~chess.BB_FILE_H) >> 7
        key = pawns << 64 | own & around
        table = _PAWNS[turn]
        moves = table.get(key)
        extend(moves if moves is not None else _remember(table, key, _pawn_moves(turn, pawns, own & around)))
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
    if not rights:
        return
    king_square = king.bit_length() - 1
    for rook_square, king_target, rook_target in sides:
        rook = BB_SQUARES[rook_square]
        if not rights & rook:
            continue
        king_path = chess.between(king_square, king_target)
        rook_path = chess.between(rook_square, rook_target)
        if not (own ^ king ^ rook) & (king_path | rook_path | BB_SQUARES[king_target] | BB_SQUARES[rook_target]):
            actions.append(frozen_move(king_square, king_target))
