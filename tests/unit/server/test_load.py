"""A small run of the load-and-abuse benchmark (``experiments/bench_server_abuse.py``): nothing is lost.

The benchmark itself (32 games, 40 guessing threads, 60 s a phase) measures latency; this
keeps its code working and checks, on a real server process and SQLite file, that games played
while threads guess passwords all finish with every action stored, and that the guessers are
refused. Latency is not asserted here (a timed test on a shared machine would be flaky).
"""

from __future__ import annotations

import re
import subprocess
import sys


def test_games_under_password_guessing_lose_nothing() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "blindchess.experiments.bench_server_abuse", "--games", "3", "--guessers", "6",
         "--seconds", "1", "--turn-limit", "2", "--processes", "1"],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "PROBLEM" not in run.stdout
    rows = re.findall(r"^(alone|6 threads guessing)\s+(\d+)\s+(\d+)\s+\d+.*\s(\d+)$", run.stdout, re.MULTILINE)
    assert len(rows) == 2 and all(games == done and problems == "0" for _, games, done, problems in rows), run.stdout
    answered = dict(re.findall(r"(\d+): (\d+)", run.stdout.split("guessers were answered:")[1]))
    assert set(answered) <= {"401", "429"} and answered, run.stdout  # refused, never let in, never a server error
