"""How many environment steps per second, with and without observation tensors, next to OpenSpiel's `rbc`?

Random play on 8x8, a uniformly random legal action at every step, for four loops measured in the
same run and interleaved in rounds (so machine load hits all alike):

- ``blindchess`` with observations: `RbcEnv` stepping, and the acting agent's observation (its
  two frames from the shared encoder, and its action mask) read at every step;
- ``blindchess`` without: ``observations=False`` (no encoder) and only the legal actions read;
- ``open_spiel rbc`` with observations: ``state.observation_tensor(player)`` at every step;
- ``open_spiel rbc`` without: ``state.legal_actions()`` and ``apply_action`` only.

A step is one decision (a sense or a move) in both: OpenSpiel's `rbc` also has a sense and a move
per turn. The rules differ (docs/env.md), so the games do too; the table is per step. Times are
CPU seconds of this process (``time.process_time``), which a shared machine disturbs less than
the wall clock; both are printed. Each loop first runs a few hundred steps untimed (numba loads
the compiled step from its cache on the first call, about a second).

Then the vectorised rollouts: ``--workers`` `BotOpponentEnv`s (a learner with random masked
actions against the random bot) in Gymnasium's `AsyncVectorEnv`, one worker process each,
counted in learner steps per second of wall time (the workers' CPU time is not this process's).

    python3 experiments/bench_env.py --steps 20000 --rounds 3 --workers 2

With ``--baseline REV`` only the two ``blindchess`` loops run, by the commit REV and by this checkout
in alternating child processes (:mod:`blindchess.experiments.baseline_checkout`), and the medians
of their CPU rates and the ratios are printed::

    python3 experiments/bench_env.py --baseline main --steps 5000 --rounds 5

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
from typing import Any

import numpy as np

from blindchess.env import rbc_env
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


def open_spiel_steps(steps: int, observations: bool, seed: int) -> int:
    """The same loop over OpenSpiel's `rbc` (random legal actions, optionally the mover's observation tensor)."""
    import pyspiel

    rng = np.random.default_rng(seed)
    game = pyspiel.load_game("rbc")
    done_steps = 0
    while done_steps < steps:
        state = game.new_initial_state()
        while not state.is_terminal():
            if observations:
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
    parser.add_argument("--baseline", metavar="REV", help="a commit to compare the RbcEnv loops with (e.g. main)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(blindchess_rates(args.steps, args.seed)))
        return
    if args.baseline:  # imported here: a child runs under the baseline's package, which need not have the module
        from blindchess.experiments.baseline_checkout import alternate, baseline_site, print_rates

        with tempfile.TemporaryDirectory() as folder:
            variants = {"baseline": baseline_site(args.baseline, folder), "current": None}
            runs = alternate(__file__, ["--steps", str(args.steps), "--seed", str(args.seed)], variants, args.rounds)
        print(f"RbcEnv, {args.steps} steps a loop, {args.rounds} rounds, median rates: baseline {args.baseline} against "
              "the current checkout")  # fmt: skip
        print_rates(runs, "steps/s")
        return
    loops: dict[str, Callable[[int, int], int]] = {
        "blindchess rbc, observations": lambda n, s: blindchess_steps(n, True, s),
        "blindchess rbc, no observations": lambda n, s: blindchess_steps(n, False, s),
    }
    try:
        import pyspiel  # noqa: F401

        loops["open_spiel rbc, observation_tensor"] = lambda n, s: open_spiel_steps(n, True, s)
        loops["open_spiel rbc, no observations"] = lambda n, s: open_spiel_steps(n, False, s)
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
    print("| loop | steps | steps/s (CPU) | steps/s (wall) |")
    print("|---|---:|---:|---:|")
    for name, (total, cpu_seconds, wall_seconds) in totals.items():
        print(f"| {name} | {total:.0f} | {total / cpu_seconds:,.0f} | {total / wall_seconds:,.0f} |")
    if args.workers:
        learner_steps, seconds = vector_steps(args.steps, args.workers, args.seed)
        print(f"\nAsyncVectorEnv, {args.workers} workers, BotOpponentEnv rbc vs random: {learner_steps} learner steps,"
              f" {learner_steps / seconds:,.0f} learner steps/s (wall)")


if __name__ == "__main__":
    main()
