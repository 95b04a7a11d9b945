"""reconchess GameHistory JSON, both ways: the encoder of a record's turns and the checked decoder.

Contract: `encode_history` writes exactly reconchess 1.6.9's bytes (same keys, order,
encodings and separators; `history_document` is the dict its encoder builds, the reference
the text equals); `decode_history` reads such text into a fresh record or raises
`HistoryFormatError` naming the source, the field and the bad value.

Why a checked reader: reconchess's decoder accepts anything shaped roughly right and
fails later, deep inside a query, with a KeyError or a TypeError. A file here is read
completely up front, and nothing half-built escapes. Why the encoder writes text directly
rather than through ``json.dumps(history_document(...))``: building a dict per piece seen and
per move, only for the encoder to take them apart again, cost more than the game itself.
The codec knows the record only through its turns: it does not import the history that uses it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

import chess

from blindchess.errors import BlindchessError

from ..types import Color, Square, WinReason
from .turns import SenseResultList, TurnRecord


class HistoryFormatError(BlindchessError, ValueError):
    """A history file or JSON text is not a valid reconchess GameHistory; the message names the source and the problem."""


@dataclass(frozen=True)
class HistoryHeader:
    """The fields of the file that are not per turn: the players' names and the result."""

    white_name: Optional[str]
    black_name: Optional[str]
    winner_color: Optional[Color]
    win_reason: Optional[WinReason]


MoveEntry = tuple[Optional[chess.Move], Optional[chess.Move], Optional[Square], str, str]
"""One recorded move: requested, taken, capture square, FEN before and FEN after."""


@dataclass(frozen=True)
class DecodedHistory:
    """A checked history file: its header and each colour's senses and moves, in play order."""

    header: HistoryHeader
    senses: dict[Color, list[tuple[Optional[Square], SenseResultList]]]
    moves: dict[Color, list[MoveEntry]]


LIST_KEYS = (
    "senses", "sense_results", "requested_moves", "taken_moves", "capture_squares", "fens_before_move", "fens_after_move",
)  # fmt: skip
"""reconchess's seven per-colour lists, in the file's order."""


def encode_history(header: HistoryHeader, white: list[TurnRecord], black: list[TurnRecord]) -> str:
    """The history with `header` and these turn records as reconchess 1.6.9's JSON text."""
    _convert_in_play_order(white, black)
    fields = ", ".join(
        f'"{key}": {{"true": {_encode_column(key, white)}, "false": {_encode_column(key, black)}}}' for key in LIST_KEYS
    )
    reason = header.win_reason
    reason_json = "null" if reason is None else f'{{"type": "WinReason", "value": "{reason.name}"}}'
    return (
        f'{{"type": "GameHistory", "white_name": {json.dumps(header.white_name)}, '
        f'"black_name": {json.dumps(header.black_name)}, {fields}, '
        f'"winner_color": {json.dumps(header.winner_color)}, "win_reason": {reason_json}}}'
    )


def history_document(header: HistoryHeader, white: list[TurnRecord], black: list[TurnRecord]) -> dict[str, Any]:
    """The JSON-ready dict reconchess's encoder builds (the reference `encode_history`'s text equals)."""
    lists = _per_colour_lists(white, black)
    return {
        "type": "GameHistory",
        "white_name": header.white_name,
        "black_name": header.black_name,
        **{key: {"true": lists[key][0], "false": lists[key][1]} for key in LIST_KEYS},
        "winner_color": header.winner_color,
        "win_reason": None if header.win_reason is None else {"type": "WinReason", "value": header.win_reason.name},
    }


def _encode_move(move: Optional[chess.Move]) -> Optional[dict[str, str]]:
    return None if move is None else {"type": "Move", "value": move.uci()}


def _encode_window(result: SenseResultList) -> list[list[Any]]:
    return [[square, None if piece is None else {"type": "Piece", "value": piece.symbol()}] for square, piece in result]


def _per_colour_lists(white: list[TurnRecord], black: list[TurnRecord]) -> dict[str, tuple[list[Any], list[Any]]]:
    """reconchess's seven parallel lists, (white, black) each, JSON-ready, built from the turn records."""
    lists: dict[str, tuple[list[Any], list[Any]]] = {key: ([], []) for key in LIST_KEYS}
    for slot, records in enumerate((white, black)):
        for record in records:
            if record.sense is not None:
                lists["senses"][slot].append(record.sense.square)
                lists["sense_results"][slot].append(_encode_window(record.sense.result))
            if record.move is not None:
                move = record.move
                lists["requested_moves"][slot].append(_encode_move(move.requested_move))
                lists["taken_moves"][slot].append(_encode_move(move.taken_move))
                lists["capture_squares"][slot].append(move.capture_square)
                lists["fens_before_move"][slot].append(move.before.fen)
                lists["fens_after_move"][slot].append(move.after.fen)
    return lists


