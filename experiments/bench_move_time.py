"""What does a longer move budget buy the Stockfish selector? Decision quality against time, measured.

Positions: seeded games of the flagship (cheap, fixed-depth settings) against our TroutBot,
no clock. At each of the flagship's moves the script rebuilds the belief it held (the
presets' capped board set, replayed from the history's observations) and keeps the true
board. For each budget ``T`` of ``--budgets`` a fresh selector at the flagship's settings
chooses a move with ``MoveContext(budget=T, hard_budget=T)`` (no second look) and, with
``--second-look``, again with ``hard_budget = 2.5 T`` (what the time manager allows a close
call), and with ``--deep`` once more with the boards held at 24 (``max_boards=24``), so the
extra time goes into longer searches only: wide against deep at the same budget. The
baseline, measured in the same run on the same positions, is the selector with no budget
from the bot: its own plan on a 60 s clock with a 2 s increment (about 2.7 s; its old
limits, `experiments.flagship_before_clock`: at most 24 boards, 0.1 s per position).

Each chosen request is scored on the true board, where the bot could not see:
``v(m) = +1`` if it captures the king, ``-1`` if it leaves our king capturable, else
Stockfish's value of the position after what the request really does there
(`score_to_value`, searched to ``--depth``). The **regret** of a choice is
``max_m v(m) - v(chosen)`` over every move action (what a player who saw the board would
have gained); ``agree`` is the share of positions where the choice equals the longest budget's.
Lower regret is better; ratios are the baseline's regret over each budget's::

    nice -n 15 python3 experiments/bench_move_time.py --games 4 --budgets 2 8 --deep
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from dataclasses import dataclass
from typing import Any, Optional

import chess
import chess.engine
import numpy as np

from blindchess.arbiter import LocalGame, play_local_game
from blindchess.arbiter.game.observations import MoveResult
from blindchess.arbiter.rules.fast_revision import request_outcome
from blindchess.arbiter.rules.reference import move_actions
from blindchess.beliefs.base import Belief
from blindchess.beliefs.observed_games import observed_game
from blindchess.bots.flagship import FlagshipBot
from blindchess.bots.presets import capped_board_set
from blindchess.bots.trout_bot import TroutBot
from blindchess.config_tree import build
from blindchess.evaluation.request_values import score_to_value
from blindchess.evaluation.stockfish import Engine
from blindchess.experiments.flagship_before_clock import OLD_LIMITS
from blindchess.moving.base import MoveContext
from blindchess.moving.selector_config import SelectorConfig
from blindchess.moving.stockfish_selector import StockfishMoveSelector


@dataclass(frozen=True)
class Position:
    """One decision of the flagship: what it believed, the truth, and its move actions."""

    belief: Belief
    truth: chess.Board
    actions: list[chess.Move]
    color: chess.Color


def positions(games: int, seed: int, per_game: int) -> list[Position]:
    """Up to `per_game` decisions of the flagship per game, spread over each game."""
    found: list[Position] = []
    for index in range(games):
        flagship = FlagshipBot(rng=seed + index, preset="fast")
        trout = TroutBot(rng=seed + 1000 + index)
        color = chess.WHITE if index % 2 == 0 else chess.BLACK
        white, black = (flagship, trout) if color == chess.WHITE else (trout, flagship)
        _, _, history = play_local_game(white, black, LocalGame(seconds_per_player=None, full_turn_limit=40), enforce_deadlines=False)
        game = observed_game(history)
        belief = capped_board_set()
        decisions: list[Position] = []
        before_move = game.truth[color][0]
        for event, truth in zip(game.events[color], game.truth[color], strict=False):
            if isinstance(event, MoveResult):  # its truth is the board after our move: take the one before
                board = before_move.copy(stack=False)
                board.turn = color
                decisions.append(Position(belief.copy(), board, move_actions(board), color))
            before_move = truth
            belief.update(event)
        step = max(1, len(decisions) // per_game)
        found += decisions[::step][:per_game]
    return found


def true_values(engine: Engine, position: Position, depth: int) -> np.ndarray:
    """v(m) on the true board for every move action (see the module docstring)."""
    values = np.zeros(len(position.actions))
    limit = chess.engine.Limit(depth=depth)
    for j, move in enumerate(position.actions):
        outcome = request_outcome(position.truth, move)
        if outcome.captures_king:
            values[j] = 1.0
        elif outcome.exposes_king(position.color):
            values[j] = -1.0
        else:
            info = engine.analyse(outcome.after(), limit)
            values[j] = score_to_value(info["score"], position.color) if isinstance(info, dict) and "score" in info else 0.0
    return values


@dataclass(frozen=True)
class Arm:
    """One way of choosing: a name, the budgets passed in the context, the selector's settings."""

    name: str
    budget: Optional[float]
    hard: Optional[float]
    settings: tuple[tuple[str, Any], ...] = ()


