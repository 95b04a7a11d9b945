"""`request_outcome` (reference and fast) equals making the move, and the proxy value is unchanged.

The reference here is the path the selector and the value-of-information planner each took
before the outcome became a rule: revise the request, copy the board, push, and read the
board after. On every move action (and the pass) of positions from random RBC games drawn
by hypothesis, and of hand-made positions for the rare cases (castling, en passant that
opens a rank onto the king, promotions, slides cut short), `rules.request_outcome` and
`fast_revision.request_outcome` must report the same taken move and capture, and their
bitboard answers about the board after (attackers of every square for both colours, the
kings, exposure, occupancy) must equal the pushed board's; `outcome_value` must equal the
proxy as it was computed on the pushed board.
"""

from __future__ import annotations

from typing import Optional

import chess
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blindchess.arbiter.rules import fast_revision
from blindchess.arbiter.rules import reference as rules
from blindchess.evaluation.values import KING_VALUE, PIECE_VALUES, outcome_value

EDGE_FENS = [
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",  # castling both ways, the rook then guards the king's square
    "r3k2r/8/8/8/8/8/8/RN2K1nR w KQkq - 0 1",  # castling through pieces
    "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",  # en passant empties the rank: the rook then attacks the king
    "4k3/1P6/8/3pP3/8/8/6p1/4K3 w - d6 0 1",  # en passant and promotions
    "2n1k3/1P6/8/8/8/8/6p1/4KN2 b - - 0 1",  # capture-promotions with and without a piece
    "3rk3/4P3/8/8/8/8/8/4K2R w K - 0 1",  # a promotion that lands attacked, one that captures
    "4k3/8/8/8/p7/8/P7/4K3 w - - 0 1",  # blocked double step
    "q3k3/8/8/3p4/8/1n6/8/Q3K2R w K - 0 1",  # slides into opponent pieces
    "4k3/8/8/8/8/8/r7/6K1 w - - 0 1",  # king steps into an attacked rank
    "4k3/8/8/8/8/5q2/8/4K3 w - - 0 1",  # our king attacked right now
]


def reference_after(board: chess.Board, move: Optional[chess.Move]) -> tuple[Optional[chess.Move], Optional[chess.Piece], chess.Board]:
    """The old path: revise, find the captured piece, copy and push."""
    taken = None if move is None else rules.revise_move(board, rules.with_default_promotion(board, move))
    after = board.copy(stack=False)
    square = rules.capture_square_of_move(after, taken)
    captured = None if square is None else after.piece_at(square)
    rules.push(after, taken)
    return taken, captured, after


def reference_proxy_value(board: chess.Board, move: Optional[chess.Move], color: chess.Color) -> float:
    """The proxy as `sensing/evoi.py` computed it before it read outcomes (copy, push, query the board)."""
    taken = None if move is None else rules.revise_move(board, rules.with_default_promotion(board, move))
    after = board.copy(stack=False)
    value = 0.0
    if taken is not None:
        captured = after.piece_at(taken.to_square)
        if captured is not None and captured.color != color:
            if captured.piece_type == chess.KING:
                return KING_VALUE
            value += PIECE_VALUES[captured.piece_type]
        moved = after.piece_type_at(taken.from_square)
        after.push(taken)
        landed = taken.to_square
        if moved is not None and after.is_attacked_by(not color, landed) and not after.is_attacked_by(color, landed):
            value -= 0.5 * PIECE_VALUES[moved]
    else:
        after.push(chess.Move.null())
    king = after.king(color)
    if king is not None and after.is_attacked_by(not color, king):
        value -= KING_VALUE
    return value


def assert_outcomes_match(board: chess.Board) -> int:
    """Every move action and the pass of `board`: both outcome functions against the reference."""
    checked = 0
    color = board.turn
    for move in [None, *rules.move_actions(board)]:
        taken, captured, after = reference_after(board, move)
        for outcome in (rules.request_outcome(board, move), fast_revision.request_outcome(board, move)):
            assert (outcome.taken, outcome.captured) == (taken, captured), (board.fen(), move)
            assert outcome.after().fen() == after.fen()
            assert outcome.captures_king == (captured is not None and captured.piece_type == chess.KING)
            if taken is None or not board.is_castling(taken):
                assert outcome.occupied_after() == after.occupied, (board.fen(), move)
            for side in (chess.WHITE, chess.BLACK):
                assert outcome.king_after(side) == after.king(side), (board.fen(), move, side)
                king = after.king(side)
                assert outcome.exposes_king(side) == (king is not None and after.is_attacked_by(not side, king))
                for square in chess.SQUARES:
                    assert outcome.attackers_after(side, square) == after.attackers_mask(side, square), (board.fen(), move, side, square)
            assert outcome_value(outcome, color) == reference_proxy_value(board, move, color), (board.fen(), move)
        checked += 1
    return checked


def random_position(seed: int, plies: int) -> chess.Board:
    """The board after `plies` random RBC requests from the start (captures and pawn moves favoured, to reach
    promotions and en passant), stopping early at a king capture."""
    rng = np.random.default_rng(seed)
    board = chess.Board()
    for _ in range(plies):
        actions = rules.move_actions(board)
        captures = [m for m in actions if board.piece_at(m.to_square) is not None or board.piece_type_at(m.from_square) == chess.PAWN]
        pool = captures if captures and rng.random() < 0.6 else actions + [None]
        requested = pool[int(rng.integers(len(pool)))]
        rules.push(board, None if requested is None else rules.revise_move(board, rules.with_default_promotion(board, requested)))
        if rules.king_captured(board) is not None:
            board.pop()
            break
    return board


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 120))
def test_outcomes_equal_the_pushed_board_on_random_positions(seed: int, plies: int) -> None:
    assert assert_outcomes_match(random_position(seed, plies)) > 0


@pytest.mark.parametrize("fen", EDGE_FENS)
def test_outcomes_equal_the_pushed_board_on_edge_cases(fen: str) -> None:
    assert assert_outcomes_match(chess.Board(fen)) > 1
