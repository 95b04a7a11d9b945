"""How much faster is our arbiter than reconchess's `LocalGame` on random-vs-random games?

Plays the same N seeded random-vs-random games through `blindchess.arbiter.play_local_game`
and through `reconchess.play_local_game` (the baseline, measured in the same run, games
interleaved so machine load hits both alike), with one random policy class used by both,
and prints games/s for each and the ratios, for play alone and for play plus writing the
history JSON (our arbiter computes the truth FENs lazily, when the history is written;
reconchess computes them during play). Both runs use reconchess's default clocks and
limits. The games are identical move for move (same seeds, same rules), which the script
checks by comparing the two histories' JSON byte for byte.

    python3 experiments/bench_arbiter.py --games 200 --seed 1
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any, Optional

import chess
import reconchess
from reconchess.history import GameHistoryEncoder

from blindchess.arbiter import Player, play_local_game


class RandomPolicy(Player, reconchess.Player):
    """Uniform random sense and move (pass included), from its own seeded generator.

    Both our `Player` and a `reconchess.Player`, with the seven callbacks, so both arbiters run the very same code.
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def handle_game_start(self, color: bool, board: chess.Board, opponent_name: str) -> None:
        pass

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[int]) -> None:
        pass

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> int:
        return self.rng.choice(sense_actions)

    def handle_sense_result(self, sense_result: list[Any]) -> None:
        pass

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        return self.rng.choice(move_actions + [None])

    def handle_move_result(self, *args: Any) -> None:
        pass

    def handle_game_end(self, *args: Any) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    play = {"blindchess": 0.0, "reconchess": 0.0}
    save = {"blindchess": 0.0, "reconchess": 0.0}
    turns = 0
    for index in range(args.games):
        white_seed, black_seed = 2 * (args.seed * 100_003 + index), 2 * (args.seed * 100_003 + index) + 1
        started = time.perf_counter()
        _, _, ours = play_local_game(RandomPolicy(white_seed), RandomPolicy(black_seed))
        play["blindchess"] += time.perf_counter() - started
        started = time.perf_counter()
        ours_json = ours.to_json()  # our FENs are computed here, lazily; reconchess computed its own during play
        save["blindchess"] += time.perf_counter() - started
        started = time.perf_counter()
        _, _, theirs = reconchess.play_local_game(RandomPolicy(white_seed), RandomPolicy(black_seed))
        play["reconchess"] += time.perf_counter() - started
        started = time.perf_counter()
        theirs_json = json.dumps(theirs, cls=GameHistoryEncoder)
        save["reconchess"] += time.perf_counter() - started
        if ours_json != theirs_json:
            raise SystemExit(f"game {index}: the two arbiters disagree")
        turns += ours.num_turns()

    print(f"{args.games} random-vs-random games (seed {args.seed}), {turns / args.games:.1f} turns per game on average,")
    print("identical histories from both arbiters (JSON compared byte for byte)")
    print(f"{'arbiter':<12} {'play games/s':>13} {'play+JSON games/s':>18}")
    for name in play:
        print(f"{name:<12} {args.games / play[name]:>13.1f} {args.games / (play[name] + save[name]):>18.1f}")
    total = {name: play[name] + save[name] for name in play}
    print(f"ratio, play only:            {play['reconchess'] / play['blindchess']:.2f}x")
    print(f"ratio, play + history JSON:  {total['reconchess'] / total['blindchess']:.2f}x")


if __name__ == "__main__":
    main()
