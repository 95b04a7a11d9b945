"""Boards drawn for a planner or selector, and the questions they ask of them, fast or by reference.

`BoardSample` is what the value-of-information planner and the Stockfish selector read from
the boards they draw: threat levels, proxy move values, exposure, material, king squares, the
window grid, duplicates merged. Two implementations answer it alike:

- `Rows` (:mod:`blindchess.beliefs.drawn_boards`): the board set's compact rows and compiled kernels;
- `BoardList`: a list of `chess.Board` and the python-chess references of
  :mod:`blindchess.evaluation.values` and :mod:`blindchess.evaluation.king_hunt`, for beliefs that
  cannot draw rows (particles, the hybrid, weighted and learned beliefs) and as the definition the
  fast path is tested against (``tests/unit/beliefs/test_sample_queries.py``).

`draw` picks: rows when the belief can give them (and `compiled`), else boards. Both make the
same draws from `rng`, so a planner gives the same answer either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional, Protocol, Union

import chess
import numpy as np

from blindchess.arbiter.rules.fast_revision import request_outcome
from blindchess.arbiter.types import Color
from blindchess.evaluation.king_hunt import king_squares
from blindchess.evaluation.values import material_balance, proxy_move_value, threat_levels

from .base import Belief, channel
from .drawn_boards import Rows, RowSampler


class BoardSample(Protocol):
    """Boards drawn from a belief, our side to move, and the per-board quantities planners read (module docstring)."""

    def __len__(self) -> int: ...

    def take(self, rows: np.ndarray) -> BoardSample:
        """The boards at positions `rows`, in that order."""
        ...

    def boards(self, turn: Optional[Color] = None) -> list[chess.Board]:
        """The boards as `chess.Board` objects, `turn` to move (default: as drawn)."""
        ...

    def grid(self) -> np.ndarray:
        """Shape (N, 64) uint8: the marginal channel of every square on each board."""
        ...

    def threat_levels(self) -> np.ndarray:
        """Per board: 2 where our king is attacked, 1 where a square next to it is, else 0."""
        ...

    def move_values(self, moves: Sequence[Optional[chess.Move]]) -> np.ndarray:
        """Shape (N, len(moves)): the proxy value of each move (None: pass) on each board."""
        ...

    def exposure(self, moves: Sequence[Optional[chess.Move]], weights: np.ndarray) -> np.ndarray:
        """Per move, the weight of the boards where our king stands attacked after it (and it does not capture the king)."""
        ...

    def material_balance(self) -> np.ndarray:
        """Per board, our material less the opponent's, in pawns."""
        ...

    def opponent_king_squares(self) -> np.ndarray:
        """Per board, the opponent king's square (`NO_KING` where it has none)."""
        ...

    def unique(self) -> tuple[BoardSample, np.ndarray]:
        """The distinct boards (by FEN, our side to move) in order of first appearance, and how many each stands for."""
        ...


class BoardList:
    """`BoardSample` on `chess.Board` objects through the python-chess references (slow; the definition).

    Args:
        boards: the boards, any side to move (the queries put `color` to move).
        color: our colour.
    """

    def __init__(self, boards: Sequence[chess.Board], color: Color) -> None:
        self.color = color
        self._boards = list(boards)

    def __len__(self) -> int:
        return len(self._boards)

    def take(self, rows: np.ndarray) -> BoardList:
        return BoardList([self._boards[int(i)] for i in rows], self.color)

    def boards(self, turn: Optional[Color] = None) -> list[chess.Board]:
        if turn is None:
            return list(self._boards)
        turned = [board.copy(stack=False) for board in self._boards]
        for board in turned:
            board.turn = turn
        return turned

    def grid(self) -> np.ndarray:
        return board_grid(self._boards)

    def threat_levels(self) -> np.ndarray:
        return threat_levels(self._boards, self.color)

    def move_values(self, moves: Sequence[Optional[chess.Move]]) -> np.ndarray:
        values = np.zeros((len(self), len(moves)))
        for i, board in enumerate(self.boards(self.color)):
            for j, move in enumerate(moves):
                values[i, j] = proxy_move_value(board, move, self.color)
        return values

    def exposure(self, moves: Sequence[Optional[chess.Move]], weights: np.ndarray) -> np.ndarray:
        exposed = np.zeros(len(moves))
        for board, weight in zip(self.boards(self.color), weights, strict=True):
            if board.king(self.color) is None:
                continue
            for j, move in enumerate(moves):
                outcome = request_outcome(board, move)
                if outcome.exposes_king(self.color) and not outcome.captures_king:
                    exposed[j] += weight
        return exposed

    def material_balance(self) -> np.ndarray:
        return np.array([material_balance(board, self.color) for board in self._boards], dtype=np.float64)

    def opponent_king_squares(self) -> np.ndarray:
        return king_squares(self._boards, self.color)

    def unique(self) -> tuple[BoardList, np.ndarray]:
        counts: dict[str, int] = {}
        first: dict[str, chess.Board] = {}
        for board in self.boards(self.color):
            key = board.fen()
            counts[key] = counts.get(key, 0) + 1
            first.setdefault(key, board)
        return BoardList(list(first.values()), self.color), np.array([counts[key] for key in first], dtype=np.float64)


def board_grid(boards: Sequence[chess.Board]) -> np.ndarray:
    """Shape (N, 64) uint8: the marginal channel of every square on each board."""
    grid = np.zeros((len(boards), 64), dtype=np.uint8)
    for i, board in enumerate(boards):
        for square, piece in board.piece_map().items():
            grid[i, square] = channel(piece)
    return grid


def draw(belief: Belief, n: int, rng: np.random.Generator, color: Color, compiled: bool = True) -> Union[Rows, BoardList]:
    """`n` boards drawn from `belief` by weight (`Belief.sample`'s draws): `Rows` where the belief can give them and
    `compiled` is set, else a `BoardList`."""
    if compiled and isinstance(belief, RowSampler):
        rows = belief.sample_rows(n, rng)
        if rows is not None:
            return rows
    return BoardList(belief.sample(n, rng), color)
