"""`blindchess simulchess WHITE BLACK`: a match of simultaneous-move chess between named bots.

simulchess is perfect-information with simultaneous moves, so it has its own arbiter
(`play_simulchess_match`) rather than `LocalGame`; this command is its front end, with the
same shape as `blindchess match` (games, seed, a per-game line, a summary per bot).
"""

from __future__ import annotations

import argparse
from collections import Counter

import chess

from blindchess.arguments import add_command, positive_int
from blindchess.variants.simulchess.players import BOTS, play_simulchess_match


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(
        subparsers,
        "simulchess",
        __doc__,
        "blindchess simulchess search random --games 20 --seed 0",
    )
    parser.add_argument("white", choices=sorted(BOTS), help="first bot (White in odd-numbered games)")
    parser.add_argument("black", choices=sorted(BOTS), help="second bot")
    parser.add_argument("--games", type=positive_int, default=1, help="number of games (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="game i is seeded with SEED + i (default 0)")
    parser.add_argument("--max-turns", type=positive_int, default=300, help="draw after this many turns (default 300)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    records = play_simulchess_match(args.white, args.black, games=args.games, seed=args.seed, max_turns=args.max_turns, swap_colors=True)
    wins: Counter[str] = Counter()
    for number, record in enumerate(records, start=1):
        winner = record.result.winner
        if winner is None:
            outcome = "draw"
        else:
            name = record.white if winner == chess.WHITE else record.black
            wins[name] += 1
            outcome = f"{'white' if winner == chess.WHITE else 'black'} ({name}) won"
        print(
            f"[{number}/{len(records)}] {record.white} (white) vs {record.black} (black): "
            f"{outcome} by {record.result.reason} after {record.turns} turns"
        )
    for name in dict.fromkeys([args.white, args.black]):
        print(f"{name}: {wins[name]} wins")
    print(f"draws: {sum(record.result.winner is None for record in records)}")
    return 0
