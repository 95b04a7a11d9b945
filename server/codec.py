"""The wire format of reconchess's HTTP API: tagged JSON objects for chess values.

reconchess encodes a move as ``{"type": "Move", "value": "e2e4"}``, a piece as
``{"type": "Piece", "value": "P"}``, a board as ``{"type": "Board", "value": fen}``
and a win reason as ``{"type": "WinReason", "value": "KING_CAPTURE"}``. Decoding is
checked: anything else raises :class:`InvalidRequest` naming the bad value.
"""

from __future__ import annotations

from typing import Any, Optional

import chess

from blindchess.arbiter.types import SenseWindow, Square, WinReason
from blindchess.server.errors import InvalidRequest

JSONValue = Any


def encode_move(move: Optional[chess.Move]) -> Optional[dict[str, str]]:
    return None if move is None else {"type": "Move", "value": move.uci()}


def encode_piece(piece: Optional[chess.Piece]) -> Optional[dict[str, str]]:
    return None if piece is None else {"type": "Piece", "value": piece.symbol()}


def encode_board(fen: str) -> dict[str, str]:
    return {"type": "Board", "value": fen}


def encode_win_reason(reason: Optional[WinReason]) -> Optional[dict[str, str]]:
    return None if reason is None else {"type": "WinReason", "value": reason.name}


def encode_sense_result(window: SenseWindow | list[tuple[Square, Optional[chess.Piece]]]) -> list[list[Any]]:
    return [[square, encode_piece(piece)] for square, piece in window]


def decode_square(value: JSONValue) -> Optional[Square]:
    """A sense square from JSON: an integer 0..63, or null to skip sensing."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRequest(f"square must be an integer 0..63 or null, not {value!r}")
    if not 0 <= value < 64:
        raise InvalidRequest(f"square {value} is off the board (0..63)")
    return value


def decode_move(value: JSONValue) -> Optional[chess.Move]:
    """A requested move from JSON: ``{"type": "Move", "value": uci}``, or null to pass."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("type") != "Move" or not isinstance(value.get("value"), str):
        raise InvalidRequest(f'a move must look like {{"type": "Move", "value": "e2e4"}} or be null, not {value!r}')
    uci = value["value"]
    try:
        move = chess.Move.from_uci(uci)
    except ValueError as error:
        raise InvalidRequest(f"move {uci!r} is not valid UCI: {error}") from None
    if not move:
        raise InvalidRequest(f"the null move {uci!r} cannot be requested; send null to pass")
    return move


def decode_move_result(value: JSONValue) -> tuple[Optional[chess.Move], Optional[chess.Move], Optional[Square]]:
    """The ``move_result`` triple a client receives (requested move, taken move, capture square)."""
    requested, taken, capture = value
    return decode_move(requested), decode_move(taken), decode_square(capture)


def decode_piece(value: JSONValue) -> Optional[chess.Piece]:
    if value is None:
        return None
    return chess.Piece.from_symbol(value["value"])


def decode_win_reason(value: JSONValue) -> Optional[WinReason]:
    return None if value is None else WinReason[value["value"]]
