"""CPU clocks: charge a bot the CPU time its own process tree used on its turn, not wall time.

Why: on a shared machine a wall clock charges a bot for what the machine's other work took
from it, so the verdict of a match depends on the load. Under ``--clock cpu`` each isolated bot
(:mod:`blindchess.arbiter.sandbox.isolation`) runs in a cgroup of its own and its clock pays for the
CPU its group used between the start of its turn and its answer: the bot, its threads and every
process it started (a chess engine), exited ones included. Work done on the opponent's turn
(pondering) is read by nobody's clock. Wall time stays the default and the competition's rule.

Accounting is cgroup v2's ``cpu.stat`` ``usage_usec``: it counts every task that was ever in the
group, which ``/proc/<pid>/stat`` cannot (its ``cutime`` holds only children that were reaped,
and reading a tree of processes races their exits). The groups are made under this process's
own cgroup v2 group (the ``cgroup2`` mount in ``/proc/self/mountinfo``; ``/sys/fs/cgroup/unified``
on a hybrid machine such as ours), which needs root or a delegated group. Where that fails,
`CpuClockUnavailableError` says why in one line: the mode never falls back to wall time silently.

A CPU clock cannot see a bot that waits: sleeping, blocking on the network or on a GPU costs
it nothing. A wall-time limit per callback (`hang_seconds`) still ends a bot that stops
answering; it loses on time.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from pathlib import Path
from typing import Optional

from blindchess.errors import BlindchessError

CLOCK_MODES = ("wall", "cpu")
"""What a clock charges: wall time (the default and the competition's rule) or the bot's own CPU time."""

HANG_FACTOR = 3.0
"""Under a CPU clock, a callback may run this many times the CPU seconds its clock has left in wall time..."""
HANG_MIN_SECONDS = 10.0
"""...and never less than this: on a loaded machine a bot given a third of a core still finishes its turn."""

_GROUP_PREFIX = "blindchess-clock-"
_counter = itertools.count()


class CpuClockUnavailableError(BlindchessError, RuntimeError):
    """``--clock cpu`` cannot account CPU here (no cgroup v2 mount, or no right to create a group in it)."""


def hang_seconds(cpu_seconds_left: float) -> float:
    """The wall-time limit of one callback under a CPU clock with `cpu_seconds_left` (increment included).

    >>> hang_seconds(1.0), hang_seconds(100.0)
    (10.0, 300.0)
    """
    return max(HANG_MIN_SECONDS, HANG_FACTOR * cpu_seconds_left)


def own_cgroup(mountinfo: str = "/proc/self/mountinfo", membership: str = "/proc/self/cgroup") -> Path:
    """This process's cgroup v2 group, as a folder, where the bots' groups are made.

    Raises:
        CpuClockUnavailableError: no ``cgroup2`` file system is mounted, or this process is in none of its groups.
    """
    try:
        mounts = Path(mountinfo).read_text().splitlines()
        groups = Path(membership).read_text().splitlines()
    except OSError as error:
        raise CpuClockUnavailableError(f"--clock cpu needs Linux cgroups: {error}") from None
    mount = next((line.split()[4] for line in mounts if " - cgroup2 " in line), None)
    path = next((line[3:] for line in groups if line.startswith("0::")), None)
    if mount is None or path is None:
        raise CpuClockUnavailableError("--clock cpu needs a cgroup v2 file system (none is mounted here); use --clock wall")
    return Path(mount) / path.lstrip("/")


class CgroupCpuMeter:
    """A cgroup of its own for one bot, and the CPU seconds every task in it has used.

    Made in the arbiter's process; the bot's process joins it (`join`) before it starts
    anything, so everything it forks is counted. `close` removes the group; readings after it
    return the last one.

    Raises:
        CpuClockUnavailableError: the group cannot be made, or it has no ``cpu.stat``.
    """

    def __init__(self, parent: Optional[Path] = None) -> None:
        parent = own_cgroup() if parent is None else parent
        self.path = parent / f"{_GROUP_PREFIX}{os.getpid()}-{next(_counter)}"
        try:
            self.path.mkdir()
        except OSError as error:
            raise CpuClockUnavailableError(
                f"--clock cpu cannot create a cgroup in {parent} ({error.strerror}):"
                " run as root or in a delegated cgroup, or use --clock wall"
            ) from None
        self._stat = self.path / "cpu.stat"
        self._last = 0.0
        self._closed = False
        try:
            self._last = self._read()
        except (OSError, ValueError) as error:
            self._remove()
            raise CpuClockUnavailableError(f"--clock cpu: {parent} is not a cgroup v2 group with cpu.stat ({error})") from None

    def join(self) -> None:
        """Move the calling process into the group (in the bot's process, before it forks anything)."""
        (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def _read(self) -> float:
        with open(self._stat) as file:
            first = file.readline().split()  # "usage_usec N" comes first
        if first[0] != "usage_usec":
            raise ValueError(f"cpu.stat starts with {first[0]!r}, not usage_usec")
        return int(first[1]) / 1e6

    def seconds(self) -> float:
        """CPU seconds used by every task that has been in the group (exited ones included)."""
        if not self._closed:
            with contextlib.suppress(OSError, ValueError, IndexError):
                self._last = self._read()
        return self._last

    def close(self) -> None:
        """Keep the last reading and remove the group (its processes must have ended; idempotent)."""
        if self._closed:
            return
        self.seconds()
        self._closed = True
        self._remove()

    def _remove(self) -> None:
        for _ in range(50):  # killed processes leave the group a moment after they die
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


def remove_stale_groups(parent: Path) -> list[Path]:
    """Remove the empty groups in `parent` that a run no longer alive left behind; returns them.

    A run killed outright (SIGKILL, a lost terminal) cannot remove its groups, and they would stay
    until the machine restarts. A group's name carries the pid of the run that made it: one whose
    run has ended and whose tasks are all gone is removed. A group that still holds a task (a bot
    process that outlived its run) stays: the kernel refuses to remove it, and so do we.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / f"{_GROUP_PREFIX}{os.getpid()}-0").mkdir()  # this run's: alive
    >>> [path.name for path in remove_stale_groups(folder)]
    []
    """
    removed = []
    for path in parent.glob(f"{_GROUP_PREFIX}*-*"):
        pid = path.name[len(_GROUP_PREFIX):].split("-")[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):  # still holds a task, or already gone
            path.rmdir()
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def check_cpu_clock() -> None:
    """Make and remove a group, so that a run asked for ``--clock cpu`` stops before its first game if it cannot
    have one; first remove the groups that killed runs left (`remove_stale_groups`).

    Raises:
        CpuClockUnavailableError: see `CgroupCpuMeter`.
    """
    parent = own_cgroup()
    remove_stale_groups(parent)
    CgroupCpuMeter(parent).close()
