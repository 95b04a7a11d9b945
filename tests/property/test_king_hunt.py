"""The king hunt's pieces: check odds against the pushed board, the selector's bonus and the planner's look.

`gives_check` reads the outcome's bitboards; the reference is python-chess on the board after
the move (the opponent's king attacked by the requester), on every move action of positions
from random RBC games. The selector's bonus must be zero below the material lead and
``hunt_weight * P(check)`` above it; the planner, far ahead, must look where the king's square
is decided rather than where more, but lesser, squares are.
"""

from __future__ import annotations

from collections.abc import Iterator

import chess
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blindchess.arbiter import rules
from blindchess.arbiter.fastrevise import request_outcome
from blindchess.beliefs import BoardSet
from blindchess.evaluation.king_hunt import check_odds, gives_check, king_squares, material_lead
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.sensing import ValueOfInformationSensePlanner
from blindchess.sensing.base import SenseContext

from .test_request_outcome import random_position


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 120))
def test_gives_check_equals_the_pushed_board(seed: int, plies: int) -> None:
    board = random_position(seed, plies)
    color = board.turn
    king = board.king(not color)
    for move in rules.move_actions(board):
        outcome = request_outcome(board, move)
        after = outcome.after()
        expected = king is not None and not outcome.captures_king and after.is_attacked_by(color, king)
        assert gives_check(outcome, color) == expected, (board.fen(), move)


@pytest.fixture(scope="module")
def selector() -> Iterator[StockfishMoveSelector]:
    selector = StockfishMoveSelector(search_depth=1, boards=2, safety_boards=8, hunt_weight=0.05)
    yield selector
    selector.close()


KINGS = ["6k1", "k7"]  # the opponent's king on g8 or a8: which rook move checks depends on it


def far_ahead(rank8: str) -> chess.Board:
    return chess.Board(f"{rank8}/8/8/8/8/8/8/1R2K2R w - - 0 1")  # two rooks up


def test_the_hunt_bonus_is_the_check_odds_once_far_enough_ahead(selector: StockfishMoveSelector) -> None:
    boards = [far_ahead(rank8) for rank8 in KINGS]
    weights = np.array([0.75, 0.25])
    moves = rules.move_actions(boards[0])
    outcomes = [[request_outcome(board, move) for move in moves] for board in boards]
    bonus = selector.hunt_bonus(boards, weights, outcomes, chess.WHITE)
    odds = check_odds(outcomes, weights, chess.WHITE)
    assert material_lead(boards, weights, chess.WHITE) == 10.0
    assert np.allclose(bonus, 0.05 * odds)
    assert bonus[moves.index(chess.Move.from_uci("h1h8"))] == pytest.approx(0.05)  # checks on both boards
    assert bonus[moves.index(chess.Move.from_uci("h1g1"))] == pytest.approx(0.05 * 0.75)  # g-file: only the g8 king
    assert bonus[moves.index(chess.Move.from_uci("b1a1"))] == pytest.approx(0.05 * 0.25)


def test_no_hunt_below_the_lead_or_when_turned_off(selector: StockfishMoveSelector) -> None:
    even = [chess.Board("6k1/rp6/8/8/8/8/8/1R2K2R w - - 0 1")]  # 4 pawns up: below the lead
    outcomes = [[request_outcome(even[0], move) for move in rules.move_actions(even[0])]]
    assert not selector.hunt_bonus(even, np.ones(1), outcomes, chess.WHITE).any()
    ahead = [far_ahead(KINGS[0])]
    outcomes = [[request_outcome(ahead[0], move) for move in rules.move_actions(ahead[0])]]
    off = StockfishMoveSelector(search_depth=1, hunt_material=None)
    try:
        assert not off.hunt_bonus(ahead, np.ones(1), outcomes, chess.WHITE).any()
        assert selector.hunt_bonus(ahead, np.ones(1), outcomes, chess.WHITE).any()
    finally:
        off.close()


def hunting_belief() -> BoardSet:
    """Two rooks up; the king on a8 or h8 (1 bit), a black pawn on c6, d6, e6 or f6 (2 bits).

    No move captures anything on any board, so the value of information is zero everywhere and
    the window is chosen by information: on its own it prefers the pawns' 2 bits (a window on
    d7 or e7) to the king's 1 bit plus a little about c6 or f6 (b7 or g7).
    """
    boards = []
    for king in ("k7", "7k"):
        for pawns in ("2p5", "3p4", "4p3", "5p2"):
            boards.append(chess.Board(f"{king}/8/{pawns}/8/8/8/8/1R2K1R1 w - - 0 1"))
    return BoardSet.from_boards(chess.WHITE, boards)


@pytest.mark.parametrize("hunt", [True, False])
def test_far_ahead_the_planner_looks_for_the_king(hunt: bool) -> None:
    belief = hunting_belief()
    planner = ValueOfInformationSensePlanner(hunt_material=5.0 if hunt else None)
    moves = tuple(rules.move_actions(next(iter(belief.boards()))))
    context = SenseContext(color=chess.WHITE, move_actions=moves)
    sense = planner.choose_sense(belief, rules.sense_actions(), 60.0, np.random.default_rng(0), context)
    assert sense is not None
    window = chess.SquareSet(chess.BB_KING_ATTACKS[sense] | chess.BB_SQUARES[sense])
    sees_king = chess.A8 in window or chess.H8 in window
    pawn_squares_seen = sum(square in window for square in (chess.C6, chess.D6, chess.E6, chess.F6))
    assert sees_king == hunt, chess.square_name(sense)
    assert (pawn_squares_seen == 3) != hunt, chess.square_name(sense)


def test_king_squares_label_missing_kings() -> None:
    boards = [chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), chess.Board("8/8/8/8/8/8/8/4K3 w - - 0 1")]
    assert king_squares(boards, chess.WHITE).tolist() == [chess.E8, 64]
