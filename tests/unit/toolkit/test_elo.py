"""`blindchess.elo`: the one Elo curve, its log form, and the online update the server's ladder uses."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blindchess.elo import SCALE, expected_score, log_expected_score, updated_ratings


@pytest.mark.parametrize("difference", [-800.0, -400.0, -35.5, 0.0, 120.0, 400.0])
def test_expected_scores_of_both_players_sum_to_one_and_follow_the_400_point_odds(difference: float) -> None:
    stronger, weaker = expected_score(1500 + difference, 1500), expected_score(1500, 1500 + difference)
    assert stronger + weaker == pytest.approx(1.0)
    assert stronger / weaker == pytest.approx(10 ** (difference / 400))  # 400 points are odds of 10 to 1


def test_the_log_form_is_the_log_of_the_curve_and_stays_finite_far_out() -> None:
    differences = np.array([-600.0, -50.0, 0.0, 75.0, 900.0])
    expected = [math.log(expected_score(d, 0.0)) for d in differences]
    assert log_expected_score(differences) == pytest.approx(expected)
    assert log_expected_score(np.array([0.0]))[0] == pytest.approx(math.log(0.5))
    far = log_expected_score(np.array([-1e6, 1e6]))
    assert np.all(np.isfinite(far)) and far[0] == pytest.approx(-1e6 * SCALE) and far[1] == 0.0


def test_an_update_moves_both_ratings_by_the_same_amount_and_rewards_the_upset() -> None:
    white, black = updated_ratings(1400.0, 1600.0, 1.0)
    assert white + black == pytest.approx(3000.0)
    assert white - 1400.0 == pytest.approx(32 * (1 - expected_score(1400.0, 1600.0)))
    upset_gain = white - 1400.0
    expected_gain = updated_ratings(1600.0, 1400.0, 1.0)[0] - 1600.0
    assert upset_gain > 16.0 > expected_gain  # beating the stronger player is worth more than half of K
    assert updated_ratings(1500.0, 1500.0, 0.5) == (1500.0, 1500.0)


def test_a_score_that_is_not_a_game_result_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"0\.7"):
        updated_ratings(1500.0, 1500.0, 0.7)
