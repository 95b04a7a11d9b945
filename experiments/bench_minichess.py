"""How fast are the Mini-Chess move generator and the alpha-beta player?

Prints, for both rule sets: perft 6 time and leaves/s (bulk-counted) against the
slow reference walk over the checked `chess.Move` API at depth 4 (same run, as a
ratio); then the alpha-beta player's nodes/s and depth reached per position, with
a plain fixed-depth negamax (no table, no ordering, no quiescence) as the baseline
for nodes needed to finish the same depth.

    python3 experiments/bench_minichess.py [--seconds 1.0]
"""

from __future__ import annotations

import argparse
import time

from blindchess.variants.minichess import IMCS, MINICHESS, MiniChessRules
from blindchess.variants.minichess_engine import AlphaBetaPlayer

MIDDLEGAME = "kq1nr/p1p1p/1p1pb/1P1P1/P1PBP/RNQ1K"


def plain_negamax(rules: MiniChessRules, cells: list[int], turn: bool, depth: int, counter: list[int]) -> int:
    counter[0] += 1
    moves = rules.generate(cells, turn)
    if depth == 0 or not moves:
        return 0
    best = -10**9
    for move in moves:
        if cells[move >> 6 & 63] in (6, 12):
            return 10**6
        captured = rules.make(cells, move)
        best = max(best, -plain_negamax(rules, cells, not turn, depth - 1, counter))
        rules.unmake(cells, move, captured)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="search time per position")
    args = parser.parse_args()
    print("rules           perft6     seconds  leaves/s   | ref perft4 s  bulk perft4 s  speed-up")
    for rules in (MINICHESS, IMCS):
        start = time.monotonic()
        leaves = rules.perft(rules.start(), 6)
        seconds = time.monotonic() - start
        t0 = time.monotonic()
        rules.reference_perft(rules.start(), 4)
        t_ref = time.monotonic() - t0
        t0 = time.monotonic()
        rules.perft(rules.start(), 4)
        t_bulk = time.monotonic() - t0
        print(
            f"{rules.name:14s} {leaves:8d} {seconds:10.2f} {leaves / seconds:10.0f}   "
            f"| {t_ref:10.3f} {t_bulk:14.4f} {t_ref / t_bulk:9.0f}x"
        )
    print()
    print("position     search s  depth   nodes   nodes/s   | plain negamax nodes to same depth (capped at 5)  ratio")
    for name, placement in (("start", None), ("middlegame", MIDDLEGAME)):
        position = MINICHESS.start() if placement is None else MINICHESS.position(placement)
        result = AlphaBetaPlayer(max_depth=30, time_limit=args.seconds).search(MINICHESS, position)
        depth = min(result.depth, 5)
        engine_nodes = AlphaBetaPlayer(max_depth=depth).search(MINICHESS, position).nodes
        counter = [0]
        plain_negamax(MINICHESS, list(position.cells), position.turn, depth, counter)
        print(
            f"{name:12s} {result.seconds:8.2f} {result.depth:6d} {result.nodes:7d} {result.nodes / result.seconds:9.0f}"
            f"   | depth {depth}: alpha-beta {engine_nodes} vs plain {counter[0]}  {counter[0] / engine_nodes:8.1f}x"
        )


if __name__ == "__main__":
    main()
