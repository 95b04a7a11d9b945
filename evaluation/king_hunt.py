"""Converting a won game: when we are well ahead, follow the engine's plan and look for the king.

Why: in a won position Stockfish's score saturates (``score_to_value`` maps +10 and +15
pawns to 0.88 and 0.94), and the selector's short searches of many (board, move) pairs see
no progress in any quiet move, so its values barely separate the moves that close in from
those that drift. In the flagship's own games a rook, bishop and pawns against two pawns went
60 half-turns without a capture or a pawn move: the rook walked along the seventh rank while
the bot sensed the king, unmoved, every turn. Stockfish's own move on a board, searched
longer, does make progress (it pushes the passed pawn, it mates). So, once the material lead
on the sampled boards reaches `HUNT_MATERIAL`, the selector asks the engine for its move on
the likeliest boards and adds to each candidate ``m``::

    hunt_weight * V(m),    V(m) = sum_b w_b [m is the engine's move on b] / sum_b w_b

(a small weight: it decides among moves the short searches find about equal, never against a
forced mate or the loss of a piece), and the value-of-information planner adds ``king_weight``
pawns per bit of information the window gives about the opponent king's square, so that the
boards the engine plans on agree where the king is.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

from blindchess.arbiter.types import Color

HUNT_MATERIAL = 5.0
"""The material lead (pawns, weighted mean over the sampled boards) from which we hunt the king."""

NO_KING = 64
"""`king_squares`' label for a board without the opponent's king (captured: the game is over there)."""


def material_lead(balance: np.ndarray, weights: np.ndarray) -> float:
    """The weighted mean of the per-board material balances `balance` (`values.material_balance`; 0 for no boards).

    >>> material_lead(np.array([14.0, 9.0]), np.array([0.5, 0.5]))
    11.5
    """
    if not len(balance):
        return 0.0
    return float(np.dot(weights, balance))


def engine_votes(moves: Sequence[chess.Move], chosen: Sequence[chess.Move | None], weights: np.ndarray) -> np.ndarray:
    """``V(m)`` of the module docstring: per move of `moves`, the weight share of the boards whose engine chose it.

    >>> e4, d4 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("d2d4")
    >>> engine_votes([e4, d4], [e4, d4, e4, None], np.array([0.5, 0.25, 0.125, 0.125])).tolist()
    [0.625, 0.25]
    """
    index = {move: j for j, move in enumerate(moves)}
    votes = np.zeros(len(moves))
    for move, weight in zip(chosen, weights, strict=True):
        if move is not None and move in index:
            votes[index[move]] += weight
    share: np.ndarray = votes / max(float(np.sum(weights)), 1e-12)
    return share


def king_squares(boards: Sequence[chess.Board], color: Color) -> np.ndarray:
    """Per board, the square of `color`'s opponent's king (`NO_KING` where it has none)."""
    squares = [board.king(not color) for board in boards]
    return np.array([NO_KING if square is None else square for square in squares], dtype=np.int64)
