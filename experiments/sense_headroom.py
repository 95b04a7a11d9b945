"""How much of a turn's regret could a sense remove? Every sense window played, against the planner's own choice.

`experiments/regret_per_budget.py` found the flagship's regret flat from 2 s to 30 s a turn, and
`experiments/regret_sources.py` put most of what remains in what the belief holds, not in the
search over it (docs/champion.md, "Where the regret comes from"). A longer turn could still lower
it through the sense, which decides what the belief holds when the move is chosen. This script
bounds what any sense could buy there. On the benchmark's positions (recorded turns whose true
board is known), a fresh flagship takes over each turn as the benchmark does (`take_over`), asks
its planner where to sense, and then plays the turn once for each of the 36 inner squares
(`SQUARES`: an edge square's window is part of an inner square's), sensing there as a pondered
sense is made, so the planner is not asked and every play draws the same boards; each move is
scored on the true board as in the benchmark (depth-14 values, `true_board_regret`). Per position:

* **planner**: the regret after the square the planner chose (played as the others are);
* **random**: the mean over the 36 squares, what a sense chosen blindly gets;
* **oracle**: the least over the 36, a sense chosen knowing the truth: no planner can do better,
  and it is optimistic (it also picks up the luck of a window whose move happens to be right);
* **rank**: the planner's square among the 36 by regret (0: as good as the oracle, ties counted half).

If the planner sits near the oracle, the sense has little left to buy; if near the random mean,
which square is sensed decides much and the planner does not find the right ones, so a planner that
uses more time to find them is the lever a falling curve needs. The selector searches at a fixed
depth (``selector.search.depth = 6`` by default), so the move depends on the belief and the sense,
not on the machine's load::

    python3 experiments/sense_headroom.py ../shared/games/strangefish2*/*.json --positions 80 --depth 14 \\
        --scores data/regret-engine-values-d21e631/regret-scores.json --rows results/sense-headroom.jsonl
    python3 experiments/sense_headroom.py --from-rows results/sense-headroom.jsonl
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import chess

from blindchess.evaluation.stockfish import Engine
from blindchess.experiments.regret_per_budget import FixedSense, decisions, play_turn, sample, snapshots
from blindchess.experiments.true_board_regret import ScoreFile, regret
from blindchess.tournament.config import parse_settings

SQUARES = [chess.square(file, rank) for rank in range(1, 7) for file in range(1, 7)]
"""The 36 squares whose 3x3 windows lie inside the board: every other window is a part of one of these."""


def headroom_row(regrets: dict[int, int], planner_square: Optional[int], planner_played: int) -> dict[str, Any]:
    """A position's summary from each inner square's regret and the planner's square (an edge one is mapped to none).

    >>> row = headroom_row({9: 0, 10: 100, 11: 300}, 10, 120)
    >>> row["planner"], row["random"], row["oracle"], row["rank"]
    (100, 133.33333333333334, 0, 0.5)
    """
    values = sorted(regrets.values())
    mine = regrets.get(planner_square, planner_played) if planner_square is not None else planner_played
    below = sum(value < mine for value in values) + 0.5 * (sum(value == mine for value in values) - 1)
    return {
        "planner": mine, "random": statistics.fmean(values), "oracle": values[0],
        "rank": below / max(1, len(values) - 1), "planner_played": planner_played,
    }  # fmt: skip


def measure(args: argparse.Namespace, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """Play every position of the draw with the planner's sense and with each inner square's (the module docstring)."""
    found = sample(decisions(args.histories, args.player), args.positions, args.seed)
    mine = [decision for number, decision in enumerate(found) if number % args.shard[1] == args.shard[0]]
    states = snapshots(mine, settings)
    scores = ScoreFile(args.scores)
    rows: list[dict[str, Any]] = []
    out = args.rows.open("a") if args.rows is not None else None
    with Engine(options={"Hash": 64}, cache_size=0) as engine:
        for number, decision in enumerate(found):
            if number % args.shard[1] != args.shard[0]:
                continue
            values = scores.values(engine, decision.truth, args.depth)
            scores.save()
            seed = args.seed + number
            planned = play_turn(decision, states[decision], settings, args.budget, seed)
            regrets = {
                square: regret(values, play_turn(decision, states[decision], settings, args.budget, seed, FixedSense(square)).move)
                for square in SQUARES
            }
            row = {
                "position": number, "game": decision.source, "turn": decision.turn, "planner_square": planned.sense,
                "regrets": {str(square): value for square, value in regrets.items()},
                **headroom_row(regrets, planned.sense, regret(values, planned.move)),
            }  # fmt: skip
            rows.append(row)
            if out is not None:
                out.write(json.dumps(row) + "\n")
                out.flush()
            print(
                f"  position {number + 1}/{len(found)} ({Path(decision.source).name}, turn {decision.turn}): planner {row['planner']},"
                f" random {row['random']:.0f}, oracle {row['oracle']}, rank {row['rank']:.2f}",
                flush=True,
            )
    if out is not None:
        out.close()
    return rows


def summary(rows: Sequence[dict[str, Any]]) -> str:
    """The table: each measure's mean over positions with its standard error, and the planner's place between the bounds."""

    def mean_se(name: str) -> str:
        values = [float(row[name]) for row in rows]
        error = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
        return f"{statistics.fmean(values):.1f} ({error:.1f})"

    def paired(first: str, second: str) -> str:
        differences = [float(row[first]) - float(row[second]) for row in rows]
        error = statistics.stdev(differences) / len(differences) ** 0.5 if len(differences) > 1 else float("nan")
        return f"{statistics.fmean(differences):+.1f} ({error:.1f})"

    at_oracle = sum(row["planner"] == row["oracle"] for row in rows)
    lines = [
        "| measure | mean regret, cp (s.e.) |",
        "|---|---|",
        f"| planner's sense | {mean_se('planner')} |",
        f"| random sense (mean of the 36) | {mean_se('random')} |",
        f"| oracle sense (least of the 36) | {mean_se('oracle')} |",
        f"| planner minus random, paired | {paired('planner', 'random')} |",
        f"| planner minus oracle, paired | {paired('planner', 'oracle')} |",
        "",
        f"{len(rows)} positions; the planner's square was as good as the oracle's on {at_oracle};"
        f" its mean rank among the 36 is {statistics.fmean(row['rank'] for row in rows):.2f} (0 the best, 1 the worst, 0.5 a blind draw);"
        f" regret as the planner's own turn played it: {mean_se('planner_played')}",
    ]
    return "\n".join(lines)


def _shard(text: str) -> tuple[int, int]:
    index, _, count = text.partition("/")
    return int(index), int(count)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("histories", nargs="*", help="game history JSON files (their true boards are the positions)")
    parser.add_argument("--player", default="flagship", help="whose turns: a part of the player's name (default flagship)")
    parser.add_argument("--positions", type=int, default=80, help="turns drawn (default 80, the benchmark's draw with seed 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=8.0, help="the turn's seconds (default 8; the move's depth is fixed)")
    parser.add_argument("--settings", default="selector.search.depth = 6", help="the flagship's settings (default: depth 6)")
    parser.add_argument("--depth", type=int, default=14, help="Stockfish depth of the true-board values (default 14)")
    parser.add_argument("--scores", type=Path, default=Path("results/regret-scores.json"), help="cache of true-board values")
    parser.add_argument("--rows", type=Path, help="also write each position's row as a JSON line here")
    parser.add_argument("--from-rows", type=Path, help="play nothing: tabulate the rows a run wrote with --rows")
    parser.add_argument("--shard", type=_shard, default=(0, 1), metavar="K/N", help="play the positions numbered K modulo N")
    args = parser.parse_args(argv)
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    if args.from_rows is not None:
        rows = [json.loads(line) for line in args.from_rows.read_text().splitlines() if line.strip()]
    else:
        if not args.histories:
            parser.error("give the game histories, or --from-rows")
        rows = measure(args, parse_settings(args.settings, "--settings"))
    if not rows:
        parser.error("no position was played")
    print(summary(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
