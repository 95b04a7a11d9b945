"""Decision quality per second: the flagship's regret on the true board against the seconds its turn is given.

Positions are turns of recorded games whose true board the record holds (the StrangeFish2
games in ``../shared/games/``, the flagship's own): `--positions` own turns of the player
named like ``--player``, drawn with ``--seed`` from every such turn but the first. For each,
the flagship (``blindchess.bots`` preset ``flagship``, with each ``--settings``) is fed the
events that colour received up to that turn (`GameHistory.observations`, as `blindchess
playback` re-feeds a bot), then plays the turn as in a game: it chooses its sense, gets that
window of the true board, and chooses its move. The turn gets ``T`` seconds of ``--budgets``
through the bot's own clock plan (`FixedTurn`: the plan's split, ``sense_share * T`` to the
sense, the rest to the move, ``hard_factor`` times that on a close call, the sense's unused
time to the move, on the 900 s clock of a long game), so the flagship's stages spend it as
they would in a game that planned ``T`` for this turn.

The request is scored on the true board as the arbiter makes it
(:mod:`blindchess.experiments.true_board_regret`: regret in centipawns against the best
request, mate scores and king captures capped at 1000 cp; a request loses the king when the
opponent can take it at once or mates by force, loses material when its regret is at least
300 cp). The deep search's values of each true board are kept in ``--scores`` so reruns are
cheap. The clock is measured both ways: wall seconds and CPU seconds of this process and the
engines it started (`tree_cpu_seconds`), from the sense to the move, the sense result's belief
update included. ``--clock cpu`` makes the budget itself CPU seconds (``selector.search.clock =
"cpu"``: the move's deadline counts the bot's and its engines' CPU), so a loaded machine changes
the wall time of a run, not its choices' work. ``--shard K/N`` plays only the positions numbered
K modulo N: N processes share a run, and ``--from-rows`` reads their rows joined (in position order).
``--same-sense`` makes every budget sense where the setting's smallest budget sensed (the planner's
choice moves with its budget, and a different window changes the belief the move is chosen on):
the sense is taken as a pondered one, so its share of the turn goes to the move, and the budgets
then differ in the move alone. The opponent's move (the belief's expansion) is made before the clock starts:
in a game pondering makes it on the opponent's time. The bot's choices are seeded per position
(the same seed at every budget and setting); nothing ponders, and each choice starts with an
empty score cache and warm engines.

Per setting and budget: mean regret with its standard error and a bootstrap 95% interval over
positions, the shares losing the king and material, the CPU and wall seconds per turn, and the
regret as a ratio of the first setting's at the first budget (the baseline, same run). Budgets
above ``--few-above`` seconds run on the first ``--few`` positions only; a second table then
compares every budget on those. ``--plot`` draws regret against the budget and against the CPU
seconds; ``--rows`` keeps every choice as a JSON line, which ``--from-rows`` tabulates again
(`blindchess.experiments.regret_report`)::

    python3 experiments/regret_per_budget.py ../shared/games/strangefish2*/*.json --positions 30 \\
        --budgets 0.5 2 8 30 --few 8 --depth 14 --rows results/regret-rows.jsonl --plot docs/images/regret_per_budget.png
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import chess
import chess.engine
import numpy as np

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.observations import Observation, OpponentMoved
from blindchess.arbiter.rules.reference import move_actions, sense_actions, sense_window
from blindchess.beliefs.base import Belief
from blindchess.bots.flagship import FlagshipBot
from blindchess.evaluation.stockfish import Engine
from blindchess.experiments.regret_report import Arm, arms_from_rows, paired_table, plot, table
from blindchess.experiments.true_board_regret import ScoreFile, Values, loses_king, loses_material, regret
from blindchess.moving.process_clock import parent_and_cpu_seconds
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.moving.time_management import Allotment, TimeManager
from blindchess.tournament.config import parse_settings

CLOCK = 900.0
"""The clock the bot is told it has: the competition's, so its plan is a long game's (`TimeManager.is_long`)."""


@dataclass(frozen=True, slots=True)
class FixedTurn(TimeManager):
    """The clock plan with every turn given `turn_seconds`, split as the plan splits a turn.

    `TimeManager.allot` derives a turn's seconds from the clock, the turn number and the
    turn's difficulty; this keeps its split and its long-game rules but fixes the turn, which
    is the benchmark's variable. The cap (a sixth of a 900 s clock) is far above any budget
    measured, so a close call may take ``hard_factor`` times the move's share.

    >>> FixedTurn(turn_seconds=10.0).allot(CLOCK, 5.0, turn=40, difficulty=2.0)
    Allotment(sense=2.0, move=8.0, hard=20.0)
    """

    turn_seconds: float = 2.0

    def allot(
        self, seconds_left: float, increment: float, turn: int, difficulty: float = 1.0, overhead: float = 0.0, *,
        start_seconds: float = 0.0, mean_difficulty: float = 1.0,
    ) -> Allotment:
        move = (1.0 - self.sense_share) * self.turn_seconds
        return Allotment(self.sense_share * self.turn_seconds, move, self.hard_factor * move)


@dataclass(frozen=True)
class Decision:
    """One own turn of a recorded game: whose, which, and the true board before its move (that side to move)."""

    source: str
    color: chess.Color
    turn: int
    history: GameHistory = field(compare=False)
    truth: chess.Board = field(compare=False)


def decisions(paths: Sequence[str], player: str) -> list[Decision]:
    """Every own turn but the first of the player whose name contains `player` (any case), with a recorded move."""
    found = []
    for path in paths:
        history = GameHistory.from_file(path)
        names = {chess.WHITE: history.get_white_player_name() or "", chess.BLACK: history.get_black_player_name() or ""}
        for color in (chess.WHITE, chess.BLACK):
            if player.lower() not in names[color].lower():
                continue
            for turn in history.turns(color, start=1):
                if history.has_move(turn):
                    found.append(Decision(path, color, turn.turn_number, history, history.truth_board_before_move(turn)))
    return found


def sample(found: Sequence[Decision], count: int, seed: int) -> list[Decision]:
    """`count` of `found` drawn with `seed` (all if fewer), in game and turn order."""
    picked = np.random.default_rng(seed).choice(len(found), size=min(count, len(found)), replace=False)
    return [found[index] for index in sorted(picked)]


@dataclass(frozen=True)
class Snapshot:
    """A bot's state at the start of a turn, before the opponent's move is told: what a fresh bot takes over."""

    belief: Belief
    events: tuple[Observation, ...]
    turns: int
    opponent_moved: OpponentMoved


def snapshots(decision_list: Sequence[Decision], settings: dict[str, Any]) -> dict[Decision, Snapshot]:
    """The flagship's state at each decision, each game replayed once (its events fed to one bot in order)."""
    found: dict[Decision, Snapshot] = {}
    games: dict[tuple[str, chess.Color], list[Decision]] = {}
    for decision in decision_list:
        games.setdefault((decision.source, decision.color), []).append(decision)
    for (_, color), wanted in games.items():
        history = wanted[0].history
        by_turn = {decision.turn: decision for decision in wanted}
        bot = FlagshipBot(0, **settings)
        bot.handle_game_start(color, chess.Board(history.starting_fen), "opponent")
        turn = -1
        for event in history.observations(color)[1:]:
            if isinstance(event, OpponentMoved):
                turn += 1
                if turn in by_turn:
                    found[by_turn[turn]] = Snapshot(bot.belief.copy(), tuple(bot.game.events), bot.game.turns, event)
                if turn >= max(by_turn):
                    break
            bot.observe(event)
        bot.close()
    return found


