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

The oracle knows the truth. ``--belief-boards K`` adds the bound a planner could reach from the
belief alone (`belief_bound`): each square's regret averaged over K boards drawn from the belief,
each taken as the truth in turn (its window sensed, the move chosen, its requests valued at
``--bound-depth``), as StrangeFish2 values a sense by its own move rule's expected outcome; the
square with the least such regret is scored on the true board like the others. Near the oracle,
a planner that spends its seconds on this estimate has room to gain; near the blind mean, the
windows' effect on the true board is luck that no belief-side planner can find.

If the planner sits near the oracle, the sense has little left to buy; if near the random mean,
which square is sensed decides much and the planner does not find the right ones, so a planner that
uses more time to find them is the lever a falling curve needs. The selector searches at a fixed
depth (`DEFAULT_SETTINGS`), so the move depends on the belief and the sense, not on the machine's
load, and the 36 squares' regrets do not depend on the turn's seconds. So ``--squares ROWS``
reuses a run's table and plays only the planner, at each of ``--budgets``: the sense's own curve
of regret against seconds, and any planner's (``--settings 'selector.search.depth = 6,
planner.name = "engine-values"'``) on the same table, at one turn a position::

    python3 experiments/sense_headroom.py ../shared/games/strangefish2*/*.json --positions 80 --depth 14 \\
        --scores data/regret-engine-values-d21e631/regret-scores.json --rows results/sense-headroom.jsonl
    python3 experiments/sense_headroom.py ../shared/games/strangefish2*/*.json --positions 80 --depth 14 \\
        --scores data/regret-engine-values-d21e631/regret-scores.json --squares results/sense-headroom.jsonl \\
        --budgets 2 8 30 --rows results/sense-planner.jsonl
    python3 experiments/sense_headroom.py --from-rows results/sense-planner.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

import chess
import numpy as np

from blindchess.evaluation.stockfish import Engine
from blindchess.experiments.regret_per_budget import (
    Decision,
    FixedSense,
    Snapshot,
    decisions,
    play_turn,
    sample,
    snapshots,
    take_over,
)
from blindchess.experiments.true_board_regret import ScoreFile, action_values, regret
from blindchess.tournament.config import parse_settings

DEFAULT_SETTINGS = "selector.search.depth = 6"
"""The selector at a fixed depth: the move then depends on the belief and the sense, not on the machine's load."""

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


def belief_bound(
    decision: Decision, snapshot: Snapshot, settings: dict[str, Any], budget: float, seed: int, engine: Engine, args: argparse.Namespace
) -> dict[int, float]:
    """Each inner square's regret averaged over `args.belief_boards` boards drawn from the belief, each taken as the truth:
    the window's worth as a planner could know it from the belief alone (the module docstring).

    Each board gets the turn as the true board does (its window sensed, the move chosen by the same bot and seed) and
    its requests' values at `args.bound_depth`.
    """
    bot = take_over(decision, snapshot, settings, seed)
    boards = bot.belief.sample(args.belief_boards, np.random.default_rng(seed))
    bot.close()
    expected = dict.fromkeys(SQUARES, 0.0)
    for board in boards:
        values = action_values(engine, board, args.bound_depth)
        supposed = dataclasses.replace(decision, truth=board)
        for square in SQUARES:
            move = play_turn(supposed, snapshot, settings, budget, seed, FixedSense(square)).move
            expected[square] += regret(values, move) / len(boards)
    return expected


