"""Bots whose CPU use is known, for the CPU clock's tests (loaded from this file, as a user's bot would be).

Each plays a random move after doing its kind of work in ``choose_move``, `WORK` seconds of it:
spinning (CPU), sleeping (none), having a child process spin, or hanging; `Ponderer` spins on
the opponent's turn instead and writes the CPU its process used to `report` at the game's end.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Optional

import chess
import pytest

from blindchess.arbiter.sandbox.cpu_clock import CpuClockUnavailableError, check_cpu_clock
from blindchess.bots.random_bot import RandomBot

WORK = 0.2
"""Seconds of work per move."""


def _cgroups_here() -> bool:
    try:
        check_cpu_clock()
    except CpuClockUnavailableError:
        return False
    return True


needs_cgroups = pytest.mark.skipif(
    not (sys.platform.startswith("linux") and _cgroups_here()), reason="no cgroup v2 group can be made here (not root?)"
)
"""Marks a test that plays under a CPU clock (root, or a delegated cgroup, on Linux)."""


def spin(seconds: float) -> None:
    """Burn `seconds` of this thread's CPU time."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


class Busy(RandomBot):
    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        spin(WORK)
        return super().choose_move(move_actions, seconds_left)


class Sleeper(RandomBot):
    def __init__(self, rng: Any = None, seconds: float = WORK) -> None:
        super().__init__(rng)
        self.seconds = seconds

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        time.sleep(self.seconds)
        return super().choose_move(move_actions, seconds_left)


class ChildBurner(RandomBot):
    """Its CPU is spent by a child process it waits for."""

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        code = f"import time\nend = time.thread_time() + {WORK}\nwhile time.thread_time() < end: pass"
        subprocess.run([sys.executable, "-S", "-c", code], check=True)
        return super().choose_move(move_actions, seconds_left)


class Hanger(RandomBot):
    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        time.sleep(3600)
        return None


class Ponderer(RandomBot):
    """Cheap on its own turn; spins on the opponent's until told to stop."""

    def __init__(self, rng: Any = None, report: str = "") -> None:
        super().__init__(rng)
        self.report = report

    def ponder(self, stop: threading.Event) -> None:
        while not stop.is_set():
            spin(0.001)

    def handle_game_end(self, winner_color: Any, win_reason: Any, game_history: Any) -> None:
        Path(self.report).write_text(str(time.process_time()))
