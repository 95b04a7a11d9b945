"""The board-weighting seam: `Weighted` over every set-based belief, the learned prior and the Stockfish sigmoid."""

from __future__ import annotations

from collections.abc import Callable
from typing import Union

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blindchess.arbiter.game.observations import GameEnded, Observation, OpponentMoved, SenseResult
from blindchess.beliefs import (
    BoardSet,
    HybridBelief,
    LearnedPrior,
    NeuralPosterior,
    ParticleFilter,
    StockfishSigmoid,
    Weighted,
    WeightingError,
    weighted,
)  # fmt: skip
from blindchess.beliefs.board_weights import grid_board
from blindchess.beliefs.calibration import truth_channels
from blindchess.beliefs.neural_posterior import NETWORK_SHARE, sampled_marginals
from blindchess.beliefs.observed_games import play_random_game

GAME = play_random_game(np.random.default_rng(4), full_turn_limit=4)


class PawnCount:
    """A test weighting: ``w(s) = 2 ** (opponent pawns on s)``, stream ignored."""

    def __init__(self) -> None:
        self.color = chess.WHITE

    def update(self, observation: Observation) -> None:
        self.color = getattr(observation, "color", self.color)

    def log_weights(self, grid: np.ndarray) -> np.ndarray:
        pawn = 7 if self.color == chess.WHITE else 1
        log_weights: np.ndarray = np.log(2.0) * (grid == pawn).sum(axis=1)
        return log_weights

    def copy(self) -> PawnCount:
        other = PawnCount()
        other.color = self.color
        return other


def _fed(belief: Weighted, color: chess.Color = chess.WHITE, upto: int = 8) -> Weighted:
    for event in GAME.events[color][:upto]:
        belief.update(event)
    return belief


@pytest.mark.parametrize(
    "make",
    [
        lambda: BoardSet(max_boards=None),
        lambda: ParticleFilter(200, seed=2),
        lambda: HybridBelief(switch_boards=50, particles=40, seed=1),
    ],
    ids=["boardset", "particles", "hybrid"],
)
def test_weights_follow_the_formula_on_every_set_belief(make: Callable[[], Union[BoardSet, ParticleFilter, HybridBelief]]) -> None:
    inner_only = make()
    belief = _fed(weighted(make(), PawnCount(), mix=0.1))
    for event in GAME.events[chess.WHITE][:8]:
        inner_only.update(event)
    base, grid = inner_only.weights(), inner_only.piece_grid()
    w = base * 2.0 ** (grid == 7).sum(axis=1)
    expected = 0.9 * w / w.sum() + 0.1 * base
    np.testing.assert_allclose(belief.weights(), expected, rtol=1e-12)
    assert len(belief) == len(inner_only) > 1
    np.testing.assert_allclose(belief.marginals().sum(axis=1), 1.0)
    # the floor: no board loses more than log2(1 / mix) bits against the unweighted belief
    assert (np.log2(base) - np.log2(belief.weights()) <= np.log2(10) + 1e-9).all()


def test_marginals_and_samples_follow_the_weights() -> None:
    belief = _fed(weighted(BoardSet(max_boards=None), PawnCount(), mix=0.0))
    weights, grid = belief.weights(), belief.piece_grid()
    marginals = belief.marginals()
    for square in (chess.A7, chess.E5, chess.H8):
        for content in range(13):
            assert marginals[square, content] == pytest.approx(weights[grid[:, square] == content].sum())
    samples = belief.sample(3000, np.random.default_rng(1))
    pawns = np.mean([len(b.pieces(chess.PAWN, chess.BLACK)) for b in samples])
    assert pawns == pytest.approx(float((weights * (grid == 7).sum(axis=1)).sum()), abs=0.1)
    assert all(board in belief for board in samples[:50])


