"""Acceptance 2: the true board is in the board set after every event whenever the set is exact.

400 seeded random-action games on the real arbiter (both colours, 6 full turns,
cap 3,000 boards), plus hypothesis tests on short games: truth in the set,
marginals normalised per square, and sampling that follows the weights. (The set was
accepted on 2,000 such games; 400 check the same property for a fifth of the CPU, about
16 s: a game costs 40 ms.)
"""

from __future__ import annotations

import chess
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from blindchess.arbiter.game.observations import GameEnded
from blindchess.beliefs import BoardSet, OpponentMoveModel
from blindchess.beliefs.board_layout import board_key
from blindchess.beliefs.observed_games import play_random_game

GAMES = 400
CAP = 3000


@pytest.mark.slow
@pytest.mark.parametrize("block", range(2))
def test_truth_in_the_exact_set_over_400_games(block: int) -> None:
    checked = approximate = 0
    for seed in range(block * GAMES // 2, (block + 1) * GAMES // 2):
        game = play_random_game(np.random.default_rng(seed), full_turn_limit=6)
        for color in (chess.WHITE, chess.BLACK):
            belief = BoardSet(max_boards=CAP, fold_parents=CAP // 3)  # the flagship's ratio (20,000 for a 60,000 cap)
            for event, truth in zip(game.events[color], game.truth[color], strict=True):
                belief.update(event)
                if isinstance(event, GameEnded):
                    continue
                if belief.is_exact:
                    assert truth in belief, (seed, color, event)
                    checked += 1
                else:
                    approximate += 1
                    assert len(belief) <= 2 * CAP + 512  # a fold adds at most a capped expansion
    assert checked > 10 * GAMES // 2


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # each example ~0.6 s of CPU
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 3), weighted=st.booleans())
def test_short_games_truth_marginals_and_sampling(seed: int, turns: int, weighted: bool) -> None:
    game = play_random_game(np.random.default_rng(seed), full_turn_limit=turns)
    model = OpponentMoveModel.capture_biased() if weighted else None
    for color in (chess.WHITE, chess.BLACK):
        belief = BoardSet(max_boards=None, move_model=model)
        for event, truth in zip(game.events[color], game.truth[color], strict=True):
            belief.update(event)
            if not isinstance(event, GameEnded):
                assert truth in belief
            np.testing.assert_allclose(belief.marginals().sum(axis=1), 1.0, atol=1e-9)
        _check_sampling_follows_weights(belief, np.random.default_rng(seed))


def _check_sampling_follows_weights(belief: BoardSet, rng: np.random.Generator) -> None:
    """Pearson chi-square of 2,000 samples against the weights (boards expected < 5 times pooled): p > 1e-6."""
    n = 2000
    weights = belief.weights()
    index = {board_key(belief.board(i)): i for i in range(len(belief))}
    assert len(index) == len(belief)  # no duplicate boards
    counts = np.zeros(len(belief))
    for board in belief.sample(n, rng):
        counts[index[board_key(board)]] += 1
    expected = weights * n
    large = expected >= 5
    observed_bins = np.append(counts[large], counts[~large].sum())
    expected_bins = np.append(expected[large], expected[~large].sum())
    keep = expected_bins > 0
    if keep.sum() > 1:
        assert chisquare(observed_bins[keep], expected_bins[keep]).pvalue > 1e-6


def test_cap_backlog_and_exact_recovery() -> None:
    """Past the cap the set is approximate, holds at most two caps' worth (a fold adds one), and `exact()` equals an uncapped set."""
    capped_seen = 0
    # Three full turns with few senses already pass the cap of 200 (sets of 4,000-5,000 boards),
    # about 11 times a game; four turns (40,000+ boards) cost ten times the CPU for the same check.
    for seed in range(10):
        game = play_random_game(np.random.default_rng(10_000 + seed), full_turn_limit=3, sense_probability=0.3)
        for color in (chess.WHITE, chess.BLACK):
            capped, full = BoardSet(max_boards=200), BoardSet(max_boards=None)
            for event, truth in zip(game.events[color], game.truth[color], strict=True):
                capped.update(event)
                full.update(event)
                assert len(capped) <= 2 * 200 + 512
                if not capped.is_exact:
                    capped_seen += 1
                    recovered = capped.exact()
                    assert recovered.is_exact and recovered.keys() == full.keys()
                    if not isinstance(event, GameEnded):
                        assert truth in recovered
    assert capped_seen > 50
