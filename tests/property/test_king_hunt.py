"""The king hunt's pieces: the selector's engine vote and the planner's look for the king.

The selector's bonus must be zero below the material lead (or with the hunt off) and, far
ahead, ``hunt.weight`` times the weight share of the boards where the engine chose the move;
the planner, far ahead, must look where the king's square is decided rather than where more,
but lesser, squares are.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blindchess.arbiter.rules import reference as rules
from blindchess.beliefs import BoardSet
from blindchess.evaluation.king_hunt import engine_votes, king_squares
from blindchess.moving.selector_config import HuntSettings, SafetySettings, SearchSettings, SelectorConfig
from blindchess.moving.stockfish_selector import Sample, StockfishMoveSelector
from blindchess.sensing import EvoiSettings, ValueOfInformationSensePlanner
from blindchess.sensing.base import SenseContext


@pytest.fixture(scope="module")
def selector() -> Iterator[StockfishMoveSelector]:
    hunt = HuntSettings(weight=0.03, boards=2)
    config = SelectorConfig(boards=2, search=SearchSettings(depth=4), safety=SafetySettings(boards=8), hunt=hunt)
    selector = StockfishMoveSelector(config)
    yield selector
    selector.close()


MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/3QK2R w - - 0 1"  # Qd8 mates (a queen and a rook against three pawns)
LUFT = "6k1/5pp1/7p/8/8/8/8/3QK2R w - - 0 1"  # the same with h6 played: no mate in one


def test_far_ahead_the_engines_move_gets_the_bonus(selector: StockfishMoveSelector) -> None:
    boards = [chess.Board(MATE_IN_ONE), chess.Board(LUFT)]
    weights = np.array([0.75, 0.25])
    moves = rules.move_actions(boards[0])
    bonus = selector.hunt_bonus(Sample(boards, weights, [], np.zeros((len(boards), 0))), moves, chess.WHITE, 1.0, selector.policy)
    mate = moves.index(chess.Move.from_uci("d1d8"))
    assert bonus[mate] >= 0.03 * 0.75 - 1e-12  # the engine mates on the likelier board
    assert bonus.sum() == pytest.approx(0.03)  # every board voted for one move
    assert np.count_nonzero(bonus) <= 2


def test_no_hunt_below_the_lead_or_when_turned_off(selector: StockfishMoveSelector) -> None:
    level = [chess.Board("6k1/rpp2ppp/8/8/8/8/8/3QK2R w - - 0 1")]  # 4 pawns up: below the lead
    moves = rules.move_actions(level[0])
    assert not selector.hunt_bonus(Sample(level, np.ones(1), [], np.zeros((len(level), 0))), moves, chess.WHITE, 1.0, selector.policy).any()
    ahead = [chess.Board(MATE_IN_ONE)]
    moves = rules.move_actions(ahead[0])
    off = StockfishMoveSelector(SelectorConfig(search=SearchSettings(depth=1), hunt=HuntSettings(material=math.inf)))
    try:
        assert not off.hunt_bonus(Sample(ahead, np.ones(1), [], np.zeros((len(ahead), 0))), moves, chess.WHITE, 1.0, off.policy).any()
        assert selector.hunt_bonus(Sample(ahead, np.ones(1), [], np.zeros((len(ahead), 0))), moves, chess.WHITE, 1.0, selector.policy).any()
    finally:
        off.close()


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_engine_votes_are_weight_shares(data: st.DataObject) -> None:
    moves = rules.move_actions(chess.Board())
    n = data.draw(st.integers(1, 8))
    chosen = [data.draw(st.one_of(st.none(), st.sampled_from(moves))) for _ in range(n)]
    weights = np.array(data.draw(st.lists(st.floats(0.01, 1.0), min_size=n, max_size=n)))
    votes = engine_votes(moves, chosen, weights)
    assert np.all(votes >= 0)
    assert votes.sum() == pytest.approx(sum(w for move, w in zip(chosen, weights, strict=True) if move is not None) / weights.sum())
    for move in set(chosen) - {None}:
        assert move is not None
        expected = sum(w for other, w in zip(chosen, weights, strict=True) if other == move) / weights.sum()
        assert votes[moves.index(move)] == pytest.approx(expected)


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
    planner = ValueOfInformationSensePlanner(EvoiSettings(hunt_material=5.0 if hunt else math.inf))
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