def test_a_rejected_event_leaves_the_weighted_belief_unchanged() -> None:
    belief = _fed(weighted(BoardSet(max_boards=None), LearnedPrior()), upto=7)  # the last event: our move
    before, marginals = belief.weights().copy(), belief.weighting.marginals()  # type: ignore[attr-defined]
    empty = next(sq for sq in chess.SQUARES if belief.inner.board(0).color_at(sq) != chess.WHITE)
    with pytest.raises(ValueError, match=chess.square_name(empty)):
        belief.update(OpponentMoved(empty))
    np.testing.assert_array_equal(belief.weights(), before)
    np.testing.assert_array_equal(belief.weighting.marginals(), marginals)  # type: ignore[attr-defined]


def test_learned_prior_is_the_product_of_its_marginals() -> None:
    prior = LearnedPrior(floor=1e-3, temperature=0.7)
    belief = _fed(weighted(BoardSet(max_boards=None), prior, mix=0.0))
    marginals, grid = prior.marginals(), belief.piece_grid()
    slow = np.array(
        [
            0.7 * sum(np.log(max(marginals[sq, row[sq]], 1e-3)) for sq in range(64) if marginals[sq, row[sq]] < 1)
            for row in grid
        ]
    )
    fast = prior.log_weights(grid)
    np.testing.assert_allclose(fast - fast.max(), slow - slow.max(), atol=1e-9)
    np.testing.assert_allclose(marginals.sum(axis=1), 1.0)


def test_the_truth_keeps_positive_probability_under_the_learned_prior() -> None:
    for color in (chess.WHITE, chess.BLACK):
        belief = weighted(BoardSet(max_boards=None), LearnedPrior(), mix=0.0)
        for event, truth in zip(GAME.events[color], GAME.truth[color], strict=False):
            if isinstance(event, GameEnded):
                break
            belief.update(event)
            index = next(i for i in range(len(belief)) if belief.inner.board(i).board_fen() == truth.board_fen())
            assert belief.weights()[index] > 0


def test_neural_posterior_marginals_are_the_network_s_with_our_pieces_certain() -> None:
    belief = _fed(NeuralPosterior(max_boards=None, exact_below=1, sampled_boards=0), chess.BLACK, 9)
    marginals = belief.marginals()
    np.testing.assert_array_equal(marginals, belief.prior.marginals())  # type: ignore[attr-defined]  # the network's prior rides on this Weighted
    own = belief.inner.board(0)
    for square in chess.SQUARES:
        piece = own.piece_at(square)
        mine = piece is not None and piece.color == chess.BLACK
        assert marginals[square, 7:].sum() == pytest.approx(1.0 if mine else 0.0)
        assert marginals[square, 1:7].sum() <= 1.0 - (1.0 if mine else 0.0) + 1e-12


def test_the_learned_prior_is_certain_where_we_looked_since_the_opponent_moved() -> None:
    for color in (chess.WHITE, chess.BLACK):
        prior = LearnedPrior()
        for event, truth in zip(GAME.events[color], GAME.truth[color], strict=False):
            if isinstance(event, GameEnded):
                break
            prior.update(event)
            if isinstance(event, SenseResult):
                for square, _ in event.window:
                    assert prior.marginals()[square, truth_channels(truth)[square]] == 1.0


def test_neural_posterior_marginals_are_the_weighted_set_s_up_to_exact_below_boards() -> None:
    belief = NeuralPosterior(max_boards=None, exact_below=20)
    sizes = []
    for event in GAME.events[chess.WHITE]:
        if isinstance(event, GameEnded):
            break
        belief.update(event)
        expected = belief.support_marginals() if len(belief) <= 20 else belief.sampled_marginals()
        np.testing.assert_array_equal(belief.marginals(), expected)
        sizes.append(len(belief))
    assert min(sizes) <= 20 < max(sizes)  # both sides of the threshold were seen


def test_a_sample_as_large_as_the_set_gives_the_weighted_set_s_marginals_blended_with_the_network_s() -> None:
    belief = NeuralPosterior(max_boards=None, exact_below=1, sampled_boards=10**6)
    _fed(belief, chess.WHITE, 9)
    assert len(belief) > 100
    blended = (1 - NETWORK_SHARE) * belief.support_marginals() + NETWORK_SHARE * belief.prior.marginals()
    np.testing.assert_allclose(belief.marginals(), blended, atol=1e-12)


