"""The server's logic, independent of HTTP: accounts, invitations, games, ranked play.

Every public method takes the service lock, changes memory and the database together
and commits before returning, so what a client was told has been stored. One lock for
everything keeps the invariants simple; requests are short (a few milliseconds), and
the load benchmark (``experiments/bench_server.py``) shows the throughput this allows.

Durability, step by step: a game action (ready, sense, move, end_turn, resign, a timeout)
is checked and applied to the in-memory game, then stored with its sequence number (and,
for end_turn, the clocks and any result) in one transaction, all under the lock, before
any answer. If that transaction fails the game is put back exactly as the store has it
(rebuilt from its stored actions, its turn clock unchanged) and the client gets a 503 it
can retry: nothing is acknowledged that is not stored, and nothing stored was not
acknowledged or retried. New games and withdrawals enter memory only after their commit.

Names and passwords are Unicode, normalised to NFC on registration, on every login and in an
invitation (so the same text typed on two systems is the same account); a name may not start
with a combining mark. A new name is refused when it
matches an existing one after NFKC normalisation and case folding ("Alice" against
"alice", fullwidth "ａｌｉｃｅ", the ligature in "ﬁsh"): look-alikes of those kinds cannot
impersonate an account.
"""

from __future__ import annotations

import argparse
import json
import logging
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Optional

import chess
import numpy as np

from blindchess import elo
from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.local_game import MoveOutcome
from blindchess.arbiter.game.results import describe_result
from blindchess.arbiter.types import Color, Square, WinReason
from blindchess.server.arbiter_game import history_json, new_arbiter_game
from blindchess.server.database import RatingRow, Store, UserRow
from blindchess.server.errors import (
    GameInProgress,
    InvalidRequest,
    NotAPlayer,
    NotAuthenticated,
    NotFound,
    StoreUnavailable,
    UsernameTaken,
)
from blindchess.server.match import GameResult, GameSettings, ServerGame
from blindchess.server.passwords import CredentialCache, hash_password, verify_password
from blindchess.server.throttle import Failures, Limits, LoginThrottle

logger = logging.getLogger(__name__)

USERNAME_MAX = 64
PASSWORD_MAX = 1024
FINISHED_GAMES_IN_MEMORY = 256
"""Finished games kept in memory for their players' last requests; older ones are reloaded from the database."""


@dataclass(frozen=True)
class ServerConfig:
    """Settings of a server; games take their time control and limits from here when created."""

    seconds_per_player: float = 900.0
    seconds_increment: float = 5.0
    reversible_moves_limit: Optional[int] = 100
    full_turn_limit: Optional[int] = None
    connection_timeout: float = 20.0
    """A user counts as connected (active, and schedulable for ranked games) this long after its last request."""
    start_timeout: float = 300.0
    """A game whose players are not both ready this long after its creation (or a restart) is withdrawn."""
    seed: Optional[int] = None
    """Seeds the ranked scheduler's tie-breaks and colours."""
    login_limits: Limits = field(default_factory=Limits)
    """Wrong passwords allowed per (account, address) and per address, and new accounts per address, before back-off (see `.throttle`)."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses of reverse proxies whose ``X-Forwarded-For`` names the client; from any other, the header is ignored."""
    body_seconds: float = 10.0
    """A request's body must arrive within this many seconds of its headers (else 408, connection closed)."""

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> ServerConfig:
        """The settings ``blindchess serve``'s parsed command line gives (its flags are in ``commands/cli_serve.py``)."""
        return cls(
            seconds_per_player=args.seconds_per_player,
            seconds_increment=args.increment,
            reversible_moves_limit=args.reversible_moves_limit,
            full_turn_limit=args.full_turn_limit,
            start_timeout=args.start_timeout,
            seed=args.seed,
            login_limits=Limits(registrations_per_address=args.registrations_per_address),
            trusted_proxies=tuple(args.trusted_proxy),
            body_seconds=args.body_timeout,
        )


