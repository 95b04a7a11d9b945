"""Tournament statistics against known answers: Wilson intervals, the Elo MLE, the SPRT's LLR and error rates."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from blindchess.elo import SCALE
from blindchess.tournament.ratings import fit_elo
from blindchess.tournament.stats import (
    MatchScore,
    Sprt,
    StatisticsError,
    pair_interval,
    pentanomial,
    score_to_elo,
    sprt_llr,
    wilson_interval,
)


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _expected(elo: float) -> float:
    """The logistic expected score of an Elo difference."""
    return 1 / (1 + 10 ** (-elo / 400))


def test_wilson_intervals_match_hand_computed_values() -> None:
    # (p + z^2/2n +- z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n), z = 1.959964, worked by hand:
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)  # Wald would give the empty [0, 0]
    assert wilson_interval(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(StatisticsError, match="11"):
        wilson_interval(11, 10)


def test_match_score_reads_as_cutechess_and_fishtest_read_it() -> None:
    score = MatchScore(wins=7, draws=1, losses=2)
    assert (score.games, score.points, score.fraction, score.draw_ratio) == (10, 7.5, 0.75, 0.1)
    assert score.elo == pytest.approx(400 * math.log10(3))  # the logistic curve at 3:1
    assert score.los == pytest.approx(NormalDist().cdf((7 - 2) / math.sqrt(7 + 2)))  # Phi((W - L) / sqrt(W + L))
    low, high = score.elo_interval
    assert (low, high) == tuple(score_to_elo(bound) for bound in wilson_interval(7.5, 10)) and low < score.elo < high
    mirror = MatchScore(wins=2, draws=1, losses=7)  # the same match from the other side
    assert mirror.los == pytest.approx(1 - score.los) and mirror.elo_interval == pytest.approx((-high, -low))
    sweep = MatchScore(2, 0, 0)  # all wins: infinite Elo, but a finite lower bound (a normal interval would be a point)
    assert sweep.elo == math.inf and -200 < sweep.elo_interval[0] < 0 and sweep.elo_interval[1] == math.inf
    assert MatchScore(0, 3, 0).los == 0.5  # no decisive game: no evidence either way
    with pytest.raises(StatisticsError, match="0-0-0"):
        MatchScore(0, 0, 0)


def test_two_player_mle_equals_the_closed_form() -> None:
    # With two players the fit reproduces the observed frequencies: P(win) = 0.5, P(loss) = 0.2, so
    # d - delta = logit(0.5)/SCALE and -d - delta = logit(0.2)/SCALE, d = (logit .5 - logit .2) / (2 SCALE).
    games = [("A", "B", 1.0), ("B", "A", 0.0)] * 25 + [("A", "B", 0.5), ("B", "A", 0.5)] * 15 + [("A", "B", 0.0), ("B", "A", 1.0)] * 10
    fit = fit_elo(games, prior_games=0.0)
    difference = (_logit(0.5) - _logit(0.2)) / (2 * SCALE)
    assert fit.ratings["A"] - fit.ratings["B"] == pytest.approx(difference, abs=0.05)  # 120.4 Elo
    assert fit.ratings["A"] + fit.ratings["B"] == pytest.approx(0.0, abs=1e-6)
    assert fit.draw_elo == pytest.approx(-(_logit(0.5) + _logit(0.2)) / (2 * SCALE), abs=0.05)
    assert fit.advantage == pytest.approx(0.0, abs=0.05)  # colours balanced, same results with each


def test_interval_without_draws_equals_the_binomial_fisher_information() -> None:
    # No draws: P(A wins) = p = 0.75 over N = 200 games, d = logit(p)/SCALE, Var(d) = 1 / (N p (1-p) SCALE^2).
    games = [("A", "B", 1.0), ("B", "A", 0.0)] * 75 + [("A", "B", 0.0), ("B", "A", 1.0)] * 25
    fit = fit_elo(games, prior_games=0.0)
    assert fit.draw_elo == pytest.approx(0.0, abs=0.5)
    assert fit.ratings["A"] - fit.ratings["B"] == pytest.approx(math.log(3) / SCALE, abs=0.1)  # 190.8 Elo
    standard_error = 1 / math.sqrt(200 * 0.75 * 0.25 * SCALE**2)
    _, margin = fit.difference("A", "B")
    assert margin == pytest.approx(1.959964 * standard_error, rel=1e-3)  # 95.2 Elo
    assert fit.margins["A"] == pytest.approx(margin / 2, rel=1e-3)  # r_A = d/2 with the mean fixed at 0


def test_mle_recovers_the_ratings_that_generated_the_results() -> None:
    truth = {"A": 150.0, "B": 0.0, "C": -150.0}
    advantage, draw = 40.0, 120.0
    games = []
    for white in truth:
        for black in truth:
            if white == black:
                continue
            d = truth[white] - truth[black] + advantage
            win, loss = _expected(d - draw), _expected(-d - draw)
            for score, share in ((1.0, win), (0.5, 1 - win - loss), (0.0, loss)):
                games += [(white, black, score)] * round(4000 * share)
    fit = fit_elo(games, prior_games=0.0)
    for player, rating in truth.items():
        assert fit.ratings[player] == pytest.approx(rating, abs=1.0)
    assert fit.advantage == pytest.approx(advantage, abs=1.0) and fit.draw_elo == pytest.approx(draw, abs=1.0)
    assert all(0 < fit.margins[player] < 15 for player in truth)


def test_prior_keeps_a_perfect_score_finite_and_bad_games_are_named() -> None:
    fit = fit_elo([("A", "B", 1.0), ("B", "A", 0.0)] * 3)
    assert 0 < fit.ratings["A"] < 1000 and fit.margins["A"] > 100
    with pytest.raises(StatisticsError, match="'A' is paired with itself"):
        fit_elo([("A", "A", 1.0)])
    with pytest.raises(StatisticsError, match=r"0\.7"):
        fit_elo([("A", "B", 0.7)])


def test_pentanomial_and_sprt_llr_against_hand_computed_values() -> None:
    assert pentanomial([0.0, 2.0, 1.0, 1.5, 1.0]) == (1, 0, 2, 1, 1)
    # LLR = N/2 ln((var + (mean - s0)^2) / (var + (mean - s1)^2)), s0 = 1/2, s1 = 1/(1+10^-0.025) = 0.514387,
    # mean and variance of the counts plus 1/2 in every cell, N the number of samples.
    # Trinomial 10 losses, 20 draws, 30 wins -> 10.5, 20.5, 30.5: mean 0.662602, variance 0.140227:
    # LLR = 30 ln((0.140227 + 0.026439) / (0.140227 + 0.021968)) = 30 ln(1.027566) = 0.81591.
    assert sprt_llr([10, 20, 30], 0.0, 10.0) == pytest.approx(0.81591, abs=1e-4)
    # Pentanomial [1, 2, 3, 2, 2] -> [1.5, 2.5, 3.5, 2.5, 2.5] on scores 0, 1/4, .., 1: mean 0.54,
    # variance 0.1034: LLR = 5 ln((0.1034 + 0.0016) / (0.1034 + 0.000656)) = 5 ln(1.009072) = 0.04516.
    assert sprt_llr([1, 2, 3, 2, 2], 0.0, 10.0) == pytest.approx(0.04516, abs=1e-4)
    # Three split pairs at elo1 = 50 (s1 = 0.571463) -> [.5, .5, 3.5, .5, .5]: mean 1/2, variance
    # 0.3125 / 5.5 = 0.056818: LLR = 1.5 ln(0.056818 / (0.056818 + 0.005107)) = -0.1291. Without the
    # prior (an empty cell counting 1e-3, as fishtest) it was -4.87, past -2.94: H0 on six games.
    assert sprt_llr([0, 0, 3, 0, 0], 0.0, 50.0) == pytest.approx(-0.1291, abs=1e-3)
    lower, _ = Sprt(0, 50).bounds
    assert sprt_llr([0, 0, 20, 0, 0], 0.0, 50.0) < lower < sprt_llr([0, 0, 15, 0, 0], 0.0, 50.0)  # -3.13, -1.88
    # Identical pairs do not decide at once in favour of H1 either (the normal form's zero-variance
    # blow-up: two pairs of 3/2 gave +14.9 and accepted H1 after four games in a real flagship run).
    assert 0 < sprt_llr([0, 0, 0, 2, 0], 0.0, 10.0) < 0.2
    assert 0 < sprt_llr([0, 0, 0, 0, 4], 0.0, 50.0) < 0.5  # +0.43, far below the bound +2.94
    assert sprt_llr([0, 0, 0, 0, 200], 0.0, 10.0) > 2.95  # A won every pair, long enough: H1
    assert Sprt(0, 10).bounds == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))  # -+2.944
    assert score_to_elo(0.5) == 0.0
    with pytest.raises(StatisticsError, match="elo0=10"):
        Sprt(10, 0)


def _simulated_verdicts(probabilities: list[float], runs: int = 300, pairs: int = 5000, seed: int = 1) -> tuple[float, float]:
    """(share accepting H1, share accepting H0) of SPRT(0, 10) runs on simulated pentanomial pair outcomes."""
    rng = np.random.default_rng(seed)
    outcomes = rng.choice(5, size=(runs, pairs), p=probabilities)
    counts = np.zeros((runs, pairs, 5), np.int32)
    np.put_along_axis(counts, outcomes[..., None], 1, axis=-1)
    llr = sprt_llr(np.cumsum(counts, axis=1), 0.0, 10.0)
    lower, upper = Sprt(0, 10).bounds
    first_up = np.where((llr >= upper).any(1), (llr >= upper).argmax(1), pairs)
    first_down = np.where((llr <= lower).any(1), (llr <= lower).argmax(1), pairs)
    return float(np.mean(first_up < first_down)), float(np.mean(first_down < first_up))


def test_sprt_between_a_bot_and_itself_accepts_h0_at_about_the_stated_error_rate() -> None:
    # A bot against itself: pair totals symmetric around 1 (true Elo 0 = elo0); alpha = 0.05.
    h1, h0 = _simulated_verdicts([0.05, 0.2, 0.5, 0.2, 0.05])
    assert 0.003 <= h1 <= 0.08  # observed 0.023: Wald's bounds and the overshoot make it a little conservative
    assert h0 >= 0.9


def test_sprt_accepts_h1_when_the_difference_is_elo1() -> None:
    s1 = 1 / (1 + 10 ** (-10 / 400))
    shift = (s1 - 0.5) * 4  # mass moved from total 1 to total 3/2 raises the halved mean by a quarter of it
    h1, h0 = _simulated_verdicts([0.05, 0.2, 0.5 - shift, 0.2 + shift, 0.05], seed=2)
    assert h1 >= 0.9 and h0 <= 0.08  # observed 0.933 and 0.053 (beta = 0.05)


def test_pair_interval_covers_the_true_score_about_95_percent_of_the_time() -> None:
    probabilities = [0.1, 0.1, 0.4, 0.2, 0.2]  # a stronger bot: true score per game 0.575
    truth = float(np.dot(probabilities, [0.0, 0.25, 0.5, 0.75, 1.0]))
    rng = np.random.default_rng(3)
    covered = []
    for _ in range(2000):
        pairs = list(rng.choice([0.0, 0.5, 1.0, 1.5, 2.0], size=50, p=probabilities))
        low, high = pair_interval(pairs)
        covered.append(low <= truth <= high)
    assert 0.92 <= np.mean(covered) <= 0.97  # observed 0.946 (the normal approximation at 50 pairs)
    assert pair_interval([2.0, 2.0]) == (1.0, 1.0)  # no spread: the interval is the point
    for bad in ([], [0.25], [3.0]):
        with pytest.raises(StatisticsError):
            pair_interval(bad)


def test_docstring_examples_run() -> None:
    import doctest

    from blindchess.tournament import config, ratings, ray_executor, stats, task

    for module in (config, ratings, ray_executor, stats, task):
        assert doctest.testmod(module).failed == 0, module.__name__
