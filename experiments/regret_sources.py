"""Where the regret comes from: did the belief hide the true board's best request, did the choice miss it, or the depth?

The regret-per-budget benchmark (`experiments/regret_per_budget.py`) scores the flagship's move on
the true board. A regret has three possible sources, each with its own lever:

* **(A) belief blind**: on the belief's own boards the true board's best request ``m*`` is not
  clearly better than the chosen ``m``; the belief gives the true board (and boards like it)
  too little weight, or the position is a coin flip between the two. Better weights or senses
  are the lever: no search over this belief would choose ``m*``.
* **(B) choice wrong**: on the belief itself ``m*`` scores clearly better than ``m``; a search
  that covered the belief's boards deeper or wider would have found it. Search and coverage
  are the lever.
* **(C) too shallow**: not B, and on the true board itself, at the same depth, ``m*`` is not
  clearly better than ``m`` either: even a player who saw the board would choose as the bot
  did at that depth; only the deep judge tells them apart. Depth is the lever (or the regret
  is the judge's own horizon).

For each row of ``--rows`` (the benchmark's JSON lines) with a positive regret, the belief is
replayed to that turn as the benchmark replays it (`snapshots`, `take_over`: the flagship fed
the recorded events, the opponent's move folded in), the row's sense is applied with the true
board's window, and then:

* the belief's size, whether the true board's pieces are among its boards, and the
  probability the belief gives them: under its own weights (the flagship's, uniform) and under
  the Stockfish sigmoid (`sigmoid_weights` of a depth-1 score for the opponent, as
  `StockfishSigmoid` weighs; over at most ``SIGMOID_SAMPLE`` boards drawn uniformly when the set
  is larger, which estimates the normaliser);
* the value gap ``V(m*) - V(m)`` with ``V(x) = sum_b w(b) s(b, x)`` over at most ``--boards``
  boards drawn by the belief's weights (all of them, weighted, when the set is that small;
  `s(b, m)` of :mod:`blindchess.evaluation.request_values` at ``--value-depth``), with its
  standard error over the draws (0 when every board is scored), under the belief's weights
  and reweighted by the sigmoid. ``m*`` is the request the deep search values best on the true
  board (`--scores`, the benchmark's cache); where several tie, the one best on the belief.
* the same gap on the true board alone, at the same depth;
* the class (`classify`): B when the gap under the belief's weights is at least ``CLEAR_GAP``
  (0.05 in s, about 30 cp near a level score) and above two standard errors; else C when the
  true board's gap is below ``CLEAR_GAP``; else A.

Every search is kept in ``--cache`` (a JSON file) and every row's figures too, so a rerun
with it prints the table without a search or a replay::

    nice -n 5 python3 experiments/regret_sources.py --rows data/regret-59aef7d/regret-rows.jsonl 2 \\
        --rows data/regret-455c5a6/rows-cover-30s.jsonl 30 --scores data/regret-147f598/regret-scores.json \\
        --cache results/regret-sources.json
"""

from __future__ import annotations

import argparse
import json
import logging
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Optional

import chess
import chess.engine
import numpy as np

from blindchess.arbiter.game.history import GameHistory, Turn
from blindchess.arbiter.game.observations import SenseResult
from blindchess.arbiter.rules.fast_revision import request_outcome
from blindchess.arbiter.rules.reference import sense_window
from blindchess.beliefs.board_weights import (
    DEPTH_ONE,
    IndexedBoards,
    StockfishSigmoid,
    Weighted,
    grid_board,
    sigmoid_weights,
)
from blindchess.beliefs.samples import board_grid
from blindchess.evaluation.request_values import known_value, searched_value
from blindchess.evaluation.stockfish import Engine
from blindchess.experiments.regret_per_budget import Decision, Snapshot, snapshots, take_over
from blindchess.experiments.regret_report import Row, read_rows
from blindchess.experiments.true_board_regret import ScoreFile
from blindchess.tournament.config import parse_settings

CLEAR_GAP = 0.05
"""The least gap in s(b, m) (values in [-1, 1]) for "clearly better": about 30 cp near a level score."""
SIGMOID_SAMPLE = 1000
"""The most boards of a set scored for its sigmoid weights; a larger set's normaliser is estimated from a uniform draw."""


