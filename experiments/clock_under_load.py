"""Does a CPU clock charge a bot the same whether the machine is busy or not?

Under ``--clock cpu`` (`blindchess.arbiter.sandbox.cpu_clock`) each bot's clock pays for the CPU its
own process tree used on its turn. This plays the same seeded games twice per round, back to
back: once as the machine is, once beside a load of two CPU-bound processes this script starts
(``while True: pass``, one per core of our machines), and compares what each bot was charged.
The games are checked to be the same move for move (their histories' JSON); a bot whose moves
depend on its clock, not only on its seed, would make them differ, and the script says so.

Rounds alternate the order (as is, loaded; then loaded, as is) so that drift in the machine's
other work falls on both conditions alike. The table gives, per game and bot, the CPU seconds
charged in each condition and their ratio, then the totals, the games' wall time (which the
load does stretch) and the load average before each condition::

    python experiments/clock_under_load.py --games 2 --rounds 2 --opponent attacker --seconds 300

A first game is played before anything is measured, so that the flagship's numba kernels are
compiled (their cache on disk) before a clock runs. Needs root or a delegated cgroup, as
``--clock cpu`` does.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass

from blindchess.tournament.config import parse_settings
from blindchess.tournament.spec import BotSpec, GameResult, GameSpec
from blindchess.tournament.task import play_game

LOAD = "while True: pass"
"""What each load process runs: one core's worth of CPU-bound work."""


@dataclass
class Charges:
    """One condition's results for one game: CPU seconds charged to White and Black, their own turns, wall seconds, the history."""

    white: float
    black: float
    white_turns: int
    black_turns: int
    wall: float
    history: str


def charged(result: GameResult, spec: GameSpec, white: bool) -> float:
    """CPU seconds `spec`'s White (or Black) was charged: its share of the clock times start plus increments."""
    share = result.clock_share[0 if white else 1]
    if share is None:
        raise SystemExit(f"game {spec.key}: no clock share (an untimed game?)")
    own_turns = (result.turns + 1) // 2 if white else result.turns // 2
    clock = spec.time_control(white)
    return share * (clock.seconds + clock.increment * own_turns)


def play(spec: GameSpec) -> Charges:
    result = play_game(spec)
    if not result.ok or result.history is None:
        raise SystemExit(f"game {spec.key} failed: {result.error}")
    for fault in result.faults:
        print(f"    game {spec.key}: fault: {fault}", file=sys.stderr)
    turns = ((result.turns + 1) // 2, result.turns // 2)
    return Charges(charged(result, spec, True), charged(result, spec, False), *turns, result.seconds, result.history)


def with_load(processes: int) -> list[subprocess.Popen[bytes]]:
    """Start `processes` CPU-bound processes (the load); stop them with `stop`."""
    return [subprocess.Popen([sys.executable, "-c", LOAD]) for _ in range(processes)]


def stop(load: list[subprocess.Popen[bytes]]) -> None:
    for process in load:
        process.kill()
        process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="games per condition and round, colours alternating (default 2)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds; each plays both conditions (default 2)")
    parser.add_argument("--bot", default="flagship", help="the bot measured (default flagship)")
    parser.add_argument("--settings", default='preset = "fast"', help="its settings (default: preset = \"fast\")")
    parser.add_argument("--opponent", default="attacker", help="its opponent (default attacker)")
    parser.add_argument("--seconds", type=float, default=300.0, help="each CPU clock (default 300)")
    parser.add_argument("--increment", type=float, default=0.0, help="seconds added a turn (default 0)")
    parser.add_argument("--load", type=int, default=2, help="CPU-bound processes in the loaded condition (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    bot = BotSpec(args.bot, args.bot, parse_settings(args.settings, "--settings"))
    opponent = BotSpec(args.opponent, args.opponent)
    specs = [
        GameSpec(
            f"{game + 1}", *((bot, opponent) if game % 2 == 0 else (opponent, bot)), white_seed=args.seed + 2 * game,
            black_seed=args.seed + 2 * game + 1, seconds=args.seconds, increment=args.increment, clock_mode="cpu",
        )  # fmt: skip
        for game in range(args.games)
    ]
    print(f"warm-up game (not counted): {play(specs[0]).wall:.1f} s", file=sys.stderr)
    results: dict[str, list[list[Charges]]] = {"as is": [], "loaded": []}
    loads: dict[str, list[float]] = {"as is": [], "loaded": []}
    for round_number in range(args.rounds):
        order = ("as is", "loaded") if round_number % 2 == 0 else ("loaded", "as is")
        for condition in order:
            load = with_load(args.load) if condition == "loaded" else []
            try:
                time.sleep(1.0 if load else 0.0)  # let the load take its cores
                loads[condition].append(os.getloadavg()[0])
                results[condition].append([play(spec) for spec in specs])
            finally:
                stop(load)
            print(f"round {round_number + 1}, {condition}: played", file=sys.stderr)
    header = f"{'round':>5} {'game':>4} {'bot':<10} {'as is (s)':>10} {'loaded (s)':>11} {'ratio':>7}"
    print(header)
    totals = {label: [0.0, 0.0] for label in (args.bot, args.opponent)}  # CPU seconds: as is, loaded
    turns = {label: [0, 0] for label in (args.bot, args.opponent)}  # own turns: as is, loaded
    same = True
    for round_number in range(args.rounds):
        for index, spec in enumerate(specs):
            idle, loaded = results["as is"][round_number][index], results["loaded"][round_number][index]
            same &= idle.history == loaded.history
            sides = (
                (spec.white.label, idle.white, loaded.white, idle.white_turns, loaded.white_turns),
                (spec.black.label, idle.black, loaded.black, idle.black_turns, loaded.black_turns),
            )
            for label, a, b, turns_a, turns_b in sides:
                totals[label][0] += a
                totals[label][1] += b
                turns[label][0] += turns_a
                turns[label][1] += turns_b
                print(f"{round_number + 1:>5} {spec.key:>4} {label:<10} {a:>10.3f} {b:>11.3f} {b / a if a else float('nan'):>7.3f}")
    for label, (a, b) in totals.items():
        print(f"{'all':>5} {'':>4} {label:<10} {a:>10.3f} {b:>11.3f} {b / a if a else float('nan'):>7.3f}")
    for label, (a, b) in totals.items():
        per_a, per_b = a / max(1, turns[label][0]), b / max(1, turns[label][1])
        print(
            f"{label}: {per_a * 1e3:.1f} ms CPU per own turn as is ({turns[label][0]} turns), {per_b * 1e3:.1f} ms loaded"
            f" ({turns[label][1]} turns): ratio {per_b / per_a if per_a else float('nan'):.3f}"
        )
    for condition, runs in results.items():
        wall = sum(charges.wall for games in runs for charges in games)
        mean_load = sum(loads[condition]) / len(loads[condition])
        print(f"{condition}: {wall:.1f} s of games in wall time, 1-minute load average at its start {mean_load:.1f} (mean)")
    print("the games were the same move for move in both conditions" if same else "the games DIFFERED between conditions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
