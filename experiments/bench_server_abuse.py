"""Does the game server lose anything, or slow down, under load and while 40 threads guess passwords?

Starts ``blindchess serve`` in its own process on 127.0.0.1 and keeps ``--games`` random-bot
games running at once (rounds of concurrent games through our HTTP client, from several client
processes) for ``--seconds``, twice: first alone, then while a separate process runs
``--guessers`` threads sending wrong passwords as fast as the server answers (for a real
account and for names that do not exist), from their own address (127.0.0.2; the players
use 127.0.0.1). Every normal request is timed on the client side.
Prints p50/p99 latency of the normal requests in each phase and their ratio, what the
guessers were answered (401 until throttled, then 429), and checks that nothing was lost
(every game over on the server, both players saw the same history, the server stored exactly
the actions that history holds).

    python experiments/bench_server_abuse.py                       # 32 games, 40 guessers, 60 s each
    python experiments/bench_server_abuse.py --games 4 --guessers 8 --seconds 5   # a quick look
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import requests

from blindchess.experiments.bench_server import run_phase
from blindchess.fixtures.servers import ServerProcess

GUESSER_ADDRESS = "127.0.0.2"
"""Where the guessers connect from: an attacker has its own address. (The players use 127.0.0.1; a throttled
address gets 429 for every request, right passwords included, so guessers sharing it would stop the games.)"""


class _FromAddress(requests.adapters.HTTPAdapter):
    """Connections bound to one local address (the guessers')."""

    def __init__(self, address: str) -> None:
        self._address = address
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        kwargs["source_address"] = (self._address, 0)
        super().init_poolmanager(*args, **kwargs)


def guess_passwords(url: str, victim: str, threads: int, seconds: float, counts: Any) -> None:
    """Process body: `threads` threads sending wrong credentials for `seconds` from `GUESSER_ADDRESS`; tallies statuses in `counts`."""
    stop = time.monotonic() + seconds
    tally: collections.Counter[int] = collections.Counter()
    lock = threading.Lock()

    def guess(index: int) -> None:
        session = requests.Session()
        session.mount("http://", _FromAddress(GUESSER_ADDRESS))
        attempt = 0
        while time.monotonic() < stop:
            name = victim if attempt % 2 == 0 else f"nobody-{index}-{attempt}"
            try:
                status = session.get(f"{url}/api/invitations/", auth=(name, f"guess-{index}-{attempt}"), timeout=30).status_code
            except requests.RequestException:
                status = 0
            with lock:
                tally[status] += 1
            attempt += 1

    workers = [threading.Thread(target=guess, args=(index,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    counts.update({str(status): count for status, count in tally.items()})


def timed_rounds(server: ServerProcess, db: Path, args: argparse.Namespace, seconds: float, first_user: int) -> dict[str, Any]:
    """Rounds of `args.games` concurrent games until `seconds` have passed; latencies and problems pooled."""
    started = time.monotonic()
    rounds: list[dict[str, Any]] = []
    while time.monotonic() - started < seconds:
        rounds.append(run_phase(server, db, args.games, args.processes, args.poll_seconds, first_user + 1000 * len(rounds)))
    latencies = np.concatenate([round_["latencies"] for round_ in rounds])
    return {
        "games": sum(round_["games"] for round_ in rounds),
        "completed": sum(round_["completed"] for round_ in rounds),
        "requests": len(latencies),
        "p50_ms": 1000 * float(np.percentile(latencies, 50)),
        "p99_ms": 1000 * float(np.percentile(latencies, 99)),
        "problems": [problem for round_ in rounds for problem in round_["errors"] + round_["lost"]],
        "seconds": time.monotonic() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=32, help="concurrent games")
    parser.add_argument("--guessers", type=int, default=40, help="password-guessing threads in the second phase")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each phase")
    parser.add_argument("--turn-limit", type=int, default=10, help="full-turn limit of each game")
    parser.add_argument("--processes", type=int, default=4, help="client processes sharing the games")
    parser.add_argument("--poll-seconds", type=float, default=0.5, help="clients' game_status poll interval")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.sqlite3"
        with ServerProcess(db, extra_args=("--full-turn-limit", str(args.turn_limit))) as server:
            quiet = timed_rounds(server, db, args, args.seconds, first_user=0)
            manager = multiprocessing.get_context("spawn").Manager()
            counts = manager.dict()
            victim = "bot0"  # a real account from the first phase
            guessers = multiprocessing.get_context("spawn").Process(
                target=guess_passwords, args=(server.url, victim, args.guessers, args.seconds + 5, counts)
            )
            guessers.start()
            time.sleep(2.0)  # let the guessing get going
            attacked = timed_rounds(server, db, args, args.seconds, first_user=500_000)
            guessers.join()
            answered = dict(counts)
    load = os.getloadavg()[0]
    print(
        f"server on loopback, {args.games} concurrent {args.turn_limit}-turn random-bot games, client poll {args.poll_seconds} s, "
        f"{os.cpu_count()} cores, load average {load:.1f} at the end"
    )
    print(f"{'phase':<24}{'games':>7}{'done':>7}{'requests':>10}{'seconds':>9}{'p50 ms':>9}{'p99 ms':>9}{'problems':>10}")
    for label, phase in (("alone", quiet), (f"{args.guessers} threads guessing", attacked)):
        print(
            f"{label:<24}{phase['games']:>7}{phase['completed']:>7}{phase['requests']:>10}{phase['seconds']:>9.1f}"
            f"{phase['p50_ms']:>9.1f}{phase['p99_ms']:>9.1f}{len(phase['problems']):>10}"
        )
    print(f"ratio (guessing / alone): p50 x{attacked['p50_ms'] / quiet['p50_ms']:.2f}, p99 x{attacked['p99_ms'] / quiet['p99_ms']:.2f}")
    print("guessers were answered: " + ", ".join(f"{status}: {count}" for status, count in sorted(answered.items())))
    for problem in quiet["problems"] + attacked["problems"]:
        print("PROBLEM:", problem)
    if quiet["problems"] or attacked["problems"] or quiet["completed"] != quiet["games"] or attacked["completed"] != attacked["games"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
