"""A client for reconchess-compatible servers: HTTP calls with timeouts and bounded retries.

:class:`ServerSession` wraps every endpoint. Unlike reconchess's client, which retries
forever and prints, each request has a connect/read timeout and is retried only on
connection errors, 5xx answers and 429 (after its ``Retry-After``), with exponential
backoff capped at `RetryPolicy.max_delay`, for as long as the request's patience lasts;
then :class:`ServerUnavailable` is raised. A session's patience is `RetryPolicy.patience`
(a minute); inside a game it is at least the player's clock as last seen, so a client
rides out a server restart for as long as its game clock allows (the server does not
charge the time it was down). The first failure of a request is logged as a warning
saying how long the client will keep trying. Any other 4xx answer raises
:class:`ServerRefused` at once (retrying cannot fix it). Retrying a POST is safe on our
server: it recognises a repeated sense/move/end_turn/ready and answers it again without
acting twice, and a 503 means the server stored nothing.

Credentials are sent as UTF-8 (RFC 7617), so any Unicode name and password work.

:class:`RemoteGame` offers the arbiter's game methods over HTTP and
:func:`play_remote_game` plays a :class:`~blindchess.arbiter.Player` through it.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional, cast

import chess
import requests
import requests.auth

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.local_game import Game
from blindchess.arbiter.game.player import Player
from blindchess.arbiter.play import play_turn
from blindchess.arbiter.sandbox.pondering import PonderingPlayer
from blindchess.arbiter.types import Color, Square, WinReason
from blindchess.errors import BlindchessError
from blindchess.server.arbiter_game import history_from_json
from blindchess.server.codec import decode_move, decode_move_result, decode_piece, decode_win_reason, encode_move

logger = logging.getLogger(__name__)


class ServerRefused(BlindchessError, ValueError):
    """The server answered 4xx: the request itself is wrong (bad credentials, not your turn, ...)."""

    def __init__(self, status: int, url: str, message: str) -> None:
        super().__init__(f"{status} from {url}: {message}")
        self.status = status


class AuthenticationFailed(ServerRefused):
    """The server answered 401: no such account, or the wrong password."""


class RefusedAfterOutage(ServerRefused):
    """The server refused a POST that an earlier try of the same request may have reached: the connection
    broke before its answer, so the server may have taken it then and now refuses it as out of turn."""


class ServerUnavailable(BlindchessError, ConnectionError):
    """The server could not be reached (or kept failing) through every retry."""


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try: for `patience` seconds, sleeping `first_delay` * 2**k (at most `max_delay`) between tries."""

    patience: float = 60.0
    first_delay: float = 0.25
    max_delay: float = 4.0
    connect_timeout: float = 3.05
    read_timeout: float = 30.0

    def delay(self, attempt: int) -> float:
        return float(min(self.max_delay, self.first_delay * 2**attempt))


