"""The conformance suite every `SensePlanner` passes: legal answers, determinism by seed, and
choosing an informative window on hand-made beliefs.

The beliefs here are tiny explicit lists of boards (`ListBelief`), so what is informative is
known by construction, independent of any real belief implementation.
"""

from __future__ import annotations

from typing import Optional

import chess
import numpy as np
import pytest

from blindchess.arbiter.game.observations import Observation
from blindchess.arbiter.rules.reference import move_actions
from blindchess.beliefs.base import Belief, WeightedBoards
from blindchess.beliefs.samples import board_grid
from blindchess.sensing import (
    PLANNERS,
    EvoiSettings,
    SenseContext,
    SensePlanner,
    make_planner,
)
from blindchess.sensing.base import SensePlanError
from blindchess.sensing.windows import WINDOWS


class ListBelief:
    """An explicit weighted list of boards implementing `Belief` and `WeightedBoards` (no updates)."""

    def __init__(self, boards: list[chess.Board], weights: Optional[list[float]] = None) -> None:
        self.boards = [board.copy(stack=False) for board in boards]
        raw = np.ones(len(boards)) if weights is None else np.asarray(weights, dtype=float)
        self._weights = raw / raw.sum()

    is_exact = True

    def update(self, observation: Observation) -> None:
        raise NotImplementedError("a fixed hand-made belief")

    def sample(self, n: int, rng: np.random.Generator) -> list[chess.Board]:
        return [self.boards[i].copy(stack=False) for i in rng.choice(len(self.boards), size=n, p=self._weights)]

    def piece_grid(self) -> np.ndarray:
        return board_grid(self.boards)

    def weights(self) -> np.ndarray:
        weights: np.ndarray = self._weights
        return weights

    def marginals(self) -> np.ndarray:
        grid = self.piece_grid()
        result = np.zeros((64, 13))
        for row, weight in zip(grid, self._weights, strict=True):
            result[np.arange(64), row] += weight
        return result

    def entropy(self) -> float:
        p = self._weights[self._weights > 0]
        return float(-(p * np.log2(p)).sum())

    def copy(self) -> ListBelief:
        return ListBelief(self.boards, list(self._weights))

    def __contains__(self, board: object) -> bool:
        return isinstance(board, chess.Board) and any(board.board_fen() == b.board_fen() for b in self.boards)

    def __len__(self) -> int:
        return len(self.boards)


def _knight_boards(squares: list[str]) -> list[chess.Board]:
    """White to move, both kings home, and a black knight on one of `squares` per board."""
    boards = []
    for name in squares:
        board = chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
        board.set_piece_at(chess.parse_square(name), chess.Piece(chess.KNIGHT, chess.BLACK))
        boards.append(board)
    return boards


CONTEXT = SenseContext(color=chess.WHITE, move_actions=tuple(chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1").pseudo_legal_moves))
ALL_SQUARES = list(chess.SQUARES)
INFORMED = ["eig", "size", "marginal", "evoi"]
"""Planners that rank windows by information (random and trout only avoid useless windows)."""


@pytest.fixture(params=sorted(PLANNERS))
def planner(request: pytest.FixtureRequest) -> SensePlanner:
    return make_planner(request.param)


def test_the_list_belief_implements_both_protocols() -> None:
    belief = ListBelief(_knight_boards(["c6", "f3"]))
    assert isinstance(belief, Belief) and isinstance(belief, WeightedBoards)


def test_returns_a_legal_square_and_leaves_its_inputs_alone(planner: SensePlanner) -> None:
    belief = ListBelief(_knight_boards(["c6", "f3", "h8"]), [0.2, 0.5, 0.3])
    actions = [s for s in ALL_SQUARES if s % 3]  # a restricted action list
    before = list(actions)
    for seed in range(5):
        square = planner.choose_sense(belief, actions, 60.0, np.random.default_rng(seed), CONTEXT)
        assert square is not None and square in actions
    assert actions == before
    assert isinstance(planner, SensePlanner)


def test_deterministic_for_a_seed(planner: SensePlanner) -> None:
    belief = ListBelief(_knight_boards(["b7", "d4", "g2", "e6"]))
    first = [planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), CONTEXT) for seed in range(8)]
    again = [planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), CONTEXT) for seed in range(8)]
    assert first == again


