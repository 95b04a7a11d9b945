"""Login throttling: failed passwords counted per username and per client address.

Why both keys: per username stops guessing one account from many addresses; per address
stops one client trying many accounts. Only failures count, over a sliding window; once
a key has `limit` failures in the last `window` seconds, every slow login check for it is
refused with `TooManyAttempts` (HTTP 429) until the oldest failure leaves the window, and
the answer's ``Retry-After`` says when. Credentials verified before never reach the
throttle (the service checks them against its cache first), so a throttled address does
not disturb its clients that are already logged in.

At most `MAX_CONCURRENT_CHECKS` scrypt checks run at once (each costs ~50 ms of CPU and
16 MiB): a burst of guesses waits its turn instead of taking every core from the games.

>>> throttle = LoginThrottle(per_user=2, per_address=5, window=60.0, clock=lambda: 0.0)
>>> keys = throttle.keys("alice", "10.0.0.1")
>>> throttle.failed(keys); throttle.failed(keys)
>>> throttle.retry_after(keys)
60.0
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from blindchess.server.errors import TooManyAttempts

MAX_CONCURRENT_CHECKS = 2
"""Slow password checks running at the same time; the rest queue."""


class LoginThrottle:
    """Sliding-window counts of failed logins per ``user:NAME`` and ``address:ADDR`` key."""

    def __init__(self, per_user: int, per_address: int, window: float, clock: Callable[[], float]) -> None:
        self.limits = {"user": per_user, "address": per_address}
        self.window = window
        self._clock = clock
        self._failures: dict[str, collections.deque[float]] = {}
        self._lock = threading.Lock()
        self._checks = threading.BoundedSemaphore(MAX_CONCURRENT_CHECKS)

    @staticmethod
    def keys(username: str, address: str) -> tuple[str, ...]:
        return (f"user:{username}",) + ((f"address:{address}",) if address else ())

    def retry_after(self, keys: tuple[str, ...]) -> float:
        """Seconds until every key is under its limit again (0 when none is throttled)."""
        now = self._clock()
        wait = 0.0
        with self._lock:
            for key in keys:
                times = self._failures.get(key)
                if not times:
                    continue
                while times and times[0] <= now - self.window:
                    times.popleft()
                if not times:
                    del self._failures[key]
                    continue
                if len(times) >= self.limits[key.split(":", 1)[0]]:
                    wait = max(wait, times[-self.limits[key.split(":", 1)[0]]] + self.window - now)
        return wait

    def failed(self, keys: tuple[str, ...]) -> None:
        now = self._clock()
        with self._lock:
            for key in keys:
                self._failures.setdefault(key, collections.deque()).append(now)

    @contextmanager
    def attempt(self, keys: tuple[str, ...]) -> Iterator[None]:
        """Run one slow check for `keys`: refused when throttled (checked again after waiting for a slot)."""
        self.refuse_if_throttled(keys)
        with self._checks:
            self.refuse_if_throttled(keys)
            yield

    def refuse_if_throttled(self, keys: tuple[str, ...]) -> None:
        """Raise `TooManyAttempts` (with the wait) when any of `keys` is over its limit."""
        wait = self.retry_after(keys)
        if wait > 0:
            raise TooManyAttempts(f"too many failed logins; retry in {wait:.0f} s", retry_after=wait)
