"""The check every belief makes at its edge: is this a well-formed observation event?

Beliefs index arrays and bitboards by square, so a square of -1 silently reads h8 and
one of 64 raises `IndexError` deep inside an update. `check_event` refuses such events
before any work, with `MalformedObservationError` quoting the bad value, so the
update that follows can trust its input (and a refused update has changed nothing).
It checks types and ranges only; whether an event is *possible* is the belief's job.

>>> check_event(OpponentMoved(chess.E4))
>>> check_event(OpponentMoved(-1))
Traceback (most recent call last):
...
blindchess.beliefs.base.MalformedObservationError: OpponentMoved.capture_square must be a square 0..63 or None, got -1
"""

from __future__ import annotations

from typing import Any

import chess
import numpy as np

from blindchess.arbiter.observations import GameEnded, GameStarted, MoveResult, OpponentMoved, SenseResult
from blindchess.arbiter.types import WinReason

from .base import MalformedObservationError


def _is_square(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and bool(0 <= value < 64)


def _square(value: object, where: str, optional: bool = True) -> None:
    if not (_is_square(value) or (optional and value is None)):
        raise MalformedObservationError(f"{where} must be a square 0..63{' or None' if optional else ''}, got {value!r}")


def _color(value: object, where: str, optional: bool = False) -> None:
    if not (isinstance(value, (bool, np.bool_)) or (optional and value is None)):
        raise MalformedObservationError(f"{where} must be a colour (True for white, False for black), got {value!r}")


def _move(value: object, where: str) -> None:
    if value is None:
        return
    if not isinstance(value, chess.Move):
        raise MalformedObservationError(f"{where} must be a chess.Move or None, got {value!r}")
    _square(value.from_square, f"{where}.from_square", optional=False)
    _square(value.to_square, f"{where}.to_square", optional=False)
    if value.promotion is not None and value.promotion not in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
        raise MalformedObservationError(
            f"{where}.promotion must be a knight, bishop, rook or queen (2..5) or None, got {value.promotion!r}"
        )
    if value.drop is not None:
        raise MalformedObservationError(f"{where} is a drop ({value.drop!r}), which RBC has not")


def _window(window: Any) -> None:
    if not isinstance(window, (tuple, list)):
        raise MalformedObservationError(f"SenseResult.window must be a tuple of (square, piece or None), got {window!r}")
    for entry in window:
        if not isinstance(entry, (tuple, list)) or len(entry) != 2:
            raise MalformedObservationError(f"SenseResult.window entries must be (square, piece or None), got {entry!r}")
        square, piece = entry
        _square(square, "a SenseResult.window square", optional=False)
        if piece is not None and not (
            isinstance(piece, chess.Piece) and piece.piece_type in chess.PIECE_TYPES and isinstance(piece.color, (bool, np.bool_))
        ):
            raise MalformedObservationError(f"SenseResult.window pieces must be chess.Piece or None, got {piece!r} on {square!r}")


def check_event(event: object) -> None:
    """Raise `MalformedObservationError` unless `event` is an observation event with well-typed, on-board contents."""
    if isinstance(event, OpponentMoved):
        _square(event.capture_square, "OpponentMoved.capture_square")
    elif isinstance(event, SenseResult):
        _square(event.square, "SenseResult.square")
        _window(event.window)
    elif isinstance(event, MoveResult):
        _move(event.requested_move, "MoveResult.requested_move")
        _move(event.taken_move, "MoveResult.taken_move")
        _square(event.capture_square, "MoveResult.capture_square")
    elif isinstance(event, GameStarted):
        _color(event.color, "GameStarted.color")
        if not isinstance(event.starting_fen, str):
            raise MalformedObservationError(f"GameStarted.starting_fen must be a FEN string, got {event.starting_fen!r}")
        try:
            chess.Board(event.starting_fen)
        except ValueError as error:
            raise MalformedObservationError(f"GameStarted.starting_fen is not a FEN: {event.starting_fen!r} ({error})") from error
    elif isinstance(event, GameEnded):
        _color(event.winner_color, "GameEnded.winner_color", optional=True)
        if event.win_reason is not None and not isinstance(event.win_reason, WinReason):
            raise MalformedObservationError(f"GameEnded.win_reason must be a WinReason or None, got {event.win_reason!r}")
    else:
        raise MalformedObservationError(f"not an observation event: {event!r}")
