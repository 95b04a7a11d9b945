"""The rules of RBC on the 8x8 board: the reference (pure functions over `chess.Board`), the fast
Python path the arbiter runs, and the compiled core every numba user calls.

The package re-exports the reference rules, so ``from blindchess.arbiter.rules import request_outcome``
reads the rule as written.
"""

from .reference import (
    RequestOutcome,
    capture_square_of_move,
    is_illegal_castle,
    king_captured,
    move_actions,
    push,
    request_outcome,
    revise_move,
    sense_actions,
    sense_window,
    with_default_promotion,
    without_opponent_pieces,
)

__all__ = [
    "RequestOutcome",
    "capture_square_of_move",
    "is_illegal_castle",
    "king_captured",
    "move_actions",
    "push",
    "request_outcome",
    "revise_move",
    "sense_actions",
    "sense_window",
    "with_default_promotion",
    "without_opponent_pieces",
]
