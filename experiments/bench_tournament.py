"""How many games an hour does each executor play? A fixed pairing on 1 worker, a process pool and Ray.

The pairing is fixed and seed-deterministic (TroutBot at Stockfish depth 1 against the
attacker, colour-swapped pairs, a 40-full-turn limit), so every executor plays exactly the same
games and only the way they are run differs. The baseline is the inline executor (one game at a
time in this process), measured in the same run; the table prints each executor's games per
hour and its ratio to the baseline. Ray's start-up (a local cluster) is timed apart and not
counted in its rate.

Run: ``python3 experiments/bench_tournament.py --games 16 --workers 2``
"""

from __future__ import annotations

import argparse
import os
import time

from blindchess.tournament.base import Executor
from blindchess.tournament.config import TournamentConfig, pairing_games
from blindchess.tournament.executors import InlineExecutor, PoolExecutor
from blindchess.tournament.spec import BotSpec, GameSpec


def schedule(games: int, seed: int) -> list[GameSpec]:
    trout = BotSpec("trout-d1", "trout", {"limit": {"depth": 1}})
    attacker = BotSpec("attacker", "attacker")
    config = TournamentConfig(name="bench", players=(trout, attacker), seed=seed, full_turn_limit=40)
    return list(pairing_games(attacker, trout, config, pairs=games // 2))


def games_per_hour(executor: Executor, specs: list[GameSpec]) -> tuple[float, int]:
    """(games per hour, games that failed) over `specs`."""
    started = time.monotonic()
    failures = sum(not result.ok for result in executor.run(specs))
    return len(specs) * 3600.0 / (time.monotonic() - started), failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16, help="games per executor (even; default 16)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="pool and Ray workers (default: cores)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-ray", action="store_true", help="skip Ray")
    args = parser.parse_args()
    specs = schedule(args.games, args.seed)
    print(f"{len(specs)} games of trout (depth 1) vs attacker, 40-turn limit, {os.cpu_count()} cores")
    print(f"{'executor':<22}{'games/hour':>12}{'vs inline':>11}{'failed':>8}", flush=True)
    baseline = 0.0

    def row(name: str, executor: Executor) -> None:
        nonlocal baseline
        rate, failures = games_per_hour(executor, specs)
        baseline = baseline or rate
        print(f"{name:<22}{rate:>12,.0f}{rate / baseline:>10.2f}x{failures:>8}", flush=True)

    row("inline (1 worker)", InlineExecutor())
    pool = PoolExecutor(args.workers)
    started = time.monotonic()
    list(pool.run(specs[: args.workers]))  # start and warm the workers, as Ray's are below
    print(f"(process pool start and first games: {time.monotonic() - started:.1f} s, not counted)", flush=True)
    row(f"process pool ({args.workers})", pool)
    pool.close()
    if not args.no_ray:
        from blindchess.tournament.ray_executor import RayExecutor

        started = time.monotonic()
        ray_executor = RayExecutor(workers=args.workers)  # starts a local Ray with that many CPUs
        list(ray_executor.run(specs[:1]))  # warm the workers, as the pool's first games warm its processes
        print(f"(Ray local cluster start and first game: {time.monotonic() - started:.1f} s, not counted)", flush=True)
        row(f"Ray, local ({args.workers})", ray_executor)
        ray_executor.close()

if __name__ == "__main__":
    main()
