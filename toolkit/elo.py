"""The Elo model, once: the logistic expected score, and the online K-factor update built on it.

Contract: with :math:`f(x) = 1 / (1 + 10^{-x/400})`, a player rated :math:`R_a` is expected to
score :math:`E_a = f(R_a - R_b)` against one rated :math:`R_b` (`expected_score`;
`log_expected_score` is :math:`\\log f` over arrays, without overflow). After a game with
score :math:`S_a \\in \\{0, \\tfrac12, 1\\}` each rating moves by :math:`K (S - E)`
(`updated_ratings`); the two changes cancel, so a pool's mean rating stays put.

Why one module below every layer: the server rates its ladder game by game with the update,
and the tournament fits all games at once by maximum likelihood
(:mod:`blindchess.tournament.ratings`); both must mean the same thing by a rating difference,
so both take the curve from here, and neither folder may import the other's.

>>> round(expected_score(1700, 1500), 3), round(expected_score(1500, 1700), 3)
(0.76, 0.24)
>>> updated_ratings(1500, 1500, 1.0)
(1516.0, 1484.0)
"""

from __future__ import annotations

import math

import numpy as np

INITIAL_ELO = 1500.0
K_FACTOR = 32.0

SCALE = math.log(10.0) / 400.0
"""Natural-log units per Elo point: :math:`f(x) = \\sigma(\\mathrm{SCALE} \\cdot x)`, with sigma the logistic function."""


def expected_score(rating: float, opponent_rating: float) -> float:
    """The score `rating` is expected to make against `opponent_rating` (0..1)."""
    return 1.0 / (1.0 + float(10.0 ** ((opponent_rating - rating) / 400.0)))


def log_expected_score(difference: np.ndarray) -> np.ndarray:
    """:math:`\\log f(d)` for each rating difference `d` in Elo points, stable for large differences of either sign."""
    return np.asarray(-np.logaddexp(0.0, -SCALE * np.asarray(difference, dtype=float)))


def updated_ratings(white: float, black: float, white_score: float, k: float = K_FACTOR) -> tuple[float, float]:
    """New (white, black) ratings after a game in which White scored `white_score` (1, 0.5 or 0)."""
    if white_score not in (0.0, 0.5, 1.0):
        raise ValueError(f"white_score must be 0, 0.5 or 1, not {white_score!r}")
    change = k * (white_score - expected_score(white, black))
    return white + change, black - change
