"""How much does the learned prior sharpen the exact board set, against uniform and Stockfish-sigmoid weights?

Games: held-out games of the training run (game ``i`` of ``--seed`` whose id the training
split held out, replayed exactly: :mod:`blindchess.learning.generate`), and separately games
against an opponent outside the training mix (``--unseen``, the flagship by default), scored
only from the side that faces it. Each player's stream is followed by the exhaustive
`BoardSet` (uncapped up to ``--exact-cap`` children; a stream stops counting when the cap
makes it inexact) and by the `LearnedPrior`.

At every decision point (the player is to sense, or to move) with exact set ``B`` and true
piece placement ``s*`` (boards that differ only in castling or en-passant rights count as
one placement):

* ``-log2 P(truth)`` under four weightings of ``B``: uniform; ``moves``, every opponent move
  equally likely (`BoardSet`'s default model, `UNIFORM`: a board weighs the chance that a mover
  choosing uniformly among the outcomes of its turn reached it; the random bot chooses among
  its requests, several of which can share an outcome, and its exact posterior is sharper:
  ``experiments/engine_policy_ceiling.py --opponent random``); StrangeFish2's Stockfish
  sigmoid (`StockfishSigmoid`, depth 1, only on sets of at most ``--stockfish-max`` boards:
  it asks Stockfish about every board); the learned prior through `Weighted` (the shipped
  settings: floor 1e-3, mix 0.05);
* top-1 / top-5: whether ``s*`` is among the k most probable boards (ties shared: Bertram et
  al.'s measure; uniform's is k/|B|);
* the per-square cross-entropy of ``s*`` (bits per board, smoothed as in
  `blindchess.beliefs.calibration.cross_entropy`) under the exact uniform set's marginals, the
  learned-weighted set's (`NeuralPosterior.support_marginals`, what its samples follow),
  `NeuralPosterior.marginals`' (the learned set's up to `EXACT_BELOW` boards, above that
  `sampled_marginals` of as many boards) and the network's own;
* the time of one `LearnedPrior` update (one GRU step, one torch thread), and on sets of more
  than `EXACT_BELOW` boards the time of `NeuralPosterior.marginals` (the sample) against the
  whole weighted set's marginals, both from a fresh weighting of the set.

Results are bucketed by |B|. Tables print as Markdown::

    nice -n 15 python3 experiments/bench_neural.py --games 60 --unseen-games 20
"""

from __future__ import annotations

import argparse
import logging
import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Optional

import chess
import numpy as np
import torch

from blindchess.arbiter.game.observations import GameEnded, Observation, OpponentMoved, SenseResult
from blindchess.beliefs import BoardSet, LearnedPrior, StockfishSigmoid, Weighted
from blindchess.beliefs.calibration import cross_entropy, truth_channels
from blindchess.beliefs.neural_model import PosteriorNet, default_model, load_model
from blindchess.beliefs.neural_posterior import DEFAULT_TEMPERATURE, EXACT_BELOW, sampled_marginals
from blindchess.learning.examples import held_out
from blindchess.learning.generate import DEFAULT_MIX, GameSpec, game_id, pairing, play_game

BUCKETS = ((1, 1), (2, 10), (11, 100), (101, 1000), (1001, 10_000), (10_001, 10**12))
METHODS = ("uniform", "moves", "stockfish", "learned")
MARGINALS = ("uniform set", "learned set", "NeuralPosterior", "network")
"""The marginals whose cross-entropy of the truth is measured (see the module docstring)."""
LARGE = 100
"""Sets of more than this many boards are also summed per opponent (the acceptance targets' sets)."""


