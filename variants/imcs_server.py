"""An IMCS 2.5 protocol server for Mini-Chess, so that classes can run their own ladder offline.

Speaks the protocol of :mod:`~blindchess.variants.imcs_protocol` (read it for the wire format
and its sources). Commands: ``help``, ``quit``, ``me``, ``register``, ``password``, ``list``,
``ratings``, ``offer [W|B|?] [my-seconds [opponent-seconds]]``, ``accept <id> [W|B]``, ``clean``.
Games follow the IMCS rules (`IMCS`). Users and ratings live in memory, or in a JSON file when
`users_path` is given (written on every change). Ratings are plain Elo (start 1500, K = 32),
updated after every game; IMCS's own rating formula is not reproduced (a deliberate simplification).

Threads: one per connection (`socketserver.ThreadingTCPServer`). An offering connection
waits until its offer is accepted; the accepting connection then runs the game with both
sockets and both connections close when it ends, as the original server does.
"""

from __future__ import annotations

import contextlib
import json
import logging
import select
import socket
import socketserver
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import chess
import numpy as np

from blindchess.arbiter.types import Color
from blindchess.ids import is_canonical_id
from blindchess.variants.imcs_protocol import (
    GREETING,
    PROTOCOL_VERSION,
    board_lines,
    move_text,
    offer_clock,
    parse_move,
    prompt_clock,
    side_letter,
)
from blindchess.variants.minichess import IMCS, MiniChessRules

logger = logging.getLogger(__name__)

BASE_RATING = 1500
ELO_K = 32
DEFAULT_SECONDS = 300.0
FIRST_MOVE_LIMIT = 60.0
"""Seconds a player may take over their first move, which does not use their clock (as in IMCS)."""
_GRACE = 10.0

HELP_LINES = (
    f"210 imcs {PROTOCOL_VERSION} help",
    " help: this help",
    " quit: quit imcs",
    " me <name> <password>: log in",
    " register <name> <password>: register a new name and log in",
    " password <password>: change password",
    " list: list available games in format",
    "       <id> <opponent-name> <opponent-color> <opponent-time> <my-time> <opponent-rating>",
    " ratings: list player ratings (top 10 plus own)",
    " offer [<color> [<my-time> [<opponent-time>]]]: offer a game as W, B, or ?",
    " accept <id> [<color>]: accept a game with an opponent",
    " clean: cancel all outstanding offers by player",
    ".",
)


