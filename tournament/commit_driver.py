"""The far end of a bot at another commit: run as a script by a Python whose ``blindchess`` is that commit's.

`blindchess.tournament.commit_bot` starts ``python -P <this file> BOT SEED SETTINGS`` with
PYTHONPATH on the commit's exported package tree, so every ``blindchess`` import here is the old
commit's. This file is the current commit's, and it may only use what both offer: the bot
callbacks of `Player`, `BotSpec` (label, bot, settings) and ``tournament.task``'s
``build_player(spec, seed, rules)`` and ``variant_rules``, all there since before the
tournament runner was written (the commits of issue 39 have them).

The protocol is one JSON array per line each way. The parent sends ``[callback, arguments]``;
the reply is ``["ok", value]`` or ``["error", text]`` (the bot raised: the traceback). Chess
values travel as text or integers: a colour as a bool, squares as integers, moves as UCI, pieces
as symbols, the board as a FEN, a win reason by its name; `handle_game_end` gets no history
(the old bot cannot read the new one's). Standard output is the protocol's: whatever the bot
prints goes to standard error instead, so a stray ``print`` cannot corrupt a reply.

The first line it writes is ``["ready", name]`` once the bot is built (the class name of the
commit's bot), or ``["error", text]`` if it cannot be; with ``--check`` it exits after that.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import IO, Any, Optional


def decoded(call: str, arguments: list[Any]) -> list[Any]:
    """The callback's arguments as the bot takes them, from their JSON form (see the module docstring).

    >>> decoded("handle_sense_result", [[[27, "P"], [28, None]]])
    [[(27, Piece.from_symbol('P')), (28, None)]]
    >>> decoded("choose_move", [["e2e4"], 12.5])
    [[Move.from_uci('e2e4')], 12.5]
    """
    import chess

    def move(text: Optional[str]) -> Optional[chess.Move]:
        return None if text is None else chess.Move.from_uci(text)

    if call == "handle_game_start":
        color, fen, opponent = arguments
        return [color, chess.Board(fen), opponent]
    if call == "choose_sense":
        squares, moves, seconds = arguments
        return [squares, [move(text) for text in moves], seconds]
    if call == "handle_sense_result":
        return [[(square, None if symbol is None else chess.Piece.from_symbol(symbol)) for square, symbol in arguments[0]]]
    if call == "choose_move":
        moves, seconds = arguments
        return [[move(text) for text in moves], seconds]
    if call == "handle_move_result":
        requested, taken, captured, square = arguments
        return [move(requested), move(taken), captured, square]
    if call == "handle_game_end":
        from blindchess.arbiter.types import WinReason

        winner, reason = arguments
        return [winner, None if reason is None else WinReason[reason], None]
    return arguments


def encoded(value: Any) -> Any:
    """A callback's answer in its JSON form: a move as UCI, anything else (a square, None) as it is.

    >>> import chess
    >>> encoded(chess.Move.from_uci("e7e8q")), encoded(36), encoded(None)
    ('e7e8q', 36, None)
    """
    uci = getattr(value, "uci", None)
    return uci() if callable(uci) else value


def serve(bot: Any, requests: IO[str], replies: IO[str]) -> None:
    """Answer `requests` line by line with `bot`'s callbacks until the game ends or the parent closes the pipe."""
    for line in requests:
        call, arguments = json.loads(line)
        try:
            reply = ["ok", encoded(getattr(bot, call)(*decoded(call, arguments)))]
        except Exception:
            reply = ["error", traceback.format_exc()]
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
        if call == "handle_game_end":
            return


def main(argv: list[str]) -> int:
    """Build the bot ``argv = [bot, seed, settings JSON]`` (``--check`` first: build only), say so, then serve it."""
    check = argv[:1] == ["--check"]
    bot_name, seed, settings = argv[1:] if check else argv
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # the bot's own output (Python's and its extensions') goes to standard error
    sys.stdout = sys.stderr
    try:
        from blindchess.tournament import task
        from blindchess.tournament.spec import BotSpec

        bot = task.build_player(BotSpec(bot_name, bot_name, json.loads(settings)), int(seed), task.variant_rules("rbc"))
    except Exception:
        replies.write(json.dumps(["error", traceback.format_exc()]) + "\n")
        replies.flush()
        return 1
    replies.write(json.dumps(["ready", type(bot).__name__]) + "\n")
    replies.flush()
    if not check:
        serve(bot, sys.stdin, replies)
    close = getattr(bot, "close", None)
    if callable(close):
        close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
