"""`blindchess sprt A B --elo0 0 --elo1 10`: is A stronger than B? Play pairs until the SPRT decides.

Plays colour-swapped pairs of A against B (the same two seeds for both games of a pair, each bot
once White, as cutechess's ``-repeat``) and, after each finished pair, updates the pentanomial
counts and the log-likelihood ratio of H1 "A is `elo1` Elo better" against H0 "A is `elo0` Elo
better" (see :mod:`blindchess.tournament.stats`). It stops when the LLR leaves the bounds set by
`alpha` and `beta` (both 0.05 by default: bounds -2.94 and +2.94), as fishtest does, or after
``--max-pairs``. One line per pair goes to stderr; the verdict to stdout. Exit status: 0 when H1
is accepted, 1 for H0, 3 when undecided at the limit.

With ``--db FILE`` every game is recorded in that SQLite file (the tournament runner's format,
:mod:`blindchess.tournament.results_db`) as it finishes, and a later run of the same command
counts the recorded games first and plays only the rest: an SPRT of several hours survives
Ctrl-C and the end of a session. A file holding other settings for the same games is refused.
``--report-only`` plays nothing: the same command with it prints the lines and the verdict of the
pairs the file holds (a pair with one game recorded is not counted), for a run still going or
stopped.

``--ponder a|b|both`` lets A, B or both think on the opponent's turn (in their own processes,
as ``blindchess match --ponder`` does; docs/pondering.md), so ``blindchess sprt flagship flagship
--ponder a`` measures what pondering gains: pondering counts as a setting.

Bots are given as for ``blindchess match``; ``--a-settings``/``--b-settings`` take constructor settings as
the inside of a TOML inline table (``'selector.search.depth = 1, selector.boards = 4'``), so a bot can be tested against a
weakened copy of itself. A bot against itself with the same settings is refused: that test
accepts H0 by construction.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import Any

from blindchess.arbiter.game.loading import PlayerLoadError
from blindchess.arbiter.sandbox.cpu_clock import CpuClockUnavailableError
from blindchess.arguments import add_command, non_negative_seconds, positive_int, positive_seconds
from blindchess.command_errors import BadInputError
from blindchess.tournament.base import ExecutorError
from blindchess.tournament.config import SelfPairingError, TournamentConfig, pairing_games, parse_settings
from blindchess.tournament.executors import make_executor
from blindchess.tournament.interrupt import watch_for_interrupt
from blindchess.tournament.report import clock_use
from blindchess.tournament.results_db import ResultStore, ResultStoreError
from blindchess.tournament.runner import SetupError
from blindchess.tournament.spec import BotSpec, GameResult, GameSpec
from blindchess.tournament.stats import Sprt, SprtDecision, StatisticsError, pair_interval, pentanomial
from blindchess.tournament.task import VARIANTS, BotSettingError, check_bot

from .cli_tournament import add_clock_argument, add_executor_arguments, check_clock

PONDER_CHOICES = ("a", "b", "both")
"""``--ponder``'s values: which of A and B think on the opponent's turn."""

def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "sprt",
        __doc__,
        "blindchess sprt attacker random --elo0 0 --elo1 10 --full-turn-limit 30",
    )  # fmt: skip
    parser.add_argument("a", help="the bot under test (short name, module or file)")
    parser.add_argument("b", help="the baseline")
    parser.add_argument("--a-settings", default="", help="A's settings, the inside of a TOML inline table: 'limit = {depth = 2}, x = 1'")
    parser.add_argument("--b-settings", default="", help="the same for B")
    parser.add_argument("--elo0", type=float, default=0.0, help="H0's Elo difference (default 0)")
    parser.add_argument("--elo1", type=float, default=10.0, help="H1's Elo difference (default 10)")
    parser.add_argument("--alpha", type=float, default=0.05, help="false-positive rate (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05, help="false-negative rate (default 0.05)")
    parser.add_argument("--max-pairs", type=positive_int, default=10_000, help="stop undecided after this many pairs (default 10000)")
    parser.add_argument("--seconds", type=positive_seconds, help="clock per player (default: none)")
    parser.add_argument("--increment", type=non_negative_seconds, default=0.0, help="seconds added per turn (default 0)")
    parser.add_argument("--full-turn-limit", type=positive_int, help="draw after this many full turns")
    parser.add_argument("--variant", default="rbc", choices=tuple(VARIANTS), help="the game (default rbc)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the pairs' seeds (default 0)")
    parser.add_argument(
        "--ponder", choices=PONDER_CHOICES, help="let A, B or both think on the opponent's turn (in their own processes)"
    )
    parser.add_argument("--db", help="SQLite file recording every game; run again to resume (default: none)")
    parser.add_argument("--report-only", action="store_true", help="play nothing: the verdict of the pairs --db holds")
    add_executor_arguments(parser, None)
    add_clock_argument(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        test = Sprt(args.elo0, args.elo1, args.alpha, args.beta)
        a = BotSpec("A", args.a, parse_settings(args.a_settings, "--a-settings"), ponder=args.ponder in ("a", "both"))
        b = BotSpec("B", args.b, parse_settings(args.b_settings, "--b-settings"), ponder=args.ponder in ("b", "both"))
        if a.same_player(b):
            raise SelfPairingError(f"A and B are the same bot ({args.a!r}) with the same settings: a pairing of a bot with itself")
        check_bot(a, args.variant)
        check_bot(b, args.variant)
        check_clock(args.clock)
        if args.report_only and (args.db is None or not Path(args.db).is_file()):
            raise BadInputError(f"--report-only reads the games of --db: {'name the file' if args.db is None else f'no file {args.db}'}")
        executor = None if args.report_only else make_executor(args.executor, args.workers, args.address)
    except (StatisticsError, BotSettingError, PlayerLoadError, SelfPairingError, ExecutorError, CpuClockUnavailableError) as error:
        raise BadInputError(str(error)) from error
    config = TournamentConfig(
        name="sprt", players=(a, b), seed=args.seed, variant=args.variant, seconds=args.seconds,
        increment=args.increment, full_turn_limit=args.full_turn_limit, clock_mode=args.clock,
    )  # fmt: skip
    lower, upper = test.bounds
    sys.stderr.write(f"SPRT {args.a} vs {args.b}: H0 elo {args.elo0:g}, H1 elo {args.elo1:g}, bounds [{lower:.2f}, {upper:.2f}]\n")
    specs = list(pairing_games(a, b, config, pairs=args.max_pairs))
    try:
        store = None if args.db is None else ResultStore(args.db)
        todo, recorded = _resume(store, specs)
        other_code = None if store is None else store.other_code()
    except (ResultStoreError, OSError) as error:
        if executor is not None:
            executor.close()
        raise BadInputError(f"--db: {error}") from error  # the message names the file
    if recorded:
        sys.stderr.write(f"{len(recorded)} games recorded in {args.db}: counted first\n")
    if other_code is not None:
        sys.stderr.write(f"note: {other_code}\n")
    by_key = {spec.key: spec for spec in todo}
    halves: dict[int, list[GameResult]] = {}
    pair_scores: list[float] = []
    clock_shares: dict[str, list[float]] = {"A": [], "B": []}
    failed = faulted = 0  # pairs with a failed game; games with a fault or a planner or selector failure
    decision = SprtDecision.CONTINUE
    interrupted = False
    results = iter(()) if executor is None else executor.run(todo)
    try:
        with watch_for_interrupt() as interrupted_event:
            for result in itertools.chain(recorded, results):
                if interrupted_event.is_set():
                    raise KeyboardInterrupt  # the pair in hand is not counted (see blindchess.tournament.interrupt)
                if result.setup_error:
                    raise SetupError(result.error)
                if store is not None and result.key in by_key:
                    store.record(by_key.pop(result.key), result)
                pair = int(result.key.split("#")[1].split(".")[0])
                halves.setdefault(pair, []).append(result)
                for fault in result.faults:
                    sys.stderr.write(f"pair {pair}: fault: {fault}\n")
                faulted += bool(result.faults)
                if len(halves[pair]) < 2:
                    continue
                games = halves.pop(pair)
                if not all(game.ok for game in games):
                    failed += 1
                    sys.stderr.write(f"pair {pair}: not counted, a game failed ({next(g.error for g in games if not g.ok)})\n")
                    continue
                # A plays White in game 0 of even pairs and game 1 of odd ones (see pairing_games).
                a_white = [(pair + int(g.key[-1])) % 2 == 0 for g in games]
                pair_scores.append(sum(g.white_score() if w else 1.0 - g.white_score() for g, w in zip(games, a_white, strict=True)))
                for game, white in zip(games, a_white, strict=True):
                    for label, share in zip(("A", "B") if white else ("B", "A"), game.clock_share, strict=True):
                        if share is not None:
                            clock_shares[label].append(share)
                counts = pentanomial(pair_scores)
                llr = test.llr(counts)
                decision = test.decide(llr)
                sys.stderr.write(f"pairs {len(pair_scores):>5}  pentanomial {list(counts)}  LLR {llr:+.3f}\n")
                if decision is not SprtDecision.CONTINUE:
                    break
    except SetupError as error:
        raise BadInputError(str(error)) from error
    except KeyboardInterrupt:
        interrupted = True
    finally:
        getattr(results, "close", lambda: None)()
        if executor is not None:
            executor.close()
        if store is not None:
            store.close()
    score = sum(pair_scores) / (2 * len(pair_scores)) if pair_scores else float("nan")
    interval = ""
    if pair_scores:
        low, high = pair_interval(pair_scores)
        interval = f" (95% interval over pairs {low:.3f}-{high:.3f})"
    for label, shares in clock_shares.items():
        if shares:
            sys.stderr.write(clock_use(label, shares) + "\n")
    verdict = {SprtDecision.H1: "H1 accepted", SprtDecision.H0: "H0 accepted", SprtDecision.CONTINUE: "undecided"}[decision]
    verdict += " (interrupted)" if interrupted else ""
    verdict += f" (report only: {len(todo)} of the {len(specs)} games not played)" if args.report_only and todo else ""
    sys.stdout.write(
        f"{verdict}: {args.a} vs {args.b} after {len(pair_scores)} pairs ({2 * len(pair_scores)} games),"
        f" A's score {score:.3f}{interval}, pentanomial {list(pentanomial(pair_scores))}"
        + (f", {failed} pairs with a failed game not counted" if failed else "")
        + (f", {faulted} games with a bot fault or a planner or selector failure" if faulted else "") + "\n"
    )
    return 130 if interrupted else {SprtDecision.H1: 0, SprtDecision.H0: 1, SprtDecision.CONTINUE: 3}[decision]


def _resume(store: ResultStore | None, specs: list[GameSpec]) -> tuple[list[GameSpec], list[GameResult]]:
    """The games still to play, and the recorded ones as results (in schedule order, so whole pairs come together).

    Raises:
        StoreConflictError: the store holds one of these games with other settings.
    """
    if store is None:
        return specs, []
    todo = store.pending(specs)
    waiting = {spec.key for spec in todo}
    rows = {row.key: row for row in store.rows()}
    recorded = [
        GameResult(
            key=row.key, winner=row.winner, reason=row.reason, turns=row.turns, seconds=row.seconds, error=row.error,
            clock_share=row.clock_share,
        )  # fmt: skip
        for row in (rows[spec.key] for spec in specs if spec.key not in waiting)
    ]
    return todo, recorded