SAMPLED_BELIEF = _fed(NeuralPosterior(max_boards=None, exact_below=1), chess.WHITE, 9)  # 236 boards after 9 events


@settings(max_examples=25, deadline=None)
@given(sampled=st.integers(1, 400))
def test_sampled_marginals_estimate_the_weighted_set_s_and_keep_the_truth_possible(sampled: int) -> None:
    belief = SAMPLED_BELIEF.copy()
    assert isinstance(belief, NeuralPosterior)
    belief.sampled_boards = sampled
    marginals, exact = belief.marginals(), belief.support_marginals()
    np.testing.assert_allclose(marginals.sum(axis=1), 1.0)
    truth = truth_channels(GAME.truth[chess.WHITE][8])
    assert (marginals[np.arange(64), truth] > 0).all()  # the blend keeps every class the network allows
    # a weighted sample of n boards errs by the order of 1/sqrt(n): here at most 0.19 / sqrt(n) in total variation
    # per square, on average over the squares; an unweighted sample stays about 0.034 off whatever n
    total_variation = np.abs(marginals - exact).sum(axis=1).mean() / 2
    assert total_variation <= NETWORK_SHARE + 0.25 / np.sqrt(sampled)
    if sampled >= len(belief):
        assert np.abs(marginals - exact).max() <= 0.01 + 1e-12


def test_sampled_marginals_need_a_board_set_s_boards() -> None:
    particles = _fed(weighted(ParticleFilter(50, seed=0), LearnedPrior()), chess.WHITE, 3)
    with pytest.raises(WeightingError, match="BoardSet's boards, not a ParticleFilter's"):
        sampled_marginals(particles, np.full((64, 13), 1 / 13), 10)



def test_stockfish_sigmoid_prefers_boards_good_for_the_opponent() -> None:
    weighting = StockfishSigmoid()
    try:
        weighting.update(GAME.events[chess.WHITE][0])  # we play White, White to move
        even = np.zeros(64, dtype=np.uint8)
        even[[chess.E1, chess.E8]] = [6, 12]
        up = even.copy()
        up[chess.D8] = 11  # the opponent (Black) has a queen
        down = even.copy()
        down[chess.D1] = 5
        log_w = weighting.log_weights(np.stack([even, up, down]))
        assert log_w[1] > log_w[0] > log_w[2]
        assert np.exp(log_w).min() >= 0.02
        assert grid_board(up, chess.WHITE).piece_at(chess.D8) == chess.Piece(chess.QUEEN, chess.BLACK)
    finally:
        weighting.engine.close()


def test_stockfish_sigmoid_reads_a_set_past_its_cap_unweighted_and_searches_nothing() -> None:
    weighting = StockfishSigmoid(max_boards=2)
    try:
        weighting.update(GAME.events[chess.WHITE][0])
        even = np.zeros(64, dtype=np.uint8)
        even[[chess.E1, chess.E8]] = [6, 12]
        up = even.copy()
        up[chess.D8] = 11
        assert weighting.log_weights(np.stack([even, up]))[1] > weighting.log_weights(np.stack([even, up]))[0]
        assert weighting.log_weights(np.stack([even, up, up])).tolist() == [0.0, 0.0, 0.0]
        assert weighting.copy().max_boards == 2
        with pytest.raises(WeightingError, match="max_boards"):
            StockfishSigmoid(weighting.engine, max_boards=0)
    finally:
        weighting.engine.close()


def test_settings_are_checked() -> None:
    with pytest.raises(WeightingError, match="mix"):
        Weighted(BoardSet(), PawnCount(), mix=1.0)
    with pytest.raises(WeightingError, match="floor"):
        LearnedPrior(floor=0.0)
    with pytest.raises(WeightingError, match="exact_below"):
        NeuralPosterior(exact_below=0)
    with pytest.raises(WeightingError, match="sampled_boards"):
        NeuralPosterior(sampled_boards=-1)
    with pytest.raises(WeightingError, match="cannot be weighted"):
        weighted(NeuralPosterior().prior, PawnCount())  # type: ignore[arg-type]
