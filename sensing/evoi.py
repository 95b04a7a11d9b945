"""Expected value of information: sense where the answer is most likely to change our move.

With boards ``b`` drawn from the belief (weights ``w``), move values ``V[b, m]`` and the
outcome ``o_c(b)`` of sensing at ``c``::

    EVOI(c) = sum_o max_m sum_{b : o_c(b) = o} w_b V[b, m]  -  max_m sum_b w_b V[b, m]

the expected gain in the value of the move we will choose, from knowing the outcome before
choosing. It is never negative, and it is zero where no outcome changes the best move, so
ties are common; the score adds `information_weight` pawns per bit of information gain
(computed on the whole belief, as `EntropySensePlanner` does), which prefers learning
something over learning nothing and balances the two aims.

The move values are a cheap proxy, not Stockfish (the planner runs over every centre and
many boards within the sense phase): `blindchess.evaluation.values.proxy_move_value`, what
the requested move really does on each board under RBC rules (slides stop at the first
blocker, illegal castles and pushes into pieces do nothing), the material it captures, a
large win for capturing the king, a large loss when the move leaves our king capturable,
and half the mover's value when it lands on an attacked, undefended square.

Converting a won game: when the mean material lead on the sample reaches `hunt_material`,
the score adds `king_weight` pawns per bit of information the window gives about the
opponent king's square (:mod:`blindchess.evaluation.king_hunt`), so that the boards on which the
selector's engine then plans agree where the king is.

Time: the defaults take about 0.1 s on a mid-game set of 20,000 boards (2 cores, see
``experiments/bench_move_time.py``). Given a budget above `SCALE_SECONDS` (through
`SenseContext.budget`), the planner draws proportionally more boards, up to `MAX_SCALE` times
the defaults: the sampling error of both the value of information and the threat estimate
falls as one over the square root of the sample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numba as nb
import numpy as np

from blindchess.arbiter.types import Color, Square
from blindchess.beliefs.base import Belief
from blindchess.beliefs.samples import BoardSample, draw
from blindchess.config_tree import Count, Settings
from blindchess.evaluation.king_hunt import HUNT_MATERIAL, NO_KING, material_lead
from blindchess.evaluation.values import level_boosts

from .base import SenseContext, SensePlanError
from .support import DEFAULT_MAX_BOARDS, belief_grid, fallback_sense, pick_best
from .windows import WindowOutcomes, undominated

SCALE_SECONDS = 0.5
"""A sense budget up to this many seconds uses the default sample sizes."""
MAX_SCALE = 8.0
"""The most the sample sizes grow with a large budget."""


def outcome_information(labels: np.ndarray, n_labels: int, weights: np.ndarray, targets: np.ndarray, n_targets: int) -> float:
    """Mutual information (bits) between a window's outcome and a per-board label: H(T) - H(T | O).

    Used for the threat level (`threat_levels`, 3 labels) and the opponent king's square
    (`king_squares`, 65 labels).

    >>> labels = np.array([0, 0, 1, 1])  # the window tells boards 0, 1 from 2, 3
    >>> round(outcome_information(labels, 2, np.full(4, 0.25), np.array([0, 0, 1, 1]), 2), 6)
    1.0
    >>> round(outcome_information(labels, 2, np.full(4, 0.25), np.array([0, 1, 0, 1]), 2), 6)
    0.0
    """
    joint = np.bincount(labels * n_targets + targets, weights=weights, minlength=n_targets * n_labels).reshape(n_labels, n_targets)
    return _entropy_bits(joint.sum(axis=0)) - (_entropy_bits(joint.ravel()) - _entropy_bits(joint.sum(axis=1)))


def _entropy_bits(mass: np.ndarray) -> float:
    p = mass[mass > 0] / max(mass.sum(), 1e-300)
    return float(-(p * np.log2(p)).sum())


def value_of_information(labels: np.ndarray, n_labels: int, weights: np.ndarray, values: np.ndarray) -> float:
    """sum_o max_m sum_{b in o} w_b V[b, m] - max_m sum_b w_b V[b, m] (see the module docstring)."""
    weighted = weights[:, None] * values
    per_outcome = _outcome_sums(labels, n_labels, weighted)
    return float(per_outcome.max(axis=1).sum() - weighted.sum(axis=0).max())


@nb.njit(cache=True)
def _outcome_sums(labels: np.ndarray, n_labels: int, weighted: np.ndarray) -> np.ndarray:
    """Shape (n_labels, moves): the rows of `weighted` summed by label, in row order.

    ``np.add.at(out, labels, weighted)`` to the last bit (the same additions in the same order),
    ten times faster: ``np.add.at`` took a quarter of the planner's time.
    """
    out = np.zeros((n_labels, weighted.shape[1]))
    for i in range(weighted.shape[0]):
        row = labels[i]
        for j in range(weighted.shape[1]):
            out[row, j] += weighted[i, j]
    return out


@dataclass(frozen=True, slots=True)
class EvoiSettings(Settings):
    """The value-of-information planner's settings, stated once: the planner takes them and the
    flagship's ``planner`` table is them (`blindchess.bots.flagship_config.PlannerConfig`)."""

    boards: Count = 48
    """Boards drawn from the belief to score (the proxy is per board and move)."""
    information_weight: float = 0.5
    """Pawns of value per bit of information gain added to a sense's score."""
    max_boards: int = DEFAULT_MAX_BOARDS
    """The information gain reads at most this many boards (subsampled by weight)."""
    threat_boost: float = 12.0
    """Boards where our king is attacked right now weigh this many times more, and a third of that extra where a
    square next to it is (`blindchess.evaluation.values.level_boosts`). High because knight rushes, which a
    uniform move model deems unlikely, beat smaller boosts (docs/sensing.md)."""
    threat_weight: float = 4.0
    """Pawns of value per bit of information about the threat level (`threat_levels`) next to our king: the
    proxy only looks one move ahead, so a mate being prepared there shows here, not in the VOI."""
    threat_sample: int = 600
    """Boards drawn to find the rare threatened ones (`ValueOfInformationSensePlanner._stratified_sample`)."""
    hunt_material: float = HUNT_MATERIAL
    """From this material lead (pawns) on, look for the opponent's king; ``inf`` never."""
    king_weight: float = 2.0
    """Pawns of value per bit of information about the king's square while hunting (four times
    `information_weight`: the king's square is worth more than any other square's)."""

    bound_error = SensePlanError


