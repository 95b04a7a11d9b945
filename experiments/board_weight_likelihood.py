"""Which board weighting gives the true board the most probability: uniform, the Stockfish sigmoid or the learned prior?

The flagship holds every board consistent with what it observed (a `BoardSet` capped at
``belief.max_boards``, unweighted). A weighting ``w(s)`` of the issue-39 kind says how likely
the opponent was to reach each (`blindchess.beliefs.board_weights`): StrangeFish2 weighs a
board by the sigmoid of the opponent's Stockfish score there (`StockfishSigmoid`), the
learned prior by the posterior network's marginals (`LearnedPrior`). The measure is the
true board's surprise ``-log2 P_w(truth)`` in bits: the better the opponent model, the fewer.

Points are own turns of recorded games whose true boards the record holds (the StrangeFish2
games in ``../shared/games/``: the flagship's side, facing StrangeFish2, by default):
``--turns`` of them drawn with ``--seed`` from every own turn but the first of the player
named like ``--player``. Each game is replayed once with the flagship's belief and the learned
prior fed the events that colour received (`GameHistory.observations`), and each drawn turn
is scored twice: after the opponent's move is folded in (``moved``, what the sense planner
sees) and after the sense (``sensed``, what the move selector sees). The truth is the
record's board before the move; boards that differ only in castling or en-passant rights
count as one placement (as `StockfishSigmoid` and `LearnedPrior` see them).

Stockfish scores a placement for the opponent with us to move, at each depth of ``--depths``
(`StockfishSigmoid.score`: mates and king captures at +-2,000 cp). A set of at most
``--boards`` placements is scored whole; a larger one through ``--boards`` boards drawn
uniformly (for the sigmoid's normaliser and the truth's rank) and as many drawn by the
learned prior (for the product's): `experiments/board_weight_report.py` has the estimators.
Scores are kept in ``OUT/evals.json`` (by depth, then placement), so a rerun searches only
new boards; each point is a line of ``OUT/rows.jsonl``, and the tables go to stdout and to
``OUT/table.md``. ``--from-rows`` tabulates a finished run again without Stockfish::

    nice -n 10 python3 experiments/board_weight_likelihood.py ../shared/games/strangefish2*/*.json \\
        --turns 150 --depths 1 7 --boards 100 --seed 1 --out data/weights-<commit>

A set that lacks the true placement (the cap dropped it) gives it probability 0 under every
weighting: those points are counted in the summary and left out of the means, which compare
the weightings on the same points.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Optional

import chess
import chess.engine
import numpy as np
import torch

from blindchess.arbiter.game.history import HistoryFormatError
from blindchess.arbiter.game.observations import GameEnded, MoveResult, OpponentMoved, SenseResult
from blindchess.beliefs import BeliefError, LearnedPrior, StockfishSigmoid, WeightedBoards
from blindchess.beliefs.board_weights import grid_board
from blindchess.beliefs.calibration import truth_channels
from blindchess.beliefs.neural_posterior import DEFAULT_TEMPERATURE
from blindchess.bots.flagship_config import CONFIGS
from blindchess.evaluation.stockfish import Engine
from blindchess.experiments.board_weight_report import (
    MIX,
    STRANGEFISH_SCALE,
    bucket_table,
    read_rows,
    summary,
    table,
    weightings,
)
from blindchess.experiments.regret_per_budget import Decision, decisions, sample

TEMPERATURES = (0.2, 0.4, 1.0)
"""The learned prior's temperatures whose normalisers a row keeps (0.4 is the shipped default)."""


class RecordError(ValueError):
    """A game record cannot be replayed: unreadable, not a history, or contradicting itself (one line, naming the file)."""


