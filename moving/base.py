"""The move-selector protocol, and what a requested move really does on each board of a belief.

A selector reads the belief and returns one of the move actions (or None to pass). In RBC
a request is not the move made: on each board the arbiter may shorten a slide to the first
blocker (capturing it), turn a blocked pawn double step into a single one, or refuse the move
(an illegal castle, a push into a piece, a pawn diagonal onto an empty square).
`outcome_of_request` works that out per board with :mod:`blindchess.arbiter.rules`, so every
selector scores what would happen, not what was asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Protocol, runtime_checkable

import chess
import numpy as np

from blindchess.arbiter import rules
from blindchess.arbiter.types import Color
from blindchess.beliefs.base import Belief


@dataclass(frozen=True, slots=True)
class MoveContext:
    """What a selector knows besides the belief.

    Attributes:
        color: the selecting player's colour.
        increment: seconds added to the clock after each turn (measured by the bot).
    """

    color: Color
    increment: float = 0.0


@runtime_checkable
class MoveSelector(Protocol):
    """Chooses the move to request."""

    def choose_move(
        self,
        belief: Belief,
        move_actions: list[chess.Move],
        seconds_left: float,
        rng: np.random.Generator,
        context: MoveContext,
    ) -> Optional[chess.Move]:
        """One of `move_actions`, or None to pass. Neither the belief nor the list is modified."""
        ...

    def close(self) -> None:
        """Release what the selector holds (engine processes); it may be used again afterwards."""
        ...


@dataclass(frozen=True, slots=True)
class RequestOutcome:
    """What requesting a move did on one board.

    Attributes:
        taken: the move the arbiter made (None: refused, nothing moved).
        captured: the piece captured (None if none).
        after: the board after the move, the opponent to move.
    """

    taken: Optional[chess.Move]
    captured: Optional[chess.Piece]
    after: chess.Board

    @property
    def captures_king(self) -> bool:
        return self.captured is not None and self.captured.piece_type == chess.KING

    def exposes_king(self, color: Color) -> bool:
        """True when `color`'s king stands attacked after the move (the opponent could take it)."""
        king = self.after.king(color)
        return king is not None and self.after.is_attacked_by(not color, king)


def outcome_of_request(board: chess.Board, move: Optional[chess.Move]) -> RequestOutcome:
    """The RBC outcome of requesting `move` (None: pass) on `board`, the requester to move.

    Unchecked: `move` must be one of the move actions of `board`'s side to move.
    """
    taken = None if move is None else rules.revise_move(board, rules.with_default_promotion(board, move))
    after = board.copy(stack=False)
    captured = None
    square = rules.capture_square_of_move(after, taken)
    if square is not None:
        captured = after.piece_at(square)
    rules.push(after, taken)
    return RequestOutcome(taken, captured, after)


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
