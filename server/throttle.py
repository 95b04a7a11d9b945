"""Login throttling without lock-out: failed passwords counted per (account, address) and per address; new accounts per address.

Why these keys: counting failures per account alone lets anyone lock a player out by
guessing wrong (the lock-out denial of service OWASP warns about). Here a guesser slows down
only the addresses it guesses from:

- ``pair:NAME@ADDR``: wrong passwords for one account from one address;
- ``address:ADDR``: wrong passwords for any account from one address.

Each key has `Limits.per_pair` (or `per_address`) failures free; after that it is refused
(`TooManyAttempts`, HTTP 429 with ``Retry-After``) until `first_wait` seconds after its last
failure, and every further failure doubles the wait, up to `max_wait`. A refused attempt is not
a failure (it is never checked). A right password from an address resets that pair's count,
not the address's (a guesser's own account must not buy it more guesses). A key with no
failure for `forget_after` seconds is forgotten. So the right password from an address nobody
guessed from is never refused, whatever happened elsewhere.

New accounts are counted the same way under ``register:ADDR``, with
`Limits.registrations_per_address` free: past them an address waits (doubling) before its next
account, so a flood of registrations cannot fill the database or keep the cores hashing new
passwords, while a classroom behind one address still registers its students.

The counts are kept in a `FailureLog` (the server's database), so a restart neither forgives a
guesser nor forgets a back-off. Their times are wall-clock seconds (``time.time``): unlike the
rest of the server's clocks they must mean the same after a restart or a reboot.

At most `MAX_CONCURRENT_CHECKS` scrypt checks run at once (each costs ~50 ms of CPU and
16 MiB): a burst of guesses waits its turn instead of taking every core from the games.

>>> throttle = LoginThrottle(Limits(per_pair=2, per_address=5, first_wait=60.0), clock=lambda: 0.0)
>>> keys = throttle.keys("alice", "10.0.0.1")
>>> throttle.failed(keys); throttle.failed(keys)
>>> throttle.retry_after(keys), throttle.retry_after(throttle.keys("alice", "10.0.0.2"))
(60.0, 0.0)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Optional, Protocol

from blindchess.server.errors import StoreUnavailable, TooManyAttempts

logger = logging.getLogger(__name__)

MAX_CONCURRENT_CHECKS = 2
"""Slow password checks running at the same time; the rest queue."""

PRUNE_EVERY_S = 60.0
"""How often (at most) forgotten keys are dropped from memory and the log."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Free failures per key kind, the first wait past them (doubling per failure) and its cap, and when a key is forgotten."""

    per_pair: int = 10
    per_address: int = 30
    first_wait: float = 60.0
    max_wait: float = 3600.0
    forget_after: float = 86400.0
    registrations_per_address: int = 100

    def __post_init__(self) -> None:
        counts = (self.per_pair, self.per_address, self.registrations_per_address)
        if min(counts) < 1 or not 0 < self.first_wait <= self.max_wait <= self.forget_after:
            raise ValueError(f"login limits need counts >= 1 and 0 < first_wait <= max_wait <= forget_after, got {self!r}")


@dataclass(frozen=True, slots=True)
class Failures:
    """One key's failed logins: how many, and the wall-clock time of the last."""

    count: int
    last: float


class FailureLog(Protocol):
    """Where the counts outlive the process (the server's database)."""

    def load(self) -> dict[str, Failures]: ...

    def save(self, key: str, failures: Optional[Failures]) -> None:
        """Store `failures` under `key` (None: delete it)."""


class LoginThrottle:
    """Failure counts with back-off per ``pair:`` and ``address:`` key (module docstring), kept in `log` if given."""

    def __init__(self, limits: Limits, clock: Callable[[], float], log: Optional[FailureLog] = None) -> None:
        self.limits = limits
        self._clock = clock
        self._log = log
        self._lock = threading.Lock()
        self._checks = threading.BoundedSemaphore(MAX_CONCURRENT_CHECKS)
        self._failures: dict[str, Failures] = {} if log is None else log.load()
        self._pruned = float("-inf")

    @staticmethod
    def keys(username: str, address: str) -> tuple[str, ...]:
        """The pair key, then the address key (none without an address)."""
        return (f"pair:{username}@{address}",) + ((f"address:{address}",) if address else ())

    @staticmethod
    def registration_keys(address: str) -> tuple[str, ...]:
        """The key counting new accounts from `address` (none without an address)."""
        return (f"register:{address}",) if address else ()

    def _limit(self, key: str) -> int:
        kind = key.partition(":")[0]
        return {"pair": self.limits.per_pair, "register": self.limits.registrations_per_address}.get(kind, self.limits.per_address)

    def _wait(self, key: str, failures: Failures, now: float) -> float:
        over = failures.count - self._limit(key)
        if over < 0 or now - failures.last >= self.limits.forget_after:
            return 0.0
        backoff = min(self.limits.max_wait, self.limits.first_wait * 2.0 ** min(over, 64))
        return max(0.0, failures.last + backoff - now)

    def retry_after(self, keys: tuple[str, ...]) -> float:
        """Seconds until every key may try again (0 when none is throttled)."""
        now = self._clock()
        with self._lock:
            return max([self._wait(key, self._failures[key], now) for key in keys if key in self._failures], default=0.0)

    def failed(self, keys: tuple[str, ...]) -> None:
        """Count one wrong password (or, under `registration_keys`, one new account) against every key."""
        now = self._clock()
        with self._lock:
            for key in keys:
                known = self._failures.get(key)
                count = 1 if known is None or now - known.last >= self.limits.forget_after else known.count + 1
                self._set(key, Failures(count, now))
            if now - self._pruned >= PRUNE_EVERY_S:
                self._pruned = now
                for key in [key for key, failures in self._failures.items() if now - failures.last >= self.limits.forget_after]:
                    self._set(key, None)

    def succeeded(self, keys: tuple[str, ...]) -> None:
        """A right password: its pair starts afresh (its address does not)."""
        with self._lock:
            for key in keys:
                if key.startswith("pair:") and key in self._failures:
                    self._set(key, None)

    def _set(self, key: str, failures: Optional[Failures]) -> None:
        """Change one key in memory and in the log (a log that fails is logged: the count still holds until a restart)."""
        if failures is None:
            self._failures.pop(key, None)
        else:
            self._failures[key] = failures
        if self._log is not None:
            try:
                self._log.save(key, failures)
            except StoreUnavailable as error:
                logger.warning("cannot store the login failures of %s: %s", key, error)

    @contextmanager
    def attempt(self, keys: tuple[str, ...]) -> Iterator[None]:
        """Run one slow check for `keys`: refused when throttled (checked again after waiting for a slot)."""
        self.refuse_if_throttled(keys)
        with self._checks:
            self.refuse_if_throttled(keys)
            yield

    def refuse_if_throttled(self, keys: tuple[str, ...]) -> None:
        """Raise `TooManyAttempts` (with the wait) when any of `keys` must wait."""
        wait = self.retry_after(keys)
        if wait > 0:
            what = "new accounts" if all(key.startswith("register:") for key in keys) else "failed logins"
            raise TooManyAttempts(f"too many {what} from this address; retry in {wait:.0f} s", retry_after=wait)
