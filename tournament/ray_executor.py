"""`RayExecutor`: games as Ray tasks, on a cluster at `address` or on a local Ray started for the run.

Each game is one task running :func:`blindchess.tournament.task.play_game` (one CPU each).
Ray retries a task whose worker died (``max_retries``); once those are spent, `ray.get`
raises and the game is yielded as failed with Ray's reason. The specs and results are the
same picklable values the process pool ships, so the same seeds give the same games.

An address is checked with a plain TCP connection (3 s) before `ray.init`, which otherwise
waits a minute or more on an address where nothing listens.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterable, Iterator
from typing import Any

from .base import ExecutorError
from .spec import GameResult, GameSpec, failed
from .task import play_game

logger = logging.getLogger(__name__)

MAX_RETRIES = 2
"""Ray's retries of a game whose worker died (3 starts in all, as the process pool)."""


class RayExecutor:
    """Plays up to `workers` games at once as Ray tasks.

    Args:
        workers: games in flight; default the cluster's CPUs.
        address: ``host:port`` of a running cluster (``ray start --head`` prints it); None
            starts a local Ray for the run, or uses the one this process already started.
    """

    def __init__(self, workers: int | None = None, address: str | None = None) -> None:
        import ray

        if address is not None:
            check_reachable(address)
        self._started_here = False
        if not ray.is_initialized():
            try:
                local_cpus = workers if address is None else None  # a local Ray gets one CPU per worker asked for
                ray.init(address=address, num_cpus=local_cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
            except Exception as error:
                where = f" at {address!r}" if address else ""
                raise ExecutorError(f"cannot start or reach Ray{where}: {type(error).__name__}: {error}") from error
            self._started_here = True
        self.workers = workers if workers is not None else max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call]
        self._task: Any = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(play_game)

    def run(self, specs: Iterable[GameSpec]) -> Iterator[GameResult]:
        import ray

        pending = iter(specs)
        in_flight: dict[Any, GameSpec] = {}
        try:
            while True:
                while len(in_flight) < self.workers:
                    spec = next(pending, None)
                    if spec is None:
                        break
                    in_flight[self._task.remote(spec)] = spec
                if not in_flight:
                    return
                done, _ = ray.wait(list(in_flight), num_returns=1)
                for reference in done:
                    spec = in_flight.pop(reference)
                    try:
                        yield ray.get(reference)
                    except ray.exceptions.RayError as error:
                        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
                        message = f"Ray task failed after {MAX_RETRIES + 1} attempts: {type(error).__name__}: {reason}"
                        yield failed(spec.key, message, MAX_RETRIES + 1)
        finally:
            for reference in in_flight:
                ray.cancel(reference, force=True)

    def close(self) -> None:
        """Shut down the Ray this executor started (a cluster it joined, or one started before, stays)."""
        if self._started_here:
            import ray

            ray.shutdown()


def check_reachable(address: str, timeout: float = 3.0) -> None:
    """Raise `ExecutorError` unless something accepts TCP connections at ``host:port``.

    >>> try:
    ...     check_reachable("localhost")
    ... except ExecutorError as error:
    ...     print(error)
    Ray address 'localhost' is not host:port (e.g. 127.0.0.1:6379)
    """
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ExecutorError(f"Ray address {address!r} is not host:port (e.g. 127.0.0.1:6379)")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as error:
        raise ExecutorError(f"no Ray cluster at {address!r}: {error.strerror or error}") from error
