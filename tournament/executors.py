"""Local executors: games in this process (`InlineExecutor`) or in a pool of worker processes (`PoolExecutor`).

The pool is `concurrent.futures.ProcessPoolExecutor` with the ``forkserver`` start method
(workers are forked from a clean server process, never from a parent that may hold threads,
a Ray driver or a Stockfish pipe). A worker that dies (killed, out of memory) breaks the whole
pool: every game then in flight fails with `BrokenProcessPool`, and the pool cannot say whose
death it was. So each of those games counts an attempt and is queued again, a fresh pool is
started, and a game that has used `max_attempts` is yielded as failed with the reason. A death
can also land between two waits, so that submitting the next game finds the pool broken: that
game never started, so it goes back to the queue without counting an attempt.

Each worker ends with the driver, even a driver killed with SIGKILL (`_end_with_driver`); the
forkserver and the resource tracker then exit by themselves, and the isolated bots of the games
in flight die with their workers (see :mod:`blindchess.arbiter.sandbox.confinement`).
"""

from __future__ import annotations

import collections
import logging
import multiprocessing
import os
import select
import signal
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from .base import Executor, ExecutorError
from .spec import GameResult, GameSpec, failed
from .task import play_game

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
"""Starts of one game before a worker death is recorded as its result."""


class InlineExecutor:
    """Plays the games one after another in this process (``--workers 1``: tracebacks and debuggers just work)."""

    workers = 1

    def run(self, specs: Iterable[GameSpec]) -> Iterator[GameResult]:
        for spec in specs:
            yield play_game(spec)

    def close(self) -> None:
        """Nothing to stop."""


class PoolExecutor:
    """Plays up to `workers` games at once in worker processes (see the module docstring)."""

    def __init__(self, workers: int, max_attempts: int = MAX_ATTEMPTS) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers!r}")
        self.workers = workers
        self.max_attempts = max_attempts
        self._pool: ProcessPoolExecutor | None = None  # kept warm between runs until `close`

    def _new_pool(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("forkserver")
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=context, initializer=_end_with_driver, initargs=(os.getpid(),))

    def close(self) -> None:
        """Stop the worker processes (a later `run` starts new ones)."""
        if self._pool is not None:
            _stop(self._pool)
            self._pool = None

    def run(self, specs: Iterable[GameSpec]) -> Iterator[GameResult]:
        pending = iter(specs)
        retry: collections.deque[tuple[GameSpec, int]] = collections.deque()
        in_flight: dict[Future[GameResult], tuple[GameSpec, int]] = {}
        pool = self._pool or self._new_pool()
        self._pool = None  # held by this run until it ends cleanly
        exhausted = finished = broken = False
        try:
            while True:
                while len(in_flight) < self.workers:
                    if retry:
                        spec, attempt = retry.popleft()
                    elif not exhausted:
                        next_spec = next(pending, None)
                        if next_spec is None:
                            exhausted = True
                            continue
                        spec, attempt = next_spec, 1
                    else:
                        break
                    try:
                        in_flight[pool.submit(play_game, spec)] = (spec, attempt)
                    except BrokenProcessPool:  # a worker died after the last wait: this game never started
                        retry.appendleft((spec, attempt))
                        broken = True
                        break
                if not in_flight:
                    if not broken:
                        finished = True
                        return
                    _stop(pool)
                    pool = self._new_pool()
                    broken = False
                    continue
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)  # a broken pool fails the rest promptly
                for future in done:
                    spec, attempt = in_flight.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        broken = True
                        lost = self._requeue(spec, attempt, retry)
                        if lost is not None:
                            yield lost
                        continue
                    except Exception as error:  # the result could not come back (unpicklable, ...)
                        yield failed(spec.key, f"worker error: {type(error).__name__}: {error}", attempt)
                        continue
                    yield _with_attempts(result, attempt)
                if broken:
                    for spec, attempt in list(in_flight.values()):
                        lost = self._requeue(spec, attempt, retry)
                        if lost is not None:
                            yield lost
                    in_flight.clear()
                    _stop(pool)
                    pool = self._new_pool()
                    broken = False
        finally:
            if finished:
                self._pool = pool  # idle and healthy: kept warm for the next run
            else:
                _stop(pool)  # stopped early (closed, interrupted): kill the games in flight

    def _requeue(self, spec: GameSpec, attempt: int, retry: collections.deque[tuple[GameSpec, int]]) -> GameResult | None:
        """Queue a game lost with a dead worker again, or its failed result once out of attempts."""
        if attempt < self.max_attempts:
            logger.warning("game %s: a worker died (attempt %d of %d); playing it again", spec.key, attempt, self.max_attempts)
            retry.append((spec, attempt + 1))
            return None
        return failed(spec.key, f"worker process died {attempt} times while playing it (killed or out of memory)", attempt)


def _with_attempts(result: GameResult, attempts: int) -> GameResult:
    if attempts == 1:
        return result
    from dataclasses import replace

    return replace(result, attempts=attempts)


def _end_with_driver(driver: int) -> None:
    """Pool initializer: this worker dies with the process that runs the pool (`driver`), even by SIGKILL.

    Why: a worker waits on its task queue for ever, so a driver killed with SIGKILL left its
    workers running, and with them the forkserver (which exits only once every holder of the
    driver's end of its pipe is gone, and each worker is handed one) and the resource tracker.
    A worker's parent is the forkserver, so the parent-death signal cannot help: a daemon thread
    waits for the driver's end instead, on a pidfd (Linux), else by polling once a second.
    """
    try:
        handle = os.pidfd_open(driver)
    except ProcessLookupError:  # gone already
        os._exit(1)
    except (AttributeError, OSError):
        handle = None
    threading.Thread(target=_die_after, args=(driver, handle), name="end with the driver", daemon=True).start()


def _die_after(driver: int, handle: int | None) -> None:
    if handle is not None:
        select.select([handle], [], [])  # readable once the driver has exited
    else:
        while _exists(driver):
            time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGKILL)  # as if killed with it: the bots' processes follow (see confinement)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop `pool` now, killing games in flight (shutdown alone would wait for them to finish)."""
    # ProcessPoolExecutor has no public way to stop running work; its worker table is the only handle.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(timeout=5)


def local_executor(workers: int | None) -> Executor:
    """The inline executor for one worker, else a pool (default: one worker per core)."""
    count = workers if workers is not None else (os.cpu_count() or 1)
    return InlineExecutor() if count == 1 else PoolExecutor(count)


def make_executor(kind: str, workers: int | None, address: str | None = None) -> Executor:
    """The executor a command line asked for: ``local`` (default) or ``ray``.

    Raises:
        ExecutorError: Ray could not be started or reached.
    """
    if kind == "ray":
        from .ray_executor import RayExecutor

        return RayExecutor(workers=workers, address=address)
    if address is not None:
        raise ExecutorError(f"--address {address!r} is for --executor ray")
    return local_executor(workers)
