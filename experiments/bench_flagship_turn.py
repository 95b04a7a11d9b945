"""How long does the flagship take per own turn, and is it faster than a baseline checkout?

Plays one fixed seeded game: the flagship (`blindchess.bots.flagship`) against a
seed-deterministic opponent (`random` or `attacker`), with Stockfish searching to a fixed
depth instead of by clock (``selector.search.depth``: the selector then samples a fixed number of
boards and the game is the same on every run) and a clock large enough that time never
binds. The flagship's callbacks are timed; one own turn is everything from hearing the
opponent's move to the result of its own (belief updates, sense planning, move choice).

With ``--baseline REV`` the same game is also played by the commit REV of this repository
(:mod:`blindchess.experiments.baseline_checkout`: each game in its own process, baseline and
current alternating for ``--rounds`` rounds after one untimed game each).
The script checks that both played the very same game (the flagship's senses and moves
compared) and prints, per variant, the mean and median seconds per own turn twice: wall clock
(which includes waiting for Stockfish) and CPU seconds of the bot's own process
(``time.process_time``; Stockfish's engines are other processes), and their ratios, current
over baseline. The CPU figure is what compiled kernels save (docs/champion.md)::

    nice -n 15 python3 experiments/bench_flagship_turn.py --rounds 3 --baseline 4bc6f1e
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

import chess

from blindchess.arbiter import Player, play_local_game
from blindchess.bots.attacker_bot import AttackerBot
from blindchess.bots.flagship import FlagshipBot
from blindchess.bots.presets import PlannerPresetBot, preset_bot
from blindchess.bots.random_bot import RandomBot

PHASES = ("handle_opponent_move_result", "choose_sense", "handle_sense_result", "choose_move", "handle_move_result")


class TimedPlayer(Player):
    """Delegates the seven callbacks to `player`, timing the five of each own turn.

    A turn's seconds are summed from `handle_opponent_move_result` to `handle_move_result`;
    the sense square and move returned are recorded, so two runs can be checked to be one game.
    """

    def __init__(self, player: Any) -> None:
        self.player = player
        self.turns: list[dict[str, float]] = []
        self.cpu_turns: list[dict[str, float]] = []
        self.actions: list[str] = []
        self._current: dict[str, float] = {}
        self._current_cpu: dict[str, float] = {}

    def _timed(self, name: str, *args: Any) -> Any:
        started, started_cpu = time.perf_counter(), time.process_time()
        result = getattr(self.player, name)(*args)
        self._current[name] = self._current.get(name, 0.0) + time.perf_counter() - started
        self._current_cpu[name] = self._current_cpu.get(name, 0.0) + time.process_time() - started_cpu
        if name == "handle_move_result":
            self.turns.append(self._current)
            self.cpu_turns.append(self._current_cpu)
            self._current, self._current_cpu = {}, {}
        return result

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        self.player.handle_game_start(color, board, opponent_name)

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[int]) -> None:
        self._timed("handle_opponent_move_result", captured_my_piece, capture_square)

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> Optional[int]:
        square: Optional[int] = self._timed("choose_sense", sense_actions, move_actions, seconds_left)
        self.actions.append("-" if square is None else chess.square_name(square))
        return square

    def handle_sense_result(self, sense_result: list[tuple[int, Optional[chess.Piece]]]) -> None:
        self._timed("handle_sense_result", sense_result)

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        move: Optional[chess.Move] = self._timed("choose_move", move_actions, seconds_left)
        self.actions.append("-" if move is None else move.uci())
        return move

    def handle_move_result(self, *args: Any) -> None:
        self._timed("handle_move_result", *args)

    def handle_game_end(self, *args: Any) -> None:
        self.player.handle_game_end(*args)


FLAGSHIPS: dict[str, type[PlannerPresetBot]] = {
    "flagship": FlagshipBot, "flagship-hybrid": preset_bot("flagship-hybrid"), "flagship-learned": preset_bot("flagship-learned"),
}
"""The flagship presets the script can time (``--bot``): the board set, the hybrid, the learned prior's weighting."""


