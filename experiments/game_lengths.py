"""How long do games against strong opponents last, and what does the clock plan leave for their late turns?

The flagship's clock plan (`TimeManager`) spreads its bank over ``expected_turns`` own turns
(30), then over at least ``min_turns_left`` (12). This reads recorded games (history JSON
files), counts the own turns of the player named like ``--player`` in each, and prints their
distribution; then it follows the plan on the ``--clock`` from the first turn to the longest game's
last, spending every turn what the plan gives it (sense plus move: in a long game the sense's unused
share goes to the move) at a fixed difficulty weight, and prints the turn's seconds and the clock
at chosen turns. The records keep no clock readings, so this is the plan's spending, which the
flagship followed to 95-98% of its clock in the StrangeFish2 games (``../shared/games/README.md``)::

    python3 experiments/game_lengths.py ../shared/games/strangefish2*/*.json --clock 900+5
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

import chess
import numpy as np

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.time_control import TimeControl
from blindchess.moving.time_management import TimeManager


def own_turns(paths: Sequence[str], player: str) -> list[tuple[str, int]]:
    """Each game's file name and the own turns (moves made) of the player whose name contains `player`."""
    lengths = []
    for path in paths:
        history = GameHistory.from_file(path)
        for color, name in ((chess.WHITE, history.get_white_player_name()), (chess.BLACK, history.get_black_player_name())):
            if player.lower() in (name or "").lower():
                lengths.append((path, sum(1 for turn in history.turns(color) if history.has_move(turn))))
    return lengths


def planned_turns(manager: TimeManager, clock: TimeControl, turns: int, weight: float) -> list[tuple[float, float]]:
    """(clock at the turn's start, the turn's seconds) for own turns 0 .. `turns` - 1 when each spends its plan.

    >>> plan = planned_turns(TimeManager(), TimeControl(900.0, 5.0), 40, 1.0)
    >>> round(plan[0][1], 1), round(plan[39][1], 1)  # first turn, fortieth
    (34.0, 9.8)
    """
    seconds, plan = clock.seconds, []
    for turn in range(turns):
        allotment = manager.allot(seconds, clock.increment, turn, weight)
        spent = allotment.sense + allotment.move
        plan.append((seconds, spent))
        seconds = seconds - spent + clock.increment
    return plan


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("histories", nargs="+", help="game history JSON files")
    parser.add_argument("--player", default="flagship", help="whose turns: a part of the player's name (default flagship)")
    parser.add_argument("--clock", type=TimeControl.parse, default=TimeControl(900.0, 5.0), help="the clock to plan (default 900+5)")
    parser.add_argument("--weights", type=float, nargs="+", default=[1.0, 1.5, 2.0], help="difficulty weights (default 1 1.5 2)")
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
        f"quartiles {np.percentile(counts, 25):g}-{np.percentile(counts, 75):g}, range {counts.min()}-{counts.max()}; "
        f"{np.mean(counts > 30):.0%} longer than 30, {np.mean(counts > 45):.0%} longer than 45\n"
    )
    manager = TimeManager()
    marks = [turn for turn in (0, 10, 20, 30, 40, 50, 60, 75) if turn < counts.max()]
    plans = {weight: planned_turns(manager, args.clock, int(counts.max()), weight) for weight in args.weights}
    print(f"The plan at {args.clock.seconds:g} + {args.clock.increment:g}, each turn spending sense + move (seconds):\n")
    print("| own turn | " + " | ".join(f"weight {w:g}: clock | turn" for w in args.weights) + " |")
    print("|---|" + "---|---|" * len(args.weights))
    for turn in marks:
        print(f"| {turn} | " + " | ".join(f"{plans[w][turn][0]:.0f} | {plans[w][turn][1]:.1f}" for w in args.weights) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
