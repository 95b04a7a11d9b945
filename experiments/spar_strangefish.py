"""Spar the flagship against StrangeFish2, the NeurIPS 2022 champion, through our arbiter.

StrangeFish2 lives outside the repository (BSD 3-clause; never vendored): give its folder with
``--strangefish PATH`` or ``STRANGEFISH2_PATH``. It writes logs under ``game_logs/`` beside
itself and reads its optional caches from the working directory, so the script copies it into
a temporary folder and runs it from there (the original may be read-only).

Each bot plays in its own process (`blindchess.arbiter.sandbox.isolation`) and, unless ``--no-ponder``,
thinks on the other's turn (`blindchess.arbiter.sandbox.pondering`): the flagship by its own
``ponder``, StrangeFish2 by calling its ``while_we_wait`` (the work its tournament client did
between turns) until its turn comes. One call of ``while_we_wait`` runs for about 2 s, so
StrangeFish2 may notice its turn up to 2 s late; that time is charged to its own clock. Its
Stockfish gets one thread (it asks for three), as the flagship's does, and its `random.sample`
of a set works again on Python 3.11 (`SetSampling`); under ``--strangefish-time cpu`` its
``time()`` reads CPU seconds (`TurnClock`, below); nothing else of it is changed.

``--clock-mode cpu`` charges each bot the CPU time of its own process tree (its Stockfish
included) on its own turn instead of wall time (`blindchess.arbiter.sandbox.cpu_clock`; the option is
``--clock`` in ``blindchess match``, where this script's ``--clock`` is the time control), so that
games can run beside other work; it needs root or a delegated cgroup, and says so if it has neither.

``--strangefish-time cpu`` (the default under ``--clock-mode cpu``; ``wall`` otherwise) has
StrangeFish2's own clock read the resource it is charged for. It budgets its turns in wall
seconds: ``from time import time`` in its ``strangefish_strategy``, ``strangefish_mht_core`` and
``utilities.timing`` modules sets each phase's deadline (``clip(seconds left / 16, 3, 40)`` s a
turn), bounds its board-set rebuild and times its log lines. Charged CPU seconds but stopping
by wall seconds, on a loaded machine it did a fraction of the work its clock paid for (0.23-0.42
CPU s per wall s in the 300 + 5 match). The option replaces that ``time`` in each of its modules
after import (`replace_time`) by `TurnClock`: on its turns the CPU seconds of its process and
the Stockfish engines it started (`blindchess.moving.process_clock.ProcessTreeClock`), in its
pondering thread wall seconds, since ``while_we_wait`` loops for 2 s of ``time()`` to notice
that its turn has come, and with nothing left to ponder it sleeps a millisecond an iteration,
which would take CPU seconds minutes to pass. Its ``sleep`` calls and its engine's own
``Limit(time=2.0)`` (a fallback move on a single board) stay wall seconds.

Colours alternate (the flagship is White in games 1, 3, ...). Every history is saved in
``--out``, with StrangeFish2's own log of the game beside it (``<history>.strangefish2.log.gz``:
its clock at each turn, the time it allowed and spent per phase; read by
``experiments/strangefish_clock_mode.py``), with a line per game in its ``results.jsonl`` (`blindchess.tournament.match_record`,
as ``blindchess match`` writes it); each game's result and both bots' clock use are printed, then
the flagship's score with its 95% interval (Wilson, `blindchess.tournament.stats`).
``blindchess match-report OUT`` prints the same from the folder, with every lost game's record.
A long match stops with Ctrl-C (the game in hand is not counted) and ``--resume`` plays the
games of the same match (settings, clocks, seed) that ``--out`` does not hold yet::

    STRANGEFISH2_PATH=../shared/opponents/strangefish2 python experiments/spar_strangefish.py --games 20 --clock 300+5
    python experiments/spar_strangefish.py --strangefish ../shared/opponents/strangefish2 --games 1 --clock 60+1 --full-turn-limit 20
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import importlib
import os
import random
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Optional

import numpy as np

from blindchess.arbiter import Player
from blindchess.arbiter.game.reconchess_adapter import ReconchessPlayerAdapter
from blindchess.arbiter.game.results import describe_result, unique_history_path
from blindchess.arbiter.game.time_control import TimeControl
from blindchess.arbiter.sandbox.cpu_clock import CLOCK_MODES, CpuClockUnavailableError, check_cpu_clock
from blindchess.arbiter.types import WinReason
from blindchess.bots.random_bot import SeedLike
from blindchess.code_digest import other_code_note
from blindchess.evaluation.stockfish import STOCKFISH_ENV_VAR, find_stockfish
from blindchess.moving.process_clock import ProcessTreeClock
from blindchess.tournament.config import parse_settings
from blindchess.tournament.interrupt import watch_for_interrupt
from blindchess.tournament.match_record import append_line, finished_games, game_line, start_match
from blindchess.tournament.spec import BotSpec, GameResult, GameSpec
from blindchess.tournament.stats import MatchScore, wilson_interval
from blindchess.tournament.task import play_game

PATH_ENV_VAR = "STRANGEFISH2_PATH"
"""The environment variable naming StrangeFish2's folder (the one holding ``strangefish/``)."""

