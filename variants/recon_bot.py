"""A belief bot for recon Mini-Chess (and the teaching boards): exact belief, information-greedy sensing, alpha-beta moves.

It is a `Player` like every RBC bot, so the arbiter's game flow runs it unchanged; only
its parts know the small board:

- **belief**: the exact enumerated belief
  (:class:`~blindchess.beliefs.enumerated_belief.EnumeratedBelief`), fed the
  observation events of the arbiter's callback adapter
  (:class:`~blindchess.arbiter.game.observing_player.ObservingPlayer`);
- **sense**: the window whose contents are most uncertain, i.e. the square ``s``
  maximising the entropy ``H(W_s)`` of what the window will show under the belief
  (for a deterministic sensor this is the expected information gain);
- **move**: take the king when the belief says that is likely, else the move the
  Mini-Chess alpha-beta engine (:class:`~blindchess.variants.minichess_engine.AlphaBetaPlayer`)
  plays on the most probable boards, by probability-weighted vote.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, Optional

import chess
import numpy as np

from blindchess.arbiter import ObservingPlayer
from blindchess.arbiter.game.observations import GameStarted, Observation, OpponentMoved
from blindchess.arbiter.types import Square
from blindchess.beliefs.enumerated_belief import EnumeratedBelief
from blindchess.variants.catalog import VARIANTS
from blindchess.variants.geometry import BLACK_OFFSET, KING
from blindchess.variants.minichess import Position, encode
from blindchess.variants.minichess_engine import AlphaBetaPlayer
from blindchess.variants.recon import RECON_MINICHESS, ReconMiniChessRules

KING_CAPTURE_CONFIDENCE = 0.5
"""Take a king-capturing action when the belief puts at least this much mass on it working."""


@lru_cache(maxsize=16)
def _packing(windows: tuple[tuple[Square, ...], ...]) -> np.ndarray:
    """(64, W) weights packing each window's codes into one integer, 4 bits a square (codes are < 16)."""
    packing = np.zeros((64, len(windows)), dtype=np.int64)
    for column, window in enumerate(windows):
        for position, square in enumerate(window):
            packing[square, column] = 16**position
    return packing


def window_entropies(grid: np.ndarray, weights: np.ndarray, windows: tuple[tuple[Square, ...], ...]) -> np.ndarray:
    """Entropy (bits) of what each window would show, under boards `grid` (N x 64 codes) with `weights`.

    One matrix product packs every window's contents into an integer; tagging it with the
    window's index makes outcomes of different windows distinct, so one `np.unique` groups
    the boards by outcome for all windows at once.
    """
    outcomes = grid.astype(np.int64) @ _packing(windows)  # (N, W), each < 16**9
    tagged = outcomes * 64 + np.arange(len(windows))
    keys, groups = np.unique(tagged.ravel(), return_inverse=True)
    mass = np.bincount(groups.ravel(), weights=np.repeat(weights, len(windows)))
    information = np.where(mass > 0, -mass * np.log2(np.where(mass > 0, mass, 1.0)), 0.0)
    return np.bincount(keys % 64, weights=information, minlength=len(windows))


class ReconMiniChessBot(ObservingPlayer):
    """Exact belief + entropy sensing + alpha-beta on the likeliest boards.

    Args:
        rules: the small-board recon rules (5x6 Mini-Chess by default).
        rng: breaks ties between equally informative sense squares.
        depth: the engine's search depth per board.
        boards: how many of the most probable boards vote on the move.
        belief_factory: builds the belief from the rules (the exact enumerated belief by default).
        explore: probability of a uniformly random sense and a uniformly random move action instead
            (0 by default; seeded games use it to visit many different positions).
        sense_planner: a :class:`blindchess.sensing.base.SensePlanner` to sense with instead of the
            built-in window-entropy rule (the planners read the belief through the same protocol).
    """

    variants = frozenset(name for name, rules in VARIANTS.items() if isinstance(rules, ReconMiniChessRules))
    """Every small board of the catalog (Mini-Chess and the teaching boards), not 8x8 RBC."""

    def __init__(
        self,
        rules: ReconMiniChessRules = RECON_MINICHESS,
        rng: Optional[np.random.Generator] = None,
        depth: int = 2,
        boards: int = 4,
        belief_factory: Callable[[ReconMiniChessRules], EnumeratedBelief] = EnumeratedBelief,
        explore: float = 0.0,
        sense_planner: Optional[Any] = None,
    ) -> None:
        self.explore = explore
        self.sense_planner = sense_planner
        self._opponent_capture: Optional[Square] = None
        self.rules = rules
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.engine = AlphaBetaPlayer(max_depth=depth)
        self.boards = boards
        self.belief_factory = belief_factory
        self.belief = belief_factory(rules)

    def observe(self, event: Observation) -> None:
        if isinstance(event, GameStarted):
            self.belief = self.belief_factory(self.rules)
            self.engine.reset()
        elif isinstance(event, OpponentMoved):
            self._opponent_capture = event.capture_square
        self.belief.update(event)

    def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
        if self.rng.random() < self.explore:
            return sense_actions[int(self.rng.integers(len(sense_actions)))]
        if self.sense_planner is not None:
            from blindchess.sensing.base import SenseContext

            context = SenseContext(self.color, self._opponent_capture, tuple(move_actions))
            square: Optional[Square] = self.sense_planner.choose_sense(self.belief, list(sense_actions), seconds_left, self.rng, context)
            return square
        if len(self.belief) == 1:  # nothing to learn: any window will do
            return sense_actions[int(self.rng.integers(len(sense_actions)))]
        windows = tuple(self.rules.geometry.window(square) for square in sense_actions)
        scores = window_entropies(self.belief.piece_grid(), self.belief.weights(), windows)
        best = np.flatnonzero(scores >= scores.max() - 1e-12)
        return sense_actions[int(self.rng.choice(best))]

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        if not move_actions:
            return None
        if self.rng.random() < self.explore:
            return move_actions[int(self.rng.integers(len(move_actions)))]
        probabilities = self.belief.probabilities()
        keys = sorted(probabilities, key=probabilities.__getitem__, reverse=True)
        actions = {encode(move): move for move in move_actions}
        enemy_king = KING + (BLACK_OFFSET if self.color == chess.WHITE else 0)
        kill = dict.fromkeys(actions, 0.0)
        for key in keys:
            for action in actions:
                made = self.rules.revise_code(key, self.color, action)
                if made >= 0 and key[made >> 6 & 63] == enemy_king:
                    kill[action] += probabilities[key]
        best_kill = max(kill, key=kill.__getitem__)
        if kill[best_kill] >= KING_CAPTURE_CONFIDENCE:
            return actions[best_kill]
        votes = dict.fromkeys(actions, 0.0)
        ply = 2 * (self.belief.fullmove_number - 1) + (0 if self.color == chess.WHITE else 1)
        for key in keys[: self.boards]:
            position = Position(list(key), self.color, ply)
            if self.rules.game.outcome(position) is not None:
                continue
            choice = encode(self.engine.choose_move(self.rules.game, position))
            if choice in votes:
                votes[choice] += probabilities[key]
        best = max(votes, key=votes.__getitem__)
        if votes[best] > 0:
            return actions[best]
        return move_actions[int(self.rng.integers(len(move_actions)))]