def tree_cpu_seconds() -> float:
    """CPU seconds (user + system) used so far by this process, its live descendants and its reaped children (Linux /proc)."""
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        read = parent_and_cpu_seconds(int(entry)) if entry.isdigit() else None
        if read is not None:  # None: not a process, or it ended meanwhile
            parents[int(entry)], used[int(entry)] = read
    own = os.getpid()

    def descends(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == own:
                return True
        return False

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    live = sum(seconds for pid, seconds in used.items() if descends(pid))
    return time.process_time() + live + children.ru_utime + children.ru_stime


@dataclass(frozen=True)
class Choice:
    """What the bot did with a turn and what it cost."""

    sense: Optional[chess.Square]
    move: Optional[chess.Move]
    cpu: float
    wall: float


def take_over(decision: Decision, snapshot: Snapshot, settings: dict[str, Any], seed: int) -> FlagshipBot:
    """A fresh flagship (seeded `seed`) in `snapshot`'s state, told the opponent's move: where `decision`'s turn begins.

    The caller stops its engines (``bot.close()``).
    """
    bot = FlagshipBot(seed, **settings)
    bot.handle_game_start(decision.color, chess.Board(decision.history.starting_fen), "opponent")
    bot.game.belief, bot.game.events, bot.game.turns = snapshot.belief.copy(), list(snapshot.events), snapshot.turns
    bot.observe(snapshot.opponent_moved)
    return bot


@dataclass(frozen=True)
class FixedSense:
    """A sense the turn must make (``None``: no sense), as a pondered sense is made: the planner is not asked."""

    square: Optional[chess.Square]


def play_turn(
    decision: Decision, snapshot: Snapshot, settings: dict[str, Any], turn_seconds: float, seed: int, sense: Optional[FixedSense] = None
) -> Choice:
    """A fresh flagship takes over `snapshot` and plays `decision`'s turn on `turn_seconds` (the module docstring);
    with `sense`, it senses there, taking it as its own pondering's choice (so the sense's share goes to the move)."""
    bot = take_over(decision, snapshot, settings, seed)
    clock = {name: getattr(bot.settings.clock, name) for name in TimeManager.__dataclass_fields__}
    bot.time_manager = FixedTurn(**clock, turn_seconds=turn_seconds)  # observing the opponent's move reads no clock plan
    truth = decision.truth
    selector = bot.move_selector
    assert isinstance(selector, StockfishMoveSelector)
    try:
        with ExitStack() as engines:  # start every engine before the clock does
            for _ in range(selector.config.engine.processes):
                engines.enter_context(selector.pool.engine()).play(chess.Board(), chess.engine.Limit(depth=1))
        moves = move_actions(truth)
        cpu, wall = tree_cpu_seconds(), time.monotonic()
        if sense is not None:
            bot.game.pondered_sense = (bot.belief, tuple(moves), sense.square)
        square = bot.choose_sense(sense_actions(), list(moves), CLOCK)
        bot.handle_sense_result([] if square is None else list(sense_window(truth, square)))
        move = bot.choose_move(list(moves), CLOCK)
        return Choice(square, move, tree_cpu_seconds() - cpu, time.monotonic() - wall)
    finally:
        bot.close()


def measure(args: argparse.Namespace, configs: list[tuple[str, dict[str, Any]]], found: list[Decision], scores: ScoreFile) -> list[Arm]:
    """Play every turn of `found` at every setting and budget of `args`, score each choice (the module docstring)."""
    arms = [Arm(label, settings, budget) for label, settings in configs for budget in args.budgets]
    rows = args.rows.open("a") if args.rows is not None else None
    print(f"{len(found)} positions from {len({d.source for d in found})} games; load average {os.getloadavg()[0]:.1f}", flush=True)
    mine = [decision for number, decision in enumerate(found) if number % args.shard[1] == args.shard[0] and number >= args.skip]
    replays: dict[str, dict[Decision, Snapshot]] = {}
    for _, settings in configs:
        if _replayed_by(settings) not in replays:
            replays[_replayed_by(settings)] = snapshots(mine, settings)
    states = {label: replays[_replayed_by(settings)] for label, settings in configs}
    for label, settings in configs:  # compile the kernels and load the engines once, outside the measurements
        play_turn(mine[0], states[label][mine[0]], settings, min(args.budgets), args.seed)
    with Engine(options={"Hash": 64}, cache_size=0) as engine:
        for number, decision in enumerate(found):
            if number % args.shard[1] != args.shard[0] or number < args.skip:
                continue
            played = [arm for arm in arms if arm.budget <= args.few_above or number < args.few]
            values: Values = scores.values(engine, decision.truth, args.depth)
            scores.save()
            senses: dict[str, FixedSense] = {}  # with --same-sense, each setting's sense at its smallest budget
            for arm in played:  # interleaved per position: the machine's load falls on every arm alike
                fixed = senses.get(arm.label) if args.same_sense else None
                choice = play_turn(decision, states[arm.label][decision], arm.settings, arm.budget, args.seed + number, fixed)
                senses.setdefault(arm.label, FixedSense(choice.sense))
                arm.regrets.append(regret(values, choice.move))
                arm.kings.append(loses_king(values, choice.move))
                arm.material.append(loses_material(values, choice.move))
                arm.cpu.append(choice.cpu)
                arm.wall.append(choice.wall)
                arm.senses.append(choice.sense)
                if rows is not None:
                    record = {
                        "position": number, "game": decision.source, "color": "white" if decision.color else "black", "turn": decision.turn,
                        "setting": arm.label, "budget": arm.budget, "move": None if choice.move is None else choice.move.uci(),
                        "sense": choice.sense, "regret": arm.regrets[-1], "cpu": choice.cpu, "wall": choice.wall,
                    }  # fmt: skip
                    rows.write(json.dumps(record) + "\n")
                    rows.flush()
            print(
                f"  position {number + 1}/{len(found)} ({Path(decision.source).name}, turn {decision.turn}): regrets "
                + ", ".join(f"{arm.label} {arm.budget:g} s {arm.regrets[-1]}" for arm in played)
                + f"; load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    if rows is not None:
        rows.close()
    return arms


def _replayed_by(settings: dict[str, Any]) -> str:
    """The settings a replay's snapshots depend on, as a key: all but the selector's and the planner's, since a
    replay feeds the recorded events to the belief and chooses nothing, so arms that differ only there share one.

    >>> _replayed_by({"selector": {"coverage": {"deepen_in_part": True}}, "planner": {"name": "evoi"}}) == _replayed_by({})
    True
    """
    return json.dumps({name: table for name, table in settings.items() if name not in ("selector", "planner")}, sort_keys=True)


def _shard(text: str) -> tuple[int, int]:
    """``K/N`` as ``(K, N)``, with ``0 <= K < N``.

    >>> _shard("1/2")
    (1, 2)
    """
    part, _, count = text.partition("/")
    try:
        shard = (int(part), int(count))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is no shard K/N (two whole numbers, 0 <= K < N)") from None
    if not 0 <= shard[0] < shard[1]:
        raise argparse.ArgumentTypeError(f"{text!r} is no shard K/N: K must be at least 0 and below N")
    return shard


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("histories", nargs="*", help="game history JSON files (their true boards are the positions)")
    parser.add_argument("--player", default="flagship", help="whose turns: a part of the player's name (default flagship)")
    parser.add_argument("--positions", type=int, default=30, help="turns drawn (default 30)")
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.5, 2.0, 8.0], help="seconds per turn (default 0.5 2 8)")
    parser.add_argument(
        "--settings", action="append", default=None,
        help="a flagship setting to compare, as `blindchess match --settings` takes it (repeat; default: the flagship as it is)",
    )
    parser.add_argument("--few", type=int, default=8, help="positions for budgets above --few-above (default 8)")
    parser.add_argument("--few-above", type=float, default=10.0, help="budgets above this run on --few positions only (default 10)")
    parser.add_argument("--depth", type=int, default=16, help="Stockfish depth of the true-board values (default 16)")
    parser.add_argument("--scores", type=Path, default=Path("results/regret-scores.json"), help="cache of true-board values")
    parser.add_argument("--rows", type=Path, help="also write every choice as a JSON line here")
    parser.add_argument("--plot", type=Path, help="draw the curve into this PNG (needs matplotlib)")
    parser.add_argument("--from-rows", type=Path, help="measure nothing: tabulate (and plot) the choices a run wrote with --rows")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall",
        help="what a budget counts: wall seconds (default) or CPU seconds of the bot and its engines (selector.search.clock)",
    )
    parser.add_argument(
        "--shard", type=_shard, default=(0, 1), metavar="K/N",
        help="play only the positions numbered K modulo N (run N processes, then --from-rows their rows joined; default 0/1)",
    )
    parser.add_argument("--skip", type=int, default=0, help="play no position numbered below this (a run that extends another's rows)")
    parser.add_argument(
        "--same-sense", action="store_true",
        help="every budget senses where the setting's smallest budget did (as a pondered sense: its share goes to the move), "
        "so that budgets differ in the move alone",
    )
    args = parser.parse_args(argv)
    args.budgets = sorted(args.budgets)  # the smallest first: --same-sense takes its sense
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    clock = 'selector.search.clock = "cpu"' if args.clock == "cpu" else ""
    texts = args.settings or [""]
    configs = [(text or "flagship", parse_settings(", ".join(filter(None, [clock, text])), "--settings")) for text in texts]
    scores = ScoreFile(args.scores)
    if args.from_rows is not None:
        try:
            arms, left_out = arms_from_rows(args.from_rows, scores, args.depth)
        except (OSError, ValueError) as error:
            parser.error(str(error))
        print(f"{len(arms[0].regrets)} positions read from {args.from_rows}")
        if left_out:
            print(f"left out, not finished in every setting and budget: positions {', '.join(map(str, left_out))}")
        print()
    else:
        found = sample(decisions(args.histories, args.player), args.positions, args.seed)
        if args.shard[1] > 1 and args.rows is None:
            parser.error("--shard needs --rows: a shard's table covers only its positions")
        if not found:
            parser.error(f"no turn of a player named like {args.player!r} in the histories")
        arms = measure(args, configs, found, scores)
        print(f"\ntrue-board values: depth {args.depth}, {scores.hits} of {len(arms[0].regrets)} boards from {args.scores}")
        print(f"load average at the end: {' '.join(f'{load:.1f}' for load in os.getloadavg())}\n")
    print(table(arms))
    print(f"\nPaired, position by position:\n\n{paired_table(arms)}")
    few = min(len(arm.regrets) for arm in arms)
    if few < len(arms[0].regrets):
        print(f"\nOn the first {few} positions only (every budget):\n")
        print(table(arms, few))
    if args.plot is not None:
        plot(arms, args.plot)
        print(f"\nplot: {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
