"""How long do games against strong opponents last, and what does each clock plan leave for their late turns?

The flagship's clock plan (`TimeManager`) spreads its bank over a horizon of own turns. A short
game's horizon is fixed (``expected_turns`` = 30 own turns, then at least ``min_turns_left`` = 12);
a long game's is the expected own turns still to play given the game has lasted ``turn``, from a
log-normal game length (``game_median_turns``, ``game_turns_sigma``; the module docstring of
`blindchess.moving.time_management` has the math). This reads recorded games (history JSON
files), counts the own turns of the player named like ``--player`` in each and fits the log-normal
to them (median ``exp(mean log L)``; sigma the sample deviation of ``log L`` widened by
``sqrt(1 + 1/n)`` for a new game), prints the fit against the records, then follows both plans on
each ``--clocks`` from the first turn, every turn spending what the plan gives it (sense plus move)
at a fixed difficulty weight, and prints the turn's seconds and the clock at chosen turns, the old
plan beside the new. The records keep no clock readings, so this is the plans' spending, which
the flagship followed to 95-98% of its clock in the StrangeFish2 games (``../shared/games/README.md``)::

    python3 experiments/game_lengths.py ../shared/games/strangefish2/*.json ../shared/games/strangefish2-fair/*.json
"""

from __future__ import annotations

import argparse
import math
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import chess
import numpy as np

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.time_control import TimeControl
from blindchess.moving.time_management import TimeManager

MARKS = (0, 10, 20, 30, 40, 50, 60, 75)
"""The own turns the plan tables show."""

OLD = TimeManager(long_clock=math.inf)
"""The plan before the fitted horizon: every game planned with the fixed horizon of 30 own turns."""


def own_turns(paths: Sequence[str], player: str) -> list[tuple[str, int]]:
    """Each game's file name and the own turns (moves made) of the player whose name contains `player`."""
    lengths = []
    for path in paths:
        history = GameHistory.from_file(path)
        for color, name in ((chess.WHITE, history.get_white_player_name()), (chess.BLACK, history.get_black_player_name())):
            if player.lower() in (name or "").lower():
                lengths.append((path, sum(1 for turn in history.turns(color) if history.has_move(turn))))
    return lengths


def fit(lengths: Sequence[int]) -> tuple[float, float]:
    """(median, sigma) of the log-normal fitted to game `lengths`, sigma widened for a new game (the module docstring).

    >>> median, sigma = fit([32, 55, 54, 32, 28, 75, 46, 37, 56])  # the nine games at 900 + 5
    >>> round(median, 1), round(sigma, 3)
    (43.9, 0.348)
    """
    logs = [math.log(length) for length in lengths]
    spread = statistics.stdev(logs) if len(logs) > 1 else 0.0
    return math.exp(statistics.fmean(logs)), spread * math.sqrt(1.0 + 1.0 / len(logs))


def survival(median: float, sigma: float, turns: float) -> float:
    """P(L > `turns`) for a log-normal game length."""
    return 0.5 * math.erfc((math.log(turns) - math.log(median)) / (sigma * math.sqrt(2.0)))


def planned_turns(manager: TimeManager, clock: TimeControl, turns: int, weight: float) -> list[tuple[float, float]]:
    """(clock at the turn's start, the turn's seconds) for own turns 0 .. `turns` - 1 when each spends its plan
    (sense plus move) at difficulty `weight`; a long game (by `manager`'s `long_clock`) weighs it against its mean.

    >>> old = planned_turns(OLD, TimeControl(900.0, 5.0), 40, 1.0)
    >>> round(old[0][1], 1), round(old[39][1], 1)  # first turn, fortieth
    (34.0, 9.8)
    >>> new = planned_turns(TimeManager(), TimeControl(900.0, 5.0), 40, 1.5)
    >>> round(new[0][1], 1), round(new[39][1], 1)
    (23.3, 17.0)
    """
    seconds, plan = clock.seconds, []
    for turn in range(turns):
        allotment = manager.allot(seconds, clock.increment, turn, weight, start_seconds=clock.seconds, mean_difficulty=weight)
        spent = allotment.sense + allotment.move
        plan.append((seconds, spent))
        seconds = seconds - spent + clock.increment
    return plan


