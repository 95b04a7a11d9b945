"""The observation events a player receives, in the order a game delivers them.

These are the one stream that beliefs consume: the arbiter emits them, a
`GameHistory` can give them back per colour, and the `Player` callbacks can be
turned into them. Each is a small frozen, hashable value object.

Per player, a game produces::

    GameStarted
    (OpponentMoved  SenseResult  MoveResult)*     # one triple per own turn
    GameEnded

White's first turn also begins with an `OpponentMoved` (with no capture), exactly
as reconchess calls `handle_opponent_move_result` on every turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import chess

from ..types import Color, SenseWindow, Square, WinReason

"""The squares of a sense window, in reconchess's order (rank descending, file ascending), with the piece seen."""


@dataclass(frozen=True, slots=True)
class GameStarted:
    """The game begins: the player's colour and the (public) starting position."""

    color: Color
    starting_fen: str
    opponent_name: str = ""

    def starting_board(self) -> chess.Board:
        """A fresh `chess.Board` of the starting position (a copy; observations stay immutable)."""
        return chess.Board(self.starting_fen)


@dataclass(frozen=True, slots=True)
class OpponentMoved:
    """Turn start: where the opponent captured one of our pieces, or None if they did not."""

    capture_square: Optional[Square]

    @property
    def captured_my_piece(self) -> bool:
        return self.capture_square is not None


@dataclass(frozen=True, slots=True)
class SenseResult:
    """The sense phase: the chosen centre (None for a skipped sense) and what the window showed."""

    square: Optional[Square]
    window: SenseWindow


@dataclass(frozen=True, slots=True)
class MoveResult:
    """The move phase: the move asked for, the move the arbiter made (None if illegal or a pass), and any capture."""

    requested_move: Optional[chess.Move]
    taken_move: Optional[chess.Move]
    capture_square: Optional[Square]

    @property
    def captured_opponent_piece(self) -> bool:
        return self.capture_square is not None


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over: the winner (None for a draw) and why."""

    winner_color: Optional[Color]
    win_reason: Optional[WinReason]


Observation = Union[GameStarted, OpponentMoved, SenseResult, MoveResult, GameEnded]
"""Any one observation event."""
