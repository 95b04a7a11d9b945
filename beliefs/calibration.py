"""Scoring a belief's marginals against the true board: cross-entropy and calibration.

A belief is *calibrated* when the probability it gives the truth is, on average, the
probability it predicts it will give: on a square with marginals ``p``, the truth's
content ``c`` has probability ``p[c]``, and a belief whose boards are drawn as it says
expects ``sum_c p[c]^2`` there. Over many squares and events the two means agree for the
exact posterior of a correctly specified model (the law of total expectation), so a gap
measures how far an approximate belief (or a wrong sensor model) is from it.
`noisy_sensing_calibration` is the run behind the particle-filter calibration test and
``experiments/particle_calibration.py``; `cross_entropy` scores ``experiments/bench_particles.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess
import numpy as np

from blindchess.arbiter.game.observations import GameEnded, SenseResult

from .base import channel
from .likelihood import NoisySensing
from .observed_games import play_random_game
from .particle_filter import ParticleFilter

SMOOTHING = 1e-4
"""Cross-entropy smoothing: ``(1 - eps) p + eps / 13``, so a ruled-out square costs about 17 bits, not infinity."""


def truth_channels(board: chess.Board) -> np.ndarray:
    """Per square, the marginal channel of `board` (0 empty, 1..6 white pawn..king, 7..12 black)."""
    return np.array([channel(board.piece_at(square)) for square in chess.SQUARES], dtype=np.int64)


def cross_entropy(marginals: np.ndarray, truth: chess.Board) -> float:
    """``-sum_s log2 p_s(truth_s)`` under smoothed (64, 13) marginals, in bits."""
    p = (1 - SMOOTHING) * marginals[np.arange(64), truth_channels(truth)] + SMOOTHING / 13
    return float(-np.log2(p).sum())


@dataclass
class Calibration:
    """Running calibration sums over many (marginals, truth) pairs.

    Two views. Per *uncertain square* (no content with probability one): the truth's
    probability ``p[c]`` against its predicted probability ``sum_c p[c]^2``. Per *(square,
    content) forecast* ``p`` in ``(0.02, 0.98)``, in ``bins`` equal-width bins: the mean
    forecast against how often the content was the truth (a reliability diagram), summed
    into the expected calibration error `ece`.
    """

    bins: int = 5
    squares: int = 0
    truth_probability: float = 0.0
    predicted_probability: float = 0.0

    def __post_init__(self) -> None:
        self.forecasts = np.zeros(self.bins)
        """Per bin: how many forecasts, their summed probability, and how many came true."""
        self.forecast_sum = np.zeros(self.bins)
        self.hits = np.zeros(self.bins)

    def add(self, marginals: np.ndarray, truth: chess.Board) -> None:
        channels = truth_channels(truth)
        uncertain = marginals.max(axis=1) < 1.0 - 1e-9
        at_truth = marginals[np.arange(64), channels]
        self.squares += int(uncertain.sum())
        self.truth_probability += float(at_truth[uncertain].sum())
        self.predicted_probability += float((marginals[uncertain] ** 2).sum())
        hit = np.zeros_like(marginals)
        hit[np.arange(64), channels] = 1.0
        forecast = (marginals > 0.02) & (marginals < 0.98)
        index = np.minimum((marginals[forecast] * self.bins).astype(np.int64), self.bins - 1)
        self.forecasts += np.bincount(index, minlength=self.bins)
        self.forecast_sum += np.bincount(index, weights=marginals[forecast], minlength=self.bins)
        self.hits += np.bincount(index, weights=hit[forecast], minlength=self.bins)

    @property
    def mean_truth(self) -> float:
        """Mean probability of the truth's content on an uncertain square."""
        return self.truth_probability / max(self.squares, 1)

    @property
    def mean_predicted(self) -> float:
        """Mean predicted probability of the truth's content, ``sum_c p[c]^2``, on an uncertain square."""
        return self.predicted_probability / max(self.squares, 1)

    def reliability(self) -> list[tuple[int, float, float]]:
        """Per non-empty bin: (forecasts, mean forecast, frequency of the truth)."""
        return [(int(n), s / n, h / n) for n, s, h in zip(self.forecasts, self.forecast_sum, self.hits, strict=True) if n]

    @property
    def ece(self) -> float:
        """Expected calibration error: the forecast-weighted mean of ``|mean forecast - frequency|`` over the bins."""
        return float(np.abs(self.forecast_sum - self.hits).sum() / max(self.forecasts.sum(), 1))


def noisy_sensing_calibration(p_sensor: float, p_model: float, seeds: range, particles: int = 1000, turns: int = 12) -> Calibration:
    """A `ParticleFilter` assuming a `p_model` sensor, scored after every sense of games sensed by a `p_sensor` one.

    The games (one per seed, at most `turns` full turns, both colours followed) draw every
    move uniformly from its distinct outcomes, the filter's own opponent model, so with
    ``p_model == p_sensor`` the exact posterior is calibrated and any gap is the filter's.
    """
    sensor, calibration = NoisySensing(p_sensor), Calibration()
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = play_random_game(rng, full_turn_limit=turns, sense_probability=1.0, uniform_outcomes=True)
        for color in (chess.WHITE, chess.BLACK):
            belief = ParticleFilter(particles, likelihood=NoisySensing(p_model), seed=seed)
            for event, truth in zip(game.events[color], game.truth[color], strict=True):
                if isinstance(event, GameEnded):
                    break
                if isinstance(event, SenseResult):
                    event = SenseResult(event.square, sensor.corrupt(event.window, rng))
                belief.update(event)
                if isinstance(event, SenseResult):
                    calibration.add(belief.marginals(), truth)
    return calibration
