"""Fault injection: the store refuses ~10% of its commits while 20 games are played, and the server is killed.

A real server process (`FlakyStore`, see :mod:`blindchess.fixtures.servers`) over a real SQLite
file; 40 real clients (our `ServerSession`, two threads per game) play random bots that record
every observation the server sent them. Half-way the server gets SIGKILL and is started again
(still flaky) on the same file and port; the clients ride the outage out. Afterwards, for every
game: it finished; the history the database stored equals, turn by turn, what each client was
told; and the stored action list is exactly the one that history implies (nothing lost, nothing
extra).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any, Optional

import chess
import pytest

from blindchess.arbiter import GameHistory
from blindchess.bots.random_bot import RandomBot
from blindchess.fixtures.servers import ServerProcess
from blindchess.server.client import RetryPolicy, ServerSession, play_remote_game

GAMES = 20
TURN_LIMIT = 4
POLICY = RetryPolicy(patience=60.0, first_delay=0.05, max_delay=1.0)


class RecordingBot(RandomBot):
    """A random bot that keeps every sense result and move result the server sent it."""

    def __init__(self, rng: int) -> None:
        super().__init__(rng=rng)
        self.senses: list[list[tuple[int, Optional[chess.Piece]]]] = []
        self.moves: list[tuple[Any, Any, Any]] = []

    def handle_sense_result(self, sense_result: list[tuple[int, Optional[chess.Piece]]]) -> None:
        self.senses.append(list(sense_result))
        super().handle_sense_result(sense_result)

    def handle_move_result(self, requested_move: Any, taken_move: Any, captured_opponent_piece: bool, capture_square: Any) -> None:
        self.moves.append((requested_move, taken_move, capture_square))
        super().handle_move_result(requested_move, taken_move, captured_opponent_piece, capture_square)


def query(db: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return [tuple(row) for row in connection.execute(sql, params)]


def implied_actions(history: GameHistory) -> list[tuple[str, Optional[str]]]:
    """The (kind, value) actions the server must have stored for `history`, in play order."""
    actions: list[tuple[str, Optional[str]]] = []
    for turn in history.turns():
        sense = history.sense(turn)
        actions.append(("sense", None if sense is None else str(sense)))
        if history.has_move(turn):
            move = history.requested_move(turn)
            actions += [("move", None if move is None else move.uci()), ("end_turn", None)]
    return actions


def test_twenty_games_lose_nothing_through_failing_writes_and_a_kill(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "server.sqlite3"
    options = ("--full-turn-limit", str(TURN_LIMIT))
    server = ServerProcess(db, extra_args=options, fail_commits=0.1).start()
    players: list[threading.Thread] = []
    results: dict[tuple[int, str], Any] = {}
    bots: dict[tuple[int, str], RecordingBot] = {}
    try:
        games = []
        for index in range(GAMES):
            white, black = (ServerSession(server.url, f"p{index}-{color}", f"pw-{index}-{color}", POLICY) for color in ("w", "b"))
            white.register()
            black.register()
            games.append((white.invite(black.username, chess.WHITE), white, black))
        for game_id, white, black in games:
            for session in (white, black):
                key = (game_id, session.username)
                bots[key] = RecordingBot(rng=len(bots))

                def play(key: tuple[int, str] = key, session: ServerSession = session) -> None:
                    results[key] = play_remote_game(session, key[0], bots[key], poll_seconds=0.1)

                players.append(threading.Thread(target=play, daemon=True))
        with caplog.at_level(logging.WARNING, logger="blindchess.server.client"):
            for player in players:
                player.start()
            half_played = GAMES * 3 * TURN_LIMIT // 2
            server.crash_when(lambda: query(str(db), "SELECT COUNT(*) FROM actions")[0][0] >= half_played, 120, 1.0)
            for player in players:
                player.join(timeout=300)
    finally:
        server.stop()
    assert len(results) == 2 * GAMES, f"{2 * GAMES - len(results)} clients did not finish"
    retried = [record.getMessage() for record in caplog.records if "HTTP 503" in record.getMessage()]
    assert retried, "no write failed: the fault injection did not happen"
    for game_id, white, black in games:
        (stored_json,) = query(str(db), "SELECT history FROM games WHERE id = ? AND over = 1", game_id)[0]
        stored = GameHistory.from_json(stored_json)
        for session, color in ((white, chess.WHITE), (black, chess.BLACK)):
            bot, (_, _, told) = bots[(game_id, session.username)], results[(game_id, session.username)]
            assert told == stored
            turns = list(stored.turns(color))
            assert bot.senses == [stored.sense_result(turn) for turn in turns]
            assert bot.moves == [stored.move_result(turn) for turn in turns if stored.has_move(turn)]
        actions = query(str(db), "SELECT kind, value FROM actions WHERE game_id = ? ORDER BY seq", game_id)
        assert [tuple(action) for action in actions] == implied_actions(stored)
        assert [
            seq for (seq,) in query(str(db), "SELECT seq FROM actions WHERE game_id = ? ORDER BY seq", game_id)
        ] == list(range(len(actions)))
    assert query(str(db), "SELECT COUNT(*) FROM games WHERE over = 1")[0][0] == GAMES
