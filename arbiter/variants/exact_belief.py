"""An exact belief for small boards, enumerated through any `Rules` object, with the Bayes step kept for teaching.

The belief is a dictionary from hidden boards to probabilities. Each event is one
step of a POMDP filter. With a model pi(a | s) of the opponent (uniform over its
move actions and the pass), the opponent's turn is a prediction followed by a
correction::

    prior       b^-(s')   = sum_s b(s) sum_a pi(a | s) [T(s, a) = s']
    likelihood  P(o | s') = 1 if the capture square the arbiter reports equals the one s' implies, else 0
    posterior   b(s')     = P(o | s') b^-(s') / sum_x P(o | x) b^-(x)

A sense result is a correction only (the likelihood is 1 where the window matches);
our own move result is a correction (the arbiter's revised move and capture must
be what the board implies) followed by the now-known transition. Every
likelihood is 0 or 1, so the *support* is exactly the set of boards consistent
with the observations: the same set as the exhaustive `BoardSet`, with
probabilities under the uniform-opponent model on top.

It works over any `Rules[chess.Board]` (the 8x8 rules too), but enumerates every
opponent action on every board, so it is meant for the small boards
(:mod:`~blindchess.arbiter.variants.teaching`, Mini-Chess), where the support stays
in the hundreds or thousands. `last_step` keeps the prior, the likelihood and
the posterior of the latest event for :mod:`experiments.pomdp_walkthrough`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import chess
import numpy as np

from blindchess.beliefs.base import N_CHANNELS, InconsistentObservationError, NotInitialisedError, channel

from ..observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from ..types import Color
from ..variant import Rules

BoardKey = tuple[str, Color]
"""A hidden board as the belief tells boards apart: piece placement and side to move."""


def board_key(board: chess.Board) -> BoardKey:
    return board.board_fen(), board.turn


@dataclass(frozen=True)
class BayesStep:
    """One filter step: the distribution before the observation, its likelihood per board, the normalised posterior."""

    event: Observation
    prior: dict[BoardKey, float]
    likelihood: dict[BoardKey, float]
    posterior: dict[BoardKey, float]


class EnumeratedBelief:
    """The exact belief over hidden boards, enumerated with a rules object (uniform opponent model).

    Implements :class:`blindchess.beliefs.base.Belief` and `WeightedBoards`.
    """

    def __init__(self, rules: Rules[chess.Board]) -> None:
        self.rules = rules
        self.color: Optional[Color] = None
        self._boards: dict[BoardKey, chess.Board] = {}
        self._probs: dict[BoardKey, float] = {}
        self.last_step: Optional[BayesStep] = None

    # -- the filter ---------------------------------------------------------------

    def update(self, observation: Observation) -> None:
        if isinstance(observation, GameStarted):
            board = self.rules.starting_board(observation.starting_fen)
            self.color = observation.color
            self._boards = {board_key(board): board}
            self._probs = {board_key(board): 1.0}
            self.last_step = BayesStep(observation, dict(self._probs), {board_key(board): 1.0}, dict(self._probs))
            return
        if self.color is None:
            raise NotInitialisedError(f"{observation!r} arrived before GameStarted")
        if isinstance(observation, GameEnded):
            return
        if isinstance(observation, OpponentMoved):
            prior_boards, prior = self._predict_opponent_move()
            likelihood = {
                key: float(capture == observation.capture_square) for key, (board, capture) in prior_boards.items()
            }
            boards = {key: board for key, (board, _) in prior_boards.items()}
        elif isinstance(observation, SenseResult):
            prior, boards = dict(self._probs), self._boards
            likelihood = {
                key: float(observation.square is None or self.rules.sense(board, observation.square) == observation.window)
                for key, board in boards.items()
            }
        else:
            prior, boards = dict(self._probs), self._boards
            likelihood = {key: float(self._explains(board, observation)) for key, board in boards.items()}
        posterior = _normalised({key: prior[key] * likelihood[key] for key in prior}, observation)
        self.last_step = BayesStep(observation, prior, likelihood, posterior)
        self._boards = {key: boards[key] for key in posterior}
        self._probs = posterior
        if isinstance(observation, MoveResult):
            self._apply_own_move(observation.taken_move)

    def _predict_opponent_move(self) -> tuple[dict[BoardKey, tuple[chess.Board, Optional[int]]], dict[BoardKey, float]]:
        """Children of every board under every opponent action (uniform), with the capture square each implies."""
        children: dict[BoardKey, tuple[chess.Board, Optional[int]]] = {}
        prior: dict[BoardKey, float] = {}
        for key, board in self._boards.items():
            if self.rules.turn(board) == self.color:  # White's first turn: no opponent move happened
                children[key] = (board, None)
                prior[key] = prior.get(key, 0.0) + self._probs[key]
                continue
            actions: list[Optional[chess.Move]] = [None, *self.rules.move_actions(board)]
            share = self._probs[key] / len(actions)
            for action in actions:
                taken = None if action is None else self.rules.revise(board, self.rules.normalize(board, action))
                capture = self.rules.capture_square(board, taken)
                child = self.rules.copy(board)
                self.rules.push(child, taken)
                child_key = board_key(child)
                # Our own pieces are the same on every board, so the capture square (where one of them
                # vanished) is a function of the child placement: merging children loses nothing.
                previous = children.get(child_key)
                assert previous is None or previous[1] == capture, "one placement reached with two capture squares"
                children[child_key] = (child, capture)
                prior[child_key] = prior.get(child_key, 0.0) + share
        return children, prior

    def _explains(self, board: chess.Board, result: MoveResult) -> bool:
        if result.requested_move is None:
            return result.taken_move is None
        taken = self.rules.revise(board, self.rules.normalize(board, result.requested_move))
        return taken == result.taken_move and self.rules.capture_square(board, taken) == result.capture_square

    def _apply_own_move(self, taken: Optional[chess.Move]) -> None:
        boards: dict[BoardKey, chess.Board] = {}
        probs: dict[BoardKey, float] = {}
        for key, board in self._boards.items():
            child = self.rules.copy(board)
            self.rules.push(child, taken)
            child_key = board_key(child)
            boards[child_key] = child
            probs[child_key] = probs.get(child_key, 0.0) + self._probs[key]
        self._boards, self._probs = boards, probs

    # -- reading the belief -------------------------------------------------------

    @property
    def is_exact(self) -> bool:
        return True

    def probabilities(self) -> dict[BoardKey, float]:
        """The distribution itself (a copy)."""
        return dict(self._probs)

    def sample(self, n: int, rng: np.random.Generator) -> list[chess.Board]:
        keys = list(self._probs)
        picks = rng.choice(len(keys), size=n, p=self.weights())
        return [self._boards[keys[i]].copy(stack=False) for i in picks]

    def piece_grid(self) -> np.ndarray:
        grid = np.zeros((len(self._boards), 64), dtype=np.uint8)
        for row, board in enumerate(self._boards.values()):
            for square, piece in board.piece_map().items():
                grid[row, square] = channel(piece)
        return grid

    def weights(self) -> np.ndarray:
        weights = np.fromiter(self._probs.values(), dtype=np.float64, count=len(self._probs))
        return weights / weights.sum()

    def marginals(self) -> np.ndarray:
        grid, weights = self.piece_grid(), self.weights()
        marginals = np.zeros((64, N_CHANNELS))
        for c in range(N_CHANNELS):
            marginals[:, c] = weights @ (grid == c)
        return marginals

    def entropy(self) -> float:
        return -sum(p * math.log2(p) for p in self._probs.values() if p > 0)

    def copy(self) -> EnumeratedBelief:
        other = EnumeratedBelief(self.rules)
        other.color = self.color
        other._boards = {key: board.copy(stack=False) for key, board in self._boards.items()}
        other._probs = dict(self._probs)
        other.last_step = self.last_step
        return other

    def __contains__(self, board: object) -> bool:
        return isinstance(board, chess.Board) and board_key(board) in self._probs

    def __len__(self) -> int:
        return len(self._probs)


def _normalised(weights: dict[BoardKey, float], event: Observation) -> dict[BoardKey, float]:
    kept = {key: w for key, w in weights.items() if w > 0}
    total = sum(kept.values())
    if not kept:
        raise InconsistentObservationError(f"no board is consistent with {event!r}")
    return {key: w / total for key, w in kept.items()}
