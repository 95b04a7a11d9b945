"""What an isolated bot's process may send the arbiter: small JSON replies, checked before use.

Why not pickle, as `multiprocessing` does by default: unpickling runs whatever code the data
names (an object whose ``__reduce__`` returns ``(exec, (source,))`` runs that source), so a
bot that could have its answers unpickled in the arbiter could run code there. The bot's
process therefore encodes every reply itself, as one JSON array of at most `MAX_REPLY_BYTES`,
and the arbiter decodes it with `decode_reply`, which accepts only these shapes:

=================================  ==============================================
Reply                              Meaning
=================================  ==============================================
``["ok"]``                         a callback without an answer returned
``["ok", null]``                   ``choose_sense``/``choose_move`` answered None
``["ok", 12]``                     ``choose_sense`` answered square 12
``["ok", "e7e8q"]``                ``choose_move`` answered that move (UCI)
``["bad", "bytes", "b'AA'…"]``     an answer of another type: its type name and a
                                   quoted prefix (`quote`), never the object
``["error", "Type: msg", "tb"]``   the bot raised (message and traceback, cut short)
``["ok", "line", ...]``            ``handle_game_end`` returned; the lines are the
                                   bot's ``failure_report()`` (`encode_report`)
=================================  ==============================================

Anything else, or more bytes than the bound, is the bot's fault (`BotProtocolError`); a
``bad`` answer is too (`BotAnswerError`). Requests go the other way pickled: the arbiter
trusts what it sends itself.
"""

from __future__ import annotations

import json
import numbers
from typing import Any, Optional

import chess

from blindchess.errors import BlindchessError

MAX_REPLY_BYTES = 64 * 1024
"""The largest reply the arbiter reads; a longer one is refused unread (`BotProtocolError`)."""

QUOTE_CHARS = 200
"""How much of a bad answer (and of an error message) a fault quotes."""

TRACEBACK_CHARS = 16_000
"""How much of a traceback comes back (its end, where the exception is)."""

ANSWERING = {"choose_sense": "a square or None", "choose_move": "a chess.Move or None"}
"""The callbacks whose answer the arbiter uses, and what that answer must be."""

REPORTING = "handle_game_end"
"""The callback whose reply carries the bot's failure report: a belief bot survives a planner or selector
that raises, and only its own process counts how often (`BeliefBot.failure_report`)."""

MAX_REPORT_LINES = 16
"""The most report lines a reply carries (a belief bot has one per failing callback)."""


class IsolatedBotError(BlindchessError):
    """An isolated bot raised; the message is the bot's ``Type: message``, `remote_traceback` its traceback."""

    def __init__(self, message: str, remote_traceback: str) -> None:
        super().__init__(message)
        self.remote_traceback = remote_traceback


class BotProtocolError(BlindchessError):
    """An isolated bot's process sent something that is not a reply (too long, not JSON, wrong shape)."""


class BotAnswerError(BlindchessError):
    """An isolated bot answered with an object of the wrong type; the message quotes a prefix of it."""


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """A repr of `value` cut to `limit` characters, without building the whole repr of a long string or bytes.

    >>> quote(b"A" * 10**6, 12)
    "b'AAAAAAAAAA… (1000000 long)"
    >>> quote([1, 2], 12)
    '[1, 2]'
    """
    if isinstance(value, (str, bytes, bytearray)) and len(value) > limit:
        text = repr(value[:limit])
        return f"{text[:limit]}… ({len(value)} long)"
    try:
        text = repr(value)
    except Exception as error:  # a repr that raises still gets a fault message
        text = f"<{type(value).__name__} whose repr raised {type(error).__name__}>"
    return text if len(text) <= limit else f"{text[:limit]}…"


