"""What does `--isolate` (each bot in its own process) cost per turn?

Plays the same seeded random-vs-random games twice, interleaved so machine load hits both
alike: both bots in the arbiter's process, then both isolated (`isolated_player`). The games
are identical move for move (checked by comparing the histories' JSON), so the difference in
wall time, divided by the turns played, is what isolation costs a turn: six pipe round trips
(one per callback), plus starting and stopping two processes per game, reported apart.

    python3 experiments/bench_isolation.py --games 40 --seed 1
"""

from __future__ import annotations

import argparse
import functools
import time

from blindchess.arbiter import LocalGame, Player, play_local_game
from blindchess.arbiter.sandbox.isolation import isolated_player
from blindchess.bots.random_bot import RandomBot


def _play(seed: int, isolate: bool) -> tuple[float, float, int, str]:
    """One game; returns (seconds to start the bots, seconds to play, turns, history JSON)."""
    started = time.perf_counter()
    white: Player
    black: Player
    if isolate:
        white = isolated_player(RandomBot, functools.partial(RandomBot, rng=seed))
        black = isolated_player(RandomBot, functools.partial(RandomBot, rng=seed + 1))
    else:
        white, black = RandomBot(rng=seed), RandomBot(rng=seed + 1)
    built = time.perf_counter()
    _, _, history = play_local_game(white, black, game=LocalGame(seconds_per_player=900))
    return built - started, time.perf_counter() - built, history.num_turns(), history.to_json()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = {False: 0.0, True: 0.0}
    play = {False: 0.0, True: 0.0}
    turns = 0
    for game in range(args.games):
        seed = args.seed + 2 * game
        texts = {}
        for isolate in (False, True):
            build, seconds, count, texts[isolate] = _play(seed, isolate)
            start[isolate] += build
            play[isolate] += seconds
        assert texts[False] == texts[True], f"game {game}: isolation changed the game"
        turns += count
    per_turn = {isolate: play[isolate] / turns * 1e6 for isolate in (False, True)}
    print(f"{args.games} random-vs-random games (seed {args.seed}), {turns / args.games:.1f} turns per game, identical histories")
    print(f"{'mode':<12} {'us/turn':>10} {'start ms/game':>14}")
    for isolate, name in ((False, "in-process"), (True, "isolated")):
        print(f"{name:<12} {per_turn[isolate]:>10.0f} {start[isolate] / args.games * 1e3:>14.1f}")
    print(f"isolation costs {per_turn[True] - per_turn[False]:.0f} us per turn ({per_turn[True] / per_turn[False]:.1f}x),")
    print(f"plus {(start[True] - start[False]) / args.games * 1e3:.1f} ms per game to start two bot processes")


if __name__ == "__main__":
    main()