STRANGEFISH_TIMES = ("wall", "cpu")
"""What StrangeFish2's ``time()`` reads: wall seconds (as written) or its process tree's CPU seconds (`TurnClock`)."""


class StrangeFish2(ReconchessPlayerAdapter):
    """StrangeFish2 from its copy at `path`, as our `Player`, pondering by ``while_we_wait``.

    Built inside its own process (the arbiter's isolation): it changes that process's working
    directory to `path`, where its logs and optional caches live.

    Args:
        rng: seeds Python's `random` module, which StrangeFish2 draws from.
        path: the copy of StrangeFish2's folder to run (writable).
        clock: what its ``time()`` reads, one of `STRANGEFISH_TIMES` (see the module docstring).
    """

    def __init__(self, rng: SeedLike = None, path: str = "", clock: str = "wall") -> None:
        if not (Path(path) / "strangefish").is_dir():
            raise ValueError(f"no StrangeFish2 at {path!r} (expected a folder holding strangefish/)")
        if clock not in STRANGEFISH_TIMES:
            raise ValueError(f"StrangeFish2's clock {clock!r} is not one of {', '.join(STRANGEFISH_TIMES)}")
        os.chdir(path)
        sys.path.insert(0, path)
        os.environ.setdefault(STOCKFISH_ENV_VAR, find_stockfish())
        random.seed(None if rng is None else int(np.random.default_rng(rng).integers(2**63)))
        strategy: Any = importlib.import_module("strangefish.strangefish_strategy")  # found only at run time: no stubs
        stockfish: Any = importlib.import_module("strangefish.utilities.stockfish")
        strategy.random = SetSampling()

        create_engine = stockfish.create_engine
        engine_pids: list[int] = []

        def one_thread_engine() -> Any:
            engine = create_engine()
            engine.configure({"Threads": 1})
            engine_pids.append(engine.protocol.transport.get_pid())
            return engine

        stockfish.create_engine = one_thread_engine
        self.clock: Optional[TurnClock] = None
        if clock == "cpu":
            self.clock = TurnClock(ProcessTreeClock(lambda: engine_pids))
            replace_time("strangefish", self.clock)
        super().__init__(strategy.StrangeFish2(game_id=f"spar-{os.getpid()}", rc_disable_pbar=True))

    def ponder(self, stop: threading.Event) -> None:
        """Its own thinking on the opponent's turn, until the arbiter says the turn has come."""
        with contextlib.nullcontext() if self.clock is None else self.clock.pondering():
            while not stop.is_set():
                self.player.while_we_wait()


class TurnClock:
    """StrangeFish2's ``time()`` under ``--strangefish-time cpu``: CPU seconds on its turns, wall seconds while it ponders.

    On its turns every deadline it sets is measured in `cpu` (its process tree's CPU seconds, what
    a CPU clock charges it), so a loaded machine stretches its turns in wall time instead of
    cutting their work. A thread inside `pondering` reads wall seconds (`time.monotonic`): there
    ``while_we_wait`` loops for 2 s of ``time()`` before it returns to check whether its turn has
    come, and an idle iteration (nothing left to expand or score) sleeps 1 ms using next to no CPU.
    The two readings are never compared with each other: its only deadline that outlives a call
    (``projected_end_time``) is set and read on its turns.

    >>> clock = TurnClock(lambda: 7.0)
    >>> clock()
    7.0
    >>> with clock.pondering():
    ...     clock() == 7.0
    False
    """

    def __init__(self, cpu: Callable[[], float]) -> None:
        self.cpu = cpu
        self._thread = threading.local()

    @contextlib.contextmanager
    def pondering(self) -> Iterator[None]:
        """Within it, the calling thread (and only it) reads wall seconds."""
        self._thread.pondering = True
        try:
            yield
        finally:
            self._thread.pondering = False

    def __call__(self) -> float:
        return time.monotonic() if getattr(self._thread, "pondering", False) else self.cpu()


def replace_time(package: str, clock: Callable[[], float]) -> list[str]:
    """Make every loaded module of `package` that did ``from time import time`` call `clock` instead; their names.

    Each such module looks its ``time`` up among its globals at every call, so replacing that name
    changes every reading at once without touching a file. A module that imported ``time`` itself
    (``time.time()``) is not reached; StrangeFish2 has none.

    Raises:
        ValueError: no loaded module of `package` holds ``time.time`` (nothing would read `clock`).
    """
    replaced = []
    for name, module in list(sys.modules.items()):
        if (name == package or name.startswith(f"{package}.")) and getattr(module, "time", None) is time.time:
            module.time = clock  # type: ignore[attr-defined]
            replaced.append(name)
    if not replaced:
        raise ValueError(f"no loaded module of {package!r} reads time.time: nothing to replace")
    return sorted(replaced)


