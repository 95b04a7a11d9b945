"""A clock of CPU seconds spent by this process and the engines it runs: a move's budget that load cannot shrink.

Why: on a shared machine a wall-clock budget buys fewer searches when other work takes the
cores, so a long budget's anytime loop (`StockfishMoveSelector.cover`) does less, and two runs of a
benchmark disagree. Counting CPU seconds instead spends the same work whatever the load, which is
also what ``--clock cpu`` matches charge a bot (:mod:`blindchess.arbiter.sandbox.cpu_clock`). The
selector uses it when ``selector.search.clock = "cpu"``; wall time stays the default, as
competitions are wall-clock.

The clock reads ``time.process_time()`` (every thread of this process) plus each engine's user and
system time from ``/proc/<pid>/stat`` (Linux). An engine that died and was restarted takes its
spent seconds with it: the clock may step back by them, so a budget measured across a crash runs a
little long, never short of work.

>>> clock = ProcessTreeClock(lambda: [])
>>> first = clock(); sum(range(10**5)) > 0 and clock() >= first
True
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Optional

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
"""Clock ticks per second of ``/proc/<pid>/stat``'s times."""


def parent_and_cpu_seconds(pid: int) -> Optional[tuple[int, float]]:
    """Process `pid`'s parent and the user plus system CPU seconds it has used; None if it is gone or unreadable.

    >>> parent_and_cpu_seconds(os.getpid())[0] == os.getppid()
    True
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS
    except (OSError, IndexError):
        return None


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds process `pid` has used (0 if it is gone or unreadable).

    >>> process_cpu_seconds(os.getpid()) >= 0.0
    True
    """
    read = parent_and_cpu_seconds(pid)
    return 0.0 if read is None else read[1]


class ProcessTreeClock:
    """A monotonic-enough clock (see the module docstring): this process's CPU seconds and those of `pids`.

    Args:
        pids: the engines' process ids, asked at every reading (an engine may start or restart meanwhile).
    """

    def __init__(self, pids: Callable[[], Iterable[int]]) -> None:
        self.pids = pids

    def __call__(self) -> float:
        return time.process_time() + sum(process_cpu_seconds(pid) for pid in self.pids())
