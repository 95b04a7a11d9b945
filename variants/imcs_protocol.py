"""The line formats of the Internet MiniChess Server protocol, version 2.5 (shared by our client and server).

Sources: the IMCS 2.5 server by Bart Massey (github.com/BartMassey/imcs: `docs/result-codes.txt`,
`Game.hs`, `State.hs`, `Service.hs`, `docs/client-workflow.md`) and its Python client, read as
reference (no code copied). What a game looks like on the wire (``>`` server to client, ``<``
client to server)::

    > 100 imcs 2.5
    < me alice secret                     > 201 hello alice
    < offer W 300 300                     > 103 17 game waiting for offer acceptance
    ... (bob: accept 17)                  > 105 W 5:00 5:00 game starts
    >                                     (an empty line, then the board the mover sees)
    > 1 W                                 (move number, side to move)
    > kqbnr
    > ppppp
    > .....
    > .....
    > PPPPP
    > RNBQK
    >
    > ? 05:00.000 05:00.000               (the prompt: mover's and opponent's clocks)
    < a2-a3                               (also accepted: "! a2-a3"; "resign")
    ...                                   (the opponent receives "! a2-a3")
    > = W wins                            (then the result code line, to both players)
    > 231 W wins

An illegal move is answered ``- illegal move a2-a4`` and an unparsable one
``- invalid move zz``; the mover is then prompted again with the same board.
Results: ``230 draw``, ``231 W wins``, ``232 B wins``, the wins followed by
`` on opponent resignation`` / `` on opponent time`` / `` on opponent disconnect``
where that is why.

Assumptions where the sources are thin (the live server is gone): clocks are
shown as ``m:ss`` in the 105/106 line and as ``mm:ss.sss`` in the prompt; each
player's first move does not use their clock (as `Game.hs` does); a side to move
with no legal move loses (the issue's statement of IMCS 2.5 rules).
"""

from __future__ import annotations

import re
from typing import Optional

import chess

from blindchess.arbiter.types import Color
from blindchess.errors import BlindchessError
from blindchess.variants.geometry import code_piece, piece_code
from blindchess.variants.minichess import MiniChessRules, Position

PROTOCOL_VERSION = "2.5"
GREETING = f"100 imcs {PROTOCOL_VERSION}"
_MOVE = re.compile(r"^([a-e])([1-6])-([a-e])([1-6])$")
_HEADER = re.compile(r"^(\d+) ([WB])$")


class ImcsProtocolError(BlindchessError, ValueError):
    """A line that breaks the IMCS protocol (the message quotes it)."""


def side_letter(color: Color) -> str:
    return "W" if color == chess.WHITE else "B"


def move_text(move: chess.Move) -> str:
    """``a2-a3`` for a move (promotion is implied in Mini-Chess)."""
    return f"{chess.square_name(move.from_square)}-{chess.square_name(move.to_square)}"


def parse_move(text: str) -> Optional[chess.Move]:
    """The move ``a2-a3`` names, or None if the text is not a move on the 5x6 board."""
    match = _MOVE.match(text)
    if match is None:
        return None
    origin = chess.parse_square(match.group(1) + match.group(2))
    target = chess.parse_square(match.group(3) + match.group(4))
    return chess.Move(origin, target)


def board_lines(rules: MiniChessRules, position: Position) -> list[str]:
    """The board as the server sends it: ``<move number> <W|B>`` then the ranks from the top, ``.`` for empty."""
    lines = [f"{position.ply // 2 + 1} {side_letter(position.turn)}"]
    for rank in range(rules.ranks - 1, -1, -1):
        row = ""
        for file in range(rules.files):
            piece = code_piece(position.cells[chess.square(file, rank)])
            row += "." if piece is None else piece.symbol()
        lines.append(row)
    return lines


def parse_board(rules: MiniChessRules, lines: list[str]) -> Position:
    """The position of a header line and `ranks` board lines.

    Raises:
        ImcsProtocolError: the lines are not a board of this size.
    """
    if len(lines) != rules.ranks + 1 or (header := _HEADER.match(lines[0])) is None:
        raise ImcsProtocolError(f"not an IMCS board: {lines!r}")
    cells = [0] * 64
    for i, row in enumerate(lines[1:]):
        if len(row) != rules.files:
            raise ImcsProtocolError(f"board row {row!r} is not {rules.files} squares wide")
        for file, char in enumerate(row):
            if char == ".":
                continue
            try:
                cells[chess.square(file, rules.ranks - 1 - i)] = piece_code(chess.Piece.from_symbol(char))
            except ValueError:
                raise ImcsProtocolError(f"board row {row!r}: unknown piece {char!r}") from None
    turn = header.group(2) == "W"
    return Position(cells, turn, 2 * (int(header.group(1)) - 1) + (0 if turn else 1))


def offer_clock(seconds: float) -> str:
    """``m:ss`` as in the ``105 W 5:00 5:00 game starts`` line."""
    whole = round(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def prompt_clock(seconds: float) -> str:
    """``mm:ss.sss`` as in the ``? 04:59.837 04:58.992`` prompt."""
    millis = max(0, round(seconds * 1000))
    return f"{millis // 60000:02d}:{millis % 60000 / 1000:06.3f}"
