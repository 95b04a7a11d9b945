"""Fault tolerance: the server process is SIGKILLed mid-game and restarted on the same database.

Both clients (the official reconchess one, which retries forever, and ours, with bounded
backed-off retries) ride out the outage; the game resumes where the database says it
stood and finishes with a complete history.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import chess
import reconchess
from reconchess.bots.random_bot import RandomBot as ReconchessRandomBot

from blindchess.bots.random_bot import RandomBot
from blindchess.fixtures.servers import ServerProcess, register
from blindchess.server.client import RetryPolicy, ServerSession, play_remote_game

TURN_LIMIT = 10


def stored_actions(db: Path, game_id: int) -> list[tuple[str, Any]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return [tuple(row) for row in connection.execute("SELECT kind, value FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))]


def actions_in(history: dict[str, Any]) -> list[tuple[str, Any]]:
    """The (kind, value) action list a history implies, in play order."""
    actions: list[tuple[str, Any]] = []
    colors = {True: "true", False: "false"}
    for index in range(len(history["requested_moves"]["true"])):
        for color in (True, False):
            if index < len(history["requested_moves"][colors[color]]):
                sense = history["senses"][colors[color]][index]
                move = history["requested_moves"][colors[color]][index]
                actions += [
                    ("sense", None if sense is None else str(sense)),
                    ("move", None if move is None else move["value"]),
                    ("end_turn", None),
                ]
    return actions


def test_server_killed_mid_game_resumes_and_finishes(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite3"
    first = ServerProcess(db, extra_args=("--full-turn-limit", str(TURN_LIMIT))).start()
    try:
        sessions = register(first.url, ["white", "black"], password_prefix="Secret-")
        game_id = sessions["white"].invite("black", chess.WHITE)
        results: dict[str, Any] = {}
        patient = ServerSession(first.url, "black", "Secret-black", RetryPolicy(patience=30, first_delay=0.2, max_delay=3.0))
        white_login = ("white", "Secret-white")
        players = [
            threading.Thread(target=lambda: results.__setitem__(
                "white", reconchess.play_remote_game(first.url, game_id, white_login, ReconchessRandomBot())
            )),
            threading.Thread(target=lambda: results.__setitem__(
                "black", play_remote_game(patient, game_id, RandomBot(rng=11), poll_seconds=0.05)
            )),
        ]
        for player in players:
            player.start()
        deadline = time.monotonic() + 60
        while len(stored_actions(db, game_id)) < 8:
            assert time.monotonic() < deadline, "the game did not get going"
            time.sleep(0.05)
    finally:
        first.kill()
    before_kill = stored_actions(db, game_id)
    time.sleep(0.5)
    second = ServerProcess(db, port=first.port, extra_args=("--full-turn-limit", str(TURN_LIMIT))).start()
    try:
        for player in players:
            player.join(timeout=120)
        assert set(results) == {"white", "black"}, "a client gave up"
    finally:
        second.stop()
    winner, reason, history_object = results["black"]
    history = json.loads(history_object.to_json())
    assert (results["white"][0], results["white"][1].name) == (winner, reason.name)
    assert reason.name in ("TURN_LIMIT", "KING_CAPTURE")
    final = stored_actions(db, game_id)
    assert final[: len(before_kill)] == before_kill  # nothing acknowledged before the crash was lost
    assert actions_in(history) == final  # the history holds every action, before and after the crash
    if reason.name == "TURN_LIMIT":
        assert len(history["requested_moves"]["true"]) == len(history["requested_moves"]["false"]) == TURN_LIMIT
    assert "resumed 1 unfinished games" in "".join(second.output)
    for secret in ("Secret-white", "Secret-black"):
        assert secret not in "".join(first.output + second.output)