@dataclass
class Bucket:
    """Sums per decision-point bucket."""

    points: int = 0
    bits: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    top1: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    top5: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    counted: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    cross_entropy: np.ndarray = field(default_factory=lambda: np.zeros(len(MARGINALS)))

    def add(self, per_placement: dict[str, np.ndarray], truth_placement: int, cross_entropies: Sequence[float]) -> None:
        """One decision point: each weighting's probability per placement, and the cross-entropy under each of `MARGINALS`."""
        self.points += 1
        for name, by_placement in per_placement.items():
            self.bits[name] += -math.log2(by_placement[truth_placement])
            self.top1[name] += top_k(by_placement, truth_placement, 1)
            self.top5[name] += top_k(by_placement, truth_placement, 5)
            self.counted[name] += 1
        self.cross_entropy += cross_entropies

    def merge(self, other: Bucket) -> None:
        """Add `other`'s sums to this bucket's."""
        self.points += other.points
        for name in other.counted:
            self.bits[name] += other.bits[name]
            self.top1[name] += other.top1[name]
            self.top5[name] += other.top5[name]
            self.counted[name] += other.counted[name]
        self.cross_entropy += other.cross_entropy

    def mean(self, values: dict[str, float], name: str) -> str:
        return f"{values[name] / self.counted[name]:.2f}" if self.counted[name] else "-"


def top_k(placement_weights: np.ndarray, truth: int, k: int) -> float:
    """Probability that placement `truth` is among the k heaviest placements (ties broken at random)."""
    p = placement_weights[truth]
    others = np.delete(placement_weights, truth)
    greater, equal = int((others > p * (1 + 1e-9)).sum()), int((np.abs(others - p) <= p * 1e-9).sum())
    return float(np.clip((k - greater) / (equal + 1), 0.0, 1.0))


@dataclass(frozen=True)
class DecisionPoint:
    """A decision point of one player's stream, with the exact set at it.

    Attributes:
        exact: the exhaustive, unweighted board set after the event.
        truth: the true board.
        placements: the set's distinct piece placements (rows of `BoardSet.piece_grid`).
        placement_of: for each board of the set, its row in `placements`.
        truth_placement: the true placement's row.
    """

    exact: BoardSet
    truth: chess.Board
    placements: np.ndarray
    placement_of: np.ndarray
    truth_placement: int


def decision_points(
    events: list[Observation],
    truths: list[chess.Board],
    followers: Sequence[Callable[[Observation], None]],
    exact_cap: int,
    keep: Callable[[int], bool] = lambda size: True,
) -> Iterator[DecisionPoint]:
    """The stream's decision points (after `OpponentMoved` and `SenseResult`) whose set size `keep` accepts.

    Each event also goes to every follower (the weightings under test), in order. The stream
    stops counting when the cap makes the set inexact (its uniform weights would no longer be
    the exact set's).
    """
    exact = BoardSet(max_boards=exact_cap, move_model=None)  # uniform over the consistent boards
    for event, truth in zip(events, truths, strict=False):
        if isinstance(event, GameEnded):
            return
        exact.update(event)
        for follow in followers:
            follow(event)
        if not exact.is_exact:
            return
        if not isinstance(event, (OpponentMoved, SenseResult)) or not keep(len(exact)):
            continue
        placements, placement_of = np.unique(exact.piece_grid(), axis=0, return_inverse=True)
        truth_placement = int(np.flatnonzero((placements == truth_channels(truth)).all(axis=1))[0])
        yield DecisionPoint(exact, truth, placements, placement_of.ravel(), truth_placement)


