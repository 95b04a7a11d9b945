"""The executor seam: something that plays `GameSpec`s and hands back their `GameResult`s.

Contract, which the tournament runner, `blindchess match` and the SPRT rely on:

* `run` takes specs lazily (an SPRT's schedule is unbounded) and keeps at most `workers`
  games in flight; it yields each result as its game finishes, in any order.
* Every spec taken yields exactly one result: a played game, or a failed one whose `error`
  says why (a worker that died is retried up to the executor's attempt limit first). A
  result is never yielded twice.
* Workers may stay up between runs (a warm pool); `close` releases them.
* Closing the iterator early (the SPRT decided, Ctrl-C) stops the games still in flight;
  their specs yield nothing, and a resumed run plays them again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from blindchess.errors import BlindchessError

from .spec import GameResult, GameSpec


class Executor(Protocol):
    """Plays games; see the module docstring for the contract."""

    workers: int

    def run(self, specs: Iterable[GameSpec]) -> Iterator[GameResult]: ...

    def close(self) -> None:
        """Release the workers (processes, a Ray started for the run); `run` may start them again."""


class ExecutorError(BlindchessError, RuntimeError):
    """An executor could not start (e.g. no Ray cluster at the address given)."""
