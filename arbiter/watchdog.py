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
"""

from __future__ import annotations

import ctypes
import threading
import time
from types import TracebackType
from typing import Optional

REPEAT_S = 0.25
"""How often the watchdog re-checks (a new deadline, or a bot that swallowed the exception)."""


class BotDeadlineExceeded(BaseException):
    """Raised inside a bot callback that ran past its deadline."""


def _checkpoint() -> None:
    """Entering a Python function lets the interpreter deliver a pending asynchronous exception."""


class Watchdog:
    """One per game: arm before a bot callback, disarm after; see the module docstring."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._deadline: Optional[float] = None
        self._thread_id: Optional[int] = None
        self._fired = False
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="blindchess-watchdog", daemon=True)
        self._thread.start()

    def __enter__(self) -> Watchdog:
        return self

    def __exit__(self, kind: Optional[type], error: Optional[BaseException], trace: Optional[TracebackType]) -> None:
        self.stop()

    def arm(self, seconds: float) -> None:
        """Allow the current thread `seconds` from now for the callback it is about to make."""
        with self._lock:
            self._deadline = time.monotonic() + seconds
            self._thread_id = threading.get_ident()
            self._fired = False
            self._wake.notify()

    def disarm(self) -> bool:
        """End the armed window; True when the deadline passed (the callback must count as timed out).

        Must be called inside the same ``try`` that catches `BotDeadlineExceeded`: an
        exception injected just before the disarm is delivered here at the latest.
        """
        with self._lock:
            fired = self._fired
            self._deadline = None
            self._fired = False
        if fired:
            _checkpoint()
        return fired

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            self._deadline = None
            self._wake.notify()
        self._thread.join()

    def _run(self) -> None:
        with self._lock:
            while not self._stopped:
                if self._deadline is None:
                    self._wake.wait()
                    continue
                remaining = self._deadline - time.monotonic()
                if remaining > 0:
                    self._wake.wait(min(remaining, REPEAT_S))
                    continue
                self._fired = True
                assert self._thread_id is not None, "arm() records the thread"
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(self._thread_id), ctypes.py_object(BotDeadlineExceeded)
                )
                self._wake.wait(REPEAT_S)
