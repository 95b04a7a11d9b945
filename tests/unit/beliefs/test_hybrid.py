"""`HybridBelief`: hands over to particles past the switch size and comes back when an exact rebuild is small.

Seeded random-action games on the real arbiter with a tiny switch size, so that both
directions happen within a few turns; the truth is the yardstick in exact mode.
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from blindchess.arbiter.game.observations import GameEnded, SenseResult
from blindchess.beliefs import HybridBelief
from blindchess.beliefs.observed_games import play_random_game


def test_hands_over_and_returns_keeping_the_truth_while_exact() -> None:
    handovers = returns = 0
    for seed in (61, 62, 63):
        game = play_random_game(np.random.default_rng(seed), full_turn_limit=10, sense_probability=0.7)
        for color in (chess.WHITE, chess.BLACK):
            belief = HybridBelief(switch_boards=300, particles=40, seed=seed)
            for event, truth in zip(game.events[color], game.truth[color], strict=True):
                belief.update(event)
                if isinstance(event, GameEnded):
                    break
                if belief.mode == "exact":
                    assert belief.is_exact and truth in belief
                    if isinstance(event, SenseResult):
                        assert len(belief) <= 300  # past it, the particles take over
                else:
                    assert len(belief) >= 1
            handovers, returns = handovers + belief.handovers, returns + belief.returns
    assert handovers >= 6  # every stream outgrew 300 boards
    assert returns >= 1  # and some came back to the exact set


def test_bad_settings_are_refused_at_construction() -> None:
    with pytest.raises(ValueError):
        HybridBelief(switch_boards=0)
    with pytest.raises(ValueError, match="ess_threshold"):
        HybridBelief(ess_threshold=2.0)
