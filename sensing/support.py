"""Helpers every planner shares: reading a belief as a grid, tie-breaking, the candidate centres."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional, Union

import chess
import numpy as np

from blindchess.arbiter.types import Square
from blindchess.beliefs.base import Belief, WeightedBoards
from blindchess.beliefs.samples import board_grid

from .windows import informative_centres, varying_squares_from_marginals

DEFAULT_MAX_BOARDS = 200_000
"""Planners that read the whole support subsample (by weight) beyond this many boards."""

FALLBACK_SAMPLE = 512
"""Boards drawn from a belief that cannot show its support (no `piece_grid`)."""


def belief_grid(
    belief: Union[Belief, WeightedBoards], rng: np.random.Generator, max_boards: int = DEFAULT_MAX_BOARDS
) -> tuple[np.ndarray, np.ndarray]:
    """The belief's support as (grid (N, 64) uint8, weights (N,) summing to one).

    A `WeightedBoards` belief gives its whole support; past `max_boards` rows, `max_boards`
    are drawn by weight (with replacement) and weighted uniformly, an unbiased estimate of
    the outcome distribution. Other beliefs are sampled (`FALLBACK_SAMPLE` boards).
    """
    if isinstance(belief, WeightedBoards):
        grid, weights = belief.piece_grid(), belief.weights()
        if len(weights) > max_boards:
            rows = rng.choice(len(weights), size=max_boards, p=weights)
            return grid[rows], np.full(max_boards, 1.0 / max_boards)
        return grid, weights
    boards = belief.sample(FALLBACK_SAMPLE, rng)
    return board_grid(boards), np.full(len(boards), 1.0 / max(1, len(boards)))


def candidate_centres(belief: Belief, sense_actions: Sequence[Square]) -> list[Square]:
    """Undominated sense actions whose window is not constant over the belief (from its marginals)."""
    return informative_centres(sense_actions, varying_squares_from_marginals(belief.marginals()))


def pick_best(
    centres: Sequence[Square], scores: np.ndarray, rng: np.random.Generator, tolerance: float = 1e-9
) -> Optional[Square]:
    """The centre with the highest score; ties (within `tolerance`) broken by `rng`."""
    if len(centres) == 0:
        return None
    scores = np.asarray(scores, dtype=float)
    best = np.flatnonzero(scores >= scores.max() - tolerance)
    return int(centres[int(best[rng.integers(len(best))])])


def fallback_sense(sense_actions: Sequence[Square], rng: np.random.Generator) -> Optional[Square]:
    """A sense when nothing is uncertain: any inner square (it tells nothing, but costs nothing either)."""
    if not sense_actions:
        return None
    inner = [s for s in sense_actions if 0 < chess.square_file(s) < 7 and 0 < chess.square_rank(s) < 7]
    choices = inner or list(sense_actions)
    return int(choices[rng.integers(len(choices))])