class _Session:
    """One client connection: line I/O over its socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # one short line per message: no Nagle delay
        self.reader = sock.makefile("r", encoding="ascii", errors="replace", newline="\n")
        self.name: Optional[str] = None
        self.lock = threading.Lock()

    def send(self, *lines: str) -> None:
        data = "".join(line + "\r\n" for line in lines).encode("ascii", "replace")
        with self.lock:
            self.sock.sendall(data)

    def disconnected(self) -> bool:
        """True when the peer has closed the connection (checked without consuming any input)."""
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
            return bool(readable) and self.sock.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def read_line(self, timeout: Optional[float] = None) -> Optional[str]:
        """The next line without its line ending; None on disconnect.

        Raises:
            TimeoutError: no complete line within `timeout` seconds.
        """
        self.sock.settimeout(timeout)
        try:
            line = self.reader.readline()
        except TimeoutError:
            raise
        except (OSError, ValueError):
            return None
        finally:
            with contextlib.suppress(OSError):
                self.sock.settimeout(None)
        return line.rstrip("\r\n") if line else None


@dataclass
class _Offer:
    game_id: int
    name: str
    color: str
    seconds: tuple[float, float]
    """(offerer's, acceptor's) clock."""
    session: _Session
    done: threading.Event = field(default_factory=threading.Event)


class ImcsServer(socketserver.ThreadingTCPServer):
    """A threaded IMCS 2.5 server on `address` (127.0.0.1 only unless the caller says otherwise).

    Args:
        address: (host, port); port 0 picks a free one (see `server_address`).
        rules: the Mini-Chess rule set games follow.
        clock: seconds, monotonic (tests inject a fake one for exact transcripts).
        users_path: a JSON file keeping users between runs (None: in memory).
        seed: colour choice when both sides asked for ``?``.
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int] = ("127.0.0.1", 3589),
        rules: MiniChessRules = IMCS,
        clock: Callable[[], float] = time.monotonic,
        users_path: Optional[Path] = None,
        seed: int = 0,
    ) -> None:
        super().__init__(address, _Handler)
        self.rules = rules
        self.clock = clock
        self.users_path = users_path
        stored = json.loads(users_path.read_text()) if users_path and users_path.exists() else {}
        self.users: dict[str, str] = {name: entry["password"] for name, entry in stored.items()}
        self.ratings: dict[str, float] = {name: float(entry["rating"]) for name, entry in stored.items()}
        self.offers: dict[int, _Offer] = {}
        self.next_game_id = 1
        self.state_lock = threading.Lock()
        self.rng = np.random.default_rng(seed)

    def start_in_thread(self) -> threading.Thread:
        """Serve in a daemon thread (for tests and embedding); stop with `shutdown()` then `server_close()`."""
        thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, name="imcs-server", daemon=True)
        thread.start()
        return thread

    def _save_users(self) -> None:
        if self.users_path is not None:
            tmp = self.users_path.with_suffix(".tmp")
            stored = {name: {"password": password, "rating": self.ratings[name]} for name, password in self.users.items()}
            tmp.write_text(json.dumps(stored, indent=1, sort_keys=True))
            tmp.replace(self.users_path)

    # -- commands ---------------------------------------------------------------

    def serve_session(self, session: _Session) -> None:
        session.send(GREETING)
        while True:
            line = session.read_line()
            if line is None:
                self._withdraw(session)
                return
            words = line.split()
            if not words:
                continue
            command, args = words[0], words[1:]
            if command == "quit":
                session.send("200 Goodbye")
                self._withdraw(session)
                return
            handler = _COMMANDS.get(command)
            if handler is None:
                session.send("501 unknown command")
                continue
            if handler(self, session, args):
                return  # a game was played on this connection: it is closed

    def _withdraw(self, session: _Session) -> None:
        with self.state_lock:
            for game_id in [i for i, offer in self.offers.items() if offer.session is session]:
                del self.offers[game_id]

    def cmd_help(self, session: _Session, args: list[str]) -> bool:
        session.send(*HELP_LINES)
        return False

    def cmd_me(self, session: _Session, args: list[str]) -> bool:
        if len(args) != 2:
            session.send("409 me: usage: me <name> <password>")
            return False
        name, password = args
        with self.state_lock:
            known = self.users.get(name)
        if known is None:
            session.send("400 no such username: please use register command")
        elif known != password:
            session.send("401 wrong password")
        else:
            session.name = name
            session.send(f"201 hello {name}")
        return False

    def cmd_register(self, session: _Session, args: list[str]) -> bool:
        if len(args) != 2:
            session.send("409 register: usage: register <name> <password>")
            return False
        name, password = args
        if not all(c.isalnum() or c in "-_." for c in name):
            session.send("410 illegal characters in username")
            return False
        with self.state_lock:
            if name in self.users:
                session.send("402 username already exists: please use password command to change")
                return False
            self.users[name] = password
            self.ratings[name] = float(BASE_RATING)
            self._save_users()
        session.name = name
        session.send(f"202 hello new user {name}")
        return False

    def cmd_password(self, session: _Session, args: list[str]) -> bool:
        if len(args) != 1:
            session.send("409 password: usage: password <password>")
        elif session.name is None:
            session.send("403 please use the me command first")
        else:
            with self.state_lock:
                self.users[session.name] = args[0]
                self._save_users()
            session.send(f"203 password change for user {session.name}")
        return False

    def cmd_list(self, session: _Session, args: list[str]) -> bool:
        with self.state_lock:
            offers = sorted(self.offers.values(), key=lambda o: o.game_id)
        lines = [f"211 {len(offers)} available games"]
        for o in offers:
            rating = round(self.ratings.get(o.name, BASE_RATING))
            lines.append(f" {o.game_id} {o.name} {o.color} {offer_clock(o.seconds[0])} {offer_clock(o.seconds[1])} {rating} [offer]")
        session.send(*lines, ".")
        return False

    def cmd_ratings(self, session: _Session, args: list[str]) -> bool:
        with self.state_lock:
            ranked = sorted(self.ratings, key=lambda name: (-self.ratings[name], name))
            shown = ranked[:10] + ([session.name] if session.name in ranked[10:] else [])
            lines = [f" {name} {round(self.ratings[name])}" for name in shown]
        session.send("212 ratings", *lines, ".")
        return False

    def cmd_clean(self, session: _Session, args: list[str]) -> bool:
        with self.state_lock:
            mine = [i for i, offer in self.offers.items() if offer.session is session]
            for game_id in mine:
                del self.offers[game_id]
        session.send(f"204 {len(mine)} games cleaned")
        return False

    def cmd_offer(self, session: _Session, args: list[str]) -> bool:
        if len(args) > 3:
            session.send("409 offer: usage: offer [<color> [<my-time> [<opponent-time>]]]")
            return False
        color = args[0] if args else "?"
        if color not in ("W", "B", "?"):
            session.send(f"405 bad color {color}")
            return False
        try:
            seconds = [float(a) for a in args[1:]]
        except ValueError:
            session.send("409 offer: usage: offer [<color> [<my-time> [<opponent-time>]]]")
            return False
        if any(s <= 0 for s in seconds):
            session.send("409 offer: usage: offer [<color> [<my-time> [<opponent-time>]]]")
            return False
        if session.name is None:
            session.send("404 must set name first using me command")
            return False
        mine = seconds[0] if seconds else DEFAULT_SECONDS
        theirs = seconds[1] if len(seconds) > 1 else mine
        with self.state_lock:
            offer = _Offer(self.next_game_id, session.name, color, (mine, theirs), session)
            self.offers[offer.game_id] = offer
            self.next_game_id += 1
        session.send(f"103 {offer.game_id} game waiting for offer acceptance")
        while not offer.done.wait(timeout=0.1):
            if session.disconnected():
                with self.state_lock:
                    withdrawn = self.offers.pop(offer.game_id, None) is not None
                if withdrawn:
                    logger.info("offer %d withdrawn: %s disconnected", offer.game_id, offer.name)
                    return True
        return True

    def cmd_accept(self, session: _Session, args: list[str]) -> bool:
        if not args or len(args) > 2:
            session.send("409 accept: usage: accept <id> [<color>]")
            return False
        if session.name is None:
            session.send("406 must set name first using me command")
            return False
        if not is_canonical_id(args[0]) or len(args[0]) >= 9:  # isdigit() passed 01 and Arabic-Indic digits
            session.send("407 bad game id")
            return False
        wanted = args[1] if len(args) == 2 else None
        with self.state_lock:
            offer = self.offers.get(int(args[0]))
            if offer is None:
                session.send("408 no such game")
                return False
            if wanted not in (None, "W", "B", "?") or (wanted in ("W", "B") and wanted == offer.color):
                session.send(f"405 bad color {wanted}")
                return False
            del self.offers[offer.game_id]
        if offer.color == "?":
            offerer_white = wanted == "B" if wanted in ("W", "B") else bool(self.rng.integers(2))
        else:
            offerer_white = offer.color == "W"
        try:
            players = {chess.WHITE: offer.session, chess.BLACK: session}
            clocks = {chess.WHITE: offer.seconds[0], chess.BLACK: offer.seconds[1]}
            if not offerer_white:
                players = {chess.WHITE: session, chess.BLACK: offer.session}
                clocks = {chess.WHITE: offer.seconds[1], chess.BLACK: offer.seconds[0]}
            self._play(players, clocks)
        finally:
            offer.done.set()
        return True

    # -- the game ---------------------------------------------------------------

    def _play(self, players: dict[Color, _Session], clocks: dict[Color, float]) -> None:
        for color, code in ((chess.WHITE, "105"), (chess.BLACK, "106")):
            mine, theirs = offer_clock(clocks[color]), offer_clock(clocks[not color])
            players[color].send(f"{code} {side_letter(color)} {mine} {theirs} game starts")
        rules = self.rules
        position = rules.start()
        first_move = {chess.WHITE: True, chess.BLACK: True}
        result: Optional[str] = None
        while result is None:
            outcome = rules.outcome(position)
            if outcome is not None:
                result = "draw" if outcome.winner is None else f"{side_letter(outcome.winner)} wins"
                break
            color = position.turn
            mover, other = players[color], players[not color]
            started = self.clock()  # the mover's clock runs from the moment the prompt goes out
            mover.send("", *board_lines(rules, position), "", f"? {prompt_clock(clocks[color])} {prompt_clock(clocks[not color])}")
            limit = FIRST_MOVE_LIMIT if first_move[color] else clocks[color] + _GRACE
            winner = side_letter(not color)
            try:
                line = mover.read_line(timeout=limit)
            except TimeoutError:
                result = f"{winner} wins on opponent time"
                break
            elapsed = self.clock() - started
            if not first_move[color]:
                clocks[color] = max(0.0, clocks[color] - elapsed)
            if line is None:
                result = f"{winner} wins on opponent disconnect"
                break
            if clocks[color] <= 0:
                result = f"{winner} wins on opponent time"
                break
            words = line.split()
            if words == ["resign"]:
                result = f"{winner} wins on opponent resignation"
                break
            text = words[1] if len(words) == 2 and words[0] == "!" else (words[0] if len(words) == 1 else " ".join(words))
            move = parse_move(text)
            if move is None:
                mover.send(f"- invalid move {_sanitized(text)}")
                continue
            legal = {(m.from_square, m.to_square): m for m in rules.legal_moves(position)}
            if (move.from_square, move.to_square) not in legal:
                mover.send(f"- illegal move {text}")
                continue
            first_move[color] = False
            rules.push(position, legal[(move.from_square, move.to_square)])
            _send_quietly(other, f"! {move_text(move)}")
        code = "230" if result == "draw" else "231" if result.startswith("W") else "232"
        self._rate(players[chess.WHITE].name, players[chess.BLACK].name, {"230": 0.5, "231": 1.0, "232": 0.0}[code])
        for session in (players[chess.WHITE], players[chess.BLACK]):
            _send_quietly(session, f"= {result}", f"{code} {result}")
        logger.info("imcs game over: %s", result)
        for session in (players[chess.WHITE], players[chess.BLACK]):
            with contextlib.suppress(OSError):
                session.sock.shutdown(socket.SHUT_RDWR)
            session.sock.close()


    def _rate(self, white: Optional[str], black: Optional[str], white_score: float) -> None:
        if white is None or black is None or white == black:
            return
        with self.state_lock:
            self.ratings[white], self.ratings[black] = elo_update(self.ratings[white], self.ratings[black], white_score)
            self._save_users()


