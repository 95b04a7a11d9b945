"""The random baseline: a uniformly random informative square."""

from __future__ import annotations

from typing import Optional

import numpy as np

from blindchess.arbiter.types import Square
from blindchess.beliefs.base import Belief

from .base import SenseContext
from .support import candidate_centres, fallback_sense


class RandomSensePlanner:
    """Senses a uniformly random square among the undominated, non-constant windows.

    Skipping windows that can tell nothing keeps the baseline honest: it measures what
    *choosing* among useful windows is worth, not what wasting a sense costs.
    """

    name = "random"

    def choose_sense(
        self,
        belief: Belief,
        sense_actions: list[Square],
        seconds_left: float,
        rng: np.random.Generator,
        context: SenseContext,
    ) -> Optional[Square]:
        centres = candidate_centres(belief, sense_actions)
        if not centres:
            return fallback_sense(sense_actions, rng)
        return int(centres[rng.integers(len(centres))])
