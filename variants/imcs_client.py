"""An IMCS 2.5 client: plays one Mini-Chess game on an Internet MiniChess Server with a `MiniChessPlayer`.

The wire format and its sources are in :mod:`~blindchess.variants.imcs_protocol`.
The client trusts the server's board: at every prompt it parses the board it was
sent and asks the player for a move in that position, so it never drifts from the
server even after an illegal-move notice.
"""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass
from typing import Optional

from blindchess.arbiter.types import Color
from blindchess.variants.imcs_protocol import GREETING, ImcsProtocolError, move_text, parse_board
from blindchess.variants.minichess import IMCS, MiniChessRules
from blindchess.variants.perfect_play import MiniChessPlayer

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT = 10.0


@dataclass(frozen=True)
class ImcsGameResult:
    """How a game on the server ended for us: our colour, the result code (230/231/232) and its text."""

    color: Color
    code: int
    text: str
    moves_sent: int

    @property
    def winner(self) -> Optional[Color]:
        """The winning colour, None for a draw."""
        return None if self.code == 230 else self.code == 231


class _Connection:
    def __init__(self, host: str, port: int, timeout: Optional[float]) -> None:
        self.sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
        self.sock.settimeout(timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("r", encoding="ascii", errors="replace", newline="\n")

    def send(self, line: str) -> None:
        logger.debug("> %s", line)
        self.sock.sendall((line + "\r\n").encode("ascii"))

    def read(self) -> str:
        line = self.reader.readline()
        if not line:
            raise ImcsProtocolError("the server closed the connection")
        logger.debug("< %s", line.rstrip())
        return line.rstrip("\r\n")

    def close(self) -> None:
        self.reader.close()  # the file object holds the socket open until it is closed too
        self.sock.close()


def play_imcs_game(
    player: MiniChessPlayer,
    server: tuple[str, int],
    user: str,
    password: str,
    offer: Optional[str] = None,
    accept: Optional[int] = None,
    rules: MiniChessRules = IMCS,
    register: bool = True,
    timeout: Optional[float] = 900.0,
) -> ImcsGameResult:
    """Log in (registering `user` if the server does not know it), offer or accept a game, and play it.

    Args:
        offer: ``W``, ``B`` or ``?`` to offer a game with that colour for us.
        accept: the id of an offered game to accept (exactly one of `offer` and `accept`).
        timeout: seconds to wait for any server line (an offer may wait long for an opponent).

    Raises:
        ImcsProtocolError: the server refused us or broke the protocol (the message quotes its line).
    """
    if (offer is None) == (accept is None):
        raise ImcsProtocolError("give exactly one of offer and accept")
    if offer is not None and offer not in ("W", "B", "?"):
        raise ImcsProtocolError(f"offer colour {offer!r} is not W, B or ?")
    connection = _Connection(server[0], server[1], timeout)
    try:
        greeting = connection.read()
        if not greeting.startswith("100 imcs"):
            raise ImcsProtocolError(f"unexpected greeting {greeting!r} (wanted {GREETING!r})")
        connection.send(f"me {user} {password}")
        reply = connection.read()
        if reply.startswith("400") and register:
            connection.send(f"register {user} {password}")
            reply = connection.read()
        if not reply.startswith(("201", "202")):
            raise ImcsProtocolError(f"login refused: {reply!r}")
        connection.send(f"offer {offer}" if offer is not None else f"accept {accept}")
        reply = connection.read()
        if reply.startswith("103"):
            logger.info("offered: %s", reply)
            reply = connection.read()
        if not reply.startswith(("105", "106")):
            raise ImcsProtocolError(f"no game: {reply!r}")
        color = reply.startswith("105")
        return _play(connection, player, rules, color)
    finally:
        connection.close()


def _play(connection: _Connection, player: MiniChessPlayer, rules: MiniChessRules, color: Color) -> ImcsGameResult:
    sent = 0
    while True:
        line = connection.read()
        if not line or line.startswith("! "):
            continue  # blank separators; the opponent's move (the next board shows it)
        if line.startswith("- "):
            logger.warning("server: %s", line)
            continue
        if line.startswith("= "):
            code_line = connection.read()
            code = code_line.split(" ", 1)[0]
            if code not in ("230", "231", "232"):
                raise ImcsProtocolError(f"result {line!r} followed by {code_line!r}")
            return ImcsGameResult(color, int(code), line[2:], sent)
        board = [line] + [connection.read() for _ in range(rules.ranks)]
        position = parse_board(rules, board)
        prompt = connection.read()
        while not prompt:
            prompt = connection.read()
        if not prompt.startswith("?"):
            raise ImcsProtocolError(f"expected the move prompt, got {prompt!r}")
        move = player.choose_move(rules, position)
        connection.send(move_text(move))
        sent += 1