class Service:
    """Accounts, invitations, games and the ranked scheduler over one :class:`Store`."""

    def __init__(
        self,
        store: Store,
        config: ServerConfig = ServerConfig(),
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ):
        """`clock` times games and connections; `wall_clock` the login failures, which must outlive a restart."""
        self.store = store
        self.config = config
        self._clock = clock
        self._lock = threading.RLock()
        self._credentials = CredentialCache()
        self.throttle = LoginThrottle(config.login_limits, wall_clock, _StoredFailures(store, self._lock))
        self._decoy_hash = hash_password("decoy")  # verified against for unknown names: same time as a real check
        self._games: dict[int, ServerGame] = {}
        self._last_seen: dict[int, float] = {}
        self._rng = np.random.default_rng(config.seed)
        now = clock()
        for game_id in store.open_game_ids():  # resume every unfinished game
            self._games[game_id] = self._load(game_id, now)
        if self._games:
            logger.info("resumed %d unfinished games", len(self._games))

    # accounts
    def register(self, username: str, password: str, email: str = "", affiliation: str = "", address: str = "") -> str:
        """Add an account; returns its name (NFC).

        New accounts from one `address` are counted (`LoginThrottle.registration_keys`): past
        the limit the next waits (`TooManyAttempts`, 429), and the slow hash takes its turn
        among the login checks. A refused registration changes nothing.

        Raises:
            InvalidRequest: a name or password outside the rules.
            UsernameTaken: the name, or one too like it, is in use.
            TooManyAttempts: too many new accounts from this address.
        """
        username, password = _nfc(username), _nfc(password)
        if not username or len(username) > USERNAME_MAX or not username.isprintable() or ":" in username:
            raise InvalidRequest(f"username must be 1..{USERNAME_MAX} printable characters without ':', not {username!r}")
        if username != username.strip():
            raise InvalidRequest(f"username must not start or end with spaces, not {username!r}")
        if unicodedata.category(username[0]).startswith("M"):  # it would join whatever is written before it
            raise InvalidRequest(f"username must not start with a combining mark, not {username!r}")
        if not password or len(password) > PASSWORD_MAX:
            raise InvalidRequest(f"password must be 1..{PASSWORD_MAX} characters")
        keys = self.throttle.registration_keys(address)
        with self._lock:
            self._refuse_taken(username)  # before the slow hash: a taken name costs no scrypt
        with self.throttle.attempt(keys):
            password_hash = hash_password(password)  # slow: outside the lock, a few at a time
        with self._lock:
            self._refuse_taken(username)  # again: another request may have taken it meanwhile
            self.store.add_user(username, email, affiliation, password_hash)
        self.throttle.failed(keys)  # only accounts made count: a refused request changes nothing
        self._credentials.remember(username, password, password_hash)  # its first login needs no second scrypt
        logger.info("registered user %r", username)
        return username

    def _refuse_taken(self, username: str) -> None:
        """Raise `UsernameTaken` if `username`, or a name too like it, is in use (call under the lock)."""
        if self.store.user_by_name(username) is not None:
            raise UsernameTaken(f"username {username!r} is already in use")
        key = _lookalike_key(username)
        for user in self.store.users():
            if _lookalike_key(user.username) == key:
                raise UsernameTaken(f"username {username!r} is too like the existing {user.username!r}")

    def authenticate(
        self, username: Optional[str], password: Optional[str], *, allow_slow: bool = True, address: str = ""
    ) -> Optional[UserRow]:
        """The user these basic-auth credentials belong to; marks them as seen (connected).

        With ``allow_slow=False`` only credentials verified before are accepted, and None
        means "not known yet, verify with allow_slow=True" (the slow scrypt check must not
        run on the web server's event loop). Every check, cached or slow, is throttled per
        (username, `address`) and per `address` (`LoginThrottle`): a throttled address gets
        `TooManyAttempts` whatever it sends, so the answer says nothing of the password. The
        slow check costs the same whether the user exists or not (an unknown name is checked
        against a decoy hash).

        Raises:
            NotAuthenticated: no such user, or a wrong password.
            TooManyAttempts: too many failures for this name from this address, or from this address.
        """
        if not username or password is None:
            raise NotAuthenticated("this endpoint needs HTTP basic auth (username and password)")
        username, password = _nfc(username), _nfc(password)
        keys = self.throttle.keys(username, address)
        # Before any credential check, the cached one included: were a right password let through
        # here, 429 for wrong guesses and 200 for the right one would tell them apart.
        self.throttle.refuse_if_throttled(keys)
        with self._lock:
            user = self.store.user_by_name(username)
        stored = self._decoy_hash if user is None else user.password_hash
        if user is None or not self._credentials.check_cached(username, password, stored):
            if not allow_slow:
                return None
            with self.throttle.attempt(keys):  # 429 when throttled; at most a few slow checks at once
                valid = verify_password(password, stored) if user is None else self._credentials.check(username, password, stored)
                if user is None or not valid:
                    self.throttle.failed(keys)
                    raise NotAuthenticated("wrong username or password")
            assert user is not None
            self.throttle.succeeded(keys)
        with self._lock:
            self._last_seen[user.id] = self._clock()
        return user

    def active_usernames(self) -> list[str]:
        with self._lock:
            now = self._clock()
            return [u.username for u in self.store.users() if self._connected(u.id, now)]

    def set_max_games(self, user: UserRow, max_games: int) -> int:
        if not 0 <= max_games <= 1000:
            raise InvalidRequest(f"max_games must be 0..1000, not {max_games}")
        with self._lock:
            self.store.set_user_field(user.id, "max_games", max_games)
        return max_games

    def set_ranked(self, user: UserRow, ranked: bool) -> bool:
        """Join or leave ranked play; leaving withdraws the ranked games offered but not yet started."""
        with self._lock:
            withdrawn: list[int] = []
            with self.store.transaction():
                self.store.set_user_field(user.id, "ranked", int(ranked))
                if not ranked:
                    withdrawn = self.store.cancel_unstarted_ranked_invitations(user.id)
            for game_id in withdrawn:  # only once stored
                game = self._games.get(game_id)
                if game is not None:
                    game.withdraw(_withdrawn_result(game.names))
                logger.info("withdrew unstarted ranked game %d", game_id)
        return ranked

    def bot_version(self, user: UserRow) -> int:
        with self._lock:
            current = self.store.user_by_id(user.id)
            assert current is not None
            return current.version

    def new_version(self, user: UserRow) -> int:
        with self._lock:
            version = self.bot_version(user) + 1
            self.store.set_user_field(user.id, "version", version)
        return version

    def ratings(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(row) for row in self.store.rating_table()]

    # spectators (the viewer's server pages)
    def games_in_progress(self) -> list[dict[str, Any]]:
        """The games started and not over: id, players, whose turn and each clock (nothing a player could not know)."""
        with self._lock:
            now = self._clock()
            return [
                {
                    "id": game.game_id,
                    "white": game.names[chess.WHITE],
                    "black": game.names[chess.BLACK],
                    "turn": chess.COLOR_NAMES[game.turn],
                    "seconds_left": {chess.COLOR_NAMES[color]: game.clock(color, now) for color in (chess.WHITE, chess.BLACK)},
                }
                for game in self._games.values()
                if not game.over
            ]

    def recent_games(self, limit: int = 50) -> list[dict[str, Any]]:
        """The last `limit` finished games, newest first: id, players, ranked, winner colour and reason."""
        with self._lock:
            return [dict(row) for row in self.store.recent_games(limit)]

    def spectator_history(self, game_id: int) -> GameHistory:
        """Game `game_id`'s whole record, once it is over (as on reconchess's server).

        While a game runs its record (the true board, each side's senses and moves) is the
        arbiter's alone: a player reads its own observations through the game endpoints.

        Raises:
            NotFound: no game with that id, or one withdrawn before it started.
            GameInProgress: the game is not over yet.
        """
        with self._lock:
            row = self.store.game(game_id)
            if row is None or row["aborted"]:
                raise NotFound(f"no game with id {game_id}")
            if not row["over"]:
                raise GameInProgress(f"game {game_id} is not over yet: its record is public once it ends")
            return GameHistory.from_json(row["history"], source=f"server game {game_id}")

    # invitations
    def invite(self, user: UserRow, opponent: str, color: Color) -> int:
        """Create a game against `opponent` with `user` playing `color`; the opponent gets an invitation."""
        with self._lock:
            other = self.store.user_by_name(_nfc(opponent))  # names are stored in NFC
            if other is None:
                raise NotFound(f"no user named {opponent!r}")
            if other.id == user.id:
                raise InvalidRequest("you cannot invite yourself")
            white, black = (user, other) if color else (other, user)
            with self.store.transaction():
                game_id = self._create_game(white, black, ranked=False)
                self.store.add_invitation(game_id, other.id)
            self._games[game_id] = self._load(game_id, self._clock())  # in memory once stored
            return game_id

    def invitations(self, user: UserRow) -> list[int]:
        with self._lock:
            return self.store.pending_invitation_ids(user.id)

    def accept_invitation(self, user: UserRow, invitation_id: int) -> int:
        with self._lock:
            invitation = self._invitation(user, invitation_id)
            if invitation["status"] == "cancelled":
                raise InvalidRequest(f"invitation {invitation_id} was withdrawn (a player left ranked play)")
            if invitation["status"] == "pending":
                self.store.set_invitation_status(invitation_id, "accepted")
            return int(invitation["game_id"])

    def finish_invitation(self, user: UserRow, invitation_id: int) -> None:
        with self._lock:
            invitation = self._invitation(user, invitation_id)
            if invitation["status"] == "pending":
                raise InvalidRequest(f"invitation {invitation_id} has not been accepted")
            self.store.set_invitation_status(invitation_id, "finished")

    # games: queries
    def game_for(self, user: UserRow, game_id: int) -> tuple[ServerGame, Color]:
        """The game and `user`'s colour in it, checking the clock first; refuses non-players."""
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                row = self.store.game(game_id)
                if row is None:
                    raise NotFound(f"no game with id {game_id}")
                game = self._games[game_id] = self._load(game_id, self._clock())
            color = game.color_of(user.id)
            if color is None:
                raise NotAPlayer(f"you are not a player in game {game_id}")
            self._check_clock(game)
            return game, color

    def seconds_left(self, user: UserRow, game_id: int) -> float:
        with self._lock:
            game, color = self.game_for(user, game_id)
            return game.clock(color, self._clock())

    # games: actions
    def ready(self, user: UserRow, game_id: int) -> None:
        with self._lock:
            game, color = self.game_for(user, game_id)
            if game.over or game.ready[color]:
                return  # a repeated request, or a game already over: nothing to do
            with self._changing(game):
                game.mark_ready(color, self._clock())
                self.store.update_game(game_id, {"white_ready" if color else "black_ready": 1})

    def sense(self, user: UserRow, game_id: int, square: Optional[Square]) -> list[list[Any]]:
        with self._lock:
            game, color = self.game_for(user, game_id)
            with self._changing(game):
                action, result = game.sense(color, square)
                if action is not None:
                    self.store.add_action(game_id, len(game.actions) - 1, action)
            return result

    def move(self, user: UserRow, game_id: int, requested: Optional[chess.Move]) -> MoveOutcome:
        with self._lock:
            game, color = self.game_for(user, game_id)
            with self._changing(game):
                action, result = game.move(color, requested)
                if action is not None:
                    self.store.add_action(game_id, len(game.actions) - 1, action)
            return result

    def end_turn(self, user: UserRow, game_id: int) -> None:
        with self._lock:
            game, color = self.game_for(user, game_id)
            with self._changing(game), self.store.transaction():
                action = game.end_turn(color, self._clock())
                if action is None:
                    return
                self.store.add_action(game_id, len(game.actions) - 1, action)
                clocks = {"white_seconds": game.seconds_left[chess.WHITE], "black_seconds": game.seconds_left[chess.BLACK]}
                self.store.update_game(game_id, clocks)
                if game.arbiter_result() is not None:
                    game.finish()
                    self._store_result(game)

    def resign(self, user: UserRow, game_id: int) -> None:
        self._lose(user, game_id, lambda game, color: game.finish_by_resignation(color))

    def error_resign(self, user: UserRow, game_id: int) -> None:
        """The player's bot crashed: it loses on time now rather than when its clock runs out."""
        self._lose(user, game_id, lambda game, color: game.finish_on_time(color, self._clock()))

    def _lose(self, user: UserRow, game_id: int, finish: Callable[[ServerGame, Color], None]) -> None:
        """`user` loses game `game_id` as `finish` ends it (nothing if the game is over already); the result is stored."""
        with self._lock:
            game, color = self.game_for(user, game_id)
            if game.over:
                return
            with self._changing(game), self.store.transaction():
                finish(game, color)
                self._store_result(game)

    # housekeeping: timeouts and the ranked scheduler
    def tick(self) -> list[int]:
        """End games whose clocks ran out, then pair connected ranked bots; returns new game ids."""
        with self._lock:
            for game in list(self._games.values()):
                self._check_clock(game)
            finished = [game_id for game_id, game in self._games.items() if game.over]
            for game_id in finished[: max(0, len(finished) - FINISHED_GAMES_IN_MEMORY)]:
                del self._games[game_id]
            return self._schedule_ranked()

    def _schedule_ranked(self) -> list[int]:
        now = self._clock()
        busy = self.store.busy_slots()
        free: dict[int, int] = {}
        users: dict[int, UserRow] = {}
        for user in self.store.users():
            slots = user.max_games - busy.get(user.id, 0)
            if user.ranked and user.version >= 1 and slots > 0 and self._connected(user.id, now):
                free[user.id] = slots
                users[user.id] = user
        counts = self.store.ranked_pair_counts()
        created = []
        while len(free) >= 2:
            ids = sorted(free)
            pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]]
            played = np.array([counts.get((a, b), 0) + counts.get((b, a), 0) for a, b in pairs], dtype=float)
            # fewest games together first; ties broken at random so no pair is always preferred
            best = np.flatnonzero(played == played.min())
            a, b = pairs[int(self._rng.choice(best))]
            a_white = counts.get((a, b), 0) < counts.get((b, a), 0) or (
                counts.get((a, b), 0) == counts.get((b, a), 0) and bool(self._rng.integers(2))
            )
            white, black = (a, b) if a_white else (b, a)
            with self.store.transaction():
                game_id = self._create_game(users[white], users[black], ranked=True)
                self.store.add_invitation(game_id, white)
                self.store.add_invitation(game_id, black)
            self._games[game_id] = self._load(game_id, self._clock())
            counts[(white, black)] = counts.get((white, black), 0) + 1
            created.append(game_id)
            for user_id in (a, b):
                free[user_id] -= 1
                if free[user_id] == 0:
                    del free[user_id]
        if created:
            logger.info("scheduled ranked games %s", created)
        return created

    # internals
    @contextmanager
    def _changing(self, game: ServerGame) -> Iterator[None]:
        """Wraps a change of `game` and its storing: if storing fails, the game is put back as stored.

        The game is rebuilt from the store (its stored actions replayed), keeping the running
        turn's start, so the failed request changed nothing and its retry is a first try.
        """
        turn_started, waiting_since = game.turn_started, game.waiting_since
        try:
            yield
        except StoreUnavailable:
            restored = self._load(game.game_id, self._clock())
            if not restored.over:
                if restored.waiting_since is None:
                    restored.turn_started = turn_started
                else:
                    restored.waiting_since = restored.waiting_since if waiting_since is None else waiting_since
            self._games[game.game_id] = restored
            logger.warning("game %d: storing failed; the game is as stored, the client may retry", game.game_id)
            raise

    def _connected(self, user_id: int, now: float) -> bool:
        seen = self._last_seen.get(user_id)
        return seen is not None and now - seen <= self.config.connection_timeout

    def _invitation(self, user: UserRow, invitation_id: int) -> Any:
        invitation = self.store.invitation(invitation_id)
        if invitation is None:
            raise NotFound(f"invitation {invitation_id} does not exist")
        if int(invitation["recipient_id"]) != user.id:
            raise NotAPlayer(f"invitation {invitation_id} is not yours")
        return invitation

    def _create_game(self, white: UserRow, black: UserRow, ranked: bool) -> int:
        config = self.config
        game_id = self.store.add_game(
            {
                "white_id": white.id,
                "black_id": black.id,
                "ranked": int(ranked),
                "white_version": white.version,
                "black_version": black.version,
                "seconds_per_player": config.seconds_per_player,
                "seconds_increment": config.seconds_increment,
                "reversible_moves_limit": config.reversible_moves_limit,
                "full_turn_limit": config.full_turn_limit,
                "white_seconds": config.seconds_per_player,
                "black_seconds": config.seconds_per_player,
            }
        )
        return game_id

    def _load(self, game_id: int, now: float) -> ServerGame:
        row = self.store.game(game_id)
        assert row is not None
        white = self.store.user_by_id(int(row["white_id"]))
        black = self.store.user_by_id(int(row["black_id"]))
        assert white is not None and black is not None
        names = {chess.WHITE: white.username, chess.BLACK: black.username}
        ids = {chess.WHITE: white.id, chess.BLACK: black.id}
        settings = GameSettings(
            float(row["seconds_per_player"]),
            float(row["seconds_increment"]),
            row["reversible_moves_limit"],
            row["full_turn_limit"],
        )
        seconds = {chess.WHITE: float(row["white_seconds"]), chess.BLACK: float(row["black_seconds"])}
        if row["aborted"]:
            return ServerGame.finished(game_id, names, ids, settings, seconds, _withdrawn_result(names))
        if row["over"]:
            reason = None if row["win_reason"] is None else WinReason[row["win_reason"]]
            winner = None if row["winner_color"] is None else bool(row["winner_color"])
            result = GameResult(winner, reason, json.loads(row["history"]))
            return ServerGame.finished(game_id, names, ids, settings, seconds, result)
        ready = {chess.WHITE: bool(row["white_ready"]), chess.BLACK: bool(row["black_ready"])}
        return ServerGame.rebuild(game_id, names, ids, settings, seconds, ready, self.store.actions(game_id), now)

    def _check_clock(self, game: ServerGame) -> None:
        now = self._clock()
        if game.waiting_since is not None and now - game.waiting_since > self.config.start_timeout:
            logger.info("game %d: withdrawn, its players were not both ready in time", game.game_id)
            with self.store.transaction():
                self.store.abort_game(game.game_id)
            game.withdraw(_withdrawn_result(game.names))
            return
        if not game.over and game.overdue(now):
            logger.info("game %d: %s ran out of time", game.game_id, chess.COLOR_NAMES[game.turn])
            with self._changing(game), self.store.transaction():
                game.finish_on_time(game.turn, self._clock())
                self._store_result(game)

    def _store_result(self, game: ServerGame) -> None:
        """Write the finished game (inside the caller's transaction) and, if ranked, update Elo."""
        result = game.result
        assert result is not None
        self.store.update_game(
            game.game_id,
            {
                "over": 1,
                "winner_color": None if result.winner_color is None else int(result.winner_color),
                "win_reason": None if result.win_reason is None else result.win_reason.name,
                "history": json.dumps(result.history),
                "white_seconds": game.seconds_left[chess.WHITE],
                "black_seconds": game.seconds_left[chess.BLACK],
            },
        )
        row = self.store.game(game.game_id)
        assert row is not None
        if row["ranked"]:
            self._rate(row, result.winner_color)
            self.store.add_rated_game(game.game_id)
        words = describe_result(result.winner_color, result.win_reason, game.names[chess.WHITE], game.names[chess.BLACK])
        logger.info("game %d over: %s", game.game_id, words)

    def _rate(self, row: Any, winner: Optional[Color]) -> None:
        """Update both players' Elo (per user and bot version) with this game's result."""
        white_score = 0.5 if winner is None else float(winner == chess.WHITE)
        sides = [
            (int(row["white_id"]), int(row["white_version"]), white_score),
            (int(row["black_id"]), int(row["black_version"]), 1.0 - white_score),
        ]
        old = [self.store.rating(user_id, version) or RatingRow(elo.INITIAL_ELO, 0, 0, 0) for user_id, version, _ in sides]
        new_elos = elo.updated_ratings(old[0].elo, old[1].elo, white_score)
        for (user_id, version, score), record, new_elo in zip(sides, old, new_elos, strict=True):
            updated = RatingRow(
                new_elo, record.wins + (score == 1.0), record.draws + (score == 0.5), record.losses + (score == 0.0)
            )
            self.store.put_rating(user_id, version, updated)


class _StoredFailures:
    """The throttle's `FailureLog` in the store (under the service lock: the connection is shared)."""

    def __init__(self, store: Store, lock: threading.RLock) -> None:
        self._store, self._lock = store, lock

    def load(self) -> dict[str, Failures]:
        with self._lock:
            return {key: Failures(count, last) for key, (count, last) in self._store.login_failures().items()}

    def save(self, key: str, failures: Optional[Failures]) -> None:
        with self._lock:
            if failures is None:
                self._store.delete_login_failures(key)
            else:
                self._store.put_login_failures(key, failures.count, failures.last)


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _lookalike_key(username: str) -> str:
    """What two names must not share: NFKC-normalised and case-folded (see the module docstring)."""
    return unicodedata.normalize("NFKC", username).casefold()


def _withdrawn_result(names: dict[Color, str]) -> GameResult:
    """The result of a game withdrawn before it started: no winner, no reason, an empty history."""
    empty = new_arbiter_game(names[chess.WHITE], names[chess.BLACK], None, None)
    empty.end()
    history = empty.get_game_history()
    assert history is not None  # end() makes the game over
    return GameResult(None, None, history_json(history))
