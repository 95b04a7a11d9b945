"""Does StrangeFish2 play its long-clock mode? Its clock at each of its turns, read from its own game logs.

StrangeFish2 switches modes at two thresholds in absolute seconds of its own clock (its
``strangefish/strangefish_strategy.py``, ``StrangeFish2.__init__``): below
``swap_sense_time = 90`` s it senses to shrink its board set (``sense_min_states``) whenever
more than 150 boards are unscored, where above it it senses for the best expected outcome of its
next move (``sense_max_outcome``) up to 10,000 unscored boards; below ``time_switch_aggro = 60`` s
it switches once, for the rest of the game, to ``last_ditch_plan`` (mean scores only, ten times
the king-capture reward). Above both it divides ``clip(seconds left / 16, 3, 40)`` seconds a
turn (``allocate_time``: 70% to the sense, 30% to the move) and its loops also stop when their
work is done (every board scored, or the best move stable). A clock at which it never goes below
90 s plays as a longer one does, as long as its per-turn allowance is not what stops its loops.

Its log (``game_logs/game_<id>.log``, kept beside each history by
``experiments/spar_strangefish.py`` as ``<history>.strangefish2.log.gz``) says, per own turn,
the clock it was handed for the sense and for the move, how it sensed, what each phase was
allowed and how long its scoring loop ran, and whether the move loop stopped because the choice
had converged. This reads those lines back::

    python3 experiments/strangefish_clock_mode.py data/matches/flagship-62e700d-vs-strangefish2-300+5
    python3 experiments/strangefish_clock_mode.py data/matches/flagship-62e700d-vs-strangefish2-300+5 --turns

Per game: its own turns, its clock at each (at the sense; rounded), how many turns began below
90 s and below 60 s, the turn the last-ditch plan began (if it did), and how many of its
allowance-bound loops ran to within 10% of their allowance (the clock, not the work, stopped
them), the clock its senses were charged per second its own timer read, and the clock charged
to the senses whose loop ran to its allowance per second allowed. Its timers and allowances read
``time()``: wall seconds as written, so under ``--clock-mode cpu`` on a loaded machine a wall
second buys less than a core-second and both ratios fall below 1 (its turns are shorter in work
than the clock it keeps suggests); under the sparring script's ``--strangefish-time cpu`` they
read its process tree's CPU seconds, and both ratios stay where an idle machine puts them.
``--turns`` adds one row per turn.
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from blindchess.text_tables import table

SWAP_SENSE_SECONDS = 90.0
"""``StrangeFish2.swap_sense_time``: below it a board set of more than 150 unscored boards is sensed to shrink it."""

LAST_DITCH_SECONDS = 60.0
"""``StrangeFish2.time_switch_aggro``: below it the last-ditch plan is played for the rest of the game."""

USED_UP = 0.9
"""A loop that ran at least this share of its allowance counts as stopped by the clock, not by its work."""

LOG_SUFFIXES = (".strangefish2.log.gz", ".strangefish2.log")

_FLOAT = r"([0-9][0-9,]*(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?)"
_SENSE = re.compile(rf'"Choosing a sensing square for turn (\d+) with (\d+) boards and {_FLOAT} seconds remaining\.')
_SENSE_ALLOWED = re.compile(rf'"In sense phase with {_FLOAT} seconds left\. Allowing up to {_FLOAT} seconds')
_SENSE_MIN_STATES = re.compile(r'"In sense phase with .* seconds left\. Set size is')
_SPENT = re.compile(rf'"Spent {_FLOAT} seconds computing new move scores"')
_SENSE_DONE = re.compile(rf'"Finished choosing sense location in {_FLOAT} seconds\.')
_MOVE = re.compile(rf'"Choosing move for turn (\d+) from \d+ moves over (\d+) boards with {_FLOAT} seconds remaining\.')
_MOVE_ALLOWED = re.compile(rf'"In move phase with {_FLOAT} seconds left\. Allowing up to {_FLOAT} seconds')
_MOVE_DONE = re.compile(rf'"Finished choosing move in {_FLOAT} seconds\.')
_CONVERGED = '"Move choice seems to be converged; breaking loop"'
_LAST_DITCH = '"Time is running out! Switching to aggressive backup plan."'


def _number(text: str) -> float:
    return float(text.replace(",", ""))  # its Timer writes ``{:,.4g}``: 1,234 or 1.2e-05


@dataclass
class Turn:
    """One of StrangeFish2's own turns, as its log tells it.

    ``sense`` is how it sensed: ``max-outcome`` (for its next move's expected outcome, the
    long-clock mode), ``min-states`` (to shrink its board set: a large set, or under 90 s),
    ``none`` (one board left, or an opening book). Seconds are its clock (the arbiter's
    ``seconds_left``) and the wall seconds its own timers read.
    """

    turn: int
    boards: int
    clock: float
    sense: str = "none"
    sense_allowed: Optional[float] = None
    sense_loop: Optional[float] = None
    sense_seconds: Optional[float] = None
    move_clock: Optional[float] = None
    move_allowed: Optional[float] = None
    move_loop: Optional[float] = None
    move_seconds: Optional[float] = None
    converged: bool = False
    last_ditch: bool = False

    def loops_used_up(self) -> tuple[int, int]:
        """(loops that ran to within 10% of their allowance, loops that had one) in this turn."""
        pairs = [(self.sense_allowed, self.sense_loop), (self.move_allowed, self.move_loop)]
        bounded = [(allowed, loop) for allowed, loop in pairs if allowed is not None and loop is not None]
        return sum(loop >= USED_UP * allowed for allowed, loop in bounded), len(bounded)


def turns_of(lines: Iterable[str]) -> list[Turn]:
    """StrangeFish2's own turns in the lines of its game log, in order.

    >>> log = [
    ...     'game-spar-3.agent DEBUG: "Choosing a sensing square for turn 1 with 21 boards and 300 seconds remaining." from x',
    ...     'game-spar-3.agent DEBUG: "In sense phase with 299.99 seconds left. Allowing up to 13.12 seconds for this sense step." from x',
    ...     'game-spar-3.agent DEBUG: "Spent 5.1 seconds computing new move scores" from x',
    ...     'game-spar-3.agent DEBUG: "Finished choosing sense location in 5.087 seconds." from x',
    ...     'game-spar-3.agent DEBUG: "Choosing move for turn 1 from 35 moves over 1 boards with 296.67 seconds remaining." from x',
    ...     'game-spar-3.agent DEBUG: "Finished choosing move in 2.003 seconds." from x',
    ... ]
    >>> turn, = turns_of(log)
    >>> turn.turn, turn.clock, turn.sense, turn.sense_allowed, turn.sense_loop, turn.move_clock, turn.loops_used_up()
    (1, 300.0, 'max-outcome', 13.12, 5.1, 296.67, (0, 1))
    """
    turns: list[Turn] = []
    for line in lines:
        if match := _SENSE.search(line):
            turns.append(Turn(int(match[1]), int(match[2]), _number(match[3])))
        elif not turns:
            continue
        elif _LAST_DITCH in line:
            turns[-1].last_ditch = True
        elif match := _SENSE_ALLOWED.search(line):
            turns[-1].sense, turns[-1].sense_allowed = "max-outcome", _number(match[2])
        elif _SENSE_MIN_STATES.search(line):
            turns[-1].sense = "min-states"
        elif match := _SPENT.search(line):
            if turns[-1].move_clock is None:
                turns[-1].sense_loop = _number(match[1])
            else:
                turns[-1].move_loop = _number(match[1])
        elif match := _SENSE_DONE.search(line):
            turns[-1].sense_seconds = _number(match[1])
        elif match := _MOVE.search(line):
            turns[-1].move_clock = _number(match[3])
        elif match := _MOVE_ALLOWED.search(line):
            turns[-1].move_allowed = _number(match[2])
        elif _CONVERGED in line:
            turns[-1].converged = True
        elif match := _MOVE_DONE.search(line):
            turns[-1].move_seconds = _number(match[1])
    return turns


@dataclass
class GameClock:
    """One game's clock use by StrangeFish2, summed from its turns."""

    name: str
    turns: list[Turn] = field(default_factory=list)

    def below(self, seconds: float) -> int:
        """Own turns that began (at the sense) with less than `seconds` on its clock."""
        return sum(turn.clock < seconds for turn in self.turns)

    def sense_cpu_share(self) -> Optional[float]:
        """The clock its senses were charged over the seconds its own timer read for them: under a CPU clock on a
        loaded machine, the share of a core its wall-time allowances bought (about 1 when its ``time()`` reads CPU)."""
        pairs = [
            (turn.clock - turn.move_clock, turn.sense_seconds)
            for turn in self.turns
            if turn.move_clock is not None and turn.sense_seconds
        ]
        wall = sum(seconds for _, seconds in pairs)
        return sum(charged for charged, _ in pairs) / wall if wall > 1.0 else None

    def charged_per_allowed(self) -> Optional[float]:
        """The clock charged to its senses whose loop ran to its allowance, per second allowed: a CPU clock's
        charge for a full allowance, which its ``time()`` sets (1 and a little for the work around the loop
        when the two are the same seconds; a core's share under load when ``time()`` is wall time)."""
        pairs = [
            (turn.clock - turn.move_clock, turn.sense_allowed)
            for turn in self.turns
            if turn.move_clock is not None and turn.sense_allowed and turn.sense_loop is not None
            and turn.sense_loop >= USED_UP * turn.sense_allowed
        ]  # fmt: skip
        allowed = sum(seconds for _, seconds in pairs)
        return sum(charged for charged, _ in pairs) / allowed if allowed else None

    def last_ditch_turn(self) -> Optional[int]:
        return next((turn.turn for turn in self.turns if turn.last_ditch), None)

    def row(self) -> list[object]:
        used_up = [turn.loops_used_up() for turn in self.turns]
        ditch, share, full = self.last_ditch_turn(), self.sense_cpu_share(), self.charged_per_allowed()
        return [
            self.name, len(self.turns), f"{min(turn.clock for turn in self.turns):.0f}" if self.turns else "-",
            self.below(SWAP_SENSE_SECONDS), self.below(LAST_DITCH_SECONDS), "-" if ditch is None else ditch,
            sum(turn.sense == "min-states" for turn in self.turns), f"{sum(u for u, _ in used_up)}/{sum(n for _, n in used_up)}",
            "-" if share is None else f"{share:.2f}", "-" if full is None else f"{full:.2f}",
        ]  # fmt: skip