def classify(gap: float, error: float, truth_gap: float) -> str:
    """The class of a regret from the value gaps V(best) - V(chosen) on the belief (`gap`, s.e. `error`) and on the true board.

    ``B`` (choice wrong) when the true-best request beats the chosen one on the belief clearly: by at least
    `CLEAR_GAP` and by more than two standard errors. Otherwise ``C`` (too shallow) when it does not beat it
    clearly on the true board itself at the same depth either (no belief would help: the value depth
    disagrees with the deep judge), else ``A`` (belief blind: the true board shows it, the belief does not).

    >>> classify(0.2, 0.0, 0.5), classify(0.2, 0.15, 0.5), classify(0.02, 0.0, 0.5), classify(-0.3, 0.0, 0.01)
    ('B', 'A', 'A', 'C')
    """
    if gap >= CLEAR_GAP and gap > 2.0 * error:
        return "B"
    return "A" if truth_gap >= CLEAR_GAP else "C"


@dataclass(frozen=True, slots=True)
class Source:
    """What one row's belief says about its regret (the module docstring)."""

    boards: int
    truth_in: bool
    p_uniform: float
    p_sigmoid: float
    gap: float
    gap_error: float
    gap_sigmoid: float
    truth_gap: float
    best: str
    scored: int

    @property
    def label(self) -> str:
        return classify(self.gap, self.gap_error, self.truth_gap)


class Searches:
    """s(b, m) and sigmoid scores kept in a JSON file between runs, with each row's `Source`."""

    def __init__(self, path: Path, engine: Engine) -> None:
        self.path, self.engine = path, engine
        self.data: dict[str, dict[str, Any]] = {"values": {}, "sigmoid": {}, "rows": {}}
        if path.is_file():
            try:
                self.data.update(json.loads(path.read_text()))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path} is not a regret-sources cache (JSON): {error}") from None
        self.sigmoid = StockfishSigmoid(engine, DEPTH_ONE)

    def value(self, board: chess.Board, move: Optional[chess.Move], depth: int) -> float:
        """s(`board`, `move`) for the side to move, at `depth`."""
        key = f"{board.fen()} {move.uci() if move else '0000'} {depth}"
        if key not in self.data["values"]:
            outcome = request_outcome(board, move)
            known = known_value(outcome, board.turn)
            self.data["values"][key] = known if known is not None else searched_value(
                self.engine, outcome.after(), board.turn, chess.engine.Limit(depth=depth)
            )
        return float(self.data["values"][key])

    def opponent_cp(self, board: chess.Board, color: chess.Color) -> float:
        """`StockfishSigmoid.score` of `board` (`color` to move) for `color`'s opponent."""
        key = board.fen()
        if key not in self.data["sigmoid"]:
            self.data["sigmoid"][key] = self.sigmoid.score(board, not color)
        return float(self.data["sigmoid"][key])

    def row(self, key: str) -> Optional[Source]:
        """The kept `Source` of a row (None if not kept, or kept by a version with other fields)."""
        kept = self.data["rows"].get(key)
        return Source(**kept) if isinstance(kept, dict) and set(kept) == {field.name for field in fields(Source)} else None

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(self.data, sort_keys=True))
        partial.replace(self.path)


def weighted_gap(best: np.ndarray, chosen: np.ndarray, weights: np.ndarray, draws: Optional[int]) -> tuple[float, float]:
    """``sum w (best - chosen)`` and its standard error over `draws` draws (0 when `draws` is None: every board scored).

    >>> weighted_gap(np.array([1.0, 0.0]), np.array([0.0, 0.0]), np.array([0.5, 0.5]), None)
    (0.5, 0.0)
    """
    difference = best - chosen
    gap = float(weights @ difference)
    error = 0.0 if draws is None else math.sqrt(float(weights @ (difference - gap) ** 2) / draws)
    return gap, error


