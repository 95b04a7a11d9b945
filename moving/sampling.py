"""Boards for a selector to score: a weighted sample of the belief with duplicates merged."""

from __future__ import annotations

import chess
import numpy as np

from blindchess.arbiter.types import Color
from blindchess.beliefs.base import Belief


def weighted_unique_boards(belief: Belief, n: int, rng: np.random.Generator, color: Color) -> tuple[list[chess.Board], np.ndarray]:
    """Up to `n` boards drawn by weight, duplicates merged, with `color` to move; their normalised counts as weights."""
    counts: dict[str, int] = {}
    boards: dict[str, chess.Board] = {}
    for board in belief.sample(n, rng):
        board = board.copy(stack=False)
        board.turn = color
        key = board.fen()
        counts[key] = counts.get(key, 0) + 1
        boards.setdefault(key, board)
    keys = list(boards)
    weights = np.array([counts[k] for k in keys], dtype=float)
    return [boards[k] for k in keys], weights / max(1.0, weights.sum())
