"""How many environment steps per second: the single-game and batched environments next to OpenSpiel's `rbc`.

Random play on 8x8, a uniformly random legal action at every step. Loops measured in the same run
and interleaved in rounds (so machine load hits all alike):

- ``blindchess rbc``: `RbcEnv` stepping one game, with the acting agent's observation (its two
  frames from the shared encoder and its action mask) read at every step, or without
  (``observations=False``, only the legal actions read);
- ``blindchess batch N``: `BatchedGames` (self-play: the caller acts for whichever colour is to act
  in each of N games), one `step` call per N steps, random legal actions drawn by `random_actions`
  (compiled, per-game streams); per step it plays the action (revision, push, end), lists the next
  phase's actions and writes their mask (16,449 int8), folds the event into the encoders of the
  mover and, after a move, of its opponent, and copies the acting player's two frames (2 x 1,353
  bytes) into the observation array; finished games restart inside the call;
- ``open_spiel rbc``: `state.legal_actions()`, a numpy draw and `apply_action`, with the acting
  player's observation written by OpenSpiel's fastest observation API
  (`make_observation(game).set_from(state, player)`: 814 floats into a numpy buffer, the same tensor
  as `state.observation_tensor`), by the list call `state.observation_tensor(player)`, or none.

A step is one decision (a sense or a move) in all of them: OpenSpiel's `rbc` also has a sense and
a move per turn. The rules differ (docs/env.md), so the games do too; the table is per step. Times
are CPU seconds of this process (``time.process_time``), which a shared machine disturbs less than
the wall clock; both are printed. Each loop first runs untimed (numba loads the compiled code from
its cache on the first call, about a second).

Then ``--workers`` processes, each stepping its own batch of the largest size for the same number
of steps (steps/s of wall time, all workers together); and learners against the random bot:
``--workers`` `BotOpponentEnv`s in Gymnasium's `AsyncVectorEnv` (one worker process each, the bot's
turns through `LocalGame`), against `RbcVectorEnv` (the batched random opponent inside the step,
one process), both in learner steps per second of wall time, random masked actions.

    python3 experiments/bench_env.py --steps 200000 --rounds 3 --sizes 1,16,256,4096 --workers 2

With ``--baseline REV`` only the two one-game ``blindchess rbc`` loops run, by the commit REV and by
this checkout in alternating child processes (:mod:`blindchess.experiments.baseline_checkout`),
and the medians of their CPU rates and the ratios are printed::

    python3 experiments/bench_env.py --baseline main --steps 4000 --rounds 5

OpenSpiel comes from ``pip install open-spiel`` (a wheel; not a dependency of the package: only
this benchmark uses it).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from blindchess.env import rbc_env
from blindchess.env.batch import BatchedGames
from blindchess.env.batch_vector import RbcVectorEnv
from blindchess.env.single import BotOpponentEnv

WARM_UP_STEPS = 500
"""Steps of each loop before the timed rounds (first calls load compiled code and tables)."""


def blindchess_steps(steps: int, observations: bool, seed: int) -> int:
    """Play random games through `RbcEnv` until `steps` steps are done; returns the steps made."""
    rng = np.random.default_rng(seed)
    env = rbc_env("rbc", observations=observations)
    done_steps = 0
    while done_steps < steps:
        env.reset(seed=seed + done_steps)
        while not (env.terminations["white"] or env.truncations["white"]):
            if observations:
                env.observe(env.agent_selection)  # the frames and a copy of the mask
            legal = env.legal_actions()  # what the mask allows, as OpenSpiel's legal_actions() lists it
            env.step(int(legal[rng.integers(len(legal))]))
            done_steps += 1
    return done_steps


def batch_loop(n_games: int) -> Callable[[int, int], int]:
    """A loop over one self-play `BatchedGames` of `n_games`, built (and its arrays touched) before any timing."""
    batch = BatchedGames(n_games, sides="both")
    batch.reset(seed=0)

    def loop(steps: int, seed: int) -> int:
        calls = max(1, steps // n_games)
        for _ in range(calls):
            batch.step(batch.random_actions())
        return calls * n_games

    return loop


def open_spiel_steps(steps: int, observations: str, seed: int) -> int:
    """The same loop over OpenSpiel's `rbc`; `observations`: ``"set_from"``, ``"list"`` or ``"none"``."""
    import pyspiel
    from open_spiel.python.observation import make_observation

    rng = np.random.default_rng(seed)
    game = pyspiel.load_game("rbc")
    observer = make_observation(game)
    done_steps = 0
    while done_steps < steps:
        state = game.new_initial_state()
        while not state.is_terminal():
            if observations == "set_from":
                observer.set_from(state, state.current_player())  # into observer.tensor, a numpy buffer
            elif observations == "list":
                state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            done_steps += 1
    return done_steps