def encode_answer(callback: str, answer: Any) -> bytes:
    """The reply for `callback` having returned `answer` (in the bot's process)."""
    if callback not in ANSWERING:
        return b'["ok"]'  # other callbacks' return values are not the arbiter's business
    if answer is None:
        return b'["ok", null]'
    if callback == "choose_sense" and isinstance(answer, numbers.Integral) and not isinstance(answer, bool):
        square = int(answer)
        if abs(square) < 2**31:  # the game rejects it if off the board; a huge int is no square either
            return json.dumps(["ok", square]).encode()
    if callback == "choose_move" and isinstance(answer, chess.Move):
        try:
            return json.dumps(["ok", answer.uci()]).encode()
        except (IndexError, TypeError, ValueError):  # a square off the board has no UCI name
            pass
    return encode(["bad", type(answer).__name__[:QUOTE_CHARS], quote(answer)])


def encode_report(lines: object) -> bytes:
    """The reply for `REPORTING` having returned, carrying `lines` (what the bot's ``failure_report()`` gave).

    Strings only, at most `MAX_REPORT_LINES`, each cut to `QUOTE_CHARS`: anything else is the bot's
    fault, answered as a ``bad`` reply.
    """
    if not isinstance(lines, (tuple, list)) or not all(isinstance(line, str) for line in lines):
        return encode(["bad", type(lines).__name__[:QUOTE_CHARS], quote(lines)])
    return encode(["ok", *(line[:QUOTE_CHARS] for line in lines[:MAX_REPORT_LINES])])


def encode_error(message: str, trace: str) -> bytes:
    """The reply for a callback that raised (in the bot's process); both texts cut to their bounds."""
    return encode(["error", message[:QUOTE_CHARS * 10], trace[-TRACEBACK_CHARS:]])


def encode(reply: list[Any]) -> bytes:
    """`reply` as JSON (ASCII, so that a character count bounds the bytes)."""
    return json.dumps(reply, ensure_ascii=True).encode()


def decode_reply(callback: str, data: bytes) -> Any:
    """The answer `data` carries for `callback` (None for callbacks without one; the report lines for `REPORTING`).

    Raises:
        BotProtocolError: `data` is not a reply of the shapes above.
        BotAnswerError: the bot answered with an object of the wrong type.
        IsolatedBotError: the bot raised (message and traceback from its process).
    """
    try:
        reply = json.loads(data)
    except ValueError as error:
        raise BotProtocolError(f"its process sent {quote(data[:QUOTE_CHARS])}, not a JSON reply ({error})") from None
    if not isinstance(reply, list) or not reply or not all(isinstance(item, (str, int, type(None))) for item in reply):
        raise BotProtocolError(f"its process sent {quote(reply)}, not a reply")
    kind, rest = reply[0], reply[1:]
    if kind == "error" and len(rest) == 2 and all(isinstance(text, str) for text in rest):
        raise IsolatedBotError(rest[0][: QUOTE_CHARS * 10], rest[1][-TRACEBACK_CHARS:])
    if kind == "bad" and len(rest) == 2 and all(isinstance(text, str) for text in rest):
        wanted = ANSWERING.get(callback, "report lines (strings)" if callback == REPORTING else "nothing")
        raise BotAnswerError(f"{callback} answered {rest[1][:QUOTE_CHARS + 30]} ({rest[0][:QUOTE_CHARS]}), not {wanted}")
    if kind == "ok" and callback == REPORTING and len(rest) <= MAX_REPORT_LINES and all(isinstance(line, str) for line in rest):
        return tuple(line[:QUOTE_CHARS] for line in rest)
    if kind == "ok" and callback not in ANSWERING and not rest:
        return None
    if kind == "ok" and callback in ANSWERING and len(rest) == 1:
        return _answer(callback, rest[0])
    raise BotProtocolError(f"its process sent {quote(reply)}, not a reply to {callback}")


def _answer(callback: str, value: Optional[int | str]) -> Any:
    if value is None:
        return None
    if callback == "choose_sense" and type(value) is int:
        return value
    if callback == "choose_move" and isinstance(value, str):
        try:
            return chess.Move.from_uci(value)
        except ValueError:
            pass
    raise BotProtocolError(f"its process sent {quote(value)} as the answer of {callback}")
