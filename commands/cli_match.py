"""`blindchess match WHITE BLACK`: play games between two bots, save every history, print a summary.

Bots are registered short names (`random`, `attacker`, `trout`, ...), module names or paths to
Python files, ours or reconchess's. Colours alternate: the first bot named plays White in games
1, 3, 5, ... and Black in games 2, 4, ..., so a match of an even number of games gives neither
bot the first move more often; the summary counts results per bot, not per colour.

Progress goes to stderr (one line per game), the summary table to stdout. Each history is
saved as ``<run stamp>-<game no>-<white>-vs-<black>.json`` in ``--out``; names are created
exclusively, so concurrent matches never overwrite each other's files. Each progress line ends
with the two bots' seeds (white/black): ``blindchess playback FILE BOT COLOR --seed S`` gives
one of our bots the same randomness again, to reproduce what it did.

Each finished game also gets a line in ``--out``'s ``results.jsonl`` (result, seeds, each side's
clock use, its history file; :mod:`blindchess.tournament.match_record`), so that a folder such as
``data/matches/<match>/`` holds the match as data, and ``blindchess match-report FOLDER``
prints its score with the Wilson 95% interval, each side's clock use and every lost game's record.

``--resume`` finishes a match that was stopped part way (a long match at 120 s + 5 s runs for an
hour or more): the same command with ``--resume`` counts every game of the same match (bots,
settings, clocks and seed) recorded in ``--out``, by game number, once, and plays only the
missing ones, with the seeds a full run would have given them; the game a stopped run was
playing is played again from its seeds. Games saved by a version without the results file are
counted from their histories (matched by game number and bot names). The summary covers all the games.

``--workers N`` plays N games at once through the tournament's executors (worker processes, or
Ray tasks with ``--executor ray``); each game is the same pure task (`play_game`), so the same
``--seed`` gives the same games whatever the executor (for bots deterministic given their seed:
``--seconds`` bounds a clock-bound bot's thinking, which no executor can make reproducible).
Progress lines then come in the order games finish. ``--variant`` picks the game: 8x8 RBC by
default, recon Mini-Chess or a teaching board (``random`` and ``recon`` play those).

``--isolate`` plays each bot in its own process (:mod:`blindchess.arbiter.sandbox.isolation`): a bot that
calls ``os._exit``, segfaults or maps more than ``--memory-limit`` MiB loses that game as its
fault, with the history saved, and the match goes on. Bots loaded from a ``.py`` file are
isolated by default (code nobody here has read; the cost is a pipe round trip per callback, see
docs/isolation.md); ``--no-isolate`` runs every bot in the worker's own process.

``--ponder first|second|both`` lets the bot named first (the WHITE argument, whatever colour it
plays in a game), the second, or both think on the opponent's turn (docs/pondering.md): each
must have a ``ponder(stop)`` method. A pondering bot plays isolated (in the worker's process
its thread would take time from the opponent's clock), so ``--ponder`` with ``--no-isolate``
is an error.

``--settings`` and ``--second-settings`` give the bot named first and second constructor settings,
the inside of a TOML inline table, as a tournament's ``settings`` table takes them: for the
flagship and the other belief presets the fields of its config (docs/bots.md), e.g.
``blindchess match flagship random --settings 'preset = "fast", selector.boards = 4'``. An unknown
or mistyped setting is refused before any game, with the nearest valid names.

``--clock cpu`` charges each bot the CPU time its own process tree (the bot and the engines it
started) used on its own turn, not wall time, so that a match can share the machine with other
work; every bot then plays isolated, in a cgroup of its own (docs/clock.md, "CPU clocks").
Thinking on the opponent's turn is charged to nobody; a bot that stops answering still loses at
a wall-time hang limit. Wall time stays the default and the competition's rule.

Ctrl-C stops the match (exit 130): the games finished are saved, the game it landed in is not
counted (it may have reached a bot as that bot's fault), and ``--resume`` plays the rest.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import chess
import numpy as np

from blindchess.arbiter import GameHistory, WinReason
from blindchess.arbiter.game.loading import PlayerLoadError
from blindchess.arbiter.game.results import describe_result, run_stamp, safe_file_name, unique_history_path
from blindchess.arbiter.game.time_control import TimeControl, TimeControlError
from blindchess.arbiter.sandbox.cpu_clock import CpuClockUnavailableError
from blindchess.arbiter.sandbox.isolation import MEMORY_LIMIT_BYTES
from blindchess.arbiter.sandbox.pondering import PonderingNeedsIsolationError
from blindchess.arguments import add_command, non_negative_seconds, output_folder, positive_int, positive_seconds
from blindchess.bots.registry import resolve_bot
from blindchess.code_digest import other_code_note
from blindchess.command_errors import BadInputError
from blindchess.text_tables import counted, table
from blindchess.tournament.base import ExecutorError
from blindchess.tournament.commit_bot import split_commit
from blindchess.tournament.config import parse_settings
from blindchess.tournament.executors import make_executor
from blindchess.tournament.interrupt import watch_for_interrupt
from blindchess.tournament.match_record import append_line, finished_games, game_line, read_all, start_match
from blindchess.tournament.report import clock_use
from blindchess.tournament.runner import SetupError
from blindchess.tournament.spec import BotSpec, GameResult, GameSpec
from blindchess.tournament.stats import MatchScore
from blindchess.tournament.task import VARIANTS, BotSettingError, UnknownVariantError, check_bot

from .cli_tournament import add_clock_argument, add_executor_arguments, check_clock

logger = logging.getLogger(__name__)

PONDER_CHOICES = ("first", "second", "both")
"""``--ponder``'s values: which of the two bots, in the order named, ponder."""


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "match",
        __doc__,
        "blindchess match trout random --games 2 --seconds 60 --seed 1 --workers 2",
    )
    parser.add_argument("white", help="first bot (White in odd-numbered games): short name, module or file")
    parser.add_argument("black", help="second bot (Black in odd-numbered games)")
    parser.add_argument("--games", type=positive_int, default=1, help="number of games (default 1)")
    parser.add_argument("--seconds", type=positive_seconds, default=900.0, help="clock per player in seconds (default 900)")
    parser.add_argument("--increment", type=non_negative_seconds, default=5.0, help="seconds added per turn (default 5)")
    for which in ("first", "second"):
        parser.add_argument(
            f"--tc-{which}",
            type=_time_control,
            metavar="SECONDS[+INC]",
            help=f"the {which} bot's own clock, e.g. 60+2 (cutechess's per-engine tc; default --seconds + --increment)",
        )
    parser.add_argument("--seed", type=int, help="seed for both bots' randomness (default: unseeded)")
    parser.add_argument("--out", type=output_folder, default="games", help="folder for the game histories (default ./games)")
    parser.add_argument("--full-turn-limit", type=positive_int, help="draw after this many full turns (default: none)")
    parser.add_argument("--variant", default="rbc", choices=tuple(VARIANTS), help="the game to play (default rbc: 8x8 RBC)")
    add_executor_arguments(parser, 1)
    add_clock_argument(parser)
    parser.add_argument(
        "--resume",
        action="store_true",
        help="count the games already saved in --out by an earlier run of this match and play only the rest",
    )
    parser.add_argument(
        "--isolate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run each bot in its own process: a bot that exits, crashes the interpreter or runs out of memory"
        " loses that game and the match goes on (default: bots loaded from a .py file are isolated, others not;"
        " --no-isolate runs every bot in the worker's process)",
    )
    parser.add_argument(
        "--ponder",
        choices=PONDER_CHOICES,
        help="let the bot named first, the second or both think on the opponent's turn (implies --isolate for them)",
    )
    parser.add_argument(
        "--settings", default="", help="the first bot's settings, the inside of a TOML inline table: 'selector.boards = 4, x = 1'"
    )
    parser.add_argument("--second-settings", default="", help="the same for the second bot")
    parser.add_argument(
        "--memory-limit",
        type=positive_int,
        default=MEMORY_LIMIT_BYTES // 2**20,
        metavar="MIB",
        help=f"for isolated bots: address space each may map beyond its process's start (default {MEMORY_LIMIT_BYTES // 2**20})",
    )
    parser.set_defaults(run=run)


