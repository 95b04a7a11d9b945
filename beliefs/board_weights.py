"""Weighting the boards of a belief by a prior ``w(s)``: the one seam for learned and engine priors.

Every set-based belief (`BoardSet`, `ParticleFilter`, `HybridBelief`) holds the boards
consistent with the observations, weighted uniformly or by an opponent-move model
(``b(s)``). Real opponents prefer some of those boards; a `BoardWeighting` says how much::

    b_w(s) = (1 - mix) * b(s) w(s) / sum_s' b(s') w(s')  +  mix * b(s)

`Weighted` wraps any such belief with a weighting and is itself a belief (and a
`WeightedBoards`), so planners, selectors and bots take it unchanged. The weighting is
applied when the belief is read, never folded into the wrapped belief's update: a
weighting that already conditions on every observation (the learned prior) would
otherwise count the evidence twice.

Two floors keep the truth possible against any opponent: each weighting keeps ``w(s) > 0``
on every board (its own floor), and ``mix`` bounds the loss against the unweighted belief:
``-log2 b_w(truth) <= -log2 b(truth) + log2(1 / mix)`` whatever the weighting says.

Weightings here:

- `LearnedPrior`: ``w(s) = prod_sq max(p(sq, s[sq]), floor) ** temperature`` with ``p`` the
  posterior network's marginals (:mod:`blindchess.beliefs.neural_model`), which follows the
  observation stream itself.
- `StockfishSigmoid`: StrangeFish2's weighting, ``w(s) = floor + (1 - floor) * sigmoid(v(s) / scale)``
  with ``v(s)`` Stockfish's score of ``s`` for the opponent (who chose the moves that led
  there), ``floor = 0.02``.
"""

from __future__ import annotations

import logging
from typing import Optional, Protocol, runtime_checkable

import chess
import chess.engine
import numpy as np

from blindchess.arbiter.game.observations import GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.evaluation.stockfish import Engine

from .base import N_CHANNELS, Belief, BeliefError, NotInitialisedError, WeightedBoards
from .board_set import BoardSet
from .drawn_boards import Rows

logger = logging.getLogger(__name__)


@runtime_checkable
class BoardWeighting(Protocol):
    """A prior over boards that may follow the observation stream (see the module docstring)."""

    def update(self, observation: Observation) -> None:
        """Follow one observation event (a weighting that ignores the stream does nothing)."""
        ...

    def log_weights(self, grid: np.ndarray) -> np.ndarray:
        """``log w(s)`` (shape ``(N,)``, finite) of the boards of `grid` (``(N, 64)`` marginal channels)."""
        ...

    def copy(self) -> BoardWeighting:
        """An independent copy."""
        ...


@runtime_checkable
class IndexedBoards(WeightedBoards, Protocol):
    """A `WeightedBoards` belief that can hand out board ``i`` of its grid (to sample by new weights)."""

    def board(self, index: int) -> chess.Board: ...


class WeightingError(BeliefError, ValueError):
    """A weighting's settings or output are unusable (the message quotes them)."""


