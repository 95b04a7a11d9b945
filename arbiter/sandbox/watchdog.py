"""Interrupting a bot that overruns its clock, without a thread hop per callback.

Why not run each callback in a worker thread with a timeout: a thread hand-off costs
about 20 microseconds, six callbacks a turn, which alone would cost more than our whole
turn. Instead the bot runs in the caller's thread and one watchdog thread per game
sleeps until the armed deadline; if the callback is still running then, it raises
`BotDeadlineExceeded` inside that thread (CPython's ``PyThreadState_SetAsyncExc``).

Limits, stated plainly: the exception lands at the bot's next Python bytecode, so a
bot stuck in a pure-Python loop is stopped at once, but one blocked inside C code
(``time.sleep``, a socket or pipe read) is stopped only when that call returns. A bot
that swallows the exception with a bare ``except:`` gets it again every `REPEAT_S`.
`BotDeadlineExceeded` derives from BaseException so ``except Exception`` in a bot does
not swallow it.

Under a CPU clock (:mod:`blindchess.arbiter.sandbox.cpu_clock`) a slot has two deadlines: the bot's
CPU meter must stay below `DeadlineSlot.cpu_deadline`, and the wall clock below
`DeadlineSlot.deadline` (the hang limit); the watchdog reads the meter on each scan.
"""

from __future__ import annotations

import ctypes
import math
import threading
import time
from collections.abc import Callable
from typing import Optional

REPEAT_S = 0.25
"""How often the watchdog re-checks (a new deadline, or a bot that swallowed the exception)."""


class BotDeadlineExceeded(BaseException):
    """Raised inside a bot callback that ran past its deadline."""


def _checkpoint() -> None:
    """Entering a Python function lets the interpreter deliver a pending asynchronous exception."""


class DeadlineSlot:
    """One thread's bot-call deadline: set `deadline` before each callback, `leave` after.

    Entering is that one attribute store, and so, nearly always, is leaving. The watchdog must
    never interrupt a thread that has already left the bot's code, so it checks the
    deadline and interrupts under its lock, and leaving takes that lock whenever the
    watchdog might be doing so: while it scans (`Watchdog.scanning`) or after it fired.
    Why the lock-free exit is safe: the thread stores ``deadline = inf`` before it reads
    ``scanning``, and the watchdog sets ``scanning`` before it reads any deadline; under
    the GIL these steps happen in one order, so either the thread sees the scan and
    takes the lock, or the scan starts after the store and sees no deadline to enforce.
    """

    __slots__ = ("cpu_deadline", "deadline", "fired", "meter", "thread_id", "watchdog")

    def __init__(self, thread_id: int, watchdog: Watchdog) -> None:
        self.thread_id = thread_id
        self.deadline = math.inf  # `time.monotonic()` by which the thread's bot call must return; inf outside bot calls
        self.cpu_deadline = math.inf  # the reading of `meter` the bot call must not reach (CPU clocks); inf otherwise
        self.meter: Optional[Callable[[], float]] = None
        self.fired = False  # interrupted in its current bot call
        self.watchdog = watchdog

    def overdue(self, now: float) -> bool:
        """Past its wall deadline at `now`, or its meter past its CPU deadline."""
        if self.deadline <= now:
            return True
        meter = self.meter
        return self.cpu_deadline < math.inf and meter is not None and meter() >= self.cpu_deadline

    def leave(self) -> bool:
        """The bot call returned (or raised); True when it overran and was interrupted.

        Call it inside the ``try`` that catches `BotDeadlineExceeded`: an exception
        injected just before is delivered here at the latest.
        """
        self.deadline = math.inf
        self.cpu_deadline = math.inf
        if not (self.watchdog.scanning or self.fired):
            return False
        with self.watchdog.lock:
            fired = self.fired
            self.fired = False
        if fired:
            _checkpoint()
        return fired


class Watchdog:
    """Interrupts bot calls that overrun, through each thread's `DeadlineSlot`.

    One thread serves every game in the process (see `shared_watchdog`), so starting
    a game costs nothing, and it never needs waking: it polls every `REPEAT_S`, so a
    deadline is enforced up to `REPEAT_S` late, which is fine for clocks measured in
    seconds. A slot is kept per thread id the process has used (ids are reused, so
    this stays as small as the number of threads alive at once).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        """Held while a deadline is checked and enforced (see `DeadlineSlot`)."""
        self.scanning = False
        """True while the watchdog thread reads deadlines (see `DeadlineSlot`)."""
        self._stopping = threading.Event()
        self._slots: dict[int, DeadlineSlot] = {}  # thread id -> its slot
        self._thread = threading.Thread(target=self._run, name="blindchess-watchdog", daemon=True)
        self._thread.start()

    def slot(self) -> DeadlineSlot:
        """The calling thread's slot."""
        thread_id = threading.get_ident()
        slot = self._slots.get(thread_id)
        if slot is None:
            with self.lock:
                slot = self._slots.setdefault(thread_id, DeadlineSlot(thread_id, self))
        return slot

    def stop(self) -> None:
        """End the watchdog thread (for tests; the shared one runs as a daemon)."""
        self._stopping.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stopping.wait(REPEAT_S):
            self.scanning = True  # before reading any deadline (see DeadlineSlot)
            try:
                now = time.monotonic()
                overdue = [slot for slot in list(self._slots.values()) if slot.overdue(now)]
                if overdue:
                    with self.lock:
                        for slot in overdue:
                            if slot.overdue(now):  # still inside an overdue bot call
                                slot.fired = True
                                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                                    ctypes.c_ulong(slot.thread_id), ctypes.py_object(BotDeadlineExceeded)
                                )
            finally:
                self.scanning = False


_shared: Optional[Watchdog] = None
_shared_lock = threading.Lock()


def shared_watchdog() -> Watchdog:
    """The process's watchdog, started on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Watchdog()
        return _shared
