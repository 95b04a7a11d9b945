"""The Stockfish move selector on real one-board beliefs: RBC outcomes, king captures, king safety."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import chess
import chess.engine
import numpy as np
import pytest

from blindchess.arbiter.game.observations import GameStarted
from blindchess.arbiter.rules import reference as rules
from blindchess.arbiter.rules.reference import request_outcome
from blindchess.beliefs import BoardSet
from blindchess.moving.base import MoveContext, MoveSelectionError, MoveSelector
from blindchess.moving.selector_config import CandidateSettings, SearchSettings, SelectorConfig
from blindchess.moving.stockfish_selector import StockfishMoveSelector


def known_position(fen: str) -> BoardSet:
    """A belief that knows the whole position (it starts there)."""
    belief = BoardSet()
    board = chess.Board(fen)
    belief.update(GameStarted(board.turn, fen))
    return belief


@pytest.fixture(scope="module")
def selector() -> Iterator[StockfishMoveSelector]:
    chosen = StockfishMoveSelector(SelectorConfig(boards=4, candidates=CandidateSettings(count=4)))
    yield chosen
    chosen.close()


def test_a_blocked_slide_stops_on_the_blocker_and_captures_it() -> None:
    board = chess.Board("4k3/8/8/8/n7/8/8/R3K3 w - - 0 1")
    outcome = request_outcome(board, chess.Move.from_uci("a1a8"))
    assert outcome.taken == chess.Move.from_uci("a1a4")
    assert outcome.captured == chess.Piece(chess.KNIGHT, chess.BLACK)
    refused = request_outcome(chess.Board("4k3/8/8/8/8/8/8/R2NK3 w Q - 0 1"), chess.Move.from_uci("e1c1"))
    assert refused.taken is None and refused.after().board_fen() == "4k3/8/8/8/8/8/8/R2NK3"


def test_takes_a_certain_king_capture(selector: StockfishMoveSelector) -> None:
    assert isinstance(selector, MoveSelector)
    fen = "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"
    actions = rules.move_actions(chess.Board(fen))
    move = selector.choose_move(known_position(fen), actions, 100.0, np.random.default_rng(0), MoveContext(chess.WHITE, 5.0))
    assert move == chess.Move.from_uci("e1e8")


@pytest.mark.parametrize("seed", range(3))
def test_does_not_leave_its_king_capturable(selector: StockfishMoveSelector, seed: int) -> None:
    # Black's rook on a2 sweeps the second rank: the king on g1 is safe, but Kf2, Kg2 and Kh2 walk into it.
    fen = "6k1/8/8/8/8/8/r7/6K1 w - - 0 1"
    board = chess.Board(fen)
    actions = rules.move_actions(board)
    move = selector.choose_move(known_position(fen), actions, 100.0, np.random.default_rng(seed), MoveContext(chess.WHITE, 5.0))
    assert move in actions
    assert not request_outcome(board, move).exposes_king(chess.WHITE)


def test_never_returns_a_move_outside_the_actions_even_in_panic(selector: StockfishMoveSelector) -> None:
    fen = chess.STARTING_FEN
    actions = rules.move_actions(chess.Board(fen))
    move = selector.choose_move(known_position(fen), actions, 0.5, np.random.default_rng(1), MoveContext(chess.WHITE, 0.0))
    assert move in actions


@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK])
def test_score_to_value_orders_mates_by_distance_above_any_material(color: chess.Color) -> None:
    from blindchess.evaluation.request_values import score_to_value

    def value(score: chess.engine.Score) -> float:
        return score_to_value(chess.engine.PovScore(score, color), color)

    mates = [value(chess.engine.MateGiven), value(chess.engine.Mate(1)), value(chess.engine.Mate(5)), value(chess.engine.Mate(30))]
    assert mates == sorted(mates, reverse=True) and len(set(mates)) == 4
    assert min(mates) > value(chess.engine.Cp(5000)) > value(chess.engine.Cp(100)) > value(chess.engine.Cp(0)) == 0.0
    assert value(chess.engine.Mate(-1)) < value(chess.engine.Mate(-10)) < value(chess.engine.Cp(-5000))
    assert value(chess.engine.Mate(-0)) == -value(chess.engine.MateGiven)
    assert all(-1.0 <= v <= 1.0 for v in mates)


@pytest.mark.parametrize(
    ("make", "value"),
    [
        (lambda: SelectorConfig(boards=0), "0"),
        (lambda: CandidateSettings(count=0), "0"),
        (lambda: SelectorConfig(worst_case_weight=1.5), "1.5"),
        (lambda: SearchSettings(share=1.25), "1.25"),
        (lambda: SearchSettings(overhead=-0.5), "-0.5"),
        (lambda: SearchSettings(max_position_seconds=0.0), "0.0"),
    ],
)
def test_bad_settings_raise_a_move_selection_error_naming_them(make: Callable[[], object], value: str) -> None:
    with pytest.raises(MoveSelectionError, match=value) as raised:
        make()
    assert isinstance(raised.value, ValueError)
