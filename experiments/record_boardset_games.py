"""Record the bot-vs-bot games that the board-set tests replay (run once; the output is a test fixture).

Every ordered pair of random, attacker and trout (Stockfish at depth 1) plays
``--games-per-pair`` seeded games of at most ``--turn-limit`` full turns on the real
arbiter; the reconchess-format histories go to one gzipped JSON file::

    python3 experiments/record_boardset_games.py            # -> tests/fixtures/boardset_games.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import time
from collections.abc import Callable

import chess.engine

from blindchess.arbiter.game.local_game import LocalGame
from blindchess.arbiter.game.player import Player
from blindchess.arbiter.play import play_local_game
from blindchess.bots.attacker_bot import AttackerBot
from blindchess.bots.random_bot import RandomBot
from blindchess.bots.trout_bot import TroutBot
from blindchess.evaluation.stockfish import Engine

BOT_NAMES = ("random", "attacker", "trout")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per-pair", type=int, default=34)
    parser.add_argument("--turn-limit", type=int, default=30)
    parser.add_argument("--out", default="tests/fixtures/boardset_games.json.gz")
    args = parser.parse_args()
    engine = Engine()
    limit = chess.engine.Limit(depth=1)
    makers: dict[str, Callable[[int], Player]] = {
        "random": lambda seed: RandomBot(rng=seed),
        "attacker": lambda seed: AttackerBot(rng=seed),
        "trout": lambda seed: TroutBot(rng=seed, engine=engine, limit=limit),
    }
    records = []
    started = time.monotonic()
    try:
        for pair_index, (white, black) in enumerate(itertools.product(BOT_NAMES, repeat=2)):
            for game_index in range(args.games_per_pair):
                seed = 1000 * pair_index + game_index
                game = LocalGame(seconds_per_player=None, full_turn_limit=args.turn_limit)
                _, _, history = play_local_game(makers[white](2 * seed), makers[black](2 * seed + 1), game)
                records.append({"white": white, "black": black, "seed": seed, "history": history.to_json()})
            print(f"{white} vs {black}: {args.games_per_pair} games ({time.monotonic() - started:.0f} s)")
    finally:
        engine.close()
    with gzip.open(args.out, "wt") as handle:
        json.dump(records, handle)
    print(f"{len(records)} games -> {args.out}")


if __name__ == "__main__":
    main()