def score_stream(
    events: list[Observation],
    truths: list[chess.Board],
    prior: LearnedPrior,
    stockfish: StockfishSigmoid,
    moves: BoardSet,
    buckets: dict[tuple[int, int], Bucket],
    large: Bucket,
    times: dict[str, list[float]],
    args: argparse.Namespace,
) -> None:
    def timed_prior(event: Observation) -> None:
        started = time.monotonic()
        prior.update(event)
        times["update"].append(time.monotonic() - started)

    for point in decision_points(events, truths, (timed_prior, stockfish.update, moves.update), args.exact_cap):
        exact, truth, placements, placement_of, truth_placement = (
            point.exact, point.truth, point.placements, point.placement_of, point.truth_placement
        )
        n = len(exact)
        bucket = buckets[next(b for b in BUCKETS if b[0] <= n <= b[1])]
        uniform = exact.weights()
        learned = Weighted(exact, prior, mix=args.mix)
        weightings = {"uniform": uniform, "learned": learned.weights()}
        if n <= args.stockfish_max:
            weightings["stockfish"] = Weighted(exact, stockfish, mix=0.0).weights()
        per_placement = {name: np.bincount(placement_of, weights=w, minlength=len(placements)) for name, w in weightings.items()}
        per_placement["moves"] = by_placement_of(moves, placements)
        learned_set, network = learned.marginals(), prior.marginals()
        neural = learned_set
        if n > EXACT_BELOW:  # NeuralPosterior's own: the sample, timed against the whole weighted set (a fresh Weighted)
            started = time.monotonic()
            Weighted(exact, prior, mix=args.mix).marginals()
            times["whole"].append(time.monotonic() - started)
            started = time.monotonic()
            neural = sampled_marginals(Weighted(exact, prior, mix=args.mix), network, EXACT_BELOW)
            times["sampled"].append(time.monotonic() - started)
        cross_entropies = [cross_entropy(marginals, truth) for marginals in (exact.marginals(), learned_set, neural, network)]
        bucket.add(per_placement, truth_placement, cross_entropies)
        if n > LARGE:
            large.add(per_placement, truth_placement, cross_entropies)


def by_placement_of(belief: BoardSet, placements: np.ndarray) -> np.ndarray:
    """`belief`'s probability of each row of `placements` (the same set's placements, maybe in another order)."""
    rows, inverse = np.unique(belief.piece_grid(), axis=0, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=belief.weights(), minlength=len(rows))
    weight_of = {row.tobytes(): weight for row, weight in zip(rows, summed, strict=True)}
    return np.array([weight_of[row.tobytes()] for row in placements])


def run(
    specs: list[GameSpec], colors_facing: Optional[str], args: argparse.Namespace, model: PosteriorNet
) -> tuple[dict[tuple[int, int], Bucket], dict[str, list[float]], dict[str, Bucket]]:
    buckets: dict[tuple[int, int], Bucket] = defaultdict(Bucket)
    large: dict[str, Bucket] = defaultdict(Bucket)
    times: dict[str, list[float]] = defaultdict(list)
    stockfish = StockfishSigmoid()
    try:
        for number, spec in enumerate(specs, start=1):
            game, names = play_game(spec)
            for color, opponent in ((chess.WHITE, names[1]), (chess.BLACK, names[0])):
                if colors_facing is not None and opponent != colors_facing:
                    continue
                prior = LearnedPrior(model, floor=args.floor, temperature=args.temperature)
                moves = BoardSet(max_boards=args.exact_cap)  # the UNIFORM move model
                score_stream(
                    game.events[color], game.truth[color], prior, stockfish, moves, buckets, large[opponent], times, args
                )
            print(f"  game {number}/{len(specs)} ({names[0]} vs {names[1]})", flush=True)
    finally:
        stockfish.engine.close()
    return buckets, times, large


