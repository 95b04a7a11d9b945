"""`blindchess tournament CONFIG`: play a tournament from a TOML config into SQLite, then rate it.

The config (see :mod:`blindchess.tournament.config`) lists the players and how they meet.
Results go to ``--db`` (default ``results/<name>.sqlite``), one row per game with its history.
Running the same command again plays only the games not recorded yet: that resumes a run
stopped by a crash or Ctrl-C, and extends one whose config gained players or games.
At the end the standings are printed: Elo by maximum likelihood with 95% intervals, W/D/L
with Wilson intervals, pentanomial counts of the colour-swapped pairs; ``--plot`` draws them.

Executors: ``--executor local`` (default) plays ``--workers`` games at once in worker processes
(default: one per core; 1 plays in this process); ``--executor ray`` runs them as Ray tasks on
the cluster at ``--address``, or on a local Ray started for the run.

``--clock cpu`` (or ``clock = "cpu"`` in the config) charges each bot the CPU time its own
process tree used on its turn instead of wall time, so that games can share cores with other
work: every bot then plays isolated, in a cgroup of its own (docs/clock.md, "CPU clocks").
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from blindchess.arbiter.game.loading import PlayerLoadError
from blindchess.arbiter.sandbox.cpu_clock import CLOCK_MODES, CpuClockUnavailableError, check_cpu_clock
from blindchess.arguments import add_command, positive_int
from blindchess.command_errors import BadInputError, RunFailedError
from blindchess.text_tables import counted
from blindchess.tournament.base import ExecutorError
from blindchess.tournament.config import ConfigError, load_config
from blindchess.tournament.executors import make_executor
from blindchess.tournament.report import plot, standings, table
from blindchess.tournament.results_db import ResultStore, ResultStoreError
from blindchess.tournament.runner import SetupError, run_schedule
from blindchess.tournament.stats import StatisticsError
from blindchess.tournament.task import BotSettingError, check_bot


def add_executor_arguments(parser: argparse.ArgumentParser, default_workers: int | None) -> None:
    """--workers, --executor and --address, shared by the commands that play many games (None: one worker per core)."""
    parser.add_argument(
        "--workers", type=positive_int, default=default_workers,
        help=f"games played at once (default {default_workers or 'one per core'}; 1 plays in this process)",
    )  # fmt: skip
    parser.add_argument("--executor", choices=("local", "ray"), default="local", help="local worker processes (default) or Ray tasks")
    parser.add_argument("--address", help="with --executor ray: host:port of a running Ray cluster (default: start a local one)")


def add_clock_argument(parser: argparse.ArgumentParser, default: str | None = "wall") -> None:
    """--clock wall|cpu, shared by the commands that play games (see :mod:`blindchess.arbiter.sandbox.cpu_clock`)."""
    parser.add_argument(
        "--clock", choices=CLOCK_MODES, default=default,
        help="what a clock charges: wall time (default, the competition's rule) or each bot's own CPU time"
        " (its process tree's, on its own turn; plays every bot isolated, in a cgroup of its own; needs root or a delegated cgroup)",
    )  # fmt: skip


def check_clock(mode: str) -> None:
    """Stop before the first game when a CPU clock is asked where none can be kept.

    Raises:
        CpuClockUnavailableError: one line saying why (see `check_cpu_clock`).
    """
    if mode == "cpu":
        check_cpu_clock()


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "tournament",
        __doc__,
        "blindchess tournament experiments/configs/sensing_ablation_quick.toml --workers 2",
    )  # fmt: skip
    parser.add_argument("config", help="the tournament's TOML file")
    parser.add_argument("--db", help="SQLite results file (default results/<name>.sqlite)")
    add_executor_arguments(parser, None)
    parser.add_argument("--retry-failed", action="store_true", help="play again the games recorded as failed")
    parser.add_argument("--report-only", action="store_true", help="play nothing; rate what the database holds")
    parser.add_argument("--plot", help="save the ratings plot (PNG) here")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_clock_argument(parser, default=None)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
        if args.clock is not None:  # the command line overrides the config's clock
            config = dataclasses.replace(config, clock_mode=args.clock)
        for player in config.players:
            check_bot(player, config.variant)
        check_clock(config.clock_mode)
    except (ConfigError, PlayerLoadError, BotSettingError, CpuClockUnavailableError) as error:
        raise BadInputError(str(error)) from error
    schedule = config.schedule()
    db = Path(args.db) if args.db else Path("results") / f"{config.name}.sqlite"
    try:
        store = ResultStore(db)  # refuses a damaged file, naming it (and the row at fault)
    except ResultStoreError as error:
        raise BadInputError(str(error)) from error
    with store:
        other_code = store.other_code()
        if other_code is not None:
            sys.stderr.write(f"note: {other_code}\n")
        if not args.report_only:
            try:
                executor = make_executor(args.executor, args.workers, args.address)
            except ExecutorError as error:
                raise BadInputError(str(error)) from error
            try:
                report = run_schedule(
                    schedule, store, executor, retry_failed=args.retry_failed, progress=None if args.no_progress else sys.stderr
                )
            except KeyboardInterrupt:
                sys.stderr.write(f"interrupted: {store.count()} games recorded in {db}; the same command resumes the run\n")
                return 130
            except (SetupError, ResultStoreError) as error:
                raise BadInputError(str(error)) from error
            finally:
                executor.close()
            sys.stderr.write(
                f"{counted(report.played, 'game')} played ({report.failed} failed), {report.already} recorded earlier, in {db}\n"
            )
        rows = store.rows()
    keys = {spec.key for spec in schedule}
    rows = [row for row in rows if row.key in keys]
    if not any(row.ok for row in rows):
        raise RunFailedError(f"no played games of this config in {db}")
    try:
        result = standings(rows)
    except StatisticsError as error:
        raise BadInputError(str(error)) from error
    sys.stdout.write(table(result) + "\n")
    if args.plot:
        plot(result, args.plot, title=config.name)
        sys.stderr.write(f"plot saved to {args.plot}\n")
    return 0

