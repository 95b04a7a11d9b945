"""Cheap move values shared by the sense planners and the move selectors: material, threats, a proxy.

Both `blindchess.sensing` (the value-of-information planner weighs moves to decide where to
look) and `blindchess.moving` (the Stockfish selector picks its candidates and its king-safety
penalty) score moves the same way, so the scoring lives here, below both of them.

The proxy value of requesting a move on one board, in pawns, for the requester ``c``::

    v = +KING_VALUE                          if the move captures the king, else
        + PIECE_VALUES[captured]             the material it captures on its target square
        - PIECE_VALUES[moved] / 2            if it lands on a square the opponent attacks and we don't
        - KING_VALUE                         if afterwards our king stands attacked

It reads the RBC outcome (`blindchess.arbiter.rules.reference.RequestOutcome`: slides stop at the
first blocker, illegal castles and pushes into pieces do nothing), never the request as if
it were the move made. An en-passant capture is not credited (the proxy reads the target
square, where the taken pawn is not): kept as it was when the proxy moved here, so that the
move changed no value; the planner and the selector agree on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

import chess
import numpy as np

from blindchess.arbiter.rules.fast_revision import request_outcome
from blindchess.arbiter.rules.reference import RequestOutcome
from blindchess.arbiter.types import Color

PIECE_VALUES = {chess.PAWN: 1.0, chess.KNIGHT: 3.0, chess.BISHOP: 3.0, chess.ROOK: 5.0, chess.QUEEN: 9.0, chess.KING: 0.0}
"""Material values in pawns (a king capture is scored by `KING_VALUE` instead)."""

KING_VALUE = 50.0
"""Value of capturing the opponent's king (the game), and minus the value of exposing ours."""


def outcome_value(outcome: RequestOutcome, color: Color) -> float:
    """The proxy value (module docstring), in pawns, of `outcome` for `color`, the side that requested it.

    >>> board = chess.Board("4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1")
    >>> outcome_value(request_outcome(board, chess.Move.from_uci("d1d8")), chess.WHITE)  # stops on d5, takes the pawn
    1.0
    """
    board, taken = outcome.board, outcome.taken
    value = 0.0
    if taken is not None:
        captured = board.piece_at(taken.to_square)
        if captured is not None and captured.color != color:
            if captured.piece_type == chess.KING:
                return KING_VALUE
            value += PIECE_VALUES[captured.piece_type]
        moved = board.piece_type_at(taken.from_square)
        landed = taken.to_square
        if moved is not None and outcome.is_attacked_after(not color, landed) and not outcome.is_attacked_after(color, landed):
            value -= 0.5 * PIECE_VALUES[moved]
    if outcome.exposes_king(color):
        value -= KING_VALUE
    return value


def proxy_move_value(board: chess.Board, move: Optional[chess.Move], color: Color) -> float:
    """`outcome_value` of requesting `move` (None: pass) on `board`.

    Unchecked: `board` must have `color` to move and `move` must be one of its move actions.
    """
    return outcome_value(request_outcome(board, move), color)


def material_balance(board: chess.Board, color: Color) -> float:
    """`color`'s material minus the opponent's, in pawns (`PIECE_VALUES`).

    >>> material_balance(chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), chess.BLACK)
    -5.0
    """
    return sum(
        PIECE_VALUES[piece_type] * (len(board.pieces(piece_type, color)) - len(board.pieces(piece_type, not color)))
        for piece_type in chess.PIECE_TYPES
    )


def threat_levels(boards: Sequence[chess.Board], color: Color) -> np.ndarray:
    """Per board: 2 where `color`'s king is attacked right now, 1 where a square next to it is, else 0."""
    result = np.zeros(len(boards), dtype=np.int64)
    for i, board in enumerate(boards):
        king = board.king(color)
        if king is None:
            continue
        if board.is_attacked_by(not color, king):
            result[i] = 2
        elif any(board.is_attacked_by(not color, square) for square in chess.SquareSet(chess.BB_KING_ATTACKS[king])):
            result[i] = 1
    return result


def level_boosts(king_boost: float) -> np.ndarray:
    """The weight per threat level (`threat_levels`): 1 when quiet, `king_boost` when our king is
    attacked right now, and a third of that extra when only a square next to it is."""
    return np.array([1.0, 1.0 + (king_boost - 1.0) / 3.0, king_boost])