def elo_update(rating: float, other: float, score: float, k: float = ELO_K) -> tuple[float, float]:
    """Both Elo ratings after a game that gave the first player `score` (1 win, 0.5 draw, 0 loss).

    >>> elo_update(1500, 1500, 1.0)
    (1516.0, 1484.0)
    """
    expected = 1 / (1 + 10 ** ((other - rating) / 400))
    change = k * (score - expected)
    return rating + change, other - change


def _sanitized(text: str) -> str:
    return "".join(c if c.isprintable() and c != "\\" else ("\\\\" if c == "\\" else f"\\[{ord(c):02x}]") for c in text)


def _send_quietly(session: _Session, *lines: str) -> None:
    try:
        session.send(*lines)
    except OSError:
        logger.debug("could not send %r: connection gone", lines)


class _Handler(socketserver.BaseRequestHandler):
    server: ImcsServer

    def handle(self) -> None:
        session = _Session(self.request)
        try:
            self.server.serve_session(session)
        except OSError as error:
            logger.debug("connection ended: %s", error)


_COMMANDS: dict[str, Callable[[ImcsServer, _Session, list[str]], bool]] = {
    "help": ImcsServer.cmd_help,
    "me": ImcsServer.cmd_me,
    "register": ImcsServer.cmd_register,
    "password": ImcsServer.cmd_password,
    "list": ImcsServer.cmd_list,
    "ratings": ImcsServer.cmd_ratings,
    "clean": ImcsServer.cmd_clean,
    "offer": ImcsServer.cmd_offer,
    "accept": ImcsServer.cmd_accept,
}