def play_one(seed: int, opponent: str, depth: int, clock: float, bot: str = "flagship") -> dict[str, Any]:
    """One game of the flagship preset `bot` (White) against `opponent`; per-turn phase seconds and the actions."""
    flagship = TimedPlayer(FLAGSHIPS[bot](rng=seed, selector={"search": {"depth": depth}}))
    other = {"random": RandomBot, "attacker": AttackerBot}[opponent](rng=seed + 1)
    winner, reason, _ = play_local_game(flagship, other, seconds_per_player=clock, enforce_deadlines=False)
    return {"turns": flagship.turns, "cpu_turns": flagship.cpu_turns, "actions": flagship.actions, "winner": winner,
            "reason": str(reason)}


def child_argv(args: argparse.Namespace) -> list[str]:
    """The arguments a child process plays `args`'s game with."""
    return ["--seed", str(args.seed), "--opponent", args.opponent, "--depth", str(args.depth), "--clock", str(args.clock),
            "--bot", args.bot]  # fmt: skip


def summary(turns: list[dict[str, float]]) -> tuple[float, float, dict[str, float]]:
    """Mean and median seconds per own turn, and the mean seconds of each phase."""
    totals = [sum(turn.values()) for turn in turns]
    phases = {phase: statistics.fmean(turn.get(phase, 0.0) for turn in turns) for phase in PHASES}
    return statistics.fmean(totals), statistics.median(totals), phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--opponent", choices=("random", "attacker"), default="random")
    parser.add_argument("--bot", choices=tuple(FLAGSHIPS), default="flagship", help="which flagship preset to time")
    parser.add_argument("--depth", type=int, default=4, help="Stockfish search depth per position")
    parser.add_argument("--clock", type=float, default=3600.0, help="seconds per player (never binds)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--baseline", metavar="REV", help="a commit to compare with (e.g. 4bc6f1e)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(play_one(args.seed, args.opponent, args.depth, args.clock, args.bot)))
        return

    # imported here: a child may run under a baseline's package, which need not have the module
    from blindchess.tournament.commit_bot import export_commit

    with tempfile.TemporaryDirectory() as folder:
        variants: dict[str, Optional[str]] = {"current": None}
        if args.baseline:
            variants = {"baseline": str(export_commit(args.baseline, Path(folder))), "current": None}
        report(variants, args)


def report(variants: dict[str, Optional[str]], args: argparse.Namespace) -> None:
    """Play the rounds (see the module docstring) and print the table."""
    from blindchess.experiments.baseline_checkout import alternate

    runs: dict[str, list[dict[str, Any]]] = alternate(__file__, child_argv(args), variants, args.rounds)
    games = {json.dumps(run["actions"]) for results in runs.values() for run in results}
    first = next(iter(runs.values()))[0]
    print(f"{args.bot} (White) vs {args.opponent}, seed {args.seed}, Stockfish depth {args.depth}, clock {args.clock:.0f} s, "
          f"{args.rounds} round(s); {len(first['turns'])} own turns, result {first['reason']}; "
          + ("the same game in every run" if len(games) == 1 else f"{len(games)} DIFFERENT games"))
    print("seconds per own turn: wall clock (Stockfish's thinking included), then CPU of the bot's own process "
          "(time.process_time: Stockfish runs in its own processes), each with its phases' means")
    for clock, key in (("wall", "turns"), ("CPU", "cpu_turns")):
        print(f"{clock + ' ' + 'variant':<12} {'mean s/turn':>11} {'median':>8}  "
              + " ".join(f"{p.replace('handle_', '')[:14]:>14}" for p in PHASES))
        means: dict[str, float] = {}
        medians: dict[str, float] = {}
        for name, results in runs.items():
            turns = [turn for run in results for turn in run[key]]
            means[name], medians[name], phases = summary(turns)
            print(f"{name:<12} {means[name]:>11.3f} {medians[name]:>8.3f}  " + " ".join(f"{phases[p]:>14.3f}" for p in PHASES))
        if "baseline" in runs:
            print(f"{clock}: current/baseline mean {means['current'] / means['baseline']:.3f}, "
                  f"median {medians['current'] / medians['baseline']:.3f} "
                  f"(baseline/current {means['baseline'] / means['current']:.2f}x)")


if __name__ == "__main__":
    main()