SUMMARY_HEADER = [
    "game", "own turns", "min clock", "< 90 s", "< 60 s", "last-ditch at", "min-states senses", "loops at allowance",
    "sense charge/timer", "charged/allowed at allowance",
]  # fmt: skip
TURN_HEADER = ["turn", "boards", "clock", "sense", "allowed", "loop", "move clock", "allowed", "loop", "converged"]


def _seconds(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.1f}"


def turn_rows(turns: Sequence[Turn]) -> list[list[object]]:
    return [
        [turn.turn, turn.boards, f"{turn.clock:.0f}", turn.sense + (" (last-ditch)" if turn.last_ditch else ""),
         _seconds(turn.sense_allowed), _seconds(turn.sense_loop), _seconds(turn.move_clock),
         _seconds(turn.move_allowed), _seconds(turn.move_loop), "yes" if turn.converged else "no"]
        for turn in turns
    ]  # fmt: skip


def read_log(path: Path) -> list[str]:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.name.endswith(".gz") else data).decode("utf-8", errors="replace").splitlines()


def log_files(paths: Sequence[Path]) -> list[Path]:
    """The StrangeFish2 logs named, or found in the folders named, in name order."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(log for log in path.iterdir() if log.name.endswith(LOG_SUFFIXES))
        elif path.is_file():
            found.append(path)
        else:
            raise SystemExit(f"strangefish_clock_mode: no such file or folder: {path}")
    return found


def game_name(path: Path) -> str:
    """The game's history stem: ``game-001-a-vs-b`` for ``game-001-a-vs-b.strangefish2.log.gz``."""
    return next((path.name.removesuffix(suffix) for suffix in LOG_SUFFIXES if path.name.endswith(suffix)), path.stem)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="match folders (their *.strangefish2.log.gz) or log files")
    parser.add_argument("--turns", action="store_true", help="a row per turn as well")
    args = parser.parse_args(argv)
    files = log_files(args.paths)
    if not files:
        raise SystemExit(f"strangefish_clock_mode: no StrangeFish2 log ({' or '.join(LOG_SUFFIXES)}) in {', '.join(map(str, args.paths))}")
    games = [GameClock(game_name(path), turns_of(read_log(path))) for path in files]
    print(table(SUMMARY_HEADER, [game.row() for game in games]))
    for game in games:
        print(f"\n{game.name}: its clock at each own turn (s): {' '.join(f'{turn.clock:.0f}' for turn in game.turns)}")
        if args.turns:
            print(table(TURN_HEADER, turn_rows(game.turns)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
