"""`sensing/evoi.py`: the value of information, the information about a label, the proxy values, and the planner's sampling.

The formulas are checked on hand-made numbers whose answer is known by construction; the
planner on real board sets (`BoardSet`), where the only uncertainty is placed by hand.
"""

from __future__ import annotations

import math

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.rules.reference import move_actions
from blindchess.beliefs.board_set import BoardSet
from blindchess.beliefs.drawn_boards import Rows
from blindchess.beliefs.samples import BoardList
from blindchess.evaluation.values import KING_VALUE
from blindchess.fixtures.recorded_games import load_records, sensed_beliefs
from blindchess.sensing.base import SenseContext
from blindchess.sensing.evoi import (
    MAX_SCALE,
    SCALE_SECONDS,
    EvoiSettings,
    ValueOfInformationSensePlanner,
    _outcome_sums,
    outcome_information,
    value_of_information,
)
from blindchess.sensing.windows import WINDOWS

ALL_SQUARES = list(chess.SQUARES)


def test_the_value_of_information_is_what_knowing_the_board_adds_to_the_best_move() -> None:
    # Two equally likely boards, each with its own right move: without a look the best move is
    # worth 1/2 on average; a window that tells the boards apart lets us pick right every time.
    values = np.array([[1.0, 0.0], [0.0, 1.0]])
    weights = np.array([0.5, 0.5])
    assert value_of_information(np.array([0, 1]), 2, weights, values) == pytest.approx(0.5)
    assert value_of_information(np.array([0, 0]), 2, weights, values) == pytest.approx(0.0)  # the window tells nothing
    same_move = np.array([[1.0, 0.0], [2.0, 0.0]])  # the same move is best on both boards: knowing changes nothing
    assert value_of_information(np.array([0, 1]), 2, weights, same_move) == pytest.approx(0.0)


def test_the_value_of_information_is_never_negative_and_never_more_than_perfect_information() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        n_boards, n_moves, n_labels = rng.integers(1, 12), rng.integers(1, 6), rng.integers(1, 5)
        values = rng.normal(size=(n_boards, n_moves))
        weights = rng.random(n_boards)
        weights /= weights.sum()
        labels = rng.integers(0, n_labels, size=n_boards)
        voi = value_of_information(labels, int(n_labels), weights, values)
        perfect = value_of_information(np.arange(n_boards), int(n_boards), weights, values)
        assert -1e-12 <= voi <= perfect + 1e-12


def test_outcome_information_is_the_mutual_information_in_bits() -> None:
    weights = np.full(4, 0.25)
    targets = np.array([0, 1, 2, 3])  # two bits of uncertainty
    assert outcome_information(np.array([0, 1, 2, 3]), 4, weights, targets, 4) == pytest.approx(2.0)
    assert outcome_information(np.array([0, 0, 1, 1]), 2, weights, targets, 4) == pytest.approx(1.0)
    assert outcome_information(np.array([0, 0, 0, 0]), 1, weights, targets, 4) == pytest.approx(0.0)
    skewed = np.array([0.7, 0.1, 0.1, 0.1])
    entropy = -(skewed * np.log2(skewed)).sum()
    assert outcome_information(np.array([0, 1, 2, 3]), 4, skewed, targets, 4) == pytest.approx(entropy)


def test_the_proxy_values_a_king_capture_above_everything_and_a_pass_at_nothing() -> None:
    board = chess.Board("4k3/8/8/8/8/8/8/4QK2 w - - 0 1")
    capture_king, quiet = chess.Move.from_uci("e1e8"), chess.Move.from_uci("e1a5")
    values = BoardList([board], chess.WHITE).move_values([None, quiet, capture_king])
    assert values.shape == (1, 3)
    assert values[0, 0] == 0.0
    assert values[0, 2] == KING_VALUE > values[0, 1]


def _belief(boards: list[chess.Board]) -> BoardSet:
    return BoardSet.from_boards(chess.WHITE, boards)


