"""Which sense planner helps most? An ablation on recorded belief states and in games.

Part 1, the same recorded belief states for every planner: random-action games are played
while one side keeps an exhaustive `BoardSet` (capped); at each of its sense phases the
belief and the true board are recorded. Every planner then chooses a square on every state,
and we measure

* expected entropy reduction: the entropy of the chosen window's outcome under the belief
  (what a sense there is worth on average, in bits);
* realised entropy reduction: belief entropy before minus after applying the true window;
* the belief size after the sense.

Part 2, games: each planner's preset (`belief-<planner>`: same belief and move selector)
plays our TroutBot in colour-swapped pairs through the tournament runner, and its score is
counted. For Elo with 95% intervals over many games, run the ablation as a tournament config:
``blindchess tournament experiments/configs/sensing_ablation.toml`` (docs/experiments.md).

A table goes to stdout and a plot (matplotlib) to ``--out``. Defaults are small so the
whole run takes minutes; ``--scale N`` multiplies the recorded games and match games.

Run: ``python3 experiments/sensing_ablation.py`` (``--scale 5`` for a bigger run).
"""

from __future__ import annotations

import argparse
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import chess
import numpy as np

from blindchess.arbiter import LocalGame
from blindchess.arbiter.game.observations import GameStarted, MoveResult, OpponentMoved, SenseResult
from blindchess.arbiter.rules import reference as rules
from blindchess.beliefs import BoardSet
from blindchess.bots.presets import capped_board_set
from blindchess.dependencies import MissingDependencyError, require
from blindchess.sensing import PLANNERS, SenseContext, make_planner
from blindchess.sensing.support import belief_grid
from blindchess.sensing.windows import WindowOutcomes
from blindchess.tournament.config import TournamentConfig, pairing_games
from blindchess.tournament.executors import InlineExecutor
from blindchess.tournament.spec import BotSpec


@dataclass
class RecordedState:
    """A belief at a sense phase, with what the planner may know and the truth."""

    belief: BoardSet
    truth: chess.Board
    context: SenseContext


def record_states(games: int, turns: int, seed: int) -> list[RecordedState]:
    """Belief states of one side (alternating per game) in random-action games."""
    rng = np.random.default_rng(seed)
    states: list[RecordedState] = []
    for index in range(games):
        tracked = chess.WHITE if index % 2 == 0 else chess.BLACK
        game = LocalGame(seconds_per_player=None, full_turn_limit=turns)
        belief = capped_board_set()
        belief.update(GameStarted(tracked, game.board.fen()))
        game.start()
        while not game.is_over():
            color = game.turn
            capture = game.opponent_move_results()
            moves = game.move_actions() or []
            if color == tracked:
                belief.update(OpponentMoved(capture))
                states.append(RecordedState(belief.copy(), game.board.copy(stack=False), SenseContext(color, capture, tuple(moves))))
            square = int(rng.integers(64))
            window = game.sense(square)
            if color == tracked:
                belief.update(SenseResult(square, tuple(window)))
            requested, taken, captured = game.move(moves[int(rng.integers(len(moves)))] if moves else None)
            if color == tracked:
                belief.update(MoveResult(requested, taken, captured))
            game.end_turn()
    return states


def measure_planner(name: str, states: list[RecordedState], seed: int) -> dict[str, float]:
    """Mean expected and realised entropy reduction (bits), mean size after, mean seconds per choice."""
    planner = make_planner(name)
    expected, realised, sizes, seconds = [], [], [], []
    for index, state in enumerate(states):
        rng = np.random.default_rng([seed, index])
        started = time.perf_counter()
        square = planner.choose_sense(state.belief, list(chess.SQUARES), 60.0, rng, state.context)
        seconds.append(time.perf_counter() - started)
        grid, weights = belief_grid(state.belief, rng)
        gain = 0.0 if square is None else WindowOutcomes(grid, [square]).entropy(0, weights)
        after = state.belief.copy()
        after.update(SenseResult(square, rules.sense_window(state.truth, square) if square is not None else ()))
        expected.append(gain)
        realised.append(state.belief.entropy() - after.entropy())
        sizes.append(len(after))
    return {
        "expected": float(np.mean(expected)),
        "realised": float(np.mean(realised)),
        "size": float(np.mean(sizes)),
        "seconds": float(np.mean(seconds)),
    }