class ServerSession:
    """One user's authenticated connection to a server (thread-safe enough: one session per thread is best)."""

    def __init__(
        self,
        url: str,
        username: str,
        password: str,
        retry: RetryPolicy = RetryPolicy(),
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = url.rstrip("/")
        self.username = username
        self.retry = retry
        self._sleep = sleep
        self.password = password
        self._http = requests.Session()
        self._http.auth = requests.auth.HTTPBasicAuth(username.encode("utf-8"), password.encode("utf-8"))  # str goes as Latin-1

    def with_new_connection(self) -> ServerSession:
        """A session with the same credentials and its own connection pool (for another thread)."""
        clone = ServerSession.__new__(ServerSession)
        clone.url, clone.username, clone.password, clone.retry, clone._sleep = (
            self.url, self.username, self.password, self.retry, self._sleep,
        )  # fmt: skip
        clone._http = requests.Session()
        clone._http.auth = self._http.auth
        return clone

    def request(self, method: str, path: str, body: Optional[dict[str, Any]] = None, patience: Optional[float] = None) -> Any:
        """The decoded JSON answer to `method` `path`, retrying transient failures for `patience` seconds (default the policy's)."""
        url = f"{self.url}{path}"
        data = None if body is None else json.dumps(body)
        patience = self.retry.patience if patience is None else max(patience, self.retry.patience)
        give_up = time.monotonic() + patience
        last_problem = ""
        attempt = 0
        broken = False  # a try's connection broke: a POST may have reached the server without its answer reaching us
        while True:
            wait: Optional[float] = None
            try:
                response = self._http.request(
                    method, url, data=data, timeout=(self.retry.connect_timeout, self.retry.read_timeout),
                    headers=None if data is None else {"Content-Type": "application/json"},
                )
            except requests.RequestException as error:
                last_problem = f"{type(error).__name__}: {error}"
                broken = True
            else:
                if response.status_code < 400:
                    if attempt:
                        logger.warning("%s %s answered after %d retries", method, url, attempt)
                    return response.json()
                if response.status_code == 401:
                    message = f"authentication failed for user {self.username!r}: {_error_text(response)}"
                    raise AuthenticationFailed(response.status_code, url, message)
                if response.status_code < 500 and response.status_code != 429:
                    refused = RefusedAfterOutage if broken and method == "POST" else ServerRefused
                    raise refused(response.status_code, url, _error_text(response))
                last_problem = f"HTTP {response.status_code}: {_error_text(response)}"
                wait = _retry_after(response)
            delay = self.retry.delay(attempt) if wait is None else min(wait, self.retry.max_delay * 4)
            if time.monotonic() + delay > give_up:
                raise ServerUnavailable(f"{method} {url} failed for {patience:.0f} s ({attempt + 1} tries); last: {last_problem}")
            if attempt == 0:
                logger.warning("%s %s failed (%s); retrying for up to %.0f s", method, url, last_problem, patience)
            attempt += 1
            self._sleep(delay)

    def get(self, path: str, patience: Optional[float] = None) -> Any:
        return self.request("GET", path, patience=patience)

    def post(self, path: str, body: Optional[dict[str, Any]] = None, patience: Optional[float] = None) -> Any:
        return self.request("POST", path, body, patience)

    # server and account
    def authenticate(self) -> None:
        """Check the credentials now, with one authenticated request.

        Raises:
            AuthenticationFailed: no such account, or the wrong password.
            ServerUnavailable: the server could not be reached.
        """
        self.bot_version()

    def register(self, email: str = "", affiliation: str = "") -> str:
        body = {"username": self.username, "password": self.password, "email": email, "affiliation": affiliation}
        return str(self.post("/api/users/", body)["username"])

    def active_users(self) -> list[str]:
        return list(self.get("/api/users/")["usernames"])

    def set_max_games(self, max_games: int) -> None:
        self.post("/api/users/me/max_games", {"max_games": max_games})

    def set_ranked(self, ranked: bool) -> None:
        self.post("/api/users/me/ranked", {"ranked": ranked})

    def bot_version(self) -> int:
        return int(self.get("/api/users/me/version")["version"])

    def new_version(self) -> int:
        return int(self.post("/api/users/me/version")["version"])

    def ratings(self) -> list[dict[str, Any]]:
        return list(self.get("/api/ratings/")["ratings"])

    # invitations
    def invitations(self) -> list[int]:
        return [int(i) for i in self.get("/api/invitations/")["invitations"]]

    def invite(self, opponent: str, color: Color) -> int:
        return int(self.post("/api/invitations/", {"opponent": opponent, "color": color})["game_id"])

    def accept(self, invitation_id: int) -> int:
        return int(self.post(f"/api/invitations/{invitation_id}")["game_id"])

    def finish(self, invitation_id: int) -> None:
        self.post(f"/api/invitations/{invitation_id}/finish")


class RemoteGame:
    """The public methods of the arbiter's `Game`, for one player of one server game, over HTTP.

    Structurally a `Game` (it has every public method `play_turn` calls), it does not
    inherit from the `Game` base class, so nothing of `LocalGame`'s implementation is ever
    required of a game held by a server.
    """

    def __init__(self, session: ServerSession, game_id: int, poll_seconds: float = 0.5) -> None:
        self.session = session
        self.game_id = game_id
        self.poll_seconds = poll_seconds
        self._path = f"/api/games/{game_id}"
        self.clock_seen = 0.0
        """The player's clock as last read: how long a request may wait out an outage (see `ServerSession`)."""

    def _get(self, endpoint: str) -> Any:
        return self.session.get(f"{self._path}/{endpoint}", patience=self.clock_seen)[endpoint]

    def _post(self, endpoint: str, body: Optional[dict[str, Any]] = None) -> Any:
        return self.session.post(f"{self._path}/{endpoint}", body if body is not None else {}, patience=self.clock_seen)

    def get_player_color(self) -> Color:
        return bool(self._get("color"))

    def get_starting_board(self) -> chess.Board:
        return chess.Board(self.session.get(f"{self._path}/starting_board")["board"]["value"])

    def get_opponent_name(self) -> str:
        return str(self._get("opponent_name"))

    def start(self) -> None:
        self._post("ready")

    def sense_actions(self) -> list[Square]:
        return [int(square) for square in self._get("sense_actions") or ()]

    def move_actions(self) -> list[chess.Move]:
        return [move for move in (decode_move(item) for item in self._get("move_actions") or ()) if move is not None]

    def get_seconds_left(self) -> float:
        self.clock_seen = float(self._get("seconds_left"))
        return self.clock_seen

    def opponent_move_results(self) -> Optional[Square]:
        capture = self._get("opponent_move_results")
        return None if capture is None else int(capture)

    def sense(self, square: Optional[Square]) -> list[tuple[Square, Optional[chess.Piece]]]:
        result = self._post("sense", {"square": square})["sense_result"]
        return [(int(item[0]), decode_piece(item[1])) for item in result]

    def move(self, requested_move: Optional[chess.Move]) -> tuple[Optional[chess.Move], Optional[chess.Move], Optional[Square]]:
        return decode_move_result(self._post("move", {"requested_move": encode_move(requested_move)})["move_result"])

    def end_turn(self) -> None:
        """End the turn; if the server went down while it took the request, its refusal of the retry ("expects
        ..., not end_turn": it has moved on) means the first try ended the turn."""
        try:
            self._post("end_turn")
        except RefusedAfterOutage as refusal:
            if "not end_turn" not in str(refusal):
                raise
            logger.warning("end_turn: the server took it before an outage and refused the retry (%s)", refusal)

    def resign(self) -> None:
        self._post("resign")

    def error_resign(self) -> None:
        self._post("error_resign")

    def is_over(self) -> bool:
        """Wait until it is this player's turn (False) or the game is over (True)."""
        while True:
            status = self.session.get(f"{self._path}/game_status", patience=self.clock_seen)
            if status["is_over"]:
                return True
            if status["is_my_turn"]:
                return False
            time.sleep(self.poll_seconds)

    def get_winner_color(self) -> Optional[Color]:
        winner = self._get("winner_color")
        return None if winner is None else bool(winner)

    def get_win_reason(self) -> Optional[WinReason]:
        return decode_win_reason(self._get("win_reason"))

    def get_game_history(self) -> GameHistory:
        return history_from_json(self._get("game_history"))


GameOutcome = tuple[Optional[Color], Optional[WinReason], GameHistory]


def play_remote_game(session: ServerSession, game_id: int, player: Player, poll_seconds: float = 0.5) -> GameOutcome:
    """Play `player` in server game `game_id` to the end; returns (winner colour, win reason, history).

    The arbiter's `play_turn` drives each turn; as in reconchess's remote play the turn
    is ended before ``handle_move_result`` (``end_turn_last=False``), so the bot's
    bookkeeping is not on its clock. A bot's exception propagates to the caller.

    A `PonderingPlayer` thinks from ``handle_move_result`` (after the turn ended, so on the
    opponent's time) to its next callback; the server keeps the clocks, and the opponent runs
    elsewhere, so that costs the opponent nothing (see :mod:`blindchess.arbiter.sandbox.pondering`).
    """
    game = RemoteGame(session, game_id, poll_seconds)
    try:
        player.handle_game_start(game.get_player_color(), game.get_starting_board(), game.get_opponent_name())
        game.start()
        while not game.is_over():
            play_turn(cast(Game, game), player, end_turn_last=False)  # play_turn uses only public Game methods
        winner, reason, history = game.get_winner_color(), game.get_win_reason(), game.get_game_history()
        player.handle_game_end(winner, reason, history)
    finally:
        if isinstance(player, PonderingPlayer):
            player.stop_pondering()  # a game cut short (the server gone, the bot raised) leaves no thread thinking
    return winner, reason, history


def _retry_after(response: requests.Response) -> Optional[float]:
    """The server's Retry-After in seconds (429, 503), if it sent a number."""
    try:
        return max(0.0, float(response.headers.get("Retry-After", "")))
    except ValueError:
        return None


def _error_text(response: requests.Response) -> str:
    try:
        return str(response.json().get("error", response.text))
    except ValueError:
        return response.text