def test_the_planner_looks_where_the_answer_decides_the_move() -> None:
    # A black rook is on a4 or on h4, where our queen on d4 can take it; the black knight's
    # square (b8 or g8) is as uncertain but changes nothing we would do.
    own = "4k3/8/8/8/3Q4/8/8/4K3 w - - 0 1"
    boards = []
    for rook in ("a4", "h4"):
        for knight in ("b8", "g8"):
            board = chess.Board(own)
            board.set_piece_at(chess.parse_square(rook), chess.Piece(chess.ROOK, chess.BLACK))
            board.set_piece_at(chess.parse_square(knight), chess.Piece(chess.KNIGHT, chess.BLACK))
            boards.append(board)
    context = SenseContext(color=chess.WHITE, move_actions=tuple(move_actions(chess.Board(own))))
    planner = ValueOfInformationSensePlanner(EvoiSettings(information_weight=0.0, threat_weight=0.0, hunt_material=math.inf))
    for seed in range(3):
        square = planner.choose_sense(_belief(boards), ALL_SQUARES, 60.0, np.random.default_rng(seed), context)
        assert square is not None and {chess.A4, chess.H4} & set(WINDOWS[square]), chess.square_name(square or 0)


class CountingBoardSet(BoardSet):
    """A board set that remembers how many boards each `sample_rows` asked for."""

    asked: list[int]

    def sample_rows(self, n: int, rng: np.random.Generator) -> Rows:
        self.asked.append(n)
        return super().sample_rows(n, rng)


@pytest.mark.parametrize(("budget", "scale"), [(None, 1.0), (SCALE_SECONDS / 2, 1.0), (2 * SCALE_SECONDS, 2.0), (1000.0, MAX_SCALE)])
def test_a_larger_sense_budget_draws_proportionally_more_boards_up_to_the_cap(budget: float | None, scale: float) -> None:
    own = "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    boards = []
    for square in ("a5", "h5"):
        board = chess.Board(own)
        board.set_piece_at(chess.parse_square(square), chess.Piece(chess.ROOK, chess.BLACK))
        boards.append(board)
    belief = CountingBoardSet.from_boards(chess.WHITE, boards)
    assert isinstance(belief, CountingBoardSet)
    belief.asked = []
    planner = ValueOfInformationSensePlanner(EvoiSettings(boards=20, threat_sample=100, max_boards=10))
    context = SenseContext(color=chess.WHITE, move_actions=tuple(move_actions(chess.Board(own))), budget=budget)
    planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(0), context)
    assert belief.asked[0] == int(100 * scale)


@pytest.mark.parametrize("game", [0, 30])
def test_the_compiled_planner_senses_where_the_python_chess_reference_does(game: int) -> None:
    # Beliefs of recorded games (threats, captures, castling): the same draws, the same sample, the same sense.
    records = load_records()
    for color in (chess.WHITE, chess.BLACK):
        beliefs = sensed_beliefs(GameHistory.from_json(records[game]["history"]), color)
        for k, belief in enumerate(beliefs[:: max(1, len(beliefs) // 4)]):
            own = belief.sample(1, np.random.default_rng(0))[0]
            own.turn = color
            context = SenseContext(color=color, move_actions=tuple(move_actions(own)))
            answers = []
            for compiled in (True, False):
                planner = ValueOfInformationSensePlanner(EvoiSettings(boards=16, threat_sample=120, hunt_material=0.0), compiled=compiled)
                sample, weights, levels = planner._stratified_sample(belief, color, np.random.default_rng(k))
                sense = planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(k), context)
                answers.append(([board.fen() for board in sample.boards(color)], weights.tolist(), levels.tolist(), sense))
            assert answers[0] == answers[1], (game, color, k)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), boards=st.integers(1, 300), moves=st.integers(1, 40), n_labels=st.integers(1, 80))
def test_the_compiled_outcome_sums_are_numpys_add_at_to_the_last_bit(seed: int, boards: int, moves: int, n_labels: int) -> None:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_labels, boards)
    weighted = rng.random((boards, moves)) * rng.choice([-50.0, 1.0, 9.0, 0.5], (boards, moves))
    expected = np.zeros((n_labels, moves))
    np.add.at(expected, labels, weighted)
    assert np.array_equal(_outcome_sums(labels, n_labels, weighted), expected)