def _convert_in_play_order(white: list[TurnRecord], black: list[TurnRecord]) -> None:
    """Turn the truth snapshots into FENs in the order they were played.

    Why: a FEN is built from the one converted before it, redoing only the ranks that
    differ (see `blindchess.arbiter.rules.fast_reading`); in play order that is one move's worth.
    """
    for index, record in enumerate(white):
        if record.move is None:
            break
        _ = record.move.before.fen, record.move.after.fen
        reply = black[index].move if index < len(black) else None
        if reply is not None:
            _ = reply.after.fen


def _encode_column(key: str, records: list[TurnRecord]) -> str:
    """One colour's list `key` of the JSON file, as ``json.dumps`` writes it."""
    if key == "senses":
        return json.dumps([record.sense.square for record in records if record.sense is not None])
    if key == "sense_results":
        windows = [_window_json(record.sense.result) for record in records if record.sense is not None]
        return "[" + ", ".join(windows) + "]"
    moves = [record.move for record in records if record.move is not None]
    if key == "requested_moves":
        return "[" + ", ".join([_move_json(move.requested_move) for move in moves]) + "]"
    if key == "taken_moves":
        return "[" + ", ".join([_move_json(move.taken_move) for move in moves]) + "]"
    if key == "capture_squares":
        return json.dumps([move.capture_square for move in moves])
    if key == "fens_before_move":
        return json.dumps([move.before.fen for move in moves])
    return json.dumps([move.after.fen for move in moves])


def _move_json(move: Optional[chess.Move]) -> str:
    return "null" if move is None else '{"type": "Move", "value": "' + move.uci() + '"}'


# The JSON text of each [square, piece] pair, at 13 * square + (0 for no piece, piece_type for White,
# piece_type + 6 for Black).
_CELL_JSON = tuple(
    json.dumps([square, None if code == 0 else {"type": "Piece", "value": chess.Piece((code - 1) % 6 + 1, code <= 6).symbol()}])
    for square in chess.SQUARES
    for code in range(13)
)


def _window_json(result: SenseResultList) -> str:
    """``json.dumps(_encode_window(result))``, from precomputed cell texts (a window is at most 9 cells)."""
    cells = [
        _CELL_JSON[13 * square + (0 if piece is None else piece.piece_type + (0 if piece.color else 6))]
        if type(square) is int and 0 <= square < 64
        else None
        for square, piece in result
    ]
    if None in cells:
        return json.dumps(_encode_window(result))  # not a plain square: let the encoder judge it
    return "[" + ", ".join(cells) + "]"  # type: ignore[arg-type]


_COLOR_KEYS = (("true", chess.WHITE), ("false", chess.BLACK))