def clock_used(plan: list[tuple[float, float]], clock: TimeControl, lengths: Sequence[int]) -> float:
    """The mean share of start + increments a game of each of `lengths` own turns spends under `plan`."""
    return float(np.mean([sum(spent for _, spent in plan[:length]) / (clock.seconds + clock.increment * length) for length in lengths]))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("histories", nargs="+", help="game history JSON files")
    parser.add_argument("--player", default="flagship", help="whose turns: a part of the player's name (default flagship)")
    parser.add_argument(
        "--clocks", type=TimeControl.parse, nargs="+", default=[TimeControl(900.0, 5.0), TimeControl(300.0, 5.0)],
        help="the clocks to plan, each played as a long game (default 900+5 300+5)",
    )
    parser.add_argument("--weights", type=float, nargs="+", default=[1.0, 1.5], help="difficulty weights (default 1 1.5)")
    args = parser.parse_args(argv)
    lengths = own_turns(args.histories, args.player)
    if not lengths:
        parser.error(f"no player named like {args.player!r} in the histories")
    print("| game | own turns |\n|---|---|")
    for path, length in lengths:
        print(f"| {Path(path).parent.name}/{Path(path).name} | {length} |")
    counts = np.array([length for _, length in lengths])
    print(
        f"\n{len(counts)} games: own turns mean {counts.mean():.1f}, median {statistics.median(counts):g}, "
        f"quartiles {np.percentile(counts, 25):g}-{np.percentile(counts, 75):g}, range {counts.min()}-{counts.max()}"
    )
    median, sigma = fit(counts.tolist())
    manager = TimeManager()
    print(
        f"\nLog-normal fit: median {median:.1f} own turns, sigma {sigma:.3f} (for a new game); "
        f"the clock table's: game_median_turns = {manager.game_median_turns:g}, game_turns_sigma = {manager.game_turns_sigma:g}\n"
    )
    print("| own turns t | records longer than t | fit: P(L > t) | horizon at turn t: fixed (old) | fitted (new) |")
    print("|---|---|---|---|---|")
    for turn in (1, 20, 30, 40, 46, 50, 60, 75, 90, 120):
        print(
            f"| {turn} | {np.mean(counts > turn):.2f} | {survival(median, sigma, turn):.2f} | "
            f"{OLD.turns_left(turn):g} | {manager.turns_left(turn, long_game=True):.1f} |"
        )
    for clock in args.clocks:
        new = TimeManager(long_clock=min(manager.long_clock, clock.seconds))
        old_plans = {weight: planned_turns(OLD, clock, max(MARKS) + 1, weight) for weight in args.weights}
        new_plan = planned_turns(new, clock, max(MARKS) + 1, args.weights[0])
        print(
            f"\nAt {clock.seconds:g} + {clock.increment:g} (played as a long game), each turn spending its plan, sense + move: "
            "clock at the turn's start | the turn's seconds. The new plan weighs a turn against the game's mean, "
            "so at a constant weight it is the same at every weight.\n"
        )
        print("| own turn | " + " | ".join(f"old, weight {w:g}: clock | turn" for w in args.weights) + " | new: clock | turn |")
        print("|---|" + "---|---|" * (len(args.weights) + 1))
        for turn in MARKS:
            row = [old_plans[w][turn] for w in args.weights] + [new_plan[turn]]
            print(f"| {turn} | " + " | ".join(f"{seconds:.0f} | {spent:.1f}" for seconds, spent in row) + " |")
        used = [clock_used(old_plans[w], clock, counts.tolist()) for w in args.weights] + [clock_used(new_plan, clock, counts.tolist())]
        print("| clock used over the records' lengths | " + " | ".join(f" | {share:.0%}" for share in used) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
