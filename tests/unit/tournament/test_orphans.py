"""``kill -9`` of ``blindchess tournament`` leaves no process behind: workers, forkserver and bots end with it.

Before the change every such kill left the forkserver, the pool's workers and the resource
tracker running (the workers blocked for ever on a queue nobody would write to). The test runs
the real command with two workers and an isolated bot, kills the driver mid-game with SIGKILL,
and checks that every process it had started is gone within seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .tournament_helpers import write_config

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process tree from /proc")

SLOW_BOT = """
import time

from blindchess.bots.random_bot import RandomBot


class SlowBot(RandomBot):
    '''Plays randomly, a tenth of a second a move: games stay in flight.'''

    def choose_move(self, move_actions, seconds_left):
        time.sleep(0.1)
        return super().choose_move(move_actions, seconds_left)
"""


def _processes() -> dict[int, tuple[int, str]]:
    """Every live process: pid -> (parent pid, start time), zombies left out."""
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                table[int(name)] = (int(fields[1]), fields[19])
    return table


def _descendants(root: int) -> dict[int, str]:
    """The processes below `root`: pid -> start time (a pid is reused only with another start time)."""
    table = _processes()
    found: dict[int, str] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, started) in table.items():
            if ppid == parent and pid not in found:
                found[pid] = started
                frontier.append(pid)
    return found


def _alive(processes: dict[int, str]) -> list[int]:
    table = _processes()
    return [pid for pid, started in processes.items() if pid in table and table[pid][1] == started]


def test_kill_9_of_the_tournament_driver_leaves_no_process(tmp_path: Path) -> None:
    (tmp_path / "slow.py").write_text(SLOW_BOT)
    players = f'[players.slow]\nbot = "{tmp_path / "slow.py"}"\n\n[players.random]\nbot = "random"\n'
    config = write_config(tmp_path, players, games=4, turn_limit=200)
    command = [sys.executable, "-m", "blindchess", "tournament", str(config), "--workers", "2", "--no-progress"]
    driver = subprocess.Popen(
        [*command, "--db", str(tmp_path / "r.sqlite")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    started: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 60
        while len(started) < 6 and time.monotonic() < deadline:  # forkserver, 2 workers, their 2 bots, ...
            time.sleep(0.2)
            started = _descendants(driver.pid)
        assert driver.poll() is None and len(started) >= 6, started
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        deadline = time.monotonic() + 15
        while _alive(started) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(started), [Path(f"/proc/{pid}/cmdline").read_bytes()[:80] for pid in _alive(started)]
    finally:
        driver.kill()
        for pid in _alive(started):  # leave nothing behind, even when the test fails
            os.kill(pid, signal.SIGKILL)
