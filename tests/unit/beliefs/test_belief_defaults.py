"""The beliefs' defaults agree: the same boards get the same weights, whichever belief holds them.

`BoardSet()`, `ParticleFilter()` (with a budget it never reaches) and `HybridBelief()` all
default to the uniform opponent-move model, so while each is exact they hold the same
posterior: equal entropy and equal marginals after every event. The unweighted set
(``BoardSet(move_model=None)``, what the bot presets use) is a different posterior; the test
checks that too, so it would notice if the defaults drifted apart again.
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from blindchess.arbiter.game.observations import GameEnded
from blindchess.beliefs import UNIFORM, BoardSet, HybridBelief, ParticleFilter
from blindchess.beliefs.observed_games import play_random_game


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_beliefs_hold_the_same_posterior(seed: int) -> None:
    game = play_random_game(np.random.default_rng(seed), full_turn_limit=3)
    board_set, hybrid, particles = BoardSet(), HybridBelief(), ParticleFilter(100_000)
    unweighted = BoardSet(move_model=None)
    assert board_set.move_model is hybrid.move_model is particles.move_model is UNIFORM
    largest_gap = 0.0
    for event in game.events[chess.BLACK]:
        if isinstance(event, GameEnded):
            break
        for belief in (board_set, hybrid, particles, unweighted):
            belief.update(event)
        assert particles.is_exact and hybrid.mode == "exact"
        assert len(board_set) == len(hybrid) == len(particles) == len(unweighted)
        for other in (hybrid, particles):
            assert other.entropy() == pytest.approx(board_set.entropy(), abs=1e-9)
            np.testing.assert_allclose(other.marginals(), board_set.marginals(), atol=1e-9)
        largest_gap = max(largest_gap, abs(unweighted.entropy() - board_set.entropy()))
    assert largest_gap > 0.05  # the model matters: unweighted boards are another posterior


def test_the_shared_default_model_cannot_be_changed() -> None:
    with pytest.raises(ValueError):
        UNIFORM.scores[0, 0] = 5.0
