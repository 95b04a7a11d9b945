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

``--resume`` finishes a match that was stopped part way (a long match at 120 s + 5 s runs for an
hour or more): the same command with ``--resume`` counts every game whose history is already in
``--out`` (matched by game number and bot names) and plays only the missing ones, with the seeds
a full run would have given them. The summary covers all the games.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import random
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, TextIO

import chess
import numpy as np

from blindchess.arbiter import GameHistory, LocalGame, Player, WinReason, play_local_game
from blindchess.arbiter.isolation import MEMORY_LIMIT_BYTES, BotProcessDied, IsolatedBotError, isolated_player
from blindchess.arbiter.loading import PlayerLoadError
from blindchess.arbiter.results import describe_result, run_stamp, safe_file_name, unique_history_path
from blindchess.arguments import non_negative_seconds, output_folder, positive_int, positive_seconds

from .registry import BotConstructionError, make_bot, resolve_bot

logger = logging.getLogger(__name__)


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "match",
        help="play games between two bots and summarise them",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("white", help="first bot (White in odd-numbered games): short name, module or file")
    parser.add_argument("black", help="second bot (Black in odd-numbered games)")
    parser.add_argument("--games", type=positive_int, default=1, help="number of games (default 1)")
    parser.add_argument("--seconds", type=positive_seconds, default=900.0, help="clock per player in seconds (default 900)")
    parser.add_argument("--increment", type=non_negative_seconds, default=5.0, help="seconds added per turn (default 5)")
    parser.add_argument("--seed", type=int, help="seed for both bots' randomness (default: unseeded)")
    parser.add_argument("--out", type=output_folder, default="games", help="folder for the game histories (default ./games)")
    parser.add_argument("--full-turn-limit", type=positive_int, help="draw after this many full turns (default: none)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="count the games already saved in --out by an earlier run of this match and play only the rest",
    )
    parser.add_argument(
        "--isolate",
        action="store_true",
        help="run each bot in its own process: a bot that exits, crashes the interpreter or runs out of memory"
        " loses that game and the match goes on",
    )
    parser.add_argument(
        "--memory-limit",
        type=positive_int,
        default=MEMORY_LIMIT_BYTES // 2**20,
        metavar="MIB",
        help=f"with --isolate: address space each bot may map beyond its process's start (default {MEMORY_LIMIT_BYTES // 2**20})",
    )
    parser.set_defaults(run=run)


@dataclass
class BotRecord:
    """One bot's results over a match."""

    label: str
    games: int = 0
    wins_as_white: int = 0
    wins_as_black: int = 0
    losses: int = 0
    draws: int = 0

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
    interrupted: bool = False  # stopped by Ctrl-C before all games were played

    def record(
        self, white_index: int, winner: Optional[bool], reason: Optional[WinReason], turns: int, seconds: Optional[float]
    ) -> None:
        """Count one game; `seconds` is None for a game resumed from its saved history (no wall time kept)."""
        white, black = self.bots[white_index], self.bots[1 - white_index]
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
        """The summary as a plain-text table."""
        width = max(len(bot.label) for bot in self.bots) + 2
        header = f"{'bot':<{width}}{'games':>6}{'wins':>6}{'as white':>10}{'as black':>10}{'losses':>8}{'draws':>7}"
        rows = [header, "-" * len(header)]
        for bot in self.bots:
            rows.append(
                f"{bot.label:<{width}}{bot.games:>6}{bot.wins:>6}{bot.wins_as_white:>10}"
                f"{bot.wins_as_black:>10}{bot.losses:>8}{bot.draws:>7}"
            )
        rows.append("")
        rows.append("reason         games")
        rows.extend(f"{name:<15}{count:>5}" for name, count in self.reasons.most_common())
        if self.errors:
            rows.append(f"{'ERROR':<15}{self.errors:>5}")
        if self.turns:
            rows.append("")
            length = f"mean game length: {np.mean(self.turns):.1f} turns (both players' turns counted)"
            if self.seconds:
                resumed = len(self.turns) - len(self.seconds)
                length += f", {np.mean(self.seconds):.2f} s"
                length += f" (over the {len(self.seconds)} games played in this run)" if resumed else ""
            rows.append(length)
        return "\n".join(rows)


def _saved_game(out: Path, game_stem: str, progress: TextIO) -> Optional[GameHistory]:
    """The history an earlier run saved for the game ``<stamp>-<game_stem>.json``, if one loads."""
    for path in sorted(out.glob(f"*-{game_stem}.json")):
        try:
            return GameHistory.from_file(str(path))
        except Exception as error:  # a corrupt or half-written file: say so and play the game again
            progress.write(f"--resume: cannot use {path} ({type(error).__name__}: {error}); playing that game again\n")
    return None


@dataclass
class _Plan:
    """What every game of a match shares: the bots, their seeds, where and under what stamp to save."""

    args: argparse.Namespace
    bots: tuple[tuple[str, type[Player]], tuple[str, type[Player]]]
    seeds: list[int]
    stamp: str
    out: Path
    summary: MatchSummary
    progress: TextIO


