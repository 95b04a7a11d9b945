"""An exact belief for the small boards, enumerated with the board's own move generator; keeps each Bayes step for teaching.

The belief is a dictionary from hidden boards (the 64 piece codes of
:mod:`~blindchess.variants.geometry`, as bytes) to probabilities. Each
event is one step of a POMDP filter. With a model pi(a | s) of the opponent
(uniform over its move actions and the pass), the opponent's turn is a
prediction followed by a correction::

    prior       b^-(s')   = sum_s b(s) sum_a pi(a | s) [T(s, a) = s']
    likelihood  P(o | s') = 1 if the capture square the arbiter reports equals the one s' implies, else 0
    posterior   b(s')     = P(o | s') b^-(s') / sum_x P(o | x) b^-(x)

A sense result is a correction only (the likelihood is 1 where the window matches);
our own move result is a correction (the arbiter's revised move and capture must
be what the board implies) followed by the now-known transition. Every
likelihood is 0 or 1, so the *support* is exactly the set of boards consistent
with the observations (what an exhaustive board set holds), with probabilities
under the uniform-opponent model on top.

It enumerates every opponent action on every board through the rules object's
unchecked helpers (`successors`, `revise_code`), so it is meant for the small
boards (:mod:`~blindchess.variants.teaching`, Mini-Chess). `last_step`
keeps the prior, the likelihood and the posterior of the latest event for
``experiments/pomdp_walkthrough.py``.

An update that raises changes nothing: the posterior is computed into a new dictionary
and the side to move advanced only once it is known to be non-empty.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Protocol

import chess
import numpy as np

from blindchess.arbiter import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.arbiter.types import Color, Square

from .base import N_CHANNELS, InconsistentObservationError, MalformedObservationError, NotInitialisedError, channel
from .validation import SensingRules, check_event, windows_of


class EnumerableRules(SensingRules, Protocol):
    """What the enumerated belief asks of a small board's rules: unchecked helpers over piece codes.

    :class:`~blindchess.variants.recon.ReconMiniChessRules` (Mini-Chess and the teaching boards)
    implements it. A board is its 64 piece codes (:func:`~blindchess.beliefs.base.channel`'s
    numbering) as bytes; a move is an int.
    """

    def starting_board(self, fen: Optional[str] = None) -> chess.Board: ...

    def cells_of(self, board: chess.Board) -> bytes: ...

    def board_of(self, cells: bytes, turn: Color, fullmove_number: int = 1) -> chess.Board: ...

    def successors(self, cells: bytes, turn: Color) -> list[tuple[bytes, Optional[Square]]]: ...

    def revise_code(self, cells: bytes, turn: Color, move: int) -> int: ...

    def encode_move(self, move: chess.Move) -> int: ...

    def make_code(self, cells: bytearray, move: int) -> None: ...


BoardKey = bytes
"""A hidden board: its 64 piece codes (the side to move is the same on every board of a belief)."""


@dataclass(frozen=True)
class BayesStep:
    """One filter step: the distribution before the observation, its likelihood per board, the normalised posterior."""

    event: Observation
    prior: dict[BoardKey, float]
    likelihood: dict[BoardKey, float]
    posterior: dict[BoardKey, float]


class EnumeratedBelief:
    """The exact belief over hidden small boards (uniform opponent model).

    Implements :class:`blindchess.beliefs.base.Belief` and `WeightedBoards`.
    """

    def __init__(self, rules: EnumerableRules) -> None:
        self.rules = rules
        self.color: Optional[Color] = None
        self.turn: Color = chess.WHITE
        """The side to move on every board of the belief."""
        self.fullmove_number = 1
        self._probs: dict[BoardKey, float] = {}
        self.last_step: Optional[BayesStep] = None
        self.ended = False
        """The last event was `GameEnded`: only a new game's `GameStarted` may follow."""
        self._windows = windows_of(rules)

    # -- the filter ---------------------------------------------------------------

    def update(self, observation: Observation) -> None:
        """Fold one event in (one Bayes step); if it raises, the belief is unchanged."""
        check_event(observation, ended=self.ended, windows=self._windows)
        if isinstance(observation, GameStarted):
            try:
                board = self.rules.starting_board(observation.starting_fen)
            except ValueError as error:
                raise MalformedObservationError(
                    f"GameStarted.starting_fen {observation.starting_fen!r} does not fit these rules: {error}"
                ) from error
            self.color, self.turn, self.fullmove_number = observation.color, board.turn, board.fullmove_number
            self.ended = False
            key = self.rules.cells_of(board)
            self._probs = {key: 1.0}
            self.last_step = BayesStep(observation, {key: 1.0}, {key: 1.0}, {key: 1.0})
            return
        if self.color is None:
            raise NotInitialisedError(f"{observation!r} arrived before GameStarted")
        if isinstance(observation, GameEnded):
            self.ended = True
            return
        opponent_moved = isinstance(observation, OpponentMoved) and self.turn != self.color
        if isinstance(observation, OpponentMoved):
            prior, likelihood = self._predict_opponent_move(observation)
        elif isinstance(observation, SenseResult):
            prior = self._probs
            likelihood = self._sense_likelihood(observation)
        else:
            prior = self._probs
            likelihood = self._move_likelihood(observation)
        posterior = _normalised({key: p * likelihood[key] for key, p in prior.items()}, observation)  # raises if empty
        self.last_step = BayesStep(observation, prior, likelihood, posterior)
        self._probs = posterior
        if isinstance(observation, MoveResult):
            self._apply_own_move(observation.taken_move)
        elif opponent_moved:
            self._advance()

    def _predict_opponent_move(self, event: OpponentMoved) -> tuple[dict[BoardKey, float], dict[BoardKey, float]]:
        """Children of every board under every opponent action (uniform), and whether each explains `event`."""
        if self.turn == self.color:  # White's first turn: no opponent move happened
            return dict(self._probs), {key: float(event.capture_square is None) for key in self._probs}
        prior: dict[BoardKey, float] = {}
        likelihood: dict[BoardKey, float] = {}
        wanted = event.capture_square
        for key, p in self._probs.items():
            children = self.rules.successors(key, self.turn)
            share = p / len(children)
            for child, capture in children:
                prior[child] = prior.get(child, 0.0) + share
                # Our pieces are the same on every board, so the capture square (where one of them vanished) is a
                # function of the child: a child never arrives with two different capture squares.
                likelihood[child] = float(capture == wanted)
        return prior, likelihood

    def _sense_likelihood(self, event: SenseResult) -> dict[BoardKey, float]:
        if event.square is None:
            return {key: 1.0 for key in self._probs}
        squares = [square for square, _ in event.window]
        seen = bytes(channel(piece) for _, piece in event.window)
        return {key: float(bytes(key[s] for s in squares) == seen) for key in self._probs}

    def _move_likelihood(self, event: MoveResult) -> dict[BoardKey, float]:
        if event.requested_move is None:
            return {key: float(event.taken_move is None) for key in self._probs}
        request = self.rules.encode_move(event.requested_move)
        taken = -1 if event.taken_move is None else self.rules.encode_move(event.taken_move)
        likelihood = {}
        for key in self._probs:
            made = self.rules.revise_code(key, self.turn, request)
            capture = (made >> 6 & 63) if made >= 0 and key[made >> 6 & 63] else None
            likelihood[key] = float(made == taken and capture == event.capture_square)
        return likelihood

    def _apply_own_move(self, taken: Optional[chess.Move]) -> None:
        if taken is not None:
            move = self.rules.encode_move(taken)
            probs: dict[BoardKey, float] = {}
            for key, p in self._probs.items():
                child = bytearray(key)
                self.rules.make_code(child, move)
                probs[bytes(child)] = probs.get(bytes(child), 0.0) + p
            self._probs = probs
        self._advance()

    def _advance(self) -> None:
        if self.turn == chess.BLACK:
            self.fullmove_number += 1
        self.turn = not self.turn

    # -- reading the belief -------------------------------------------------------

    def _require_started(self) -> None:
        if self.color is None:
            raise NotInitialisedError("the enumerated belief has not received GameStarted")

    @property
    def is_exact(self) -> bool:
        return True

    def probabilities(self) -> dict[BoardKey, float]:
        """The distribution itself (a copy)."""
        return dict(self._probs)

    def board(self, key: BoardKey) -> chess.Board:
        """The `chess.Board` of a key of this belief."""
        return self.rules.board_of(key, self.turn, self.fullmove_number)

    def sample(self, n: int, rng: np.random.Generator) -> list[chess.Board]:
        keys = list(self._probs)
        picks = rng.choice(len(keys), size=n, p=self.weights())
        return [self.board(keys[i]) for i in picks]

    def piece_grid(self) -> np.ndarray:
        self._require_started()
        if not self._probs:
            return np.zeros((0, 64), dtype=np.uint8)
        grid: np.ndarray = np.frombuffer(b"".join(self._probs), dtype=np.uint8).reshape(len(self._probs), 64).copy()
        return grid

    def weights(self) -> np.ndarray:
        self._require_started()
        weights = np.fromiter(self._probs.values(), dtype=np.float64, count=len(self._probs))
        normalised: np.ndarray = weights / weights.sum()
        return normalised

    def marginals(self) -> np.ndarray:
        grid, weights = self.piece_grid(), self.weights()
        marginals = np.zeros((64, N_CHANNELS))
        for c in range(N_CHANNELS):
            marginals[:, c] = weights @ (grid == c)
        return marginals

    def entropy(self) -> float:
        self._require_started()
        return max(0.0, -sum(p * math.log2(p) for p in self._probs.values() if p > 0))

    def copy(self) -> EnumeratedBelief:
        other = EnumeratedBelief(self.rules)
        other.color, other.turn, other.fullmove_number, other.ended = self.color, self.turn, self.fullmove_number, self.ended
        other._probs = dict(self._probs)
        other.last_step = self.last_step
        return other

    def __contains__(self, board: object) -> bool:
        return isinstance(board, chess.Board) and board.turn == self.turn and self.rules.cells_of(board) in self._probs

    def __len__(self) -> int:
        return len(self._probs)


def _normalised(weights: dict[BoardKey, float], event: Observation) -> dict[BoardKey, float]:
    kept = {key: w for key, w in weights.items() if w > 0}
    total = sum(kept.values())
    if not kept:
        raise InconsistentObservationError(f"no board is consistent with {event!r}")
    return {key: w / total for key, w in kept.items()}