def read_decisions(paths: Sequence[str], player: str) -> list[Decision]:
    """Every own turn but the first of `player` in the records at `paths` (`regret_per_budget.decisions`).

    Raises:
        RecordError: a record is missing, unreadable or not a game history.
    """
    try:
        return decisions(paths, player)
    except (OSError, HistoryFormatError, ValueError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise RecordError(f"cannot read the game records: {first}") from error


class EvalCache:
    """Stockfish's scores of placements for the opponent, kept in a JSON file: ``{"<depth>": {"<board FEN> <w|b>": cp}}``."""

    def __init__(self, path: Optional[Path], engine: Engine) -> None:
        self.path, self.engine = path, engine
        self.scores: dict[str, dict[str, float]] = {}
        if path is not None and path.is_file():
            try:
                self.scores = json.loads(path.read_text())
            except json.JSONDecodeError as error:
                raise ValueError(f"{path} is not an evaluation cache (JSON): {error}") from error
        self.searched = self.hits = 0
        self._scorers: dict[int, StockfishSigmoid] = {}

    def score(self, row: np.ndarray, color: chess.Color, depth: int) -> float:
        """The opponent's score of placement `row` with `color` (us) to move, searched to `depth` unless known."""
        board = grid_board(row, color)
        key = f"{board.board_fen()} {'w' if color == chess.WHITE else 'b'}"
        known = self.scores.setdefault(str(depth), {})
        if key in known:
            self.hits += 1
            return known[key]
        if depth not in self._scorers:
            self._scorers[depth] = StockfishSigmoid(self.engine, chess.engine.Limit(depth=depth))
        self.searched += 1
        value = known[key] = self._scorers[depth].score(board, not color)
        return value

    def save(self) -> None:
        if self.path is not None:
            partial = self.path.with_suffix(".partial")
            partial.write_text(json.dumps(self.scores, sort_keys=True))
            partial.replace(self.path)


def replay(decision_list: Sequence[Decision]) -> Iterator[tuple[Decision, str, WeightedBoards, LearnedPrior]]:
    """Each decision of one game and colour at its ``moved`` and ``sensed`` stages: the flagship's belief and the prior there.

    Raises:
        RecordError: the record's events contradict each other (the belief cannot follow them).
    """
    first = decision_list[0]
    wanted = {decision.turn: decision for decision in decision_list}
    belief = CONFIGS["flagship"].belief.build()
    prior = LearnedPrior()
    turn = -1
    for event in first.history.observations(first.color):
        if isinstance(event, GameEnded) or (isinstance(event, MoveResult) and turn >= max(wanted)):
            return
        try:
            belief.update(event)
        except BeliefError as error:
            at = turn + isinstance(event, OpponentMoved)
            raise RecordError(
                f"{first.source}: the flagship's belief cannot follow own turn {at} ({type(error).__name__}: {error})"
            ) from error
        prior.update(event)
        turn += isinstance(event, OpponentMoved)
        if turn in wanted and isinstance(event, (OpponentMoved, SenseResult)):
            assert isinstance(belief, WeightedBoards)
            yield wanted[turn], "moved" if isinstance(event, OpponentMoved) else "sensed", belief, prior


def share_above(log_w: np.ndarray, counts: np.ndarray, truth: int) -> float:
    """The share of boards (placements weighted by `counts`) whose log weight beats the truth's, ties (the truth too) half.

    >>> share_above(np.array([0.0, 1.0, 0.0]), np.array([1, 2, 1]), 0)
    0.75
    """
    tie = np.isclose(log_w, log_w[truth], rtol=0.0, atol=1e-9)
    return float((counts * ((log_w > log_w[truth]) & ~tie) + 0.5 * counts * tie).sum() / counts.sum())


def log_sum(values: np.ndarray) -> float:
    top = float(values.max())
    return top + float(np.log(np.exp(values - top).sum()))


def score_point(
    belief: WeightedBoards,
    prior: LearnedPrior,
    truth: chess.Board,
    evals: EvalCache,
    depths: Sequence[int],
    boards: int,
    rng: np.random.Generator,
) -> dict[str, Any]:
    """The row of one point (see `experiments/board_weight_report.py` for its fields)."""
    grid = belief.piece_grid()
    placements, inverse, counts = np.unique(grid, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    row: dict[str, Any] = {
        "boards": len(grid),
        "placements": len(placements),
        "exact": bool(getattr(belief, "is_exact", True)),
    }
    match = np.flatnonzero((placements == truth_channels(truth)).all(axis=1))
    row["truth_in"] = bool(match.size)
    if not match.size:
        return row
    truth_index = int(match[0])
    lw = prior.log_weights(placements) / prior.temperature  # summed log marginals (temperature 1)
    log_counts = np.log(counts)
    row["truth_count"] = int(counts[truth_index])
    row["learned"] = {
        "truth": float(lw[truth_index]),
        "logz": {f"{t:g}": log_sum(t * lw + log_counts) for t in TEMPERATURES},
        "above": share_above(lw, counts, truth_index),
    }
    row["all"] = len(placements) <= boards
    if row["all"]:
        scored, row["counts"] = np.arange(len(placements)), counts.tolist()
        by_learned = np.zeros(0, dtype=np.int64)
    else:
        scored = inverse[rng.choice(len(grid), size=boards, replace=False)]
        q = np.exp(prior.temperature * lw + log_counts - log_sum(prior.temperature * lw + log_counts))
        by_learned = rng.choice(len(placements), size=boards, p=q / q.sum())
    row["lw"] = lw[scored].tolist()
    color = truth.turn
    row["cp"] = {
        str(depth): {
            "truth": evals.score(placements[truth_index], color, depth),
            "uniform": [evals.score(placements[i], color, depth) for i in scored],
            "learned": [evals.score(placements[i], color, depth) for i in by_learned],
        }
        for depth in depths
    }
    return row


def measure(args: argparse.Namespace, found: Sequence[Decision]) -> list[dict[str, Any]]:
    """Replay each game once and score every drawn turn at both stages (the module docstring)."""
    games: dict[tuple[str, chess.Color], list[Decision]] = {}
    for decision in found:
        games.setdefault((decision.source, decision.color), []).append(decision)
    rows: list[dict[str, Any]] = []
    rng = np.random.default_rng(args.seed)
    with Engine(options={"Hash": 16}, cache_size=0) as engine, (args.out / "rows.jsonl").open("w") as out:
        evals = EvalCache(args.out / "evals.json", engine)
        for (source, color), wanted in games.items():
            for decision, stage, belief, prior in replay(wanted):
                row = {
                    "game": Path(source).parent.name + "/" + Path(source).name,
                    "color": "white" if color else "black",
                    "turn": decision.turn,
                    "stage": stage,
                }
                row.update(score_point(belief, prior, decision.truth, evals, args.depths, args.boards, rng))
                rows.append(row)
                out.write(json.dumps(row) + "\n")
            evals.save()
            print(f"  {Path(source).name} ({'white' if color else 'black'}): turns {len(wanted)}; points so far {len(rows)}, "
                  f"{evals.searched} searched, {evals.hits} from the cache; load {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    return rows


def report(rows: Sequence[dict[str, Any]], args: argparse.Namespace) -> str:
    """The summary and the tables of a run's rows."""
    depths = sorted({int(depth) for row in rows if row["truth_in"] for depth in row["cp"]})
    chosen = weightings(args.scales, depths, TEMPERATURES, args.caps)
    parts = [summary(rows)]
    for stage in ("moved", "sensed"):
        parts.append(
            f"\n{stage}: after the opponent's move{' and our sense' if stage == 'sensed' else ''}\n\n"
            + table(rows, chosen, stage)
        )
    few = [
        w
        for w in chosen
        if (w.kind in ("uniform", "sigmoid") and w.mix == MIX and w.cap is None)
        or (w.kind == "learned" and w.temperature == DEFAULT_TEMPERATURE)
    ]
    parts.append(
        "\nBy set size (both stages; mean -log2 P over the points holding the truth):\n\n" + bucket_table(rows, few)
    )
    return "\n".join(parts) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("histories", nargs="*", help="game history JSON files with the true boards")
    parser.add_argument(
        "--player", default="flagship", help="whose turns: a part of the player's name (default flagship)"
    )
    parser.add_argument("--turns", type=int, default=150, help="own turns drawn (default 150)")
    parser.add_argument("--boards", type=int, default=100, help="placements scored per point and sample (default 100)")
    parser.add_argument(
        "--depths", type=int, nargs="+", default=[1], help="Stockfish depths of the sigmoid (default 1)"
    )
    parser.add_argument(
        "--scales", type=float, nargs="+", default=[200.0, 50.0, round(STRANGEFISH_SCALE)],
        help="sigmoid scales in centipawns, the first also at mix 0 (default 200, the weighting's; 50; 1365, StrangeFish2's)",
    )  # fmt: skip
    parser.add_argument(
        "--out", type=Path, default=Path("results/weights"), help="folder of rows.jsonl, evals.json, table.md"
    )
    parser.add_argument(
        "--caps", type=int, nargs="*", default=[300], help="also the first sigmoid on sets of at most these sizes (default 300)"
    )
    parser.add_argument("--from-rows", action="store_true", help="search nothing: tabulate OUT/rows.jsonl again")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    torch.set_num_threads(1)
    try:
        if args.from_rows:
            rows = read_rows(args.out / "rows.jsonl")
        else:
            found = sample(read_decisions(args.histories, args.player), args.turns, args.seed)
            if not found:
                parser.error(f"no turn of a player named like {args.player!r} in the histories")
            args.out.mkdir(parents=True, exist_ok=True)
            print(
                f"turns drawn: {len(found)}, games: {len({d.source for d in found})}; load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            rows = measure(args, found)
    except ValueError as error:  # RecordError, RowsError, a corrupt cache: one line
        print(f"error: {error}", file=sys.stderr)
        return 2
    text = report(rows, args)
    (args.out / "table.md").write_text(text)
    print("\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