class ValueOfInformationSensePlanner:
    """Maximises the expected improvement of the chosen move's (proxy) value.

    Args:
        settings: the planner's settings (`EvoiSettings`' defaults when None).
        compiled: read the board set's compact rows with compiled kernels; False always builds
            `chess.Board` objects and asks python-chess (the reference path: same answers, slower).
    """

    name = "evoi"

    def __init__(self, settings: Optional[EvoiSettings] = None, *, compiled: bool = True) -> None:
        self.settings = EvoiSettings() if settings is None else settings
        self.compiled = compiled

    def choose_sense(
        self,
        belief: Belief,
        sense_actions: list[Square],
        seconds_left: float,
        rng: np.random.Generator,
        context: SenseContext,
    ) -> Optional[Square]:
        scale = 1.0 if context.budget is None else min(MAX_SCALE, max(1.0, context.budget / SCALE_SECONDS))
        sample, weights, levels = self._stratified_sample(belief, context.color, rng, scale)
        centres = undominated(sense_actions)
        if not len(sample) or not centres:
            return fallback_sense(sense_actions, rng)
        outcomes = WindowOutcomes(sample.grid(), centres)
        grid, grid_weights = belief_grid(belief, rng, self.settings.max_boards)
        gains = WindowOutcomes(grid, centres).entropies(grid_weights)
        values = sample.move_values([None, *context.move_actions])
        hunt_material = self.settings.hunt_material
        hunting = math.isfinite(hunt_material) and material_lead(sample.material_balance(), weights) >= hunt_material
        kings = sample.opponent_king_squares() if hunting else np.zeros(0, dtype=np.int64)
        scores = np.array([
            0.0 if item is None
            else value_of_information(item[0], item[1], weights, values)
            + self.settings.threat_weight * outcome_information(item[0], item[1], weights, levels, 3)
            + (self.settings.king_weight * outcome_information(item[0], item[1], weights, kings, NO_KING + 1) if hunting else 0.0)
            for item in outcomes.labels
        ]) + self.settings.information_weight * gains
        if scores.max() <= 0:
            return fallback_sense(sense_actions, rng)
        return pick_best(centres, scores, rng)

    def _stratified_sample(
        self, belief: Belief, color: Color, rng: np.random.Generator, scale: float = 1.0
    ) -> tuple[BoardSample, np.ndarray, np.ndarray]:
        """Boards to score, their weights and threat levels, with the threats over-represented.

        A plain draw of `boards` boards misses a threat held by 1 board in 200 (a knight that
        reached a square next to our king by a path a uniform move model finds unlikely), and
        the game is lost exactly there. So `threat_sample` boards are drawn, split by threat
        level (`threat_levels`), and each level is represented by up to `boards` (quiet) or
        `boards // 3` (threat) of its boards, carrying that level's mass in the big draw times
        its boost: an estimate of the same distribution, stratified so that rare threats are seen.
        Both sizes are multiplied by `scale` (a larger time budget). The boards stay the
        belief's compact rows where it has them (`blindchess.beliefs.samples.draw`).
        """
        per_level, threat_sample = int(self.settings.boards * scale), int(self.settings.threat_sample * scale)
        drawn = draw(belief, max(threat_sample, per_level), rng, color, self.compiled)
        if not len(drawn):
            return drawn, np.zeros(0), np.zeros(0, dtype=np.int64)
        drawn_levels = drawn.threat_levels()
        boosts = level_boosts(self.settings.threat_boost)
        chosen: list[np.ndarray] = []
        weights: list[float] = []
        levels: list[int] = []
        for level in range(3):
            members = np.flatnonzero(drawn_levels == level)
            if not members.size:
                continue
            picked = members[: per_level if level == 0 else max(1, per_level // 3)]
            mass = members.size / len(drawn) * boosts[level]
            chosen.append(picked)
            weights += [mass / picked.size] * picked.size
            levels += [level] * picked.size
        weight_array = np.array(weights)
        return drawn.take(np.concatenate(chosen)), weight_array / weight_array.sum(), np.array(levels, dtype=np.int64)