def _time_control(text: str) -> TimeControl:
    try:
        return TimeControl.parse(text)
    except TimeControlError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


@dataclass
class BotRecord:
    """One bot's results over a match, and its clock (``900+5``)."""

    label: str
    clock: str = ""
    games: int = 0
    wins_as_white: int = 0
    wins_as_black: int = 0
    losses: int = 0
    draws: int = 0
    clock_shares: list[float] = field(default_factory=list)

    @property
    def wins(self) -> int:
        return self.wins_as_white + self.wins_as_black


@dataclass
class MatchSummary:
    """Results of a match, per bot (in the order named) and overall."""

    bots: tuple[BotRecord, BotRecord]
    reasons: Counter[str] = field(default_factory=Counter)
    turns: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # wall time of the games played in this run
    errors: int = 0
    faulted: int = 0  # games with a bot fault, or a planner or selector failure (`GameResult.faults`)
    interrupted: bool = False  # stopped by Ctrl-C before all games were played

    def record(
        self,
        white_index: int,
        winner: bool | None,
        reason: WinReason | None,
        turns: int,
        seconds: float | None,
        clock_share: tuple[float | None, float | None] = (None, None),
    ) -> None:
        """Count one game; `seconds` is None for a game resumed from its saved history (no wall time kept).

        `clock_share` is White's and Black's share of the clock used (see `GameResult`).
        """
        white, black = self.bots[white_index], self.bots[1 - white_index]
        for bot, share in ((white, clock_share[0]), (black, clock_share[1])):
            if share is not None:
                bot.clock_shares.append(share)
        white.games += 1
        black.games += 1
        if winner is None:
            white.draws += 1
            black.draws += 1
        elif winner == chess.WHITE:
            white.wins_as_white += 1
            black.losses += 1
        else:
            black.wins_as_black += 1
            white.losses += 1
        self.reasons[reason.name if reason is not None else "NONE"] += 1
        self.turns.append(turns)
        if seconds is not None:
            self.seconds.append(seconds)

    def table(self) -> str:
        """The summary: the first bot's score, Elo difference and LOS (as cutechess prints them), then tables."""
        first, second = self.bots
        rows: list[str] = []
        if first.games:
            score = MatchScore(first.wins, first.draws, first.losses)
            low, high = score.elo_interval
            rows.append(
                f"Score of {first.label} vs {second.label}: {score.wins} - {score.losses} - {score.draws}"
                f" (wins - losses - draws)  [{score.fraction:.3f}] {score.games} games"
            )
            rows.append(
                f"Elo difference: {score.elo:+.1f} (95% interval {low:+.1f} to {high:+.1f}),"
                f" LOS: {score.los:.1%}, draw ratio: {score.draw_ratio:.1%}"
            )
            rows.append("")
        header = ["bot", "games", "wins", "as white", "as black", "losses", "draws", "clock"]
        rows.append(table(header, [
            [bot.label, bot.games, bot.wins, bot.wins_as_white, bot.wins_as_black, bot.losses, bot.draws, bot.clock]
            for bot in self.bots
        ]))  # fmt: skip
        reasons = [[name, count] for name, count in self.reasons.most_common()]
        reasons += [["ERROR", self.errors]] if self.errors else []
        rows += ["", table(["reason", "games"], reasons)]
        if self.turns:
            rows.append("")
            length = f"mean game length: {np.mean(self.turns):.1f} turns (both players' turns counted)"
            if self.seconds:
                resumed = len(self.turns) - len(self.seconds)
                length += f", {np.mean(self.seconds):.2f} s"
                length += f" (over the {counted(len(self.seconds), 'game')} played in this run)" if resumed else ""
            rows.append(length)
        rows.extend(clock_use(bot.label, bot.clock_shares) for bot in self.bots if bot.clock_shares)
        if self.faulted:
            rows.append(f"games with a bot fault or a planner or selector failure: {self.faulted} (see the progress lines)")
        return "\n".join(rows)