class _Reader:
    """Decodes one document, remembering the source name for error messages."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, problem: str) -> HistoryFormatError:
        return HistoryFormatError(f"{self.source}: {problem}")

    def square(self, value: Any, where: str) -> Optional[int]:
        if value is None:
            return None
        if type(value) is not int or not 0 <= value < 64:
            raise self.fail(f"{where} is {value!r}, not a square (0..63) or null")
        return value

    def move(self, value: Any, where: str) -> Optional[chess.Move]:
        if value is None:
            return None
        if not isinstance(value, dict) or value.get("type") != "Move" or not isinstance(value.get("value"), str):
            raise self.fail(f"{where} is {value!r}, not a {{'type': 'Move', 'value': UCI}} object or null")
        try:
            return chess.Move.from_uci(value["value"])
        except ValueError as error:
            raise self.fail(f"{where} has an invalid UCI move {value['value']!r}") from error

    def piece(self, value: Any, where: str) -> Optional[chess.Piece]:
        if value is None:
            return None
        if not isinstance(value, dict) or value.get("type") != "Piece" or not isinstance(value.get("value"), str):
            raise self.fail(f"{where} is {value!r}, not a {{'type': 'Piece', 'value': symbol}} object or null")
        try:
            return chess.Piece.from_symbol(value["value"])
        except ValueError as error:
            raise self.fail(f"{where} has an invalid piece symbol {value['value']!r}") from error

    def window(self, value: Any, where: str) -> SenseResultList:
        if not isinstance(value, list):
            raise self.fail(f"{where} is {value!r}, not a list of [square, piece] pairs")
        result: SenseResultList = []
        for index, pair in enumerate(value):
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.fail(f"{where}[{index}] is {pair!r}, not a [square, piece] pair")
            square = self.square(pair[0], f"{where}[{index}][0]")
            if square is None:
                raise self.fail(f"{where}[{index}][0] is null, not a square")
            result.append((square, self.piece(pair[1], f"{where}[{index}][1]")))
        return result

    def fen(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise self.fail(f"{where} is {value!r}, not a FEN string")
        try:
            chess.Board(value)
        except ValueError as error:
            raise self.fail(f"{where} is {value!r}, not a valid FEN ({error})") from error
        return value

    def per_colour(self, document: dict[str, Any], key: str) -> tuple[list[Any], list[Any]]:
        value = document.get(key)
        if not isinstance(value, dict) or set(value) != {"true", "false"}:
            raise self.fail(f"field {key!r} must be an object with exactly the keys 'true' and 'false', got {value!r}")
        lists = (value["true"], value["false"])
        for name, items in zip(("true", "false"), lists, strict=True):
            if not isinstance(items, list):
                raise self.fail(f"{key}[{name!r}] is {items!r}, not a list")
        return lists


def _check_play_order(reader: _Reader, lengths: dict[str, tuple[int, int]]) -> None:
    """The lists must record a prefix of the play order White sense, White move, Black sense, Black move, ...

    A game can end between any two of these phases (a crash, a timeout, a king capture), so the
    phase counts of a game that recorded n phases are those of the first n phases of that cycle.
    """
    counts = (lengths["senses"][0], lengths["requested_moves"][0], lengths["senses"][1], lengths["requested_moves"][1])
    total = sum(counts)
    cycles, rest = divmod(total, 4)
    expected = tuple(cycles + (rest > phase) for phase in range(4))
    if counts != expected:
        names = ("senses['true']", "requested_moves['true']", "senses['false']", "requested_moves['false']")
        found = ", ".join(f"{name} {count}" for name, count in zip(names, counts, strict=False))
        raise reader.fail(f"the turn lists are not a game played in turn order ({found}; {total} phases would be {expected})")


def decode_history(text: str, source: str) -> DecodedHistory:
    """Parse and check reconchess GameHistory JSON `text` (read from `source`)."""
    reader = _Reader(source)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise reader.fail(f"not valid JSON ({error})") from error
    except RecursionError as error:  # a GameHistory is 5 levels deep; the parser gives up near 1000
        raise reader.fail("nested too deeply to be a GameHistory (arrays or objects within each other ~1000 deep)") from error
    if not isinstance(document, dict) or document.get("type") != "GameHistory":
        raise reader.fail("not a GameHistory object (missing \"type\": \"GameHistory\")")
    missing = [key for key in ("white_name", "black_name", *LIST_KEYS, "winner_color", "win_reason") if key not in document]
    if missing:
        raise reader.fail(f"missing field(s) {', '.join(missing)}")
    for key in ("white_name", "black_name"):
        if document[key] is not None and not isinstance(document[key], str):
            raise reader.fail(f"{key} is {document[key]!r}, not a string or null")
    winner = document["winner_color"]
    if winner is not None and not isinstance(winner, bool):
        raise reader.fail(f"winner_color is {winner!r}, not true, false or null")
    reason = document["win_reason"]
    if reason is not None:
        if not isinstance(reason, dict) or reason.get("type") != "WinReason" or reason.get("value") not in WinReason.__members__:
            raise reader.fail(f"win_reason is {reason!r}, not a WinReason object or null")
        reason = WinReason[reason["value"]]

    lists = {key: reader.per_colour(document, key) for key in LIST_KEYS}
    _check_play_order(reader, {key: (len(white), len(black)) for key, (white, black) in lists.items()})
    senses: dict[Color, list[tuple[Optional[Square], SenseResultList]]] = {chess.WHITE: [], chess.BLACK: []}
    moves: dict[Color, list[MoveEntry]] = {chess.WHITE: [], chess.BLACK: []}
    for slot, (name, color) in enumerate(_COLOR_KEYS):
        squares, windows = lists["senses"][slot], lists["sense_results"][slot]
        if len(squares) != len(windows):
            raise reader.fail(f"senses[{name!r}] has {len(squares)} entries but sense_results[{name!r}] has {len(windows)}")
        for index, (square, window) in enumerate(zip(squares, windows, strict=True)):
            where = f"[{name!r}][{index}]"
            senses[color].append((reader.square(square, f"senses{where}"), reader.window(window, f"sense_results{where}")))
        move_lists = [lists[key][slot] for key in LIST_KEYS[2:]]
        lengths = {len(items) for items in move_lists}
        if len(lengths) != 1:
            counts = ", ".join(f"{key} {len(items)}" for key, items in zip(LIST_KEYS[2:], move_lists, strict=True))
            raise reader.fail(f"the move fields for {name!r} differ in length ({counts})")
        for index, (requested, taken, capture, before, after) in enumerate(zip(*move_lists, strict=True)):
            where = f"[{name!r}][{index}]"
            moves[color].append((
                reader.move(requested, f"requested_moves{where}"),
                reader.move(taken, f"taken_moves{where}"),
                reader.square(capture, f"capture_squares{where}"),
                reader.fen(before, f"fens_before_move{where}"),
                reader.fen(after, f"fens_after_move{where}"),
            ))
    return DecodedHistory(HistoryHeader(document["white_name"], document["black_name"], winner, reason), senses, moves)