def belief_after_sense(decision: Decision, snapshot: Snapshot, settings: dict[str, Any], seed: int, sense: Optional[int]) -> IndexedBoards:
    """The flagship's belief at `decision` after the opponent's move and `sense` (the true board's window), unweighted.

    A weighted belief (``belief.kind = "stockfish"``) gives its wrapped board set: `source` weighs the boards itself.
    """
    bot = take_over(decision, snapshot, settings, seed)
    try:
        window = () if sense is None else tuple(sense_window(decision.truth, sense))
        bot.observe(SenseResult(sense, window))
        belief = bot.belief.inner if isinstance(bot.belief, Weighted) else bot.belief  # weights are the columns' business
        if not isinstance(belief, IndexedBoards):
            raise ValueError(f"a {type(belief).__name__} belief cannot show its boards")
        return belief
    finally:
        bot.close()


def source(
    row: Row, belief: IndexedBoards, truth: chess.Board, values: dict[str, int], searches: Searches, args: argparse.Namespace
) -> Source:
    """`Source` of `row` on `belief` (the module docstring)."""
    rng = np.random.default_rng(args.seed + row.position)
    base = belief.weights()
    color, size = truth.turn, len(base)
    grid = belief.piece_grid()
    truth_rows = np.flatnonzero((grid == board_grid([truth])[0]).all(axis=1))
    if size <= args.boards:
        picked, weights, draws = np.arange(size), base / base.sum(), None
    else:
        picked, counts = np.unique(rng.choice(size, size=args.boards, p=base), return_counts=True)
        weights, draws = counts / args.boards, args.boards
    sample = np.arange(size) if size <= SIGMOID_SAMPLE else rng.choice(size, size=SIGMOID_SAMPLE, replace=False)
    scored = np.unique(np.concatenate([sample, picked, truth_rows]))
    scores = np.array([searches.opponent_cp(grid_board(grid[i], color), color) for i in scored])
    sig = dict(zip(scored.tolist(), sigmoid_weights(scores, searches.sigmoid.scale, searches.sigmoid.floor).tolist(), strict=True))
    normaliser = size / len(sample) * sum(base[i] * sig[i] for i in sample.tolist())
    top = max(values.values())
    bests = [key for key, value in values.items() if value == top]
    boards = [belief.board(int(i)) for i in picked]
    reweighted = weights * np.array([sig[i] for i in picked.tolist()])
    reweighted /= reweighted.sum()

    def column(uci: Optional[str], on: Sequence[chess.Board]) -> np.ndarray:
        move = None if uci in (None, "0000") else chess.Move.from_uci(uci)
        return np.array([searches.value(board, move, args.value_depth) for board in on])

    chosen = column(row.move, boards)
    best, best_column = max(((key, column(key, boards)) for key in bests), key=lambda pair: float(weights @ pair[1]))
    gap, error = weighted_gap(best_column, chosen, weights, draws)
    truth_gap = float(column(best, [truth])[0] - column(row.move, [truth])[0])
    return Source(
        size, len(truth_rows) > 0, float(base[truth_rows].sum()), float(sum(base[i] * sig[i] for i in truth_rows.tolist()) / normaliser),
        gap, error, weighted_gap(best_column, chosen, reweighted, draws)[0], truth_gap, best, len(boards),
    )  # fmt: skip