def vector_steps(steps: int, workers: int, seed: int) -> tuple[int, float]:
    """(learner steps, wall seconds) of `workers` wrapped envs in worker processes (AsyncVectorEnv)."""
    from gymnasium.vector import AsyncVectorEnv

    vector = AsyncVectorEnv([lambda: BotOpponentEnv("rbc", "random") for _ in range(workers)])
    rng = np.random.default_rng(seed)
    observations, _ = vector.reset(seed=seed)
    start, done_steps = time.monotonic(), 0
    while done_steps < steps:
        # a finished game's last observation has an empty mask; its action is ignored (the env restarts)
        actions = [int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0 for mask in observations["action_mask"]]
        observations, _, _, _, _ = vector.step(np.array(actions))  # autoreset: a finished env restarts next step
        done_steps += workers
    wall = time.monotonic() - start
    vector.close()
    return done_steps, wall


def batched_learner_steps(steps: int, n_games: int, seed: int) -> tuple[int, float, float]:
    """(learner steps, wall seconds, CPU seconds) of `RbcVectorEnv` against the batched random bot, random masked actions."""
    envs = RbcVectorEnv(n_games, opponent="random", learner="alternate")
    envs.reset(seed=seed)
    batch = envs.batch
    for _ in range(3):
        envs.step(batch.random_actions())
    start, cpu, done_steps = time.monotonic(), time.process_time(), 0
    while done_steps < steps:
        envs.step(batch.random_actions())  # a uniform draw from each game's listed actions: what the mask allows
        done_steps += n_games
    return done_steps, time.monotonic() - start, time.process_time() - cpu


def _worker(n_games: int, steps: int, seed: int) -> int:
    loop = batch_loop(n_games)
    loop(n_games, seed)
    return loop(steps, seed)


def worker_steps(steps: int, n_games: int, workers: int, seed: int) -> tuple[int, float]:
    """(steps, wall seconds) of `workers` processes, each stepping its own batch of `n_games` for `steps` steps."""
    from multiprocessing import get_context

    with get_context("spawn").Pool(workers) as pool:
        pool.starmap(_worker, [(n_games, n_games, seed + index) for index in range(workers)])  # loads numba's cache
        start = time.monotonic()
        made = pool.starmap(_worker, [(n_games, steps, seed + index) for index in range(workers)])
        wall = time.monotonic() - start
    return sum(made), wall


