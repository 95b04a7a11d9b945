"""Small-sample statistics of game results: Wilson intervals, pentanomial counts and the SPRT.

Scores are from one player's side: a win is 1, a draw 1/2, a loss 0. Elo differences and
expected scores are related by the logistic curve

.. math:: s(\\Delta) = \\frac{1}{1 + 10^{-\\Delta/400}}, \\qquad \\Delta(s) = -400 \\log_{10}(1/s - 1).

**Wilson score interval** for a proportion :math:`\\hat p = k/n` at normal quantile :math:`z`:

.. math:: \\frac{\\hat p + z^2/2n \\pm z \\sqrt{\\hat p(1-\\hat p)/n + z^2/4n^2}}{1 + z^2/n}

(unlike the Wald interval it stays inside [0, 1] and is sensible at 0/n and n/n).

**Pentanomial counts**: with colour-swapped pairs (the same seeds, each bot once White) the two
games are not independent (a seed that favours a bot does so in both), so fishtest counts each
pair's total score, 0, 1/2, 1, 3/2 or 2, as one draw from a five-valued distribution.

**SPRT** (Wald's sequential probability ratio test, in the generalised form fishtest uses): H0 is
"the expected score is :math:`s_0 = s(\\mathrm{elo}_0)`", H1 "it is :math:`s_1 = s(\\mathrm{elo}_1)`". After
:math:`N` independent samples :math:`x_i \\in [0, 1]` (per-game scores, or per-pair scores halved)
with mean :math:`\\bar x` and variance :math:`\\sigma^2`, the generalised log-likelihood ratio (the
likelihood of the data maximised over the distributions with mean :math:`s_1`, over that with mean
:math:`s_0`) is, to second order (Van den Bergh's approximation, fishtest's ``LLR_alt2``),

.. math:: \\mathrm{LLR} = \\frac{N}{2} \\ln \\frac{\\sigma^2 + (\\bar x - s_0)^2}{\\sigma^2 + (\\bar x - s_1)^2}.

The mean and variance are those of the counts plus :math:`c = 1/2` in every cell (the posterior
mean under Jeffreys' Dirichlet(1/2) prior), while :math:`N` stays the number of samples.

Why this form and the prior: the plainer normal form :math:`N (s_1 - s_0)(2\\bar x - s_0 - s_1) / 2\\sigma^2`
divides by the sample variance, which is near zero after a few identical pairs (RBC pairs often
repeat), and then accepts H1 on a handful of games; in this form each sample adds at most
:math:`\\frac12 \\ln \\frac{(\\bar x - s_0)^2}{(\\bar x - s_1)^2}` in favour of H1. Towards H0 the form has
no such limit (with :math:`\\bar x = s_0` and :math:`\\sigma^2 \\to 0` each sample adds
:math:`\\frac12 \\ln \\frac{\\sigma^2}{\\sigma^2 + (s_1 - s_0)^2} \\to -\\infty`), and split pairs, the
commonest in RBC, "accepted" H0 within a few pairs under fishtest's regularisation; the prior, worth half
a sample a cell, keeps a verdict from coming before the evidence does. docs/tournaments.md has the cases.

**A match's score** (``blindchess match``, as cutechess and fishtest report it): the score
:math:`\\hat s = (W + D/2)/N`, the Elo difference :math:`\\Delta(\\hat s)`, its interval the Wilson
interval of :math:`\\hat s` (draws as half a success) mapped through :math:`\\Delta` (cutechess
maps a normal interval instead, which collapses to a point at 2-0; Wilson's gives
:math:`(-113, +\\infty)` there), and the likelihood of superiority, the probability that the
first player is the stronger given its wins and losses (draws say nothing about it),

.. math:: \\mathrm{LOS} = \\Phi\\left(\\frac{W - L}{\\sqrt{W + L}}\\right).

**Interval of a paired score**: the mean :math:`\\bar x` of the :math:`N` halved pair totals
:math:`\\pm z\\,\\sigma/\\sqrt N` (:math:`\\sigma^2` their variance, as counted), the normal interval
fishtest reports; it is what a fixed-length run (e.g. 100 games) is judged by.

The test stops when LLR leaves :math:`(\\ln\\frac{\\beta}{1-\\alpha}, \\ln\\frac{1-\\beta}{\\alpha})`:
below, H0 is accepted, above, H1. With :math:`\\alpha = \\beta = 0.05` the bounds are :math:`\\mp 2.944`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from blindchess.errors import BlindchessError

PRIOR_COUNT = 0.5
"""The pseudo-count every outcome cell adds to the SPRT's mean and variance (module docstring)."""

PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)
"""The five totals of a colour-swapped pair, the index of a pentanomial count."""


class StatisticsError(BlindchessError, ValueError):
    """An input outside what a statistic is defined for (the message quotes it)."""


def elo_to_score(elo: float) -> float:
    """Expected score at an Elo difference.

    >>> elo_to_score(0.0), round(elo_to_score(400.0), 4)
    (0.5, 0.9091)
    """
    return 1.0 / (1.0 + float(10.0 ** (-elo / 400.0)))


def score_to_elo(score: float) -> float:
    """The Elo difference with expected score `score` (infinite at 0 and 1).

    >>> round(score_to_elo(0.75), 1)
    190.8
    """
    if not 0.0 <= score <= 1.0:
        raise StatisticsError(f"a score is between 0 and 1, got {score!r}")
    if score in (0.0, 1.0):
        return math.copysign(math.inf, score - 0.5)
    return -400.0 * math.log10(1.0 / score - 1.0)


def normal_quantile(confidence: float) -> float:
    """The z of a two-sided normal interval at `confidence` (the standard library's, so no scipy import).

    >>> round(normal_quantile(0.95), 4)
    1.96
    """
    if not 0.0 < confidence < 1.0:
        raise StatisticsError(f"a confidence is between 0 and 1 (exclusive), got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes: float, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (see the module docstring).

    >>> [round(bound, 4) for bound in wilson_interval(8, 10)]
    [0.4902, 0.9433]
    """
    if trials < 0 or not 0 <= successes <= max(trials, 0):
        raise StatisticsError(f"need 0 <= successes <= trials, got {successes!r} of {trials!r}")
    if trials == 0:
        return 0.0, 1.0
    z = normal_quantile(confidence)
    p = successes / trials
    centre = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1.0 - p) / trials + z * z / (4 * trials * trials))
    scale = 1.0 + z * z / trials
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def pentanomial(pair_scores: Sequence[float]) -> tuple[int, int, int, int, int]:
    """Counts of pair totals 0, 1/2, 1, 3/2, 2 (one player's score over a colour-swapped pair).

    >>> pentanomial([2.0, 1.0, 1.0, 0.5])
    (0, 1, 2, 0, 1)
    """
    counts = [0] * 5
    for score in pair_scores:
        if score not in PAIR_SCORES:
            raise StatisticsError(f"a pair total is one of {PAIR_SCORES}, got {score!r}")
        counts[PAIR_SCORES.index(score)] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def pair_interval(pair_scores: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """The normal interval of the score per game over colour-swapped pairs (module docstring).

    >>> [round(bound, 3) for bound in pair_interval([0.0] * 3 + [1.0] * 12 + [2.0] * 8)]
    [0.475, 0.743]
    """
    if not pair_scores or any(score not in PAIR_SCORES for score in pair_scores):
        raise StatisticsError(f"need at least one pair, each total one of {PAIR_SCORES}, got {list(pair_scores)!r}")
    halves = np.asarray(pair_scores, dtype=float) / 2.0
    z = normal_quantile(confidence)
    spread = z * float(halves.std()) / math.sqrt(len(halves))
    mean = float(halves.mean())
    return max(0.0, mean - spread), min(1.0, mean + spread)


@dataclass(frozen=True)
class MatchScore:
    """One player's wins, draws and losses against another, and what they say (module docstring).

    >>> score = MatchScore(wins=7, draws=1, losses=2)
    >>> score.points, round(score.fraction, 3), round(score.elo, 1)
    (7.5, 0.75, 190.8)
    >>> [round(bound) for bound in score.elo_interval], round(score.los, 3)
    ([-40, 422], 0.952)

    Raises:
        StatisticsError: a negative count, or no games.
    """

    wins: int
    draws: int
    losses: int
    confidence: float = 0.95

    def __post_init__(self) -> None:
        if min(self.wins, self.draws, self.losses) < 0 or self.games == 0:
            raise StatisticsError(f"need counts of 0 or more and at least one game, got {self.wins}-{self.draws}-{self.losses}")

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def fraction(self) -> float:
        """The score per game, 0 to 1."""
        return self.points / self.games

    @property
    def elo(self) -> float:
        """The Elo difference the score implies (infinite after all wins or all losses)."""
        return score_to_elo(self.fraction)

    @property
    def elo_interval(self) -> tuple[float, float]:
        """The Elo difference's interval at `confidence`: the score's Wilson interval, through the logistic curve."""
        low, high = wilson_interval(self.points, self.games, self.confidence)
        return score_to_elo(low), score_to_elo(high)

    @property
    def los(self) -> float:
        """The likelihood of superiority: the chance the player is the stronger (1/2 with no decisive game)."""
        decisive = self.wins + self.losses
        if decisive == 0:
            return 0.5
        return 0.5 * (1.0 + math.erf((self.wins - self.losses) / math.sqrt(2.0 * decisive)))

    @property
    def draw_ratio(self) -> float:
        return self.draws / self.games


def sprt_llr(counts: ArrayLike, elo0: float, elo1: float) -> Any:
    """The SPRT log-likelihood ratio (module docstring) from counts over evenly spaced scores.

    `counts[..., i]` is how often the score ``i / (k - 1)`` was seen, `k` the last axis's length:
    three counts (loss, draw, win) for single games, five (the pentanomial) for pairs, whose
    totals are halved to lie in [0, 1]. Zero while fewer than two samples.
    Leading axes are independent tests (a float for one, an array for many). The mean and
    variance are of the counts plus `PRIOR_COUNT` in every cell, so that the variance is never
    zero and a few identical samples do not decide (module docstring, "Small samples").

    >>> round(sprt_llr([10, 20, 30], 0.0, 10.0), 4)
    0.8159
    >>> round(sprt_llr([0, 0, 0, 2, 0], 0.0, 10.0), 4)  # two pairs of 3/2: far from a verdict
    0.0312
    >>> round(sprt_llr([0, 0, 3, 0, 0], 0.0, 50.0), 2)  # three split pairs: far from one too
    -0.13
    """
    table = np.asarray(counts, dtype=float)
    if table.ndim == 0 or table.shape[-1] < 2 or np.any(table < 0):
        raise StatisticsError(f"counts are at least two non-negative numbers, got {np.asarray(counts).tolist()!r}")
    samples = table.sum(axis=-1)
    smoothed = table + PRIOR_COUNT
    weight = smoothed.sum(axis=-1)
    values = np.linspace(0.0, 1.0, table.shape[-1])
    mean = smoothed @ values / weight
    variance = smoothed @ values**2 / weight - mean**2
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    llr = np.where(
        samples >= 2, 0.5 * samples * np.log((variance + (mean - s0) ** 2) / (variance + (mean - s1) ** 2)), 0.0
    )
    return float(llr) if llr.ndim == 0 else llr


class SprtDecision(enum.Enum):
    CONTINUE = "continue"
    H0 = "H0"
    H1 = "H1"


@dataclass(frozen=True)
class Sprt:
    """An SPRT's hypotheses and error rates; `decide` reads an LLR against its bounds.

    >>> test = Sprt(0.0, 10.0)
    >>> [round(bound, 3) for bound in test.bounds], test.decide(3.0)
    ([-2.944, 2.944], <SprtDecision.H1: 'H1'>)
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise StatisticsError(f"the SPRT needs elo0 < elo1, got elo0={self.elo0!r}, elo1={self.elo1!r}")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < rate < 0.5:
                raise StatisticsError(f"{name} is an error rate in (0, 0.5), got {rate!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): accept H0 at or below the first, H1 at or above the second."""
        return math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[float]) -> float:
        return float(sprt_llr(counts, self.elo0, self.elo1))

    def decide(self, llr: float) -> SprtDecision:
        lower, upper = self.bounds
        if llr <= lower:
            return SprtDecision.H0
        if llr >= upper:
            return SprtDecision.H1
        return SprtDecision.CONTINUE
