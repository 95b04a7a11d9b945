"""The check every belief makes at its edge: is this a well-formed observation event, and may it come now?

Beliefs index arrays and bitboards by square, so a square of -1 silently reads h8 and
one of 64 raises `IndexError` deep inside an update. `check_event` refuses such events
before any work, with `MalformedObservationError` quoting the bad value, so the
update that follows can trust its input (and a refused update has changed nothing).

Besides types and ranges it checks the two things every game guarantees whatever the
board: a sense shows exactly the window of its centre (the centre's 3x3 clipped to the
board, so 9 squares inside, 6 on an edge, 4 in a corner, and fewer on the small teaching
boards: `windows_of` their rules), and no event follows `GameEnded` but the next game's
`GameStarted` (`UnexpectedObservationError`). Whether an event is *possible* on the boards
held is the belief's job.

>>> check_event(OpponentMoved(chess.E4))
>>> check_event(OpponentMoved(-1))
Traceback (most recent call last):
...
blindchess.beliefs.base.MalformedObservationError: OpponentMoved.capture_square must be a square 0..63 or None, got -1
>>> check_event(SenseResult(chess.E4, ((chess.E5, None), (chess.E4, None), (chess.E3, None))))
Traceback (most recent call last):
...
blindchess.beliefs.base.MalformedObservationError: SenseResult.window shows e3 e4 e5, but the window of e4 is d3 e3 f3 d4 e4 f4 d5 e5 f5
>>> check_event(OpponentMoved(None), ended=True)
Traceback (most recent call last):
...
blindchess.beliefs.base.UnexpectedObservationError: OpponentMoved(capture_square=None) after GameEnded; only GameStarted may follow
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Optional, Protocol

import chess
import numpy as np

from blindchess.arbiter.game.observations import GameEnded, GameStarted, MoveResult, OpponentMoved, SenseResult
from blindchess.arbiter.rules.ruleset import STANDARD
from blindchess.arbiter.types import Square, WinReason

from .base import MalformedObservationError, UnexpectedObservationError

Windows = Mapping[Square, tuple[Square, ...]]
"""Sense centre -> the squares its window shows, in ascending order."""


class SensingRules(Protocol):
    """What `windows_of` reads of a rule set (the 8x8 `Rules` and the small boards' rules both have it)."""

    def starting_board(self, fen: Optional[str] = None) -> Any: ...

    def sense_actions(self, board: Any) -> list[Square]: ...

    def sense(self, board: Any, square: Square) -> Iterable[tuple[Square, Any]]: ...


def windows_of(rules: SensingRules) -> Windows:
    """The window of every sense action under `rules` (read from their own `sense`, so any board size fits).

    >>> [len(windows_of(STANDARD)[square]) for square in (chess.A1, chess.A4, chess.E4)]
    [4, 6, 9]
    """
    board = rules.starting_board()
    return {centre: tuple(sorted(square for square, _ in rules.sense(board, centre))) for centre in rules.sense_actions(board)}


STANDARD_WINDOWS = windows_of(STANDARD)
"""The windows of the 8x8 board."""


def game_over(events: Sequence[object]) -> bool:
    """Whether the last of a belief's events is `GameEnded` (the `ended` of `check_event`)."""
    return bool(events) and isinstance(events[-1], GameEnded)


def _names(squares: Iterable[Square]) -> str:
    return " ".join(chess.square_name(square) for square in squares)


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


def _window_of_centre(event: SenseResult, windows: Windows) -> None:
    shown = tuple(sorted(square for square, _ in event.window))
    if event.square is None:
        if shown:
            raise MalformedObservationError(f"SenseResult.window shows {_names(shown)} for no sense (square None)")
        return
    expected = windows.get(event.square)
    if expected is None:
        raise MalformedObservationError(f"SenseResult.square {chess.square_name(event.square)} is not a sense action on this board")
    if shown != expected:
        raise MalformedObservationError(
            f"SenseResult.window shows {_names(shown) or 'no square'}, but the window of {chess.square_name(event.square)}"
            f" is {_names(expected)}"
        )


def check_event(event: object, *, ended: bool = False, windows: Windows = STANDARD_WINDOWS) -> None:
    """Raise unless `event` is well formed (see the module docstring) and may follow the events so far.

    Args:
        ended: the belief's last event was `GameEnded`.
        windows: the board's sense windows (`windows_of` its rules; the 8x8 board's by default).

    Raises:
        MalformedObservationError: contents of the wrong type, off the board, or a window
            that is not its centre's.
        UnexpectedObservationError: an event after `GameEnded` other than `GameStarted`.
    """
    if isinstance(event, OpponentMoved):
        _square(event.capture_square, "OpponentMoved.capture_square")
    elif isinstance(event, SenseResult):
        _square(event.square, "SenseResult.square")
        _window(event.window)
        _window_of_centre(event, windows)
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
    if ended and not isinstance(event, GameStarted):
        raise UnexpectedObservationError(f"{event!r} after GameEnded; only GameStarted may follow")