def table(found: Sequence[tuple[Row, Source]]) -> str:
    """The rows and their sources as Markdown, then the regret summed by class and budget."""
    lines = [
        "| position | game | turn | budget (s) | move | true best | regret (cp) | boards | truth in | P(true) uniform | P(true) sigmoid "
        "| gap V(best) - V(move) (s.e.) | gap, sigmoid weights | gap on the true board | class |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row, found_source in found:
        game = "/".join(Path(row.game).parts[-2:]).removesuffix(".json")
        lines.append(
            f"| {row.position} | {game} | {row.turn} | {row.budget:g} | {row.move} | {found_source.best} | {row.regret} "
            f"| {found_source.boards} | {'yes' if found_source.truth_in else 'no'} | {found_source.p_uniform:.3g} "
            f"| {found_source.p_sigmoid:.3g} | {found_source.gap:+.3f} ({found_source.gap_error:.3f}) | {found_source.gap_sigmoid:+.3f} "
            f"| {found_source.truth_gap:+.3f} | {found_source.label} |"
        )
    names = {"A": "belief blind", "B": "choice wrong", "C": "too shallow"}
    lines += ["", "| budget (s) | rows | regret, total (cp) | " + " | ".join(f"{k}: {name} (rows, cp)" for k, name in names.items()) + " |"]
    lines.append("|---|---|---|---|---|---|")
    for budget in sorted({row.budget for row, _ in found}):
        mine = [(row, found_source) for row, found_source in found if row.budget == budget]
        by = {label: [row.regret for row, found_source in mine if found_source.label == label] for label in names}
        total = sum(row.regret for row, _ in mine)
        lines.append(f"| {budget:g} | {len(mine)} | {total} | " + " | ".join(f"{len(by[k])}, {sum(by[k])}" for k in names) + " |")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--rows", nargs="+", action="append", required=True, metavar=("PATH", "BUDGET"),
        help="a benchmark rows file and the budgets to take from it (none: all); repeat for more files",
    )
    parser.add_argument("--scores", type=Path, required=True, help="the benchmark's true-board values (its --scores)")
    parser.add_argument("--depth", type=int, default=14, help="the depth of the true-board values (default 14)")
    parser.add_argument("--setting", default="flagship", help="the rows' setting label to read (default flagship)")
    parser.add_argument("--settings", default="", help="the flagship's settings for the replay, as the benchmark's (default: none)")
    parser.add_argument("--value-depth", type=int, default=8, help="Stockfish depth of s(b, m) on the belief's boards (default 8)")
    parser.add_argument("--boards", type=int, default=200, help="the most belief boards valued per row (default 200)")
    parser.add_argument("--cache", type=Path, default=Path("results/regret-sources.json"), help="searches and rows kept between runs")
    parser.add_argument("--seed", type=int, default=1, help="the benchmark's --seed (the bot's seed is seed + position)")
    args = parser.parse_args(argv)
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    try:
        rows = [
            row
            for path, *budgets in args.rows
            for row in read_rows(Path(path), {float(budget) for budget in budgets} or None, args.setting)
            if row.regret > 0
        ]
        settings = parse_settings(args.settings, "--settings")
        scores = ScoreFile(args.scores)
    except ValueError as error:
        parser.error(str(error))
    if not rows:
        parser.error(f"no row of setting {args.setting!r} with a positive regret in the rows files")
    run = f"{args.settings} {args.value_depth} {args.boards} {args.seed}"
    key = {row: f"{row.game} {row.color} {row.turn} {row.sense} {row.move} {run}" for row in rows}
    with Engine(options={"Hash": 64}, cache_size=0) as engine:
        searches = Searches(args.cache, engine)
        try:
            histories = {row.game: GameHistory.from_file(row.game) for row in rows if searches.row(key[row]) is None}
        except (OSError, ValueError) as error:
            parser.error(f"cannot read a rows file's game record: {error}")
        turns = {row: Turn(row.color, row.turn) for row in rows if row.game in histories}
        decisions = {
            row: Decision(row.game, row.color, row.turn, histories[row.game], histories[row.game].truth_board_before_move(turn))
            for row, turn in turns.items()
        }
        states = snapshots(list(dict.fromkeys(decisions.values())), settings) if decisions else {}
        found = []
        for row in sorted(rows, key=lambda row: (row.position, row.budget)):
            kept = searches.row(key[row])
            if kept is None:
                decision = decisions[row]
                values = scores.known(decision.truth, args.depth)
                if values is None:
                    parser.error(f"{args.scores} has no values at depth {args.depth} for {row.game} turn {row.turn}")
                belief = belief_after_sense(decision, states[decision], settings, args.seed + row.position, row.sense)
                kept = source(row, belief, decision.truth, values, searches, args)
                searches.data["rows"][key[row]] = asdict(kept)
                searches.save()
            found.append((row, kept))
            print(f"  position {row.position} turn {row.turn} at {row.budget:g} s: {found[-1][1]}", flush=True)
    print()
    print(table(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
