"""The enumerated exact belief on the teaching boards: truth always inside, normalised, hand-checkable numbers."""

from __future__ import annotations

from fractions import Fraction

import chess
import numpy as np
import pytest

from blindchess.arbiter.game.observations import GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.beliefs.base import Belief, InconsistentObservationError, WeightedBoards
from blindchess.beliefs.enumerated_belief import EnumeratedBelief
from blindchess.variants.recon import ReconMiniChessRules
from blindchess.variants.teaching import TEACHING_4X4, TEACHING_4X5


def play_and_check(rules: ReconMiniChessRules, seed: int, max_plies: int = 60) -> int:
    """A seeded random recon game; both players' beliefs are checked after every event. Returns the largest support."""
    rng = np.random.default_rng(seed)
    board = rules.starting_board()
    beliefs = {color: EnumeratedBelief(rules) for color in chess.COLORS}
    for color, belief in beliefs.items():
        belief.update(GameStarted(color, rules.fen(board)))
    capture, largest = None, 1
    for _ in range(max_plies):
        belief = beliefs[rules.turn(board)]
        events: list[Observation] = [OpponentMoved(capture)]
        square = int(rng.choice(rules.sense_actions(board)))
        events.append(SenseResult(square, rules.sense(board, square)))
        for event in events:
            belief.update(event)
            assert board in belief
        actions = rules.move_actions(board)
        request = None if rng.random() < 0.1 else actions[int(rng.integers(len(actions)))]
        taken = None if request is None else rules.revise(board, rules.normalize(board, request))
        capture = rules.capture_square(board, taken)
        rules.push(board, taken)
        belief.update(MoveResult(request, taken, capture))
        assert board in belief
        assert abs(belief.weights().sum() - 1) < 1e-9
        largest = max(largest, len(belief))
        if rules.king_captured(board) is not None:
            break
    return largest


@pytest.mark.parametrize("rules", [TEACHING_4X4, TEACHING_4X5], ids=lambda r: r.name)
def test_truth_stays_in_the_belief_over_seeded_games(rules: ReconMiniChessRules) -> None:
    sizes = [play_and_check(rules, seed) for seed in range(40 if rules is TEACHING_4X4 else 10)]
    assert max(sizes) > 1  # the hidden information is real


def test_first_reply_on_4x4_has_the_hand_computed_probabilities() -> None:
    rules = TEACHING_4X4
    board = rules.starting_board()
    belief = EnumeratedBelief(rules)
    belief.update(GameStarted(chess.WHITE, rules.fen(board)))
    belief.update(OpponentMoved(None))
    belief.update(SenseResult(chess.D1, rules.sense(board, chess.D1)))
    move = chess.Move.from_uci("c1c2")
    belief.update(MoveResult(move, move, None))
    belief.update(OpponentMoved(None))
    # Black has 8 move actions plus the pass; the pass and the illegal pawn diagonal a3-b2 leave the board as it is.
    probabilities = {key: Fraction(p).limit_denominator(100) for key, p in belief.probabilities().items()}
    assert len(probabilities) == 8
    unchanged = rules.cells_of(chess.Board("8/8/8/8/kr6/p7/2RP4/3K4 w - - 0 2"))
    assert probabilities[unchanged] == Fraction(2, 9)
    assert sorted(probabilities.values()) == [Fraction(1, 9)] * 7 + [Fraction(2, 9)]


def test_protocols_marginals_sampling_copy_and_inconsistency() -> None:
    rules = TEACHING_4X4
    belief = EnumeratedBelief(rules)
    belief.update(GameStarted(chess.BLACK, rules.fen(rules.starting_board())))
    assert isinstance(belief, Belief) and isinstance(belief, WeightedBoards) and belief.is_exact
    belief.update(OpponentMoved(None))
    marginals = belief.marginals()
    assert marginals.shape == (64, 13) and np.allclose(marginals.sum(axis=1), 1)
    assert np.allclose(marginals[chess.E5], np.eye(13)[0])  # off the 4x4 board: always empty
    samples = belief.sample(20, np.random.default_rng(0))
    assert all(sample in belief for sample in samples)
    copy = belief.copy()
    copy.update(SenseResult(chess.C1, rules.sense(samples[0], chess.C1)))
    assert len(belief) >= len(copy)
    assert belief.entropy() > 0
    with pytest.raises(InconsistentObservationError, match="SenseResult"):
        queen = chess.Piece(chess.QUEEN, chess.WHITE)  # the 4x4 board has no queen
        belief.update(SenseResult(chess.A4, tuple((s, queen if s == chess.A4 else p) for s, p in rules.sense(samples[0], chess.A4))))
