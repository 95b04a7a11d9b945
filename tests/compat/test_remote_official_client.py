"""The official reconchess client (unmodified, from PyPI) plays complete games on our server.

Games are short (an 8-turn limit) because reconchess's ``RemoteGame`` polls every 0.5 s.
Every history the server records must equal what a local game of the same actions
records, in reconchess's ``LocalGame`` and in ours, byte for byte as JSON.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chess
import pytest
import reconchess
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot as ReconchessRandomBot
from reconchess.history import GameHistoryEncoder

from blindchess.arbiter.game.reconchess_adapter import from_reconchess_class, to_reconchess_class
from blindchess.bots.random_bot import RandomBot
from blindchess.fixtures.servers import register
from blindchess.server.client import ServerSession, play_remote_game
from blindchess.server.server import ServerThread
from blindchess.server.service import ServerConfig

TURN_LIMIT = 8


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with ServerThread(tmp_path_factory.mktemp("compat") / "server.sqlite3", ServerConfig(full_turn_limit=TURN_LIMIT)) as running:
        yield running


def as_json(history: Any) -> dict[str, Any]:
    """Any history object (reconchess's, ours) or history JSON, as the JSON object reconchess writes."""
    if isinstance(history, dict):
        return history
    if isinstance(history, reconchess.GameHistory):
        return json.loads(json.dumps(history, cls=GameHistoryEncoder))  # type: ignore[no-any-return]
    return json.loads(history.to_json())  # type: ignore[no-any-return]


def replay_locally(history: dict[str, Any], game: Any) -> dict[str, Any]:
    """Play the recorded senses and requested moves in a local `game`; its history as JSON."""
    game.store_players(history["white_name"], history["black_name"])
    game.start()
    turn_numbers = {True: 0, False: 0}
    while not game.is_over():
        color = game.turn
        index = turn_numbers[color]
        game.sense(history["senses"][str(color).lower()][index])
        move = history["requested_moves"][str(color).lower()][index]
        game.move(None if move is None else chess.Move.from_uci(move["value"]))
        game.end_turn()
        turn_numbers[color] += 1
    game.end()
    return as_json(game.get_game_history())


def invitation_statuses(server: ServerThread, game_id: int) -> list[str]:
    """Read from the database file through a connection of our own (the server's is its own business)."""
    with sqlite3.connect(f"file:{server.store.path}?mode=ro", uri=True) as connection:
        return [row[0] for row in connection.execute("SELECT status FROM invitations WHERE game_id = ?", (game_id,))]


def local_games() -> list[Callable[[], Any]]:
    from blindchess.arbiter import LocalGame

    return [
        lambda: reconchess.LocalGame(seconds_per_player=None, full_turn_limit=TURN_LIMIT),
        lambda: LocalGame(seconds_per_player=None, full_turn_limit=TURN_LIMIT),
    ]


def play_both_sides(
    server: ServerThread, white: str, black: str, white_play: Callable[..., Any], black_play: Callable[..., Any]
) -> dict[str, Any]:
    game_id = ServerSession(server.url, white, "pw-" + white).invite(black, True)
    results: dict[str, Any] = {}

    def run(side: str, play: Callable[..., Any], name: str) -> None:
        results[side] = play(game_id, name)

    threads = [threading.Thread(target=run, args=args) for args in (("white", white_play, white), ("black", black_play, black))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    results["game_id"] = game_id
    return results


def official(server: ServerThread, bot_class: type) -> Callable[[int, str], Any]:
    return lambda game_id, name: reconchess.play_remote_game(server.url, game_id, (name, "pw-" + name), bot_class())


def ours(server: ServerThread, bot_class: type) -> Callable[[int, str], Any]:
    return lambda game_id, name: play_remote_game(ServerSession(server.url, name, "pw-" + name), game_id, bot_class(), poll_seconds=0.05)


def test_official_client_plays_complete_games_with_both_bot_families(server: ServerThread) -> None:
    register(server.url, ["rc_random", "our_random", "rc_attacker", "our_random_2", "rc_random_2", "our_client"])
    pairings = [
        # (white, black, white client+bot, black client+bot)
        ("rc_random", "our_random", official(server, ReconchessRandomBot), official(server, to_reconchess_class(RandomBot))),
        ("our_random_2", "rc_attacker", official(server, to_reconchess_class(RandomBot)), official(server, AttackerBot)),
        ("rc_random_2", "our_client", official(server, ReconchessRandomBot), ours(server, from_reconchess_class(AttackerBot))),
    ]
    games: list[dict[str, Any]] = []
    threads = [threading.Thread(target=lambda p=p: games.append(play_both_sides(server, *p))) for p in pairings]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=150)
    assert len(games) == 3
    reasons = set()
    for game in games:
        white_result, black_result = game["white"], game["black"]
        white_history, black_history = as_json(white_result[2]), as_json(black_result[2])
        assert white_history == black_history
        assert (white_result[0], white_result[1].name) == (black_result[0], black_result[1].name)
        assert white_history["winner_color"] == white_result[0]
        assert white_history["win_reason"]["value"] == white_result[1].name
        turns = len(white_history["requested_moves"]["true"]) + len(white_history["requested_moves"]["false"])
        assert 1 <= turns <= 2 * TURN_LIMIT
        for make_game in local_games():
            assert replay_locally(white_history, make_game()) == white_history
        reasons.add(white_history["win_reason"]["value"])
    assert reasons <= {"TURN_LIMIT", "KING_CAPTURE"}


def test_rc_register_and_rc_connect_play_an_invited_game(server: ServerThread, tmp_path: Path) -> None:
    scripts = Path(sys.executable).parent
    registered = subprocess.run(
        [str(scripts / "rc-register"), "--username", "rc_connect_bot", "--password", "pw-rc_connect_bot",
         "--email", "bot@example.org", "--affiliation", "tests", "--server-url", server.url],
        capture_output=True, text=True, timeout=60,
    )
    assert 'Successfully registered with username "rc_connect_bot"' in registered.stdout
    register(server.url, ["inviter"])
    connect = subprocess.Popen(
        [str(scripts / "rc-connect"), "reconchess.bots.random_bot", "--username", "rc_connect_bot",
         "--password", "pw-rc_connect_bot", "--server-url", server.url, "--max-concurrent-games", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        session = ServerSession(server.url, "inviter", "pw-inviter")
        game_id = session.invite("rc_connect_bot", False)
        _winner, reason, history_object = play_remote_game(session, game_id, RandomBot(rng=5), poll_seconds=0.05)
        history = as_json(history_object)
        assert history["white_name"] == "rc_connect_bot" and history["black_name"] == "inviter"
        assert reason is not None and reason.name in ("TURN_LIMIT", "KING_CAPTURE")
        for make_game in local_games():
            assert replay_locally(history, make_game()) == history
        deadline = time.monotonic() + 30
        while invitation_statuses(server, game_id) != ["finished"]:
            assert time.monotonic() < deadline, "rc-connect never finished its invitation"
            time.sleep(0.2)
    finally:
        connect.send_signal(signal.SIGINT)
        output, _ = connect.communicate(timeout=60)
    assert "Connected successfully to server!" in output
    assert f"Finished game {game_id}" in output and "Fatal error" not in output