def choose(position: Position, arm: Arm, seed: int) -> tuple[chess.Move, float]:
    """The arm's choice and its wall time (a fresh selector, so no cache carries over)."""
    selector = StockfishMoveSelector(build(SelectorConfig, dict(arm.settings)))
    budget, hard = arm.budget, arm.hard
    try:
        with selector.pool.engine() as engine:  # start Stockfish before the clock does
            engine.play(chess.Board(), chess.engine.Limit(depth=1))
        started = time.monotonic()
        context = MoveContext(position.color, 2.0, budget, hard)
        move = selector.choose_move(position.belief, position.actions, 60.0, np.random.default_rng(seed), context)
        return (move if move is not None else position.actions[0]), time.monotonic() - started
    finally:
        selector.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--per-game", type=int, default=6, help="decisions kept per game")
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.5, 2.0, 8.0])
    parser.add_argument("--second-look", action="store_true", help="also choose with hard_budget = 2.5 budget")
    parser.add_argument("--deep", action="store_true", help="also choose with the boards held at 24 (time to depth only)")
    parser.add_argument("--depth", type=int, default=14, help="Stockfish depth of the true-board scoring")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    found = positions(args.games, args.seed, args.per_game)
    print(f"{len(found)} positions from {args.games} games", flush=True)
    arms = [Arm("baseline (own plan, 60 s + 2 s)", None, None, tuple(OLD_LIMITS.items()))]
    for budget in args.budgets:
        arms.append(Arm(f"budget {budget:g} s", budget, budget))
        if args.second_look:
            arms.append(Arm(f"budget {budget:g} s, hard {2.5 * budget:g} s", budget, 2.5 * budget))
        if args.deep:
            arms.append(Arm(f"budget {budget:g} s, deep (24 boards)", budget, budget, (("max_boards", 24),)))
    regrets: dict[str, list[float]] = {arm.name: [] for arm in arms}
    seconds: dict[str, list[float]] = {arm.name: [] for arm in arms}
    choices: dict[str, list[chess.Move]] = {arm.name: [] for arm in arms}
    with Engine() as engine:
        for number, position in enumerate(found, start=1):
            values = true_values(engine, position, args.depth)
            for arm in arms:  # interleaved per position: machine load hits every arm alike
                move, took = choose(position, arm, args.seed + number)
                regrets[arm.name].append(float(values.max() - values[position.actions.index(move)]))
                seconds[arm.name].append(took)
                choices[arm.name].append(move)
            print(f"  position {number}/{len(found)}", flush=True)
    longest = next(arm.name for arm in reversed(arms) if arm.budget == max(args.budgets) and not arm.settings)
    baseline = statistics.mean(regrets[arms[0].name])
    print()
    print("| arm | mean regret | s.e. | baseline / arm | agree with longest | mean s per move |")
    print("|---|---|---|---|---|---|")
    for name in (arm.name for arm in arms):
        regret = statistics.mean(regrets[name])
        error = statistics.stdev(regrets[name]) / len(regrets[name]) ** 0.5 if len(regrets[name]) > 1 else float("nan")
        agree = np.mean([a == b for a, b in zip(choices[name], choices[longest], strict=True)])
        ratio = baseline / regret if regret > 0 else float("inf")
        print(f"| {name} | {regret:.4f} | {error:.4f} | {ratio:.2f} | {agree:.2f} | {statistics.mean(seconds[name]):.2f} |")


if __name__ == "__main__":
    main()
