"""TroutBot's sensing heuristic, read against a belief instead of one guessed board."""

from __future__ import annotations

from typing import Optional

import numpy as np

from blindchess.arbiter.types import Square
from blindchess.beliefs.base import Belief

from .base import SenseContext
from .support import candidate_centres, fallback_sense
from .windows import WINDOWS


class TroutSensePlanner:
    """Sense where the opponent just captured; otherwise a random window away from our own pieces.

    reconchess's TroutBot also senses where its intended move would capture; with a belief
    that is the value-of-information planner's job, so this baseline keeps the two cheap rules.
    Windows that can tell nothing (dominated or constant over the belief) are never chosen.
    """

    name = "trout"

    def choose_sense(
        self,
        belief: Belief,
        sense_actions: list[Square],
        seconds_left: float,
        rng: np.random.Generator,
        context: SenseContext,
    ) -> Optional[Square]:
        captured = context.opponent_capture_square
        if captured is not None and captured in sense_actions:
            return captured
        centres = candidate_centres(belief, sense_actions)
        if not centres:
            return fallback_sense(sense_actions, rng)
        own_channels = range(1, 7) if context.color else range(7, 13)
        own = belief.marginals()[:, list(own_channels)].sum(axis=1) > 1.0 - 1e-9
        away = [c for c in centres if not any(own[s] for s in WINDOWS[c])]
        choices = away or centres
        return int(choices[rng.integers(len(choices))])