def play_match(args: argparse.Namespace, progress: TextIO) -> MatchSummary:
    """Play the match `args` describes, saving histories; returns the summary."""
    first, second = resolve_bot(args.white), resolve_bot(args.black)
    labels = (args.white, args.black) if args.white != args.black else (f"{args.white} (1)", f"{args.black} (2)")
    summary = MatchSummary((BotRecord(labels[0]), BotRecord(labels[1])))
    if args.seed is not None:
        random.seed(args.seed)  # reconchess's bots draw from the random module
    # One integer seed per bot and game, printed with the result: `playback --seed` reproduces the game.
    seeds = [int(seed) for seed in np.random.SeedSequence(args.seed).generate_state(2 * args.games)]
    stamp = run_stamp()
    plan = _Plan(args, (first, second), seeds, stamp, Path(args.out), summary, progress)
    with _watch_for_interrupt() as interrupted:
        for index in range(args.games):
            _play_game(plan, index)
            if interrupted.is_set():
                # Ctrl-C reached a bot (recorded as its fault) or the arbiter: that game is not a result.
                progress.write(f"[{index + 1}/{args.games}] interrupted: stopping; --resume plays the rest\n")
                summary.interrupted = True
                break
    return summary


def _play_game(plan: _Plan, index: int) -> None:
    """Play (or, with --resume, count) game `index` of the match."""
    args, summary, progress, seeds = plan.args, plan.summary, plan.progress, plan.seeds
    white_index = index % 2
    first, second = plan.bots
    (white_name, white_class), (black_name, black_class) = (first, second) if white_index == 0 else (second, first)
    white_label, black_label = summary.bots[white_index].label, summary.bots[1 - white_index].label
    game_stem = f"{index + 1:03d}-{safe_file_name(white_name)}-vs-{safe_file_name(black_name)}"
    saved = _saved_game(plan.out, game_stem, progress) if args.resume else None
    if saved is not None:
        winner, reason = saved.get_winner_color(), saved.get_win_reason()
        summary.record(white_index, winner, reason, saved.num_turns(), None)
        progress.write(
            f"[{index + 1}/{args.games}] {white_label} (white) vs {black_label} (black): "
            f"{describe_result(winner, reason, white_label, black_label)} after {saved.num_turns()} turns (saved earlier)\n"
        )
        return
    game: LocalGame[Any] = LocalGame(
        seconds_per_player=args.seconds, seconds_increment=args.increment, full_turn_limit=args.full_turn_limit
    )
    # A bot that cannot even be built (no Stockfish, say) is a setup error: let it end the match.
    white = _build(args, white_class, seeds[2 * index])
    black = _build(args, black_class, seeds[2 * index + 1])
    started = time.monotonic()
    try:
        winner, reason, history = play_local_game(white, black, game=game)
    except Exception:
        logger.exception("game %d (%s vs %s) failed", index + 1, white_label, black_label)
        summary.errors += 1
        progress.write(f"[{index + 1}/{args.games}] {white_label} vs {black_label}: ERROR (see log above)\n")
        return
    seconds = time.monotonic() - started
    turns = history.num_turns()
    summary.record(white_index, winner, reason, turns, seconds)
    path = unique_history_path(plan.out, f"{plan.stamp}-{game_stem}")
    history.save(str(path))
    progress.write(
        f"[{index + 1}/{args.games}] {white_label} (white) vs {black_label} (black): "
        f"{describe_result(winner, reason, white_label, black_label)} after {turns} turns, {seconds:.1f} s,"
        f" seeds {seeds[2 * index]}/{seeds[2 * index + 1]} -> {path}\n"
    )
    progress.flush()


@contextlib.contextmanager
def _watch_for_interrupt() -> Iterator[threading.Event]:
    """An event set by Ctrl-C, which still raises KeyboardInterrupt wherever the program is.

    Why: a KeyboardInterrupt that lands inside a bot's callback is that bot's fault to the
    arbiter (it cannot tell it from a bot raising one), so the match asks the event instead.
    """
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


def _build(args: argparse.Namespace, player_class: type[Player], seed: int) -> Player:
    """The bot, in this process or (``--isolate``) in its own."""
    if not args.isolate:
        return make_bot(player_class, seed)
    try:
        player: Player = isolated_player(
            player_class, functools.partial(make_bot, player_class, seed), args.memory_limit * 2**20
        )
    except (IsolatedBotError, BotProcessDied) as error:
        raise BotConstructionError(f"cannot build {player_class.__name__} in its own process: {error}") from error
    return player


def run(args: argparse.Namespace) -> int:
    try:
        summary = play_match(args, sys.stderr)
    except (PlayerLoadError, BotConstructionError) as error:
        sys.stderr.write(f"blindchess match: error: {error}\n")
        return 2
    sys.stdout.write(summary.table() + "\n")
    if summary.interrupted:
        return 130
    return 1 if summary.errors else 0
