"""Reading reconchess GameHistory JSON into a `GameHistory`, checking every field on the way.

Why a checked reader: reconchess's decoder accepts anything shaped roughly right and
fails later, deep inside a query, with a KeyError or a TypeError. A file here is read
completely up front; anything malformed raises `HistoryFormatError` naming the source,
the field and the bad value, and nothing half-built escapes.
"""

from __future__ import annotations

import json
from typing import Any, Optional

import chess

from .history import _LIST_KEYS, GameHistory, HistoryFormatError, SenseResultList
from .types import WinReason

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


def decode_history(text: str, source: str) -> GameHistory:
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
    missing = [key for key in ("white_name", "black_name", *_LIST_KEYS, "winner_color", "win_reason") if key not in document]
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

    lists = {key: reader.per_colour(document, key) for key in _LIST_KEYS}
    _check_play_order(reader, {key: (len(white), len(black)) for key, (white, black) in lists.items()})
    history = GameHistory()
    history.store_players(document["white_name"], document["black_name"])
    for slot, (name, color) in enumerate(_COLOR_KEYS):
        senses, windows = lists["senses"][slot], lists["sense_results"][slot]
        if len(senses) != len(windows):
            raise reader.fail(f"senses[{name!r}] has {len(senses)} entries but sense_results[{name!r}] has {len(windows)}")
        for index, (square, window) in enumerate(zip(senses, windows, strict=True)):
            where = f"[{name!r}][{index}]"
            history.store_sense(color, reader.square(square, f"senses{where}"), reader.window(window, f"sense_results{where}"))
        move_lists = [lists[key][slot] for key in _LIST_KEYS[2:]]
        lengths = {len(items) for items in move_lists}
        if len(lengths) != 1:
            counts = ", ".join(f"{key} {len(items)}" for key, items in zip(_LIST_KEYS[2:], move_lists, strict=True))
            raise reader.fail(f"the move fields for {name!r} differ in length ({counts})")
        for index, (requested, taken, capture, before, after) in enumerate(zip(*move_lists, strict=True)):
            where = f"[{name!r}][{index}]"
            history.store_move(
                color,
                reader.move(requested, f"requested_moves{where}"),
                reader.move(taken, f"taken_moves{where}"),
                reader.square(capture, f"capture_squares{where}"),
                reader.fen(before, f"fens_before_move{where}"),
                reader.fen(after, f"fens_after_move{where}"),
            )
    history.store_results(winner, reason)
    white_moves = lists["fens_before_move"][0]
    if white_moves:
        history.starting_fen = white_moves[0]
    return history