def measure(args: argparse.Namespace, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """Play every position of the draw with the planner's sense at each budget and, unless `args.squares` has them
    already, with each inner square's (the module docstring)."""
    found = sample(decisions(args.histories, args.player), args.positions, args.seed)
    known = {row["position"]: row["regrets"] for row in read_rows(args.squares)} if args.squares is not None else {}
    mine = [
        decision for number, decision in enumerate(found)
        if number % args.shard[1] == args.shard[0] and (args.squares is None or number in known)
    ]  # fmt: skip
    mine = mine[: args.limit]
    states = snapshots(mine, settings)
    scores = ScoreFile(args.scores)
    rows: list[dict[str, Any]] = []
    out = args.rows.open("a") if args.rows is not None else None
    with Engine(options={"Hash": 64}, cache_size=0) as engine:
        for number, decision in enumerate(found):
            if decision not in states:
                continue
            values = scores.values(engine, decision.truth, args.depth)
            scores.save()
            seed = args.seed + number
            if number in known:
                regrets = {int(square): value for square, value in known[number].items()}
            else:
                regrets = {
                    square: regret(values, play_turn(decision, states[decision], settings, args.budgets[0], seed, FixedSense(square)).move)
                    for square in SQUARES
                }
            bound: dict[str, Any] = {}
            if args.belief_boards:
                expected = belief_bound(decision, states[decision], settings, args.budgets[0], seed, engine, args)
                pick = min(SQUARES, key=lambda square: (expected[square], square))
                bound = {
                    "belief_boards": args.belief_boards, "bound_square": pick, "bound": regrets[pick],
                    "bound_rank": headroom_row(regrets, pick, regrets[pick])["rank"],
                    "expected": {str(square): round(value, 1) for square, value in expected.items()},
                }  # fmt: skip
            for budget in args.budgets:
                planned = play_turn(decision, states[decision], settings, budget, seed)
                row = {
                    "position": number, "game": decision.source, "turn": decision.turn, "settings": args.settings, "budget": budget,
                    "planner_square": planned.sense, "regrets": {str(square): value for square, value in regrets.items()},
                    **headroom_row(regrets, planned.sense, regret(values, planned.move)), **bound,
                }  # fmt: skip
                rows.append(row)
                if out is not None:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                print(
                    f"  position {number + 1}/{len(found)} ({Path(decision.source).name}, turn {decision.turn}), {budget:g} s:"
                    f" planner {row['planner']}, random {row['random']:.0f}, oracle {row['oracle']}, rank {row['rank']:.2f}"
                    + (f"; belief's bound {row['bound']}, rank {row['bound_rank']:.2f}" if bound else ""),
                    flush=True,
                )
    if out is not None:
        out.close()
    return rows


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows a run wrote; a row of the first run, which wrote neither, is at its defaults (`DEFAULT_SETTINGS`, 8 s)."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [{"settings": DEFAULT_SETTINGS, "budget": 8.0, **row} for row in rows]


def summary(rows: Sequence[dict[str, Any]]) -> str:
    """A table row per setting and budget: each measure's mean over positions (s.e.), and the planner's place between the bounds."""

    def mean_se(values: list[float]) -> str:
        error = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
        return f"{statistics.fmean(values):.1f} ({error:.1f})"

    groups: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["settings"], float(row["budget"])), []).append(row)
    lines = [
        "| settings | turn (s) | positions | planner's sense | random sense | oracle sense | planner minus random, paired"
        " | planner minus oracle, paired | planner at the oracle | planner's rank | planner's own turn |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (settings, budget), group in groups.items():
        column = {name: [float(row[name]) for row in group] for name in ("planner", "random", "oracle", "rank", "planner_played")}
        lines.append(
            f"| {settings} | {budget:g} | {len(group)} | {mean_se(column['planner'])} | {mean_se(column['random'])}"
            f" | {mean_se(column['oracle'])} | {mean_se([a - b for a, b in zip(column['planner'], column['random'], strict=True)])}"
            f" | {mean_se([a - b for a, b in zip(column['planner'], column['oracle'], strict=True)])}"
            f" | {sum(row['planner'] == row['oracle'] for row in group)} | {statistics.fmean(column['rank']):.2f}"
            f" | {mean_se(column['planner_played'])} |"
        )
    bounded = [row for row in rows if "bound" in row]
    if bounded:
        picks = [float(row["bound"]) for row in bounded]
        names = ("planner", "random", "oracle")
        versus = {name: [pick - float(row[name]) for pick, row in zip(picks, bounded, strict=True)] for name in names}
        lines += [
            "",
            f"The belief's bound ({len(bounded)} rows, {bounded[0].get('belief_boards', '?')} boards each): the square whose regret"
            f" averaged over the belief's boards is least: regret on the truth {mean_se(picks)}; minus the planner"
            f" {mean_se(versus['planner'])}, minus blind {mean_se(versus['random'])}, minus the oracle {mean_se(versus['oracle'])};"
            f" rank {statistics.fmean(float(row['bound_rank']) for row in bounded):.2f}",
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
    parser.add_argument(
        "--budgets", type=float, nargs="+", default=[8.0],
        help="the turn's seconds for the planner, one row each (default 8; the move's depth is fixed, the inner squares play the first)",
    )
    parser.add_argument("--settings", default=DEFAULT_SETTINGS, help=f"the flagship's settings (default: {DEFAULT_SETTINGS})")
    parser.add_argument(
        "--squares", type=Path,
        help="take each position's 36 squares' regrets from these rows (a run with the same settings but the planner's):"
        " only the planner plays, at each budget",
    )
    parser.add_argument("--depth", type=int, default=14, help="Stockfish depth of the true-board values (default 14)")
    parser.add_argument("--scores", type=Path, default=Path("results/regret-scores.json"), help="cache of true-board values")
    parser.add_argument("--rows", type=Path, help="also write each position's row as a JSON line here")
    parser.add_argument("--from-rows", type=Path, help="play nothing: tabulate the rows a run wrote with --rows")
    parser.add_argument(
        "--belief-boards", type=int, default=0,
        help="also rank the squares by their regret averaged over this many boards drawn from the belief (default 0: not)",
    )
    parser.add_argument("--bound-depth", type=int, default=8, help="Stockfish depth of those boards' values (default 8)")
    parser.add_argument("--limit", type=int, help="play at most this many positions (the first of the draw, after --shard)")
    parser.add_argument("--shard", type=_shard, default=(0, 1), metavar="K/N", help="play the positions numbered K modulo N")
    args = parser.parse_args(argv)
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    if args.from_rows is not None:
        rows = read_rows(args.from_rows)
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
