"""`ParticleFilter`: budget, resampling, deprivation recovery, bad input, the clock-following budget, noisy-sensor calibration.

Games are seeded random-action games on the real arbiter; the exhaustive `BoardSet` is
the yardstick (every particle must be a board it holds, since RBC's observations are exact).
"""

from __future__ import annotations

from typing import Any

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blindchess.arbiter.game.observations import GameEnded, OpponentMoved, SenseResult
from blindchess.beliefs import (
    BoardSet,
    InconsistentObservationError,
    OpponentMoveModel,
    ParticleFilter,
    UnexpectedObservationError,
)
from blindchess.beliefs.board_set_updates import MAX_CHILDREN
from blindchess.beliefs.calibration import noisy_sensing_calibration
from blindchess.beliefs.observed_games import ObservedGame, play_random_game
from blindchess.beliefs.particle_filter import systematic_counts

EXACT_CAP = 400_000


def _game(seed: int, turns: int = 8) -> ObservedGame:
    return play_random_game(np.random.default_rng(seed), full_turn_limit=turns, sense_probability=0.7)


def _support_within(belief: ParticleFilter, exact: BoardSet) -> bool:
    return all(board in exact for board in belief.sample(20, np.random.default_rng(0)))


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40).filter(lambda w: sum(w) > 0), st.integers(1, 200), st.integers(0, 10**6))
@settings(max_examples=60, deadline=None)
def test_systematic_resampling_gives_every_row_floor_or_ceil_of_its_share(weights: list[float], draws: int, seed: int) -> None:
    w = np.array(weights)
    counts = systematic_counts(w, draws, np.random.default_rng(seed))
    share = draws * w / w.sum()
    assert counts.sum() == draws
    assert np.all(counts >= np.floor(share - 1e-9)) and np.all(counts <= np.ceil(share + 1e-9))


@pytest.mark.parametrize("seed", [11, 12])
def test_budget_holds_and_every_particle_is_a_consistent_board(seed: int) -> None:
    game = _game(seed)
    for color in (chess.WHITE, chess.BLACK):
        belief = ParticleFilter(50, seed=seed)
        exact: BoardSet | None = BoardSet(max_boards=EXACT_CAP, move_model=OpponentMoveModel.uniform())
        parents = 1
        for event in game.events[color]:
            belief.update(event)
            if isinstance(event, OpponentMoved):
                assert len(belief) <= MAX_CHILDREN * parents  # memory linear in the budget
            if isinstance(event, SenseResult):
                assert len(belief) <= 50
            parents = len(belief)
            if exact is not None:
                exact.update(event)
                exact = exact if exact.is_exact else None
            if exact is not None and not isinstance(event, GameEnded):
                assert _support_within(belief, exact)
                if belief.is_exact:  # nothing dropped yet: the particles are the weighted exact set
                    np.testing.assert_allclose(belief.marginals(), exact.marginals(), atol=1e-9)


def test_starved_filter_recovers_the_truth_from_an_exact_replay() -> None:
    """Budget 1 starves the filter; with the game-start replay exact (huge factor), every recovery holds the truth."""
    recoveries = 0
    for seed in (21, 22, 23):
        game = _game(seed, turns=6)
        for color in (chess.WHITE, chess.BLACK):
            belief = ParticleFilter(1, recovery_turns=0, recovery_factor=10**7, seed=seed)
            for event, truth in zip(game.events[color], game.truth[color], strict=True):
                before = belief.recoveries
                belief.update(event)
                assert len(belief) >= 1
                if belief.recoveries > before and not isinstance(event, GameEnded):
                    assert truth in belief
            recoveries += belief.recoveries
    assert recoveries >= 5  # the sequences did starve it


def test_every_recovery_path_leaves_a_consistent_non_empty_belief() -> None:
    """Snapshot replays (default) and the capped exact rebuild (factor 1, no snapshots) alike."""
    paths: dict[str, dict[str, Any]] = {"snapshots": {}, "capped rebuild": {"recovery_turns": 0, "recovery_factor": 1}}
    game = _game(31, turns=7)
    for name, settings_ in paths.items():
        total = 0
        for color in (chess.WHITE, chess.BLACK):
            belief = ParticleFilter(2, seed=31, **settings_)
            exact: BoardSet | None = BoardSet(max_boards=EXACT_CAP, move_model=OpponentMoveModel.uniform())
            for event in game.events[color]:
                belief.update(event)
                if exact is not None:
                    exact.update(event)
                    exact = exact if exact.is_exact else None
                assert len(belief) >= 1
                if exact is not None and not isinstance(event, GameEnded):
                    assert _support_within(belief, exact), name
            total += belief.recoveries
        assert total >= 2, name


def test_impossible_observation_raises_and_leaves_the_filter_unchanged() -> None:
    game = _game(41, turns=3)
    belief = ParticleFilter(20)
    for event in game.events[chess.BLACK][:4]:  # GameStarted, OpponentMoved, SenseResult, MoveResult
        belief.update(event)
    before, size = belief.marginals(), len(belief)
    empty_square = next(s for s in chess.SQUARES if game.truth[chess.BLACK][3].piece_at(s) is None)
    with pytest.raises(InconsistentObservationError):
        belief.update(OpponentMoved(empty_square))  # "captured" where we have no piece
    assert len(belief) == size
    np.testing.assert_array_equal(belief.marginals(), before)
    with pytest.raises(UnexpectedObservationError):
        belief.update(SenseResult(None, ()))  # a sense while the opponent is to move


def test_budget_follows_the_clock() -> None:
    game = _game(51, turns=6)
    tight = ParticleFilter(400, seconds_per_update=1e-9, min_particles=50)
    loose = ParticleFilter(400, seconds_per_update=100.0, max_particles=3000)
    for event in game.events[chess.WHITE]:
        tight.update(event)
        loose.update(event)
    assert tight.budget == 50 and loose.budget == 3000


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="particles"):
        ParticleFilter(0)
    with pytest.raises(ValueError, match="ess_threshold"):
        ParticleFilter(10, ess_threshold=1.5)


CALIBRATION_TOLERANCE = 0.01
"""Calibrated: the truth's mean probability within 0.01 of its predicted probability (and ECE below 1.5 times that)."""


@pytest.mark.parametrize("p", [0.1, 0.2])
def test_noisy_sensing_filter_stays_calibrated(p: float) -> None:
    """Opponent moves drawn from the filter's own (uniform) model, windows corrupted with probability p."""
    calibration = noisy_sensing_calibration(p, p, range(12))
    assert calibration.squares > 3000  # the beliefs were uncertain enough to say something
    assert abs(calibration.mean_truth - calibration.mean_predicted) < CALIBRATION_TOLERANCE
    assert calibration.ece < 1.5 * CALIBRATION_TOLERANCE


def test_a_wrong_noise_model_is_caught_miscalibrated() -> None:
    """The same games scored with a filter that trusts a p = 0.1 sensor almost fully: overconfident, beyond the tolerance."""
    calibration = noisy_sensing_calibration(0.1, 0.001, range(12))
    assert calibration.mean_truth - calibration.mean_predicted < -2 * CALIBRATION_TOLERANCE
    assert calibration.ece > 2 * CALIBRATION_TOLERANCE