class SetSampling:
    """Python's `random` module, with ``sample`` taking a set as Python 3.10 did (as a tuple).

    StrangeFish2 samples its board set, a `set`, with `random.sample`; Python 3.11 refuses a set
    there (`TypeError`), which made it lose every game by a fault the first time it sensed by
    expected set size (a large set, or under 90 s on its clock). Its own module is given this
    stand-in; it draws from the same seeded generator.
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(random, name)

    @staticmethod
    def sample(population: Any, k: int, **options: Any) -> list[Any]:
        if isinstance(population, (set, frozenset)):
            population = tuple(population)
        return random.sample(population, k, **options)


def get_player() -> type[Player]:
    """StrangeFish2's class (`load_player` calls this; the path comes as its ``path`` setting)."""
    return StrangeFish2


def copy_of(source: Path, into: Path) -> Path:
    """A writable copy of StrangeFish2's folder `source` inside `into` (its logs are left out)."""
    if not (source / "strangefish").is_dir():
        raise SystemExit(f"spar_strangefish: no StrangeFish2 at {source} (expected a folder holding strangefish/)")
    copy = into / "strangefish2"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("game_logs", "__pycache__"))
    for folder, _, files in os.walk(copy):
        for name in [folder, *(os.path.join(folder, file) for file in files)]:
            os.chmod(name, os.stat(name).st_mode | stat.S_IWUSR)
    return copy


def keep_logs(logs: Path, history: Path) -> list[Path]:
    """StrangeFish2's game logs in `logs` (its copy's ``game_logs/``), moved beside `history`, gzipped.

    Its copy lives in a temporary folder that goes at the end of the run, and those logs are the
    only record of its clock and of the time each of its phases allowed and spent. The folder holds
    one game's logs at a time (`spar` empties it before each game); several (none expected) are kept
    in name order, numbered after the first.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "game_spar-7.log").write_text("turn 1")
    >>> [path.name for path in keep_logs(folder, folder / "game-001-a-vs-b.json")]
    ['game-001-a-vs-b.strangefish2.log.gz']
    >>> gzip.decompress((folder / "game-001-a-vs-b.strangefish2.log.gz").read_bytes()).decode(), list(folder.glob("*.log"))
    ('turn 1', [])
    """
    kept = []
    for number, log in enumerate(sorted(logs.glob("game_*.log"))):
        suffix = "" if number == 0 else f"-{number + 1}"
        target = history.with_name(f"{history.stem}{suffix}.strangefish2.log.gz")
        target.write_bytes(gzip.compress(log.read_bytes()))
        log.unlink()
        kept.append(target)
    return kept