class Weighted:
    """A set-based belief read through a `BoardWeighting` (see the module docstring).

    Args:
        inner: the belief holding the consistent boards (`BoardSet`, `ParticleFilter`, `HybridBelief`).
        weighting: the prior ``w(s)``.
        mix: the share of the unweighted belief kept (0 <= mix < 1; see the floor above).
    """

    def __init__(self, inner: IndexedBoards, weighting: BoardWeighting, mix: float = 0.05) -> None:
        if not 0.0 <= mix < 1.0:
            raise WeightingError(f"mix must be in [0, 1), got {mix!r}")
        self.inner = inner
        self.weighting = weighting
        self.mix = mix
        self._cached: Optional[tuple[np.ndarray, np.ndarray]] = None

    @property
    def is_exact(self) -> bool:
        return bool(self.inner.is_exact)  # type: ignore[attr-defined]

    def update(self, observation: Observation) -> None:
        """Update the wrapped belief, then the weighting (a rejected event leaves both unchanged)."""
        self.inner.update(observation)  # type: ignore[attr-defined]
        self.weighting.update(observation)
        self._cached = None

    def piece_grid(self) -> np.ndarray:
        return self._grid_and_weights()[0]

    def weights(self) -> np.ndarray:
        return self._grid_and_weights()[1]

    def _grid_and_weights(self) -> tuple[np.ndarray, np.ndarray]:
        if self._cached is None:
            grid = self.inner.piece_grid()
            self._cached = (grid, self.reweigh(grid, self.inner.weights()))
        return self._cached

    def reweigh(self, grid: np.ndarray, base: np.ndarray) -> np.ndarray:
        """``b_w`` of the boards of `grid` whose unweighted probabilities are `base` (renormalised over them).

        Raises:
            WeightingError: the weighting's log weights are not finite, one per board.
        """
        log_w = np.asarray(self.weighting.log_weights(grid), dtype=np.float64)
        if log_w.shape != base.shape or not np.all(np.isfinite(log_w)):
            raise WeightingError(
                f"{type(self.weighting).__name__} gave log weights of shape {log_w.shape} "
                f"(finite: {np.isfinite(log_w).all()}) for {base.shape[0]} boards"
            )
        weighted = base * np.exp(log_w - log_w.max())
        mixed: np.ndarray = (1.0 - self.mix) * weighted / weighted.sum() + self.mix * base / base.sum()
        return mixed

    def marginals(self) -> np.ndarray:
        """Shape (64, 13): the weighted boards' marginals (exact over the wrapped belief's boards)."""
        return grid_marginals(*self._grid_and_weights())

    def entropy(self) -> float:
        """Shannon entropy of the weighted boards, in bits."""
        p = self.weights()
        p = p[p > 0]
        return float(-(p * np.log2(p)).sum()) + 0.0

    def sample(self, n: int, rng: np.random.Generator) -> list[chess.Board]:
        """`n` boards of the wrapped belief drawn with replacement by the weighted probabilities."""
        return [self.inner.board(int(i)) for i in self._draw(n, rng)]

    def sample_rows(self, n: int, rng: np.random.Generator) -> Optional[Rows]:
        """Over a `BoardSet`, the draws of `sample` as its `Rows`; None over any other belief (nothing drawn)."""
        return self.inner.rows(self._draw(n, rng)) if isinstance(self.inner, BoardSet) else None

    def _draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """`n` board indices drawn with replacement by the weighted probabilities."""
        if n < 0:
            raise ValueError(f"n must be non-negative, got {n!r}")
        weights = self.weights()
        return rng.choice(len(weights), size=n, p=weights)

    def __contains__(self, board: object) -> bool:
        """Membership is the wrapped belief's: every weighting keeps ``w(s) > 0``."""
        return board in self.inner  # type: ignore[operator]

    def __len__(self) -> int:
        return len(self.inner)  # type: ignore[arg-type]

    def copy(self) -> Weighted:
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.inner = self.inner.copy()  # type: ignore[attr-defined]
        other.weighting = self.weighting.copy()
        return other


class _StreamFollower:
    """The colour and side to move, followed from the observation stream (shared by the weightings)."""

    def __init__(self) -> None:
        self.color: Optional[chess.Color] = None
        self.turn: chess.Color = chess.WHITE

    def follow(self, observation: Observation) -> None:
        if isinstance(observation, GameStarted):
            self.color, self.turn = observation.color, chess.WHITE
        elif self.color is None:
            raise NotInitialisedError(f"{observation!r} before GameStarted")
        elif isinstance(observation, (OpponentMoved, SenseResult)):
            self.turn = self.color
        elif isinstance(observation, MoveResult):
            self.turn = not self.color

    def copy_into(self, other: _StreamFollower) -> None:
        other.color, other.turn = self.color, self.turn


