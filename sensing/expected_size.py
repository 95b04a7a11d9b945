"""Expected remaining belief size: sense where the fewest boards are expected to survive.

    E|B'|(c) = sum_o P(o) * |{b : window_c(b) = o}|

Unlike information gain this counts boards, not probability mass: it favours senses that
cut the *number* of hypotheses (what bounds the time of the next belief update).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from blindchess.arbiter.types import Square
from blindchess.beliefs.base import Belief

from .base import SenseContext
from .support import DEFAULT_MAX_BOARDS, belief_grid, fallback_sense, pick_best
from .windows import WindowOutcomes, undominated


class ExpectedSizeSensePlanner:
    """Minimises the expected number of boards left after the sense.

    Args:
        max_boards: beyond this many boards the support is subsampled by weight.
    """

    name = "size"

    def __init__(self, max_boards: int = DEFAULT_MAX_BOARDS) -> None:
        self.max_boards = max_boards

    def choose_sense(
        self,
        belief: Belief,
        sense_actions: list[Square],
        seconds_left: float,
        rng: np.random.Generator,
        context: SenseContext,
    ) -> Optional[Square]:
        grid, weights = belief_grid(belief, rng, self.max_boards)
        centres = undominated(sense_actions)
        sizes = WindowOutcomes(grid, centres).expected_sizes(weights)
        if not centres or sizes.min() >= len(weights):
            return fallback_sense(sense_actions, rng)
        return pick_best(centres, -sizes, rng)
