"""Run a schedule of games through an executor into a `ResultStore`, with a progress bar.

Only games the store does not hold yet are played, so the same call resumes a run that a
crash or Ctrl-C stopped, and a config that gained a player adds only that player's games.
Each result is committed as it arrives. A setup error (an unknown bot, no Stockfish) would
fail every game alike: the run stops on the first one and records nothing for it. Ctrl-C
stops the run with KeyboardInterrupt; the result in hand when it came is not recorded, since
the interrupt may have reached it as a bot's fault (see :mod:`blindchess.tournament.interrupt`).

The progress bar is tqdm's (games done, rate, ETA), written to stderr: a maintained, tiny,
dependency-free library that gets terminal widths, rates and non-tty output right, which a
hand-written ``\\r`` line does not.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from blindchess.errors import BlindchessError

from .base import Executor
from .interrupt import watch_for_interrupt
from .results_db import ResultStore
from .spec import GameSpec

logger = logging.getLogger(__name__)


class SetupError(BlindchessError, ValueError):
    """A game could not start for a reason every game shares (the message is the game's error)."""


@dataclass(frozen=True)
class RunReport:
    """What one run did: games scheduled, already recorded before it, played now, and failed now."""

    scheduled: int
    already: int
    played: int
    failed: int


def run_schedule(
    schedule: Sequence[GameSpec],
    store: ResultStore,
    executor: Executor,
    *,
    retry_failed: bool = False,
    progress: TextIO | None = None,
) -> RunReport:
    """Play the games of `schedule` that `store` lacks (see the module docstring).

    Raises:
        SetupError: a game failed for a setup reason; the games recorded before it stay.
        StoreConflictError: the store holds a game of this schedule with other settings.
        KeyboardInterrupt: Ctrl-C; the games recorded before it stay.
    """
    todo = store.pending(schedule, retry_failed=retry_failed)
    by_key = {spec.key: spec for spec in todo}
    already = len(schedule) - len(todo)
    bar = None
    if progress is not None:
        from tqdm import tqdm  # type: ignore[import-untyped]  # no stubs shipped; types-tqdm is not a dependency

        bar = tqdm(total=len(schedule), initial=already, unit="game", file=progress, dynamic_ncols=True, smoothing=0.1)
    played = failures = 0
    results = executor.run(todo)
    try:
        with watch_for_interrupt() as interrupted:
            for result in results:
                if interrupted.is_set():  # Ctrl-C landed in this game (perhaps as a bot's fault): no result
                    raise KeyboardInterrupt
                if result.setup_error:
                    raise SetupError(result.error)
                store.record(by_key[result.key], result)
                played += 1
                failures += not result.ok
                if not result.ok:
                    logger.warning("game %s failed: %s", result.key, result.error)
                if bar is not None:
                    bar.set_postfix_str(f"failed {failures}" if failures else "", refresh=False)
                    bar.update(1)
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()  # stops the games still in flight
        if bar is not None:
            bar.close()
    return RunReport(len(schedule), already, played, failures)
