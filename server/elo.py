"""Elo ratings for ranked games.

After a game between ratings :math:`R_a` and :math:`R_b` with score
:math:`S_a \\in \\{0, \\tfrac12, 1\\}` for player a, the expected score is
:math:`E_a = 1 / (1 + 10^{(R_b - R_a)/400})` and each rating moves by
:math:`K (S - E)`; the two changes cancel, so the pool's mean rating stays put.
"""

from __future__ import annotations

INITIAL_ELO = 1500.0
K_FACTOR = 32.0


def expected_score(rating: float, opponent_rating: float) -> float:
    """The score `rating` is expected to make against `opponent_rating` (0..1)."""
    return 1.0 / (1.0 + float(10.0 ** ((opponent_rating - rating) / 400.0)))


def updated_ratings(white: float, black: float, white_score: float, k: float = K_FACTOR) -> tuple[float, float]:
    """New (white, black) ratings after a game in which White scored `white_score` (1, 0.5 or 0)."""
    if white_score not in (0.0, 0.5, 1.0):
        raise ValueError(f"white_score must be 0, 0.5 or 1, not {white_score!r}")
    change = k * (white_score - expected_score(white, black))
    return white + change, black - change
