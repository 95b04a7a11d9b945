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
from typing import Optional

REPEAT_S = 0.25
"""How often the watchdog re-checks (a new deadline, or a bot that swallowed the exception)."""


class BotDeadlineExceeded(BaseException):
    """Raised inside a bot callback that ran past its deadline."""


def _checkpoint() -> None:
    """Entering a Python function lets the interpreter deliver a pending asynchronous exception."""


class Watchdog:
    """Interrupts bot calls that overrun; `enter` before each callback, `leave` after.

    One thread serves every game in the process (see `shared_watchdog`), so starting
    a game costs nothing. Entering costs one dict store and leaving one uncontended
    lock, because the watchdog thread never needs waking: it polls every `REPEAT_S`,
    so a deadline is enforced up to `REPEAT_S` late, which is fine for clocks measured
    in seconds.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._windows: dict[int, float] = {}  # thread id -> deadline of the bot call it is in
        self._fired: set[int] = set()  # threads interrupted in their current bot call
        self._thread = threading.Thread(target=self._run, name="blindchess-watchdog", daemon=True)
        self._thread.start()

    def enter(self, deadline: float) -> None:
        """The current thread is about to call into a bot that must return by `deadline` (`time.monotonic()`)."""
        self._windows[threading.get_ident()] = deadline

    def leave(self) -> bool:
        """The bot call returned (or raised); True when it overran and was interrupted.

        Call it inside the ``try`` that catches `BotDeadlineExceeded`: an exception
        injected just before is delivered here at the latest.
        """
        thread_id = threading.get_ident()
        with self._lock:
            self._windows.pop(thread_id, None)
            fired = thread_id in self._fired
            self._fired.discard(thread_id)
        if fired:
            _checkpoint()
        return fired

    def stop(self) -> None:
        """End the watchdog thread (for tests; the shared one runs as a daemon)."""
        self._stopping.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stopping.wait(REPEAT_S):
            now = time.monotonic()
            overdue = [thread_id for thread_id, deadline in list(self._windows.items()) if deadline <= now]
            if not overdue:
                continue
            with self._lock:
                for thread_id in overdue:
                    deadline = self._windows.get(thread_id)
                    if deadline is not None and deadline <= now:  # still inside an overdue bot call
                        self._fired.add(thread_id)
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(
                            ctypes.c_ulong(thread_id), ctypes.py_object(BotDeadlineExceeded)
                        )


_shared: Optional[Watchdog] = None
_shared_lock = threading.Lock()


def shared_watchdog() -> Watchdog:
    """The process's watchdog, started on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Watchdog()
        return _shared