def arguments(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--strangefish", default=os.environ.get(PATH_ENV_VAR), help=f"StrangeFish2's folder (default ${PATH_ENV_VAR})")
    parser.add_argument("--games", type=int, default=2, help="games, colours alternating (default 2)")
    parser.add_argument("--clock", type=TimeControl.parse, default=TimeControl(900.0, 5.0), help="each clock (default 900+5)")
    parser.add_argument("--full-turn-limit", type=int, help="end a game as a draw after this many full turns (default none)")
    parser.add_argument("--seed", type=int, default=0, help="seed of game k's seeds (default 0)")
    parser.add_argument("--settings", default="", help="the flagship's settings: 'preset = \"fast\"' (docs/moving.md)")
    parser.add_argument("--no-ponder", action="store_true", help="neither bot thinks on the other's turn")
    parser.add_argument(
        "--clock-mode", choices=CLOCK_MODES, default="wall", help="charge wall time (default) or each bot's own CPU time"
    )
    parser.add_argument(
        "--strangefish-time", choices=STRANGEFISH_TIMES,
        help="what StrangeFish2's time() reads: its process tree's CPU seconds (default under --clock-mode cpu) or wall seconds",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, default=Path("games/strangefish2"), help="histories go here (default games/strangefish2)")
    parser.add_argument("--resume", action="store_true", help="count the games of this match already in --out; play the rest")
    args = parser.parse_args(argv)
    if not args.strangefish:
        parser.error(f"give StrangeFish2's folder: --strangefish PATH or ${PATH_ENV_VAR}")
    if args.strangefish_time is None:
        args.strangefish_time = "cpu" if args.clock_mode == "cpu" else "wall"
    if args.clock_mode == "cpu":
        try:
            check_cpu_clock()
        except CpuClockUnavailableError as error:
            parser.error(str(error))
    return args


def spar(args: argparse.Namespace, copy: Path) -> list[tuple[bool, GameResult]]:
    """Play the games; per game, whether the flagship was White, and the result."""
    ponder = not args.no_ponder
    flagship = BotSpec("flagship", "flagship", parse_settings(args.settings, "--settings"), isolate=True, ponder=ponder)
    settings = {"path": str(copy), "clock": args.strangefish_time}
    champion = BotSpec("StrangeFish2", "blindchess.experiments.spar_strangefish", settings, isolate=True, ponder=ponder)
    identity = {
        "labels": ["flagship", "StrangeFish2"], "bots": ["flagship", "StrangeFish2"], "settings": [args.settings, ""],
        "clock": str(args.clock), "clock_mode": args.clock_mode, "seed": args.seed, "ponder": ponder,
        "full_turn_limit": args.full_turn_limit,
    }  # fmt: skip
    if args.strangefish_time != "wall":  # matches played before the option keep their identity (and --resume)
        identity["strangefish_time"] = args.strangefish_time
    ident = start_match(args.out, identity)
    recorded = finished_games(args.out, ident) if args.resume else {}
    other_code = other_code_note(str(args.out), [line.code for line in recorded.values()])
    if other_code is not None:
        print(f"note: {other_code}", flush=True)
    played: list[tuple[bool, GameResult]] = []
    logs = copy / "game_logs"
    for game in range(args.games):
        white, black = (flagship, champion) if game % 2 == 0 else (champion, flagship)
        label = f"game {game + 1}/{args.games}: {white.label} (white) vs {black.label} (black)"
        line = recorded.get(game + 1)
        if line is not None:
            winner = None if line.winner is None else line.winner == "white"
            played.append((game % 2 == 0, GameResult(f"spar#{game}", winner, line.reason, line.turns, line.seconds)))
            print(f"{label}: recorded earlier in {args.out / line.history}", flush=True)
            continue
        spec = GameSpec(
            f"spar#{game}", white, black, white_seed=args.seed * 1000 + 2 * game, black_seed=args.seed * 1000 + 2 * game + 1,
            seconds=args.clock.seconds, increment=args.clock.increment, full_turn_limit=args.full_turn_limit,
            clock_mode=args.clock_mode,
        )  # fmt: skip
        for log in logs.glob("game_*.log"):  # of a game that failed or was interrupted: it has no history to go beside
            log.unlink()
        with watch_for_interrupt() as interrupted:
            try:
                result = play_game(spec)
            except KeyboardInterrupt:
                interrupted.set()
        if interrupted.is_set():  # Ctrl-C: the game in hand may have reached a bot as its fault; not counted
            print(f"interrupted in game {game + 1}: not counted; --resume plays it again", flush=True)
            break
        played.append((game % 2 == 0, result))
        if not result.ok or result.history is None:
            print(f"{label}: ERROR {result.error}", flush=True)
            continue
        path = unique_history_path(args.out, f"game-{game + 1:03d}-{white.label}-vs-{black.label}")
        path.write_text(result.history)
        keep_logs(logs, path)
        append_line(args.out, game_line((ident, "flagship"), game + 1, spec, result, path.name))
        reason = None if result.reason is None else WinReason[result.reason]
        shares = " / ".join("-" if share is None else f"{share:.0%}" for share in result.clock_share)
        print(
            f"{label}: {describe_result(result.winner, reason, white.label, black.label)} after {result.turns} turns,"
            f" {result.seconds:.0f} s; clock used (white / black) {shares} -> {path}",
            flush=True,
        )
        for fault in result.faults:
            print(f"    fault: {fault}", flush=True)
    return played


def summary(played: list[tuple[bool, GameResult]]) -> str:
    """The flagship's score over the games with a result, with its 95% interval."""
    scores = [result.white_score() if white else 1.0 - result.white_score() for white, result in played if result.ok]
    if not scores:
        return "no game finished"
    score = MatchScore(wins=scores.count(1.0), draws=scores.count(0.5), losses=scores.count(0.0))
    low, high = wilson_interval(score.points, score.games)
    return (
        f"flagship vs StrangeFish2: {score.wins} - {score.losses} - {score.draws} (wins - losses - draws),"
        f" score {score.fraction:.3f} (95% interval {low:.3f}-{high:.3f}) over {score.games} games"
    )


def main(argv: Optional[list[str]] = None) -> int:
    args = arguments(argv)
    with tempfile.TemporaryDirectory(prefix="strangefish2-") as folder:
        copy = copy_of(Path(args.strangefish).resolve(), Path(folder))
        played = spar(args, copy)
    print(summary(played))
    return 0


if __name__ == "__main__":
    sys.exit(main())