def _saved_game(out: Path, game_stem: str, progress: TextIO, claimed: set[str]) -> GameHistory | None:
    """The history an earlier run saved for the game ``<stamp>-<game_stem>.json``, if one loads.

    Only histories no line of the results file names (`claimed`) count: those are another match's.
    """
    for path in sorted(out.glob(f"*-{game_stem}.json")):
        if path.name not in claimed and (history := _loaded(path, progress)) is not None:
            return history
    return None


def _loaded(path: Path, progress: TextIO) -> GameHistory | None:
    """The history in `path`; None, said on `progress`, when it does not load (the game is then played again)."""
    try:
        return GameHistory.from_file(str(path))
    except Exception as error:  # a corrupt, half-written or missing file: say so and play the game again
        progress.write(f"--resume: cannot use {path} ({type(error).__name__}: {error}); playing that game again\n")
    return None


def play_match(args: argparse.Namespace, progress: TextIO) -> MatchSummary:
    """Play the match `args` describes through the executor it names, saving histories; returns the summary.

    Ctrl-C stops the match: the games finished before it are saved and counted, the game it
    landed in is not (see :mod:`blindchess.tournament.interrupt`), ``summary.interrupted`` is
    set (``run`` exits 130), and ``--resume`` plays the rest.

    Raises:
        PlayerLoadError, BotSettingError: a bot cannot be found (or cannot ponder, with ``--ponder``).
        PonderingNeedsIsolationError: ``--ponder`` with ``--no-isolate``.
        SetupError: a bot cannot be built (no Stockfish, say); nothing more is played.
        ExecutorError: the executor cannot start.
    """
    first, second = _bot_name(args.white), _bot_name(args.black)
    # One name per bot in the table, the progress lines and the history files: `my_bot.py` is `MyBot` in all three.
    labels = (first, second) if first != second else (f"{first} (1)", f"{second} (2)")
    game_clock = TimeControl(args.seconds, args.increment)
    clocks = (args.tc_first, args.tc_second)
    summary = MatchSummary((BotRecord(labels[0], str(clocks[0] or game_clock)), BotRecord(labels[1], str(clocks[1] or game_clock))))
    # One integer seed per bot and game, printed with the result: `playback --seed` reproduces the game.
    seeds = [int(seed) for seed in np.random.SeedSequence(args.seed).generate_state(2 * args.games)]
    stamp = run_stamp()
    out = Path(args.out)
    if args.ponder is not None and args.isolate is False:
        raise PonderingNeedsIsolationError("--ponder plays the pondering bots in their own processes; it cannot go with --no-isolate")
    if args.clock == "cpu" and args.isolate is False:
        raise PonderingNeedsIsolationError("--clock cpu plays every bot in its own process; it cannot go with --no-isolate")
    check_clock(args.clock)
    ponders = (args.ponder in ("first", "both"), args.ponder in ("second", "both"))
    settings = (parse_settings(args.settings, "--settings"), parse_settings(args.second_settings, "--second-settings"))
    bots = tuple(
        BotSpec(label, bot, setting, isolate=args.isolate, memory_limit_mib=args.memory_limit, ponder=ponder, clock=clock)
        for label, bot, setting, ponder, clock in zip(labels, (args.white, args.black), settings, ponders, clocks, strict=True)
    )
    for bot_spec in bots:
        check_bot(bot_spec, args.variant)
    identity = {
        "labels": list(labels), "bots": [args.white, args.black], "settings": [args.settings, args.second_settings],
        "clock": str(game_clock), "own_clocks": [None if clock is None else str(clock) for clock in clocks],
        "clock_mode": args.clock, "seed": args.seed, "ponder": args.ponder, "full_turn_limit": args.full_turn_limit,
        "variant": args.variant,
    }  # fmt: skip
    ident = start_match(out, identity)
    recorded = finished_games(out, ident) if args.resume else {}
    other_code = other_code_note(str(out), [line.code for line in recorded.values()])
    if other_code is not None:
        progress.write(f"note: {other_code}\n")
    claimed = {line.history for line in read_all(out)} if args.resume else set()  # saved by a match of results-file days
    specs: dict[str, tuple[int, GameSpec, str]] = {}
    for index in range(args.games):
        white_index = index % 2
        white_name, black_name = (first, second) if white_index == 0 else (second, first)
        game_stem = f"{index + 1:03d}-{safe_file_name(white_name)}-vs-{safe_file_name(black_name)}"
        line = recorded.get(index + 1)
        if line is not None and _loaded(out / line.history, progress) is not None:  # counted with its record only
            winner = None if line.winner is None else line.winner == "white"
            reason = None if line.reason is None else WinReason[line.reason]
            summary.record(white_index, winner, reason, line.turns, None, line.clock_share)
            progress.write(
                f"[{index + 1}/{args.games}] {line.white} (white) vs {line.black} (black): "
                f"{describe_result(winner, reason, line.white, line.black)} after {line.turns} turns (saved earlier)\n"
            )
            continue
        saved = _saved_game(out, game_stem, progress, claimed) if args.resume else None
        if saved is not None:
            white_label, black_label = summary.bots[white_index].label, summary.bots[1 - white_index].label
            winner, reason = saved.get_winner_color(), saved.get_win_reason()
            summary.record(white_index, winner, reason, saved.num_turns(), None)
            progress.write(
                f"[{index + 1}/{args.games}] {white_label} (white) vs {black_label} (black): "
                f"{describe_result(winner, reason, white_label, black_label)} after {saved.num_turns()} turns (saved earlier)\n"
            )
            continue
        spec = GameSpec(
            key=f"{index + 1:03d}",
            white=bots[white_index],
            black=bots[1 - white_index],
            white_seed=seeds[2 * index],
            black_seed=seeds[2 * index + 1],
            seconds=args.seconds,
            increment=args.increment,
            full_turn_limit=args.full_turn_limit,
            variant=args.variant,
            clock_mode=args.clock,
        )
        specs[spec.key] = (index, spec, game_stem)
    if not specs:
        return summary
    executor = make_executor(args.executor, args.workers, args.address)
    results = executor.run(spec for _, spec, _ in specs.values())
    try:
        with watch_for_interrupt() as interrupted:
            for result in results:
                if interrupted.is_set():
                    raise KeyboardInterrupt  # the game in hand is no result (see blindchess.tournament.interrupt)
                if result.setup_error:
                    raise SetupError(result.error)
                index, spec, game_stem = specs[result.key]
                _record_game(summary, index, spec, result, args.games, out, f"{stamp}-{game_stem}", progress, (ident, labels[0]))
    except KeyboardInterrupt:
        progress.write(f"interrupted after {summary.bots[0].games} of {args.games} games: stopping; --resume plays the rest\n")
        summary.interrupted = True
    finally:
        getattr(results, "close", lambda: None)()
        executor.close()
    return summary