def blindchess_rates(steps: int, seed: int) -> dict[str, float]:
    """Steps per CPU second of the two `RbcEnv` loops (with and without observations), after the untimed warm-up."""
    rates = {}
    for observations in (True, False):
        blindchess_steps(WARM_UP_STEPS, observations, seed)
        cpu = time.process_time()
        made = blindchess_steps(steps, observations, seed)
        rates[f"RbcEnv steps, observations {observations} (CPU)"] = made / (time.process_time() - cpu)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20000, help="steps per loop and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2, help="worker processes for the vectorised rollouts (0: skip)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="1,16,256,4096", help="batch sizes, comma-separated")
    parser.add_argument("--single-steps", type=int, default=20000, help="steps per round of the one-game loops")
    parser.add_argument("--baseline", metavar="REV", help="a commit to compare the one-game loops with (e.g. main)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(blindchess_rates(args.steps, args.seed)))
        return
    if args.baseline:  # imported here: a child runs under the baseline's package, which need not have the module
        from blindchess.experiments.baseline_checkout import alternate, print_rates
        from blindchess.tournament.commit_bot import export_commit

        with tempfile.TemporaryDirectory() as folder:
            variants = {"baseline": str(export_commit(args.baseline, Path(folder))), "current": None}
            runs = alternate(__file__, ["--steps", str(args.steps), "--seed", str(args.seed)], variants, args.rounds)
        print(f"RbcEnv, {args.steps} steps a loop, {args.rounds} rounds, median rates: baseline {args.baseline} against "
              "the current checkout")  # fmt: skip
        print_rates(runs, "steps/s")
        return
    sizes = [int(size) for size in args.sizes.split(",")]
    single = args.single_steps
    loops: dict[str, Callable[[int, int], int]] = {
        "blindchess rbc (one game), observations": lambda n, s: blindchess_steps(min(n, single), True, s),
        "blindchess rbc (one game), no observations": lambda n, s: blindchess_steps(min(n, single), False, s),
    }
    for size in sizes:
        loops[f"blindchess batch {size}, observations"] = batch_loop(size)
    try:
        import pyspiel  # noqa: F401

        loops["open_spiel rbc, set_from (fastest observations)"] = lambda n, s: open_spiel_steps(min(n, single), "set_from", s)
        loops["open_spiel rbc, observation_tensor (list)"] = lambda n, s: open_spiel_steps(min(n, single), "list", s)
        loops["open_spiel rbc, no observations"] = lambda n, s: open_spiel_steps(min(n, single), "none", s)
    except ImportError as error:
        print(f"open_spiel not measured: {error}")
    for loop in loops.values():  # untimed: numba loads the compiled step from its cache on the first call
        loop(WARM_UP_STEPS, args.seed)
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for round_number in range(args.rounds):
        for name, loop in loops.items():
            wall, cpu = time.monotonic(), time.process_time()
            made = loop(args.steps, args.seed + round_number)
            record: list[Any] = totals[name]
            record[0] += made
            record[1] += time.process_time() - cpu
            record[2] += time.monotonic() - wall
    baseline = next((total / cpu for name, (total, cpu, _) in totals.items() if "set_from" in name), None)
    print("| loop | steps | steps/s (CPU) | steps/s (wall) | x OpenSpiel set_from (CPU) |")
    print("|---|---:|---:|---:|---:|")
    for name, (total, cpu_seconds, wall_seconds) in totals.items():
        ratio = f"{total / cpu_seconds / baseline:.1f}" if baseline else "-"
        print(f"| {name} | {total:.0f} | {total / cpu_seconds:,.0f} | {total / wall_seconds:,.0f} | {ratio} |")
    if args.workers:
        made, seconds = worker_steps(args.steps, sizes[-1], args.workers, args.seed)
        print(f"\n{args.workers} worker processes, a batch of {sizes[-1]} each: {made} steps, {made / seconds:,.0f} steps/s (wall)")
        learner_steps, seconds = vector_steps(max(args.steps // 50, 2000), args.workers, args.seed)
        async_rate = learner_steps / seconds
        print("\n| learner vs random bot | learner steps | learner steps/s (wall) | x AsyncVectorEnv (wall) | steps/s (CPU) |")
        print("|---|---:|---:|---:|---:|")
        print(f"| AsyncVectorEnv, {args.workers} worker processes of BotOpponentEnv | {learner_steps} | {async_rate:,.0f} | 1 | - |")
        for size in sizes:
            learner_steps, seconds, cpu_seconds = batched_learner_steps(args.steps, size, args.seed)
            rate = learner_steps / seconds
            print(f"| RbcVectorEnv, {size} games, one process | {learner_steps} | {rate:,.0f} | {rate / async_rate:,.0f} |"
                  f" {learner_steps / cpu_seconds:,.0f} |")


if __name__ == "__main__":
    main()
