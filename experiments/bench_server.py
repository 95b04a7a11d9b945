"""How does the game server hold up with many games at once?

Starts ``blindchess serve`` in its own process on 127.0.0.1, then plays random-bot
games through our HTTP client from several client processes: first a single game
alone (the baseline), then ``--games`` games at once. Every request is timed on the
client side. Prints requests per second, p50/p99 latency, games completed, and checks
that nothing was lost: every game is over on the server, both players saw the same
history, and the server stored exactly the actions that history holds.

    python experiments/bench_server.py                      # 32 concurrent games, 20-turn limit
    python experiments/bench_server.py --poll-seconds 0.05  # clients polling 10x as often: a stress test
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Optional

import numpy as np

from blindchess.bots.random_bot import RandomBot
from blindchess.fixtures.servers import ServerProcess, register
from blindchess.server.client import ServerSession, play_remote_game


class TimedSession(ServerSession):
    """A session that records the wall time of every request it makes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.latencies: list[float] = []

    def request(self, method: str, path: str, body: Optional[dict[str, Any]] = None, patience: Optional[float] = None) -> Any:
        start = time.perf_counter()
        try:
            return super().request(method, path, body, patience)
        finally:
            self.latencies.append(time.perf_counter() - start)


def play_games(url: str, games: list[tuple[int, str, str]], poll_seconds: float, seed: int) -> dict[str, Any]:
    """Client process: play every listed (game id, white, black) with two threads each."""
    outcomes: dict[tuple[int, str], Any] = {}
    sessions: list[TimedSession] = []
    errors: list[str] = []
    seeds = np.random.SeedSequence(seed).spawn(2 * len(games))

    def play(game_id: int, name: str, rng_seed: np.random.SeedSequence) -> None:
        session = TimedSession(url, name, "pw-" + name)
        sessions.append(session)
        try:
            _, _, history = play_remote_game(session, game_id, RandomBot(rng=rng_seed), poll_seconds)
            outcomes[(game_id, name)] = json.loads(history.to_json())
        except Exception as error:  # counted and reported: a benchmark must not hide failures
            errors.append(f"game {game_id} {name}: {type(error).__name__}: {error}")

    threads = []
    for index, (game_id, white, black) in enumerate(games):
        for offset, name in enumerate((white, black)):
            threads.append(threading.Thread(target=play, args=(game_id, name, seeds[2 * index + offset])))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    histories = {}
    for game_id, white, black in games:
        pair = [outcomes.get((game_id, name)) for name in (white, black)]
        histories[game_id] = pair[0] if pair[0] is not None and pair[0] == pair[1] else None
    return {"latencies": [t for s in sessions for t in s.latencies], "errors": errors, "histories": histories}


def run_phase(server: ServerProcess, db: Path, n_games: int, processes: int, poll_seconds: float, first_user: int) -> dict[str, Any]:
    url = server.url
    names = [f"bot{first_user + i}" for i in range(2 * n_games)]
    sessions = register(url, names)
    games = [(sessions[names[2 * i]].invite(names[2 * i + 1], True), names[2 * i], names[2 * i + 1]) for i in range(n_games)]
    chunks = [games[i::processes] for i in range(min(processes, n_games))]
    with multiprocessing.get_context("spawn").Pool(len(chunks)) as pool:
        start, cpu_start = time.perf_counter(), server.cpu_seconds()  # after registration (scrypt) and the pool's start
        parts = pool.starmap(play_games, [(url, chunk, poll_seconds, first_user + k) for k, chunk in enumerate(chunks)])
        elapsed, cpu_used = time.perf_counter() - start, server.cpu_seconds() - cpu_start
    latencies = np.array([t for part in parts for t in part["latencies"]])
    errors = [e for part in parts for e in part["errors"]]
    histories = {gid: h for part in parts for gid, h in part["histories"].items()}
    lost = check_nothing_lost(db, histories)
    return {
        "games": n_games,
        "completed": sum(h is not None for h in histories.values()) - len(lost),
        "requests": len(latencies),
        "seconds": elapsed,
        "rps": len(latencies) / elapsed,
        "p50_ms": 1000 * float(np.percentile(latencies, 50)) if len(latencies) else float("nan"),
        "p99_ms": 1000 * float(np.percentile(latencies, 99)) if len(latencies) else float("nan"),
        "cpu_ms": 1000 * cpu_used / max(1, len(latencies)),
        "errors": errors,
        "lost": lost,
        "latencies": latencies,
    }


def check_nothing_lost(db: Path, histories: dict[int, Optional[dict[str, Any]]]) -> list[str]:
    """Games whose server record disagrees with what the players saw (empty when nothing was lost)."""
    problems = []
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        for game_id, history in histories.items():
            over, = connection.execute("SELECT over FROM games WHERE id = ?", (game_id,)).fetchone()
            stored = connection.execute("SELECT COUNT(*) FROM actions WHERE game_id = ?", (game_id,)).fetchone()[0]
            if history is None or not over:
                problems.append(f"game {game_id}: not completed or players disagree")
                continue
            half_turns = len(history["requested_moves"]["true"]) + len(history["requested_moves"]["false"])
            if stored != 3 * half_turns:
                problems.append(f"game {game_id}: {stored} stored actions for {half_turns} half-turns")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=32, help="concurrent games in the load phase")
    parser.add_argument("--turn-limit", type=int, default=20, help="full-turn limit (games end in a draw there)")
    parser.add_argument("--processes", type=int, default=4, help="client processes sharing the games")
    parser.add_argument(
        "--poll-seconds", type=float, default=0.5, help="client's game_status poll interval (0.5 s is reconchess's RemoteGame)"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.sqlite3"
        with ServerProcess(db, extra_args=("--full-turn-limit", str(args.turn_limit))) as server:
            baseline = run_phase(server, db, 1, 1, args.poll_seconds, first_user=0)
            load = run_phase(server, db, args.games, args.processes, args.poll_seconds, first_user=10)
    load_average = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"server on loopback, {args.turn_limit}-turn random-bot games, client poll {args.poll_seconds} s, "
        f"{args.processes} client processes, {os.cpu_count()} cores, load average {load_average:.1f} at the end"
    )
    print(
        f"{'phase':<14}{'games':>6}{'done':>6}{'requests':>10}{'seconds':>9}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'server CPU ms/req':>19}{'errors':>8}{'lost':>6}"
    )
    for label, phase in (("1 game alone", baseline), (f"{args.games} at once", load)):
        print(
            f"{label:<14}{phase['games']:>6}{phase['completed']:>6}{phase['requests']:>10}{phase['seconds']:>9.1f}"
            f"{phase['rps']:>9.0f}{phase['p50_ms']:>9.1f}{phase['p99_ms']:>9.1f}{phase['cpu_ms']:>19.2f}"
            f"{len(phase['errors']):>8}{len(phase['lost']):>6}"
        )
    print(
        f"ratios (load / alone): throughput x{load['rps'] / baseline['rps']:.1f}, "
        f"p50 latency x{load['p50_ms'] / baseline['p50_ms']:.1f}, p99 latency x{load['p99_ms'] / baseline['p99_ms']:.1f}"
    )
    for problem in baseline["errors"] + load["errors"] + baseline["lost"] + load["lost"]:
        print("PROBLEM:", problem)
    if load["completed"] != args.games or load["errors"] or load["lost"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