def grid_marginals(grid: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Shape (64, 13): the marginals of boards `grid` (N, 64) with probabilities `weights` (N,)."""
    cells = (np.arange(64) * N_CHANNELS + grid).ravel()
    counts = np.bincount(cells, weights=np.repeat(weights, 64), minlength=64 * N_CHANNELS)
    return counts.reshape(64, N_CHANNELS)


def grid_board(row: np.ndarray, turn: chess.Color) -> chess.Board:
    """A `chess.Board` of one `piece_grid` row (no castling rights, no en passant), `turn` to move.

    >>> board = grid_board(np.array([6] + [0] * 62 + [12], dtype=np.uint8), chess.WHITE)
    >>> board.king(chess.WHITE), board.king(chess.BLACK)
    (0, 63)
    """
    board = chess.Board.empty()
    for square in np.flatnonzero(row):
        value = int(row[square])
        board.set_piece_at(int(square), chess.Piece((value - 1) % 6 + 1, value <= 6))
    board.turn = turn
    return board


def sigmoid_weights(scores: np.ndarray, scale: float, floor: float) -> np.ndarray:
    """`StockfishSigmoid`'s weights of boards scored `scores` (centipawns for the opponent): ``floor + (1 - floor) sigmoid(v / scale)``.

    >>> sigmoid_weights(np.array([0.0, 2000.0, -2000.0]), 200.0, 0.02).round(3).tolist()
    [0.51, 1.0, 0.02]
    """
    weights: np.ndarray = floor + (1.0 - floor) / (1.0 + np.exp(-np.asarray(scores, dtype=np.float64) / scale))
    return weights


DEPTH_ONE = chess.engine.Limit(depth=1)
"""The Stockfish weighting's default search: one ply (it scores every board of a set)."""


class StockfishSigmoid(_StreamFollower):
    """StrangeFish2's board weighting: ``w(s) = floor + (1 - floor) sigmoid(v(s) / scale)``.

    ``v(s)`` is Stockfish's score in centipawns for the opponent on board ``s`` (the side
    that chose the moves leading there), mates as +-`mate_cp`. A board Stockfish cannot
    search (:func:`blindchess.evaluation.stockfish.is_searchable`) scores 0 (w = (1 + floor) / 2).

    Args:
        engine: the Stockfish to ask (the caller closes it); default: one of its own.
        limit: search limit per board (default depth 1: the weighting runs over whole sets).
        scale: centipawns per unit of the sigmoid's argument.
        floor: the least weight of any board.
        max_boards: the largest set weighed; a larger one is read unweighted (every ``w(s)``
            equal), since one search per board would cost seconds a read (1.4-5.6 ms a board
            at depth 1 on a loaded 2-core machine). None weighs every set.
    """

    def __init__(
        self,
        engine: Optional[Engine] = None,
        limit: chess.engine.Limit = DEPTH_ONE,
        scale: float = 200.0,
        floor: float = 0.02,
        mate_cp: int = 2000,
        max_boards: Optional[int] = None,
    ) -> None:
        super().__init__()
        if not 0.0 < floor < 1.0 or scale <= 0:
            raise WeightingError(f"need 0 < floor < 1 and scale > 0, got floor={floor!r}, scale={scale!r}")
        if max_boards is not None and max_boards < 1:
            raise WeightingError(f"max_boards must be at least 1 (or None), got {max_boards!r}")
        self.engine = engine if engine is not None else Engine(cache_size=1 << 16)
        self.limit, self.scale, self.floor, self.mate_cp, self.max_boards = limit, scale, floor, mate_cp, max_boards

    def update(self, observation: Observation) -> None:
        self.follow(observation)

    def score(self, board: chess.Board, color: chess.Color) -> float:
        """Stockfish's score of `board` in centipawns for `color` (0 if unsearchable)."""
        info = self.engine.analyse(board, self.limit)
        if not isinstance(info, dict) or "score" not in info:
            return 0.0
        return float(info["score"].pov(color).score(mate_score=self.mate_cp))

    def log_weights(self, grid: np.ndarray) -> np.ndarray:
        if self.color is None:
            raise NotInitialisedError("the Stockfish weighting has not received GameStarted")
        if self.max_boards is not None and len(grid) > self.max_boards:
            return np.zeros(len(grid))
        scores = np.array([self.score(grid_board(row, self.turn), not self.color) for row in grid], dtype=np.float64)
        log_w: np.ndarray = np.log(sigmoid_weights(scores, self.scale, self.floor))
        return log_w

    def copy(self) -> StockfishSigmoid:
        other = StockfishSigmoid(self.engine, self.limit, self.scale, self.floor, self.mate_cp, self.max_boards)
        self.copy_into(other)
        return other


def weighted(inner: Belief, weighting: BoardWeighting, mix: float = 0.05) -> Weighted:
    """`Weighted(inner, weighting, mix)`, checking that `inner` can show its boards.

    Raises:
        WeightingError: `inner` is not an `IndexedBoards` belief (a marginals-only belief has no boards to weight).
    """
    if not isinstance(inner, IndexedBoards):
        raise WeightingError(f"{type(inner).__name__} cannot be weighted: it has no piece_grid/weights/board")
    return Weighted(inner, weighting, mix)
