"""Ctrl-C during a run: the game it lands in is no result, and the run stops with what it recorded.

A KeyboardInterrupt that lands inside a bot's callback is that bot's fault to the arbiter (it
cannot tell Ctrl-C from a bot raising one; see :mod:`blindchess.arbiter.play`), so the game
would come back as a loss for whichever bot was thinking. `watch_for_interrupt` sets an event
on Ctrl-C (and still raises KeyboardInterrupt wherever the program is): a caller that sees the
event set drops the result in hand instead of recording it, and stops. The games recorded
before stay, and a resumed run (``blindchess match --resume``, the same ``blindchess
tournament`` command) plays the rest. With worker processes the terminal's Ctrl-C reaches the
workers too; their games in flight are stopped with the pool and were never recorded.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def watch_for_interrupt() -> Iterator[threading.Event]:
    """An event set by Ctrl-C while the block runs; outside the main thread (no signals there) it is never set."""
    interrupted = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return

    def on_interrupt(signum: int, frame: Any) -> None:
        interrupted.set()
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)