def match_score(name: str, games: int, seconds: float, increment: float, turn_limit: int, seed: int) -> tuple[float, int, int]:
    """(points per game for the preset against TroutBot, wins, games) in colour-swapped pairs; a draw is half a point.

    The games are the tournament runner's tasks (`blindchess.tournament`); for Elo with intervals
    over many games, run ``experiments/configs/sensing_ablation.toml`` with ``blindchess tournament``.
    """
    preset, trout = BotSpec(name, f"belief-{name}"), BotSpec("trout", "trout")
    config = TournamentConfig(
        name="ablation", players=(preset, trout), seed=seed, seconds=seconds, increment=increment, full_turn_limit=turn_limit
    )
    specs = {spec.key: spec for spec in pairing_games(preset, trout, config, pairs=max(1, games // 2))}
    points, wins, played = 0.0, 0, 0
    for result in InlineExecutor().run(specs.values()):
        if not result.ok:
            logging.warning("%s vs trout, game %s failed: %s", name, result.key, result.error)
            continue
        preset_white = specs[result.key].white is preset
        score = result.white_score() if preset_white else 1.0 - result.white_score()
        logging.info("%s vs trout, game %s: winner %s by %s", name, result.key, result.winner, result.reason)
        points, wins, played = points + score, wins + (score == 1.0), played + 1
    return points / max(1, played), wins, played


def plot(rows: dict[str, dict[str, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(rows)
    x = np.arange(len(names))
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.bar(x - 0.2, [rows[n]["expected"] for n in names], 0.4, label="expected")
    left.bar(x + 0.2, [rows[n]["realised"] for n in names], 0.4, label="realised")
    left.set_xticks(x, names)
    left.set_ylabel("entropy reduction per sense (bits)")
    left.legend()
    left.set_title("On the same recorded belief states")
    right.bar(x, [rows[n]["score"] for n in names], 0.6, color="tab:green")
    right.set_xticks(x, names)
    right.set_ylim(0, 1)
    right.set_ylabel("score against TroutBot (points per game)")
    right.set_title(f"In games ({int(rows[names[0]]['games'])} per planner)")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1, help="multiply recorded games and match games (default 1)")
    parser.add_argument("--seconds", type=float, default=30.0, help="clock per player in the games (default 30)")
    parser.add_argument("--increment", type=float, default=1.0, help="increment in the games (default 1)")
    parser.add_argument("--turn-limit", type=int, default=40, help="full-turn limit in the games: a draw (default 40)")
    parser.add_argument("--no-games", action="store_true", help="only the recorded-state part")
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--out", default="results/sensing_ablation.png", help="where to save the plot")
    args = parser.parse_args(argv)
    try:
        require("matplotlib", extra="experiments")  # the plot comes last: fail now, not after minutes of work
    except MissingDependencyError as error:
        raise SystemExit(f"sensing_ablation: {error}") from error
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    started = time.perf_counter()
    states = record_states(games=4 * args.scale, turns=12, seed=args.seed)
    sizes = [len(s.belief) for s in states]
    print(f"recorded {len(states)} belief states (sizes {min(sizes):,}..{max(sizes):,}, median {int(np.median(sizes)):,})"
          f" in {time.perf_counter() - started:.1f} s")
    rows: dict[str, dict[str, float]] = {}
    for name in PLANNERS:
        rows[name] = measure_planner(name, states, args.seed)
        rows[name]["score"], rows[name]["wins"], rows[name]["games"] = float("nan"), 0, 0
        if not args.no_games:
            score, wins, games = match_score(name, 2 * args.scale, args.seconds, args.increment, args.turn_limit, args.seed)
            rows[name].update(score=score, wins=wins, games=games)
    print(f"{'planner':<10}{'exp. dH':>9}{'real. dH':>10}{'size after':>12}{'s/choice':>10}{'vs trout':>10}{'wins':>8}")
    for name, row in rows.items():
        print(f"{name:<10}{row['expected']:>9.2f}{row['realised']:>10.2f}{row['size']:>12,.0f}{row['seconds']:>10.3f}"
              f"{row['score']:>10.2f}{int(row['wins']):>5}/{int(row['games'])}")
    plot(rows, Path(args.out))
    print(f"plot saved to {args.out}; total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
