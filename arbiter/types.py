"""Plain type aliases and the end-of-game reasons, in reconchess's vocabulary.

`WinReason` has exactly reconchess 1.6.9's members and values, so histories and
bots written for reconchess read the same numbers from us.
"""

from __future__ import annotations

from enum import Enum
from typing import Optional

import chess

Square = int
Color = bool
PieceType = int
SenseWindow = tuple[tuple[Square, Optional[chess.Piece]], ...]
"""A sense result: each square of the 3x3 window with the piece on it (None: empty), in square order."""


class WinReason(Enum):
    """Why a game ended (also used for draws by move or turn limit)."""

    KING_CAPTURE = 1
    """One player captured the other's king."""
    TIMEOUT = 2
    """One player ran out of time."""
    RESIGN = 3
    """One player resigned (the arbiter also resigns a bot that crashes or answers out of its action list)."""
    TURN_LIMIT = 4
    """The game exceeded the full-turn limit (a draw)."""
    MOVE_LIMIT = 5
    """The game reached the reversible-move limit (a draw)."""
