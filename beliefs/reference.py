"""`ReferenceBoardSet`: the exhaustive belief on `chess.Board`, slow and obviously correct.

It states every update with the arbiter's own rule functions
(:mod:`blindchess.arbiter.rules`), board by board, so the fast `BoardSet` can be
checked against it event by event. Same update rules and opponent-move model as
:mod:`blindchess.beliefs.board_set`; no cap (always exact).

    opponent turn:  B' = { push(s, revise(s, r)) : s in B, r in actions(s) + [pass], capture agrees }
    sense:          B' = { s in B : window(s, square) = W }
    own move:       B' = { push(s, t) : s in B, revise(s, r) = t, capsq(s, t) = c }
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional

import chess
import numpy as np

from blindchess.arbiter.game.observations import GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.arbiter.rules import reference as rules

from .base import N_CHANNELS, InconsistentObservationError, NotInitialisedError, channel
from .board_layout import BoardKey, board_key
from .move_model import UNIFORM, MoveModelError, OpponentMoveModel
from .validation import check_event

OpponentPolicy = Callable[[chess.Board, list[Optional[chess.Move]]], np.ndarray]
"""``policy(board, outcomes) -> scores``: a non-negative score for each outcome of the opponent's turn
on `board` (``None`` is the pass), normalised per board like a move model's table; for experiments
with opponent models a (piece, capture) table cannot state, e.g. "the engine's move"."""


class ReferenceBoardSet:
    """The exhaustive belief as a dict from `board_key` to (board, weight).

    Args:
        move_model: weights children as `BoardSet` does (`UNIFORM` by default, as there);
            None: every board equally likely.
        policy: scores the outcomes of each board instead of `move_model`'s table (see
            `OpponentPolicy`); needs a `move_model` (weighted boards).
    """

    def __init__(self, move_model: Optional[OpponentMoveModel] = UNIFORM, policy: Optional[OpponentPolicy] = None) -> None:
        if policy is not None and move_model is None:
            raise MoveModelError("a policy weights boards: it needs a move_model, not None")
        self.move_model = move_model
        self.policy = policy
        self._scores = (move_model or UNIFORM).scores
        self._color: Optional[chess.Color] = None
        self._boards: dict[BoardKey, tuple[chess.Board, float]] = {}
        self._ended = False

    @classmethod
    def from_boards(
        cls, color: chess.Color, boards: list[chess.Board], move_model: Optional[OpponentMoveModel] = UNIFORM
    ) -> ReferenceBoardSet:
        """A reference set holding `boards` (equally likely) for the player of `color` (for tests and benchmarks)."""
        belief = cls(move_model)
        belief._color = color
        belief._boards = {}
        for board in boards:
            belief._add(belief._boards, board, 1.0)
        belief._boards = belief._normalised(belief._boards)
        return belief

    @property
    def is_exact(self) -> bool:
        return True

    def __len__(self) -> int:
        return len(self._boards)

    def update(self, observation: Observation) -> None:
        """Fold one event in; raises `InconsistentObservationError` when no board is left (and changes nothing)."""
        check_event(observation, ended=self._ended)
        if isinstance(observation, GameStarted):
            self._color, self._ended = observation.color, False
            board = observation.starting_board()
            self._boards = {board_key(board): (board, 1.0)}
            return
        if self._color is None:
            raise NotInitialisedError("the reference board set has not received GameStarted")
        if isinstance(observation, OpponentMoved):
            new = self._opponent_moved(observation.capture_square)
        elif isinstance(observation, SenseResult):
            new = {k: (b, w) for k, (b, w) in self._boards.items() if self._window_matches(b, observation)}
        elif isinstance(observation, MoveResult):
            new = self._own_move(observation)
        else:  # GameEnded
            self._ended = True
            return
        if not new:
            raise InconsistentObservationError(f"no board is consistent with the observations after {observation!r}")
        self._boards = self._normalised(new)

    def _normalised(self, boards: dict[BoardKey, tuple[chess.Board, float]]) -> dict[BoardKey, tuple[chess.Board, float]]:
        if self.move_model is None:
            return {k: (b, 1.0) for k, (b, _) in boards.items()}
        total = sum(w for _, w in boards.values())
        return {k: (b, w / total) for k, (b, w) in boards.items()}

    @staticmethod
    def _window_matches(board: chess.Board, event: SenseResult) -> bool:
        return all(board.piece_at(square) == piece for square, piece in event.window)

    def _add(self, into: dict[BoardKey, tuple[chess.Board, float]], board: chess.Board, weight: float) -> None:
        key = board_key(board)
        if key in into:
            into[key] = (into[key][0], into[key][1] + weight)
        else:
            into[key] = (board, weight)

    def _opponent_moved(self, capture: Optional[int]) -> dict[BoardKey, tuple[chess.Board, float]]:
        new: dict[BoardKey, tuple[chess.Board, float]] = {}
        for board, weight in self._boards.values():
            if board.turn == self._color:  # White's first turn: nothing happened yet
                if capture is None:
                    self._add(new, board, weight)
                continue
            outcomes = _outcomes(board)
            scores = self._outcome_scores(board, outcomes)
            total = scores.sum()
            for move, score in zip(outcomes, scores, strict=True):
                if rules.capture_square_of_move(board, move) == capture:
                    child = board.copy(stack=False)
                    rules.push(child, move)
                    self._add(new, child, weight * score / total)
        return new

    def _outcome_scores(self, board: chess.Board, outcomes: list[Optional[chess.Move]]) -> np.ndarray:
        if self.policy is not None:
            scores = np.asarray(self.policy(board, outcomes), dtype=np.float64)
            if scores.shape != (len(outcomes),) or not np.all(np.isfinite(scores)) or np.any(scores < 0) or scores.sum() <= 0:
                raise MoveModelError(f"the policy must give {len(outcomes)} finite non-negative scores, not all zero, got {scores!r}")
            return scores
        table = np.empty(len(outcomes))
        for i, move in enumerate(outcomes):
            if move is None:
                table[i] = self._scores[0, 0]
            else:
                piece = board.piece_type_at(move.from_square)
                assert piece is not None
                table[i] = self._scores[piece, int(rules.capture_square_of_move(board, move) is not None)]
        return table

    def _own_move(self, event: MoveResult) -> dict[BoardKey, tuple[chess.Board, float]]:
        new: dict[BoardKey, tuple[chess.Board, float]] = {}
        for board, weight in self._boards.values():
            if event.requested_move is None:
                revised = None
            else:
                revised = rules.revise_move(board, rules.with_default_promotion(board, event.requested_move))
            if revised != event.taken_move or rules.capture_square_of_move(board, revised) != event.capture_square:
                continue
            child = board.copy(stack=False)
            rules.push(child, revised)
            self._add(new, child, weight)
        return new

    # ------------------------------------------------------------------ queries

    def boards(self) -> list[chess.Board]:
        """The boards, in the order of `weights` and `piece_grid` (the set's own: copy one before changing it)."""
        return [board for board, _ in self._boards.values()]

    def keys(self) -> set[BoardKey]:
        return set(self._boards)

    def weights_by_key(self) -> dict[BoardKey, float]:
        """Normalised probability of every board, by `board_key`."""
        total = sum(w for _, w in self._boards.values())
        return {k: w / total for k, (_, w) in self._boards.items()}

    def weights(self) -> np.ndarray:
        if self._color is None:
            raise NotInitialisedError("the reference board set has not received GameStarted")
        w = np.array([w for _, w in self._boards.values()])
        normalised: np.ndarray = w / w.sum()
        return normalised

    def piece_grid(self) -> np.ndarray:
        return np.array(
            [[channel(b.piece_at(s)) for s in chess.SQUARES] for b, _ in self._boards.values()], dtype=np.uint8
        ).reshape(-1, 64)

    def marginals(self) -> np.ndarray:
        """Board by board: the probability-weighted sum of each board's 12 piece bitboards; empty is the rest."""
        probabilities = self.weights()
        masks = np.array([_piece_masks(board) for board, _ in self._boards.values()], dtype=np.uint64).reshape(-1, 12)
        bits = np.unpackbits(masks.view(np.uint8).reshape(-1, 12, 8), axis=2, bitorder="little")  # (N, 12, 64): bit s = square s
        result = np.zeros((64, N_CHANNELS))
        result[:, 1:] = np.tensordot(probabilities, bits, axes=(0, 0)).T
        result[:, 0] = 1.0 - result[:, 1:].sum(axis=1)
        return result

    def entropy(self) -> float:
        p = self.weights()
        return float(-(p * np.log2(p)).sum())

    def sample(self, n: int, rng: np.random.Generator) -> list[chess.Board]:
        if n < 0:
            raise ValueError(f"n must be non-negative, got {n!r}")
        boards = [b for b, _ in self._boards.values()]
        return [boards[int(i)].copy(stack=False) for i in rng.choice(len(boards), size=n, p=self.weights())]

    def __contains__(self, board: object) -> bool:
        return isinstance(board, chess.Board) and board_key(board) in self._boards

    def copy(self) -> ReferenceBoardSet:
        other = ReferenceBoardSet(self.move_model, self.policy)
        other._color, other._ended = self._color, self._ended
        other._boards = {k: (b.copy(stack=False), w) for k, (b, w) in self._boards.items()}
        return other


def _outcomes(board: chess.Board) -> list[Optional[chess.Move]]:
    """The distinct outcomes of the opponent's turn on `board`: the pass, then each move a request revises to."""
    outcomes: dict[Optional[chess.Move], None] = {None: None}
    for request in rules.move_actions(board):
        revised = rules.revise_move(board, rules.with_default_promotion(board, request))
        if revised is not None:
            outcomes[revised] = None
    return list(outcomes)


def _piece_masks(board: chess.Board) -> list[int]:
    """The 12 piece bitboards of `board` in marginal-channel order (white pawn .. king, black pawn .. king)."""
    types = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
    return [mask & board.occupied_co[color] for color in (chess.WHITE, chess.BLACK) for mask in types]