def table(title: str, buckets: dict[tuple[int, int], Bucket], times: dict[str, list[float]], large: dict[str, Bucket]) -> str:
    lines = [
        f"### {title}",
        "",
        "| set size | points | -log2 P: uniform | moves | stockfish | learned | top-1: uniform | moves | stockfish | learned "
        "| top-5: uniform | moves | stockfish | learned | CE bits/board: " + " | ".join(MARGINALS) + " |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key in BUCKETS:
        bucket = buckets.get(key)
        if bucket is None or not bucket.points:
            continue
        label = f"{key[0]}" if key[0] == key[1] else f"{key[0]}-{key[1]}" if key[1] < 10**12 else f">{key[0] - 1}"
        cells = [label, str(bucket.points)]
        for values in (bucket.bits, bucket.top1, bucket.top5):
            cells += [bucket.mean(values, name) for name in METHODS]
        cells += [f"{ce / bucket.points:.2f}" for ce in bucket.cross_entropy]
        lines.append("| " + " | ".join(cells) + " |")
    ms = {name: np.array(times[name] or [math.nan]) * 1e3 for name in ("update", "sampled", "whole")}
    lines += [
        "",
        f"LearnedPrior update: mean {ms['update'].mean():.2f} ms, median {np.median(ms['update']):.2f} ms, "
        f"p95 {np.percentile(ms['update'], 95):.2f} ms over {len(ms['update'])} events (1 torch thread)",
        "",
        f"NeuralPosterior marginals on sets of more than {EXACT_BELOW} boards ({len(ms['sampled'])} points): the sample's"
        f" mean {ms['sampled'].mean():.1f} ms (max {ms['sampled'].max():.1f}), the whole weighted set's"
        f" {ms['whole'].mean():.1f} ms (max {ms['whole'].max():.1f}); ratio {ms['whole'].mean() / ms['sampled'].mean():.1f}",
        "",
        f"Sets of more than {LARGE} boards, by opponent (learned / uniform: the acceptance target is at most 0.5;"
        f" stockfish only on sets of at most --stockfish-max boards):",
        "",
        "| opponent | points | -log2 P: uniform | moves | stockfish | learned | learned / uniform "
        "| CE bits/board: " + " | ".join(MARGINALS) + " |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    total = Bucket()
    for name, bucket in [*sorted(large.items()), ("all", total)]:
        if name != "all":
            total.merge(bucket)
        if not bucket.points:
            continue
        ratio = (bucket.bits["learned"] / bucket.bits["uniform"]) if bucket.bits["uniform"] else math.nan
        cells = [name, str(bucket.points), *(bucket.mean(bucket.bits, method) for method in METHODS), f"{ratio:.2f}"]
        cells += [f"{ce / bucket.points:.2f}" for ce in bucket.cross_entropy]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join([*lines, ""])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model folder (default: the shipped model)")
    parser.add_argument(
        "--seed", type=int, default=1, help="the training data's run seed (default 1, as in docs/neural.md)"
    )
    parser.add_argument("--games", type=int, default=30, help="held-out games of the training mix to score")
    parser.add_argument("--holdout", type=int, default=10, help="the training run's held-out percent")
    parser.add_argument(
        "--mix", type=float, default=0.05, help="share of the uniform set kept by the learned weighting"
    )
    parser.add_argument("--floor", type=float, default=1e-3)
    parser.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE)
    parser.add_argument("--unseen", default="flagship", help="opponent outside the training mix")
    parser.add_argument("--unseen-games", type=int, default=10)
    parser.add_argument("--unseen-seed", type=int, default=7)
    parser.add_argument(
        "--exact-cap", type=int, default=200_000, help="children per expansion before a stream stops counting"
    )
    parser.add_argument("--stockfish-max", type=int, default=2000, help="largest set the Stockfish weighting scores")
    args = parser.parse_args()
    torch.set_num_threads(1)
    logging.getLogger("chess.engine").setLevel(
        logging.CRITICAL
    )  # impossible RBC boards make Stockfish print unparsable lines
    model = load_model(args.model) if args.model else default_model()
    held: list[GameSpec] = []
    index = 0
    while len(held) < args.games:
        spec = GameSpec(index, args.seed, DEFAULT_MIX)
        if held_out(game_id(spec), args.holdout):
            held.append(spec)
        index += 1
    print(f"held-out games of the training mix {DEFAULT_MIX}: {len(held)}", flush=True)
    in_mix = run(held, None, args, model)
    unseen_mix = (args.unseen, *DEFAULT_MIX)
    unseen_specs = [
        s
        for s in (GameSpec(i, args.unseen_seed, unseen_mix) for i in range(args.unseen_games * 20))
        if args.unseen in pairing(s)[:2]
    ][: args.unseen_games]
    print(f"games with the unseen opponent {args.unseen}: {len(unseen_specs)}", flush=True)
    unseen = run(unseen_specs, args.unseen, args, model)
    print()
    print(table(f"Held-out games, opponents in the training mix ({', '.join(DEFAULT_MIX)})", *in_mix))
    print(table(f"Unseen opponent: {args.unseen} (cheap settings), scored from the side facing it", *unseen))


if __name__ == "__main__":
    main()
