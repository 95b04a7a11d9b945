"""Converting a won game: when we are well ahead, hunt the opponent's king.

Why: in a won position Stockfish's score saturates (``score_to_value`` maps +10 and +15
pawns to 0.88 and 0.94), so its values barely separate the moves that close in on the king
from those that drift, and a bot that maximises them shuffles pieces until the reversible-move
draw. In RBC the king is taken, not mated, and the opponent is not told it is in check: a
check it does not see is a king capture on our next turn. So, once the material lead on the
sampled boards reaches `HUNT_MATERIAL`, the selector adds to each candidate ``m``::

    hunt_weight * P(check after m) = hunt_weight * sum_b w_b [our pieces attack b's king after m on b]

(a small weight: it reorders moves Stockfish finds about equal and does not buy a check with
a piece), and the value-of-information planner adds ``king_weight`` pawns per bit of
information the window gives about the king's square, so that it senses to confirm where the
king is before the hunting move.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

from blindchess.arbiter.rules import RequestOutcome
from blindchess.arbiter.types import Color

from .values import material_balance

HUNT_MATERIAL = 5.0
"""The material lead (pawns, weighted mean over the sampled boards) from which we hunt the king."""

NO_KING = 64
"""`king_squares`' label for a board without the opponent's king (captured: the game is over there)."""


def material_lead(boards: Sequence[chess.Board], weights: np.ndarray, color: Color) -> float:
    """The weighted mean of `color`'s material balance over `boards` (0 for no boards).

    >>> boards = [chess.Board("4k3/8/8/8/8/8/8/R2QK3 w - - 0 1"), chess.Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")]
    >>> material_lead(boards, np.array([0.5, 0.5]), chess.WHITE)
    11.5
    """
    if not boards:
        return 0.0
    return float(np.dot(weights, [material_balance(board, color) for board in boards]))


def gives_check(outcome: RequestOutcome, color: Color) -> bool:
    """True when, after `outcome` (requested by `color`), a piece of `color` attacks the opponent's king.

    >>> from blindchess.arbiter.fastrevise import request_outcome
    >>> board = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    >>> gives_check(request_outcome(board, chess.Move.from_uci("a1a8")), chess.WHITE)
    True
    >>> gives_check(request_outcome(board, chess.Move.from_uci("a1a7")), chess.WHITE)
    False
    """
    king = outcome.board.king(not color)
    return king is not None and not outcome.captures_king and outcome.is_attacked_after(color, king)


def check_odds(outcomes: Sequence[Sequence[RequestOutcome]], weights: np.ndarray, color: Color) -> np.ndarray:
    """Per move (column of `outcomes`, one row per board), the weighted probability that it gives check."""
    checks = np.array([[gives_check(outcome, color) for outcome in row] for row in outcomes], dtype=float)
    odds: np.ndarray = weights @ checks
    return odds


def king_squares(boards: Sequence[chess.Board], color: Color) -> np.ndarray:
    """Per board, the square of `color`'s opponent's king (`NO_KING` where it has none)."""
    squares = [board.king(not color) for board in boards]
    return np.array([NO_KING if square is None else square for square in squares], dtype=np.int64)