def _record_game(
    summary: MatchSummary,
    index: int,
    spec: GameSpec,
    result: GameResult,
    games: int,
    out: Path,
    file_stem: str,
    progress: TextIO,
    match: tuple[str, str],
) -> None:
    """Count one finished game, save its history, add its line to the results file, and write its progress line.

    `match` is the match's id and the first bot's label (see :mod:`blindchess.tournament.match_record`).
    """
    white_index = index % 2
    white_label, black_label = spec.white.label, spec.black.label
    if not result.ok or result.history is None:
        logger.error("game %d (%s vs %s) failed: %s", index + 1, white_label, black_label, result.error)
        summary.errors += 1
        progress.write(f"[{index + 1}/{games}] {white_label} vs {black_label}: ERROR ({result.error})\n")
        return
    winner = result.winner
    reason = None if result.reason is None else WinReason[result.reason]
    summary.record(white_index, winner, reason, result.turns, result.seconds, result.clock_share)
    path = unique_history_path(out, file_stem)
    path.write_text(result.history)
    append_line(out, game_line(match, index + 1, spec, result, path.name))
    progress.write(
        f"[{index + 1}/{games}] {white_label} (white) vs {black_label} (black): "
        f"{describe_result(winner, reason, white_label, black_label)} after {result.turns} turns, {result.seconds:.1f} s,"
        f"{_clock_note(result.clock_share)} seeds {spec.white_seed}/{spec.black_seed} -> {path}\n"
    )
    for fault in result.faults:
        progress.write(f"    fault: {fault}\n")
    summary.faulted += bool(result.faults)
    progress.flush()


def _clock_note(shares: tuple[float | None, float | None]) -> str:
    """`` clock used 83%/21%,`` (White's/Black's) for a timed game, else nothing."""
    if shares[0] is None or shares[1] is None:
        return ""
    return f" clock used {shares[0]:.0%}/{shares[1]:.0%},"


def _bot_name(bot: str) -> str:
    """The name a bot goes by in history file names: its short name (``flagship@HEAD~20`` at a commit), or the class name
    of a file or module."""
    if split_commit(bot) is not None:
        return bot
    name, _ = resolve_bot(bot)
    return name


def run(args: argparse.Namespace) -> int:
    try:
        summary = play_match(args, sys.stderr)
    except (
        PlayerLoadError, BotSettingError, SetupError, ExecutorError, UnknownVariantError, PonderingNeedsIsolationError,
        CpuClockUnavailableError,
    ) as error:
        raise BadInputError(str(error)) from error
    sys.stdout.write(summary.table() + "\n")
    if summary.interrupted:
        return 130
    return 1 if summary.errors else 0
