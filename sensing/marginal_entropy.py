"""Summed per-square marginal entropy: an information proxy that needs only `Belief.marginals`.

    score(c) = sum over s in window(c) of H(p_s),   H(p_s) = -sum_k p_s[k] log2 p_s[k]

It ignores correlations between squares (a piece that is on d5 *or* e5 counts twice), so it
over-rates windows over correlated squares, but it works for any belief, including ones that
can only give marginals.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from blindchess.arbiter.types import Square
from blindchess.beliefs.base import Belief

from .base import SenseContext
from .support import fallback_sense, pick_best
from .windows import WINDOWS, undominated


def square_entropies(marginals: np.ndarray) -> np.ndarray:
    """Shape (64,): the entropy in bits of each square's marginal."""
    p = np.clip(np.asarray(marginals, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return np.asarray(terms.sum(axis=1), dtype=float)


class MarginalEntropySensePlanner:
    """Maximises the summed marginal entropy of the window's squares."""

    name = "marginal"

    def choose_sense(
        self,
        belief: Belief,
        sense_actions: list[Square],
        seconds_left: float,
        rng: np.random.Generator,
        context: SenseContext,
    ) -> Optional[Square]:
        entropy = square_entropies(belief.marginals())
        centres = undominated(sense_actions)
        scores = np.array([entropy[list(WINDOWS[c])].sum() for c in centres])
        if not centres or scores.max() <= 1e-12:
            return fallback_sense(sense_actions, rng)
        return pick_best(centres, scores, rng)
