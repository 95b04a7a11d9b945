"""Keeping a bot connected: accept invitations and play them concurrently, as rc-connect does.

One thread per game, each with its own bot instance and HTTP session. A bot that
raises in one game makes that game end at once (``error_resign``: it loses on time)
and leaves the other games alone. :meth:`Connector.stop` (Ctrl-C in ``blindchess
connect``) stops taking invitations, leaves ranked play, lets the games in progress
finish, and returns.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.player import Player
from blindchess.arbiter.game.results import describe_result, player_names, save_history
from blindchess.arbiter.types import Color, WinReason
from blindchess.server.client import ServerRefused, ServerSession, ServerUnavailable, play_remote_game

logger = logging.getLogger(__name__)

RECONNECT_MAX_SECONDS = 60.0


@dataclass(frozen=True)
class GameRecord:
    """How one game went for this client."""

    invitation_id: int
    game_id: int
    winner_color: Optional[Color]
    win_reason: Optional[WinReason]
    error: Optional[str] = None
    """Why the game was abandoned (the bot raised, or the server refused), else None."""
    white_name: str = "white"
    black_name: str = "black"
    path: Optional[Path] = None
    """Where the history was saved (None: not saved)."""

    def describe(self) -> str:
        """``game 7: white (bot1) won by king capture -> games/....json``, or why the game was abandoned."""
        if self.error is not None:
            return f"game {self.game_id}: abandoned ({self.error})"
        saved = "" if self.path is None else f" -> {self.path}"
        return f"game {self.game_id}: {describe_result(self.winner_color, self.win_reason, self.white_name, self.black_name)}{saved}"


@dataclass
class Connector:
    """Accepts invitations for one account and plays each with a fresh bot from `bot_factory`."""

    session: ServerSession
    bot_factory: Callable[[], Player]
    max_games: int = 4
    ranked: bool = False
    new_version: bool = False
    poll_seconds: float = 5.0
    game_poll_seconds: float = 0.5
    out: Optional[Path] = None
    """Folder where each finished game's history is saved (as `blindchess match` saves them); None: not saved."""
    on_result: Optional[Callable[[GameRecord], None]] = None
    """Called (from the game's thread) with each game's record as the game ends."""
    records: list[GameRecord] = field(default_factory=list, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False, repr=False)
    _threads: dict[int, threading.Thread] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def stop(self) -> None:
        """Take no new games; :meth:`run` returns once the games in progress are over."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    @property
    def games_in_progress(self) -> int:
        with self._lock:
            return sum(thread.is_alive() for thread in self._threads.values())

    def run(self) -> list[GameRecord]:
        """Serve invitations until :meth:`stop`; returns the record of every game played."""
        self._join_ranked_pool()
        connected = False
        failures = 0
        while not self._stop.is_set():
            try:
                invitations = self.session.invitations()
                if not connected:
                    logger.info("connected to %s as %s", self.session.url, self.session.username)
                    self.session.set_max_games(self.max_games)
                    connected = True
                failures = 0
                self._accept(invitations)
            except ServerUnavailable as error:
                connected = False
                failures += 1
                logger.warning("server unavailable (%d times in a row), will retry: %s", failures, error)
            # after failures, look again less and less often (at most once a minute)
            self._stop.wait(min(RECONNECT_MAX_SECONDS, self.poll_seconds * 2**failures))
        self._leave_ranked_pool()
        for thread in list(self._threads.values()):
            thread.join()
        return list(self.records)

    def _join_ranked_pool(self) -> None:
        if not self.ranked:
            self.session.set_ranked(False)
            return
        if self.new_version or self.session.bot_version() == 0:
            logger.info("playing ranked games as version %d", self.session.new_version())
        self.session.set_ranked(True)

    def _leave_ranked_pool(self) -> None:
        try:
            self.session.set_ranked(False)
        except (ServerUnavailable, ServerRefused) as error:
            logger.warning("could not leave ranked play: %s", error)

    def _accept(self, invitations: list[int]) -> None:
        with self._lock:
            self._threads = {key: thread for key, thread in self._threads.items() if thread.is_alive()}
            for invitation_id in invitations:
                if invitation_id in self._threads or len(self._threads) >= self.max_games or self._stop.is_set():
                    continue
                thread = threading.Thread(
                    target=self._play, args=(invitation_id,), name=f"game-invitation-{invitation_id}", daemon=True
                )
                self._threads[invitation_id] = thread
                thread.start()

    def _play(self, invitation_id: int) -> None:
        session = self.session.with_new_connection()
        try:
            game_id = session.accept(invitation_id)
        except (ServerUnavailable, ServerRefused) as error:
            logger.warning("could not accept invitation %d: %s", invitation_id, error)
            return
        record = GameRecord(invitation_id, game_id, None, None, error="not played")
        try:
            winner, reason, history = play_remote_game(session, game_id, self.bot_factory(), self.game_poll_seconds)
            white, black = player_names(history)
            path = self._save(game_id, history)
            record = GameRecord(invitation_id, game_id, winner, reason, white_name=white, black_name=black, path=path)
            logger.info("%s", record.describe())
        except Exception as error:  # a crashing bot loses this game only
            logger.exception("game %d abandoned", game_id)
            record = GameRecord(invitation_id, game_id, None, None, error=f"{type(error).__name__}: {error}")
            try:
                session.post(f"/api/games/{game_id}/error_resign")
            except (ServerUnavailable, ServerRefused) as resign_error:
                logger.warning("could not resign game %d: %s", game_id, resign_error)
        finally:
            try:
                session.finish(invitation_id)
            except (ServerUnavailable, ServerRefused) as error:
                logger.warning("could not finish invitation %d: %s", invitation_id, error)
            with self._lock:
                self.records.append(record)
            if self.on_result is not None:
                self.on_result(record)

    def _save(self, game_id: int, history: GameHistory) -> Optional[Path]:
        """Save `history` in `out` (if set) as ``<stamp>-game<id>-<white>-vs-<black>.json``; its path."""
        if self.out is None:
            return None
        try:
            return save_history(history, self.out, f"game{game_id}")
        except OSError as error:  # the game is over and counted; only the local copy is missing
            logger.warning("could not save game %d in %s: %s", game_id, self.out, error)
            return None