def test_senses_where_the_boards_differ(planner: SensePlanner) -> None:
    # The knight is on e5 or f5; every other square is the same on both boards.
    belief = ListBelief(_knight_boards(["e5", "f5"]))
    for seed in range(10):
        square = planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), CONTEXT)
        assert square is not None
        assert {chess.E5, chess.F5} & set(WINDOWS[square]), chess.square_name(square)


@pytest.mark.parametrize("name", INFORMED)
def test_prefers_the_more_informative_window(name: str) -> None:
    # Three places no window covers two of: seeing d6 or g6 (probability .45 each) tells more than a6 (.1).
    belief = ListBelief(_knight_boards(["a6", "d6", "g6"]), [0.1, 0.45, 0.45])
    planner = make_planner(name)
    for seed in range(10):
        square = planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), CONTEXT)
        assert square is not None
        window = set(WINDOWS[square])
        assert {chess.D6, chess.G6} & window and chess.A6 not in window, chess.square_name(square)


def test_value_of_information_senses_the_threat_to_act_on() -> None:
    # A black queen is on e2 (next to our king: we must capture it or lose) or on b7 (harmless):
    # 50/50. A knight elsewhere is equally uncertain but changes nothing we would do.
    boards = []
    for queen, knight in [("e2", "h6"), ("b7", "h6"), ("e2", "h4"), ("b7", "h4")]:
        board = chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
        board.set_piece_at(chess.parse_square(queen), chess.Piece(chess.QUEEN, chess.BLACK))
        board.set_piece_at(chess.parse_square(knight), chess.Piece(chess.KNIGHT, chess.BLACK))
        boards.append(board)
    belief = ListBelief(boards)
    context = SenseContext(color=chess.WHITE, move_actions=tuple(chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").pseudo_legal_moves))
    square = make_planner("evoi").choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(0), context)
    assert square is not None and (chess.E2 in WINDOWS[square] or chess.B7 in WINDOWS[square])


def test_value_of_information_sees_threats_held_by_one_board_in_two_hundred() -> None:
    # Our king on e1 is boxed in by its own pieces. 198 boards: a black knight somewhere on the
    # far side and a rook whose file is uncertain (informative, harmless). 2 boards: the knight
    # is on d3 or on f3, checking the king; e2xd3 or e2xf3 saves it, but only knowing which.
    # A plain 48-board draw misses both boards four times in ten (it sensed b6, the rook's file,
    # on all ten seeds); the stratified draw keeps them, and a window on a threat wins (9 of 10;
    # the draw that estimates the threats' mass varies with the seed).
    own = "7k/8/8/8/8/8/3PPP2/3QKB2 w - - 0 1"
    boards, far = [], ["a8", "b8", "c8", "d8", "e8", "f8", "g8", "a7", "b7", "c7"]
    for i in range(198):
        board = chess.Board(own)
        board.set_piece_at(chess.parse_square(far[i % len(far)]), chess.Piece(chess.KNIGHT, chess.BLACK))
        board.set_piece_at(chess.parse_square(["a5", "b5", "c5", "d5"][i % 4]), chess.Piece(chess.ROOK, chess.BLACK))
        boards.append(board)
    for knight in (chess.D3, chess.F3):
        threat = chess.Board(own)
        threat.set_piece_at(knight, chess.Piece(chess.KNIGHT, chess.BLACK))
        threat.set_piece_at(chess.A5, chess.Piece(chess.ROOK, chess.BLACK))
        boards.append(threat)
    belief = ListBelief(boards)
    context = SenseContext(color=chess.WHITE, move_actions=tuple(move_actions(chess.Board(own))))
    planner = make_planner("evoi")
    chosen = [planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), context) for seed in range(10)]
    seen = [square for square in chosen if square is not None and {chess.D3, chess.F3} & set(WINDOWS[square])]
    assert len(seen) >= 8, [chess.square_name(square) for square in chosen if square is not None]


def test_a_value_of_information_planner_without_boards_is_refused_by_name() -> None:
    with pytest.raises(SensePlanError, match="boards must be >= 1, got 0"):
        EvoiSettings(boards=0)
