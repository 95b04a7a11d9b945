"""Expected information gain: sense where the outcome is most uncertain.

Sensing is deterministic given the board, so the information a sense at ``c`` is expected
to give about the board equals the entropy of its outcome::

    EIG(c) = H(B) - E_o[H(B | o)] = H(O_c) = -sum_o P(o) log2 P(o),
    P(o)   = sum over boards b with window_c(b) = o of w(b)

computed for every candidate centre at once from the belief's channel grid (see
:mod:`blindchess.sensing.windows`).
"""

from __future__ import annotations

from typing import Optional, Union

import numpy as np

from blindchess.arbiter.types import Square
from blindchess.beliefs.base import Belief, WeightedBoards

from .base import SenseContext
from .support import DEFAULT_MAX_BOARDS, belief_grid, fallback_sense, pick_best
from .windows import WindowOutcomes, undominated


class EntropySensePlanner:
    """Maximises the entropy of the window outcome under the belief's weights.

    Args:
        max_boards: beyond this many boards the support is subsampled by weight.
    """

    name = "eig"

    def __init__(self, max_boards: int = DEFAULT_MAX_BOARDS) -> None:
        self.max_boards = max_boards

    def scores(
        self, belief: Union[Belief, WeightedBoards], sense_actions: list[Square], rng: np.random.Generator,
        prune: bool = False,
    ) -> tuple[list[Square], np.ndarray]:
        """The undominated centres and their expected information gain in bits (`-inf` where pruned, see `WindowOutcomes.entropies`)."""
        grid, weights = belief_grid(belief, rng, self.max_boards)
        centres = undominated(sense_actions)
        return centres, WindowOutcomes(grid, centres).entropies(weights, prune=prune)

    def choose_sense(
        self,
        belief: Union[Belief, WeightedBoards],  # a belief, or just a weighted support (see `belief_grid`)
        sense_actions: list[Square],
        seconds_left: float,
        rng: np.random.Generator,
        context: SenseContext,
    ) -> Optional[Square]:
        centres, gains = self.scores(belief, sense_actions, rng, prune=True)
        if not centres or gains.max() <= 0:
            return fallback_sense(sense_actions, rng)
        return pick_best(centres, gains, rng)
