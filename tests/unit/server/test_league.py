"""Our client against our server: a ranked league, a crashing bot, and Ctrl-C.

The server is real (uvicorn on 127.0.0.1, ephemeral port); clients are
:class:`Connector` threads (as ``blindchess connect`` runs them) or the real
``blindchess connect`` command in a subprocess.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import chess
import pytest

from blindchess.arbiter import GameHistory
from blindchess.arbiter.game.results import describe_result
from blindchess.bots.random_bot import RandomBot
from blindchess.commands.cli_connect import bot_factory
from blindchess.elo import INITIAL_ELO, updated_ratings
from blindchess.fixtures.servers import register
from blindchess.server.client import ServerSession, play_remote_game
from blindchess.server.connect import Connector
from blindchess.server.server import ServerThread
from blindchess.server.service import ServerConfig

LEAGUE = {"attacker_1": "attacker", "attacker_2": "attacker", "random_1": "random", "random_2": "random"}
MIN_GAMES = 12


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    # start_timeout: a league game accepted by one bot just as the other stops is withdrawn quickly
    config = ServerConfig(full_turn_limit=10, seed=2026, start_timeout=5.0)
    with ServerThread(tmp_path_factory.mktemp("league") / "server.sqlite3", config) as running:
        yield running


def query(server: ServerThread, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{server.store.path}?mode=ro", uri=True) as connection:
        return [tuple(row) for row in connection.execute(sql, params)]


def wait_for(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def league_done(server: ServerThread) -> bool:
    """At least MIN_GAMES rated games, and every pair of bots has met (the scheduler pairs the least-met first)."""
    pairs = query(server, "SELECT DISTINCT white_id, black_id FROM games g JOIN rated_games r ON r.game_id = g.id")
    met = {frozenset(pair) for pair in pairs}
    return len(query(server, "SELECT * FROM rated_games")) >= MIN_GAMES and len(met) == len(list(itertools.combinations(LEAGUE, 2)))


def test_ranked_league_runs_to_completion_and_rates_every_result(server: ServerThread) -> None:
    sessions = register(server.url, list(LEAGUE))
    connectors = [
        Connector(sessions[name], bot_factory(bot, seed), max_games=2, ranked=True, poll_seconds=0.1, game_poll_seconds=0.02)
        for seed, (name, bot) in enumerate(LEAGUE.items())
    ]
    threads = [threading.Thread(target=connector.run) for connector in connectors]
    for thread in threads:
        thread.start()
    try:
        wait_for(lambda: league_done(server), 150, f"{MIN_GAMES} rated games with every pair met")
    finally:
        for connector in connectors:
            connector.stop()
        for thread in threads:
            thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    records = [record for connector in connectors for record in connector.records]
    assert all(record.error is None for record in records), [record.error for record in records]

    games = query(
        server,
        "SELECT g.id, w.username, b.username, g.winner_color, g.win_reason FROM rated_games r JOIN games g ON g.id = r.game_id "
        "JOIN users w ON w.id = g.white_id JOIN users b ON b.id = g.black_id ORDER BY r.seq",
    )
    assert len(games) >= MIN_GAMES
    assert query(server, "SELECT COUNT(*) FROM games WHERE over = 0") == [(0,)]  # nothing left hanging
    rated_ids = {game[0] for game in games}
    assert sum(record.game_id in rated_ids for record in records) == 2 * len(games)  # both players saw each one
    withdrawn = {game_id for (game_id,) in query(server, "SELECT id FROM games WHERE aborted = 1")}
    assert all(record.game_id in rated_ids | withdrawn for record in records)  # the rest: withdrawn as the league stopped
    assert {frozenset((white, black)) for _, white, black, _, _ in games} == {frozenset(p) for p in itertools.combinations(LEAGUE, 2)}

    # the Elo table is exactly the results replayed in the order they were rated
    expected = {name: INITIAL_ELO for name in LEAGUE}
    tallies = {name: [0, 0, 0] for name in LEAGUE}
    for _, white, black, winner, reason in games:
        assert reason in ("KING_CAPTURE", "TURN_LIMIT")
        score = 0.5 if winner is None else float(winner == 1)
        expected[white], expected[black] = updated_ratings(expected[white], expected[black], score)
        for name, points in ((white, score), (black, 1 - score)):
            tallies[name][{1.0: 0, 0.5: 1, 0.0: 2}[points]] += 1
    table = ServerSession(server.url, "random_1", "pw-random_1").ratings()
    assert [row["username"] for row in table] == sorted(expected, key=lambda name: -expected[name])
    for row in table:
        assert row["version"] == 1
        assert row["elo"] == pytest.approx(expected[row["username"]], abs=1e-9)
        assert [row["wins"], row["draws"], row["losses"]] == tallies[row["username"]]
    assert sum(row["elo"] for row in table) == pytest.approx(INITIAL_ELO * len(LEAGUE))
    # the scripted king rush beats random play: the attackers end on top (seeded bots; a wide margin in practice)
    by_name = {row["username"]: row["elo"] for row in table}
    assert by_name["attacker_1"] + by_name["attacker_2"] > by_name["random_1"] + by_name["random_2"]


class CrashesOnThirdMove(RandomBot):
    def __init__(self, rng: Any = None) -> None:
        super().__init__(rng)
        self.moves = 0

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        self.moves += 1
        if self.moves == 3:
            raise RuntimeError("bot bug")
        return super().choose_move(move_actions, seconds_left)


def test_a_crashing_bot_loses_only_that_game(server: ServerThread) -> None:
    sessions = register(server.url, ["crashy", "opponent_a", "opponent_b"])
    bots = iter([CrashesOnThirdMove(rng=1), RandomBot(rng=2)])
    connector = Connector(sessions["crashy"], lambda: next(bots), max_games=2, poll_seconds=0.05, game_poll_seconds=0.02)
    runner = threading.Thread(target=connector.run)
    runner.start()
    results: dict[str, Any] = {}
    game_a = sessions["opponent_a"].invite("crashy", chess.WHITE)
    wait_for(lambda: connector.games_in_progress == 1, 30, "the first game to be accepted")
    game_b = sessions["opponent_b"].invite("crashy", chess.WHITE)
    opponents = [
        threading.Thread(target=lambda name=name, game_id=game_id: results.__setitem__(
            name, play_remote_game(sessions[name], game_id, RandomBot(rng=9), 0.02)
        ))
        for name, game_id in (("opponent_a", game_a), ("opponent_b", game_b))
    ]
    for thread in opponents:
        thread.start()
    for thread in opponents:
        thread.join(timeout=120)
    wait_for(lambda: len(connector.records) == 2, 30, "both games to be recorded")
    connector.stop()
    runner.join(timeout=30)
    crashed = next(record for record in connector.records if record.game_id == game_a)
    survived = next(record for record in connector.records if record.game_id == game_b)
    assert crashed.error is not None and "bot bug" in crashed.error
    assert (results["opponent_a"][0], results["opponent_a"][1].name) == (chess.WHITE, "TIMEOUT")  # error_resign
    crashed_history = json.loads(results["opponent_a"][2].to_json())
    assert len(crashed_history["requested_moves"]["false"]) == 2  # Black made two moves, then crashed
    assert len(crashed_history["senses"]["false"]) == 3  # it had sensed in its third turn
    assert survived.error is None and survived.win_reason is not None and survived.win_reason.name in ("KING_CAPTURE", "TURN_LIMIT")
    assert results["opponent_b"][1].name == survived.win_reason.name


def test_ctrl_c_stops_taking_games_and_finishes_the_one_in_progress(server: ServerThread, tmp_path: Path) -> None:
    sessions = register(server.url, ["inviter", "second_inviter"])
    command = [sys.executable, "-m", "blindchess", "connect", "random", "--server", server.url, "--username", "interrupted",
               "--register", "--poll-seconds", "0.1", "--max-games", "2", "--seed", "4", "--out", str(tmp_path)]
    connect = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1", "BLINDCHESS_PASSWORD": "pw-interrupted"})
    try:
        wait_for(lambda: "interrupted" in sessions["inviter"].active_users(), 60, "the connection")
        game_id = sessions["inviter"].invite("interrupted", chess.WHITE)
        result: dict[str, Any] = {}
        player = threading.Thread(target=lambda: result.__setitem__(
            "game", play_remote_game(sessions["inviter"], game_id, RandomBot(rng=3), 0.02)
        ))
        player.start()
        wait_for(lambda: len(query(server, "SELECT * FROM actions WHERE game_id = ?", game_id)) >= 6, 60, "the game to start")
        connect.send_signal(signal.SIGINT)
        time.sleep(0.5)
        late_game = sessions["second_inviter"].invite("interrupted", chess.WHITE)
        player.join(timeout=120)
        output, _ = connect.communicate(timeout=60)
    finally:
        if connect.poll() is None:
            connect.kill()
    assert connect.returncode == 0, output
    assert "stopping: no new games" in output
    winner, reason, history = result["game"]
    assert reason.name in ("KING_CAPTURE", "TURN_LIMIT")  # played to its end, not abandoned
    # the result in words, and the history saved locally as `blindchess match` saves it
    [saved] = tmp_path.glob(f"*-game{game_id}-inviter-vs-interrupted.json")
    assert f"game {game_id}: {describe_result(winner, reason, 'inviter', 'interrupted')} -> {saved}" in output
    assert GameHistory.from_file(str(saved)).to_json() == history.to_json()
    assert "connected to" in output and "1 game played" in output.splitlines()  # was "1 games played" (issue 41)
    # never accepted: still pending, or withdrawn by the server's start timeout
    assert query(server, "SELECT status FROM invitations WHERE game_id = ?", late_game) in ([("pending",)], [("cancelled",)])


def test_invite_command_challenges_a_connected_bot(server: ServerThread, tmp_path: Path) -> None:
    sessions = register(server.url, ["host_bot"])
    connector = Connector(sessions["host_bot"], bot_factory("attacker", 8), max_games=1, poll_seconds=0.05, game_poll_seconds=0.02)
    runner = threading.Thread(target=connector.run)
    runner.start()
    try:
        invite = subprocess.run(
            [sys.executable, "-m", "blindchess", "invite", "host_bot", "--bot", "random", "--color", "black", "--server", server.url,
             "--username", "challenger", "--register", "--seed", "3", "--out", str(tmp_path)],
            capture_output=True, text=True, timeout=120, env={**os.environ, "BLINDCHESS_PASSWORD": "pw-challenger"},
        )
    finally:
        connector.stop()
        runner.join(timeout=60)
    assert invite.returncode == 0, invite.stdout + invite.stderr
    # the same names before and after the game (was: `random (black) vs host_bot`, then `white (host_bot) won`)
    assert "host_bot (white) vs challenger (black), challenger played by random" in invite.stdout
    [record] = connector.records
    assert record.error is None and record.win_reason is not None
    [saved] = tmp_path.glob(f"*-game{record.game_id}-host_bot-vs-challenger.json")
    result = describe_result(record.winner_color, record.win_reason, "host_bot", "challenger")
    assert f"game {record.game_id}: {result} -> {saved}" in invite.stdout


@pytest.mark.parametrize(("command", "given"), [("connect", []), ("invite", ["--username", "someone"])])
def test_without_a_terminal_a_missing_credential_is_named_not_prompted_for(command: str, given: list[str]) -> None:
    """Was: ``error: EOFError:`` when the prompt read a closed stdin (a service, a pipe, CI)."""
    argv = [sys.executable, "-m", "blindchess", command, *(["random"] if command == "connect" else ["opponent"])]
    env = {name: value for name, value in os.environ.items() if name != "BLINDCHESS_PASSWORD"}
    done = subprocess.run([*argv, "--server", "http://127.0.0.1:9", *given], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "EOFError" not in done.stderr and "Traceback" not in done.stderr
    if given:
        assert "'Password:' prompt" in done.stderr and "BLINDCHESS_PASSWORD" in done.stderr and "--password" in done.stderr
    else:
        assert "'Username:' prompt" in done.stderr and "--username" in done.stderr
