"""The board-weight likelihood study's rows as tables: each weighting's -log2 P(true board), against uniform.

`experiments/board_weight_likelihood.py` writes one JSON line per scored point (a drawn own
turn of a recorded game, after the opponent's move or after the sense) holding what every
weighting needs; this module turns a row into each weighting's probability of the true
placement and tabulates them, so a finished run is tabulated again without Stockfish.

A row's fields (``N`` boards in the flagship's set, ``c`` of them with the true placement):

* ``truth_in``: whether the set holds the true placement at all (when not, every weighting
  gives it probability 0: such points are counted, never averaged);
* ``learned``: the learned prior's summed log marginals of the truth (``truth``, temperature
  1), ``log Z_t = log sum_s exp(t * lw(s))`` over the whole set per temperature ``t``
  (``logz``), and the share of the set the prior weighs above the truth (``above``, ties half);
* ``scored``: the placements whose Stockfish scores the row holds, with their board counts
  (``counts``) and summed log marginals (``lw``): every placement of the set when ``all``,
  else ``--boards`` boards drawn uniformly from it;
* ``cp``: per search depth, the truth's score (``truth``), the scored placements' (``uniform``)
  and, when not ``all``, those of ``--boards`` boards drawn by the learned prior's weights
  (``learned``: for the product's normaliser).

Every weighting but uniform keeps ``MIX`` of the uniform set, as `Weighted` does by default::

    P_w(truth) = (1 - MIX) c w(truth) / Z_w + MIX c / N

with ``Z_w = sum_s w(s)`` exact when every placement was scored, else estimated:
``Z_S = N mean_{s ~ uniform} w_S(s)`` for the sigmoid and ``Z_LS = Z_L mean_{s ~ learned}
w_S(s)`` for the product (the sigmoid's weights lie in [floor, 1], so a hundred draws pin the
mean to a few percent). The mixture is ``(P_learned + P_sigmoid) / 2``.

>>> row = {"boards": 4, "truth_count": 1, "truth_in": True, "all": True, "counts": [1, 3],
...        "cp": {"1": {"truth": 0.0, "uniform": [0.0, -200.0]}}}
>>> round(bits(row, Weighting("uniform")), 3), round(bits(row, Weighting("sigmoid", scale=200.0, mix=0.0)), 3)
(2.0, 1.416)
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np

from blindchess.beliefs.board_weights import sigmoid_weights
from blindchess.beliefs.neural_posterior import DEFAULT_TEMPERATURE
from blindchess.experiments.regret_report import bootstrap_interval

MIX = 0.05
"""The share of the uniform set every weighting keeps (`Weighted`'s default)."""
FLOOR = 0.02
"""The sigmoid's least weight (`StockfishSigmoid`'s default, and StrangeFish2's ``min_board_weight``)."""
STRANGEFISH_SCALE = 3000 / (2 * math.log(3))
"""StrangeFish2's scale in centipawns: its sigmoid reaches 0.9 at 3,000 cp (``board_weight_90th_percentile``), 1365 cp."""
BUCKETS = ((1, 1), (2, 10), (11, 100), (101, 1000), (1001, 10_000), (10_001, 10**12))


class RowsError(ValueError):
    """A rows file cannot be tabulated (the message names it and the line)."""


@dataclass(frozen=True)
class Weighting:
    """One weighting of the flagship's set: uniform, learned (temperature), sigmoid (scale, depth), product or mixture of the two."""

    kind: str
    scale: float = 200.0
    depth: int = 1
    temperature: float = DEFAULT_TEMPERATURE
    mix: float = MIX
    cap: Optional[int] = None
    """The sigmoid weighs sets of at most this many boards, larger ones stay uniform (`StockfishSigmoid`'s ``max_boards``)."""

    @property
    def name(self) -> str:
        sigmoid = f"sigmoid {self.scale:.0f} cp, depth {self.depth}"
        capped = "" if self.cap is None else f", sets <= {self.cap}"
        return {
            "uniform": "uniform",
            "learned": f"learned, t = {self.temperature:g}",
            "sigmoid": sigmoid + ("" if self.mix == MIX else f", mix {self.mix:g}") + capped,
            "product": f"learned x {sigmoid}",
            "mixture": f"(learned + {sigmoid}) / 2",
        }[self.kind]


def weightings(
    scales: Sequence[float], depths: Sequence[int], temperatures: Sequence[float], caps: Sequence[int] = ()
) -> list[Weighting]:
    """The table's rows: uniform, the learned prior at each temperature, the sigmoid at each scale and depth (the
    first scale also at mix 0 and at each of `caps`), and the product and mixture of the learned prior (its default
    temperature) with each sigmoid."""
    found = [Weighting("uniform"), *(Weighting("learned", temperature=t) for t in temperatures)]
    for depth in depths:
        found += [Weighting("sigmoid", scale, depth) for scale in scales]
        found.append(Weighting("sigmoid", scales[0], depth, mix=0.0))
        found += [Weighting("sigmoid", scales[0], depth, cap=cap) for cap in caps]
        found += [Weighting(kind, scale, depth) for kind in ("product", "mixture") for scale in scales]
    return found


def _learned_log_z(row: dict[str, Any], temperature: float) -> float:
    return float(row["learned"]["logz"][f"{temperature:g}"])


def probability(row: dict[str, Any], weighting: Weighting) -> float:
    """``P_w(truth)`` of the row (the module docstring); 0 when the set lacks the truth."""
    if not row["truth_in"]:
        return 0.0
    count, boards = row["truth_count"], row["boards"]
    uniform = count / boards
    if weighting.kind == "uniform" or (weighting.cap is not None and boards > weighting.cap):
        return float(uniform)
    if weighting.kind == "mixture":
        return 0.5 * (
            probability(row, Weighting("learned", mix=weighting.mix))
            + probability(row, Weighting("sigmoid", weighting.scale, weighting.depth))
        )
    t = weighting.temperature
    if weighting.kind == "learned":
        weighted = math.exp(t * row["learned"]["truth"] - _learned_log_z(row, t))
    else:
        scores = row["cp"][str(weighting.depth)]
        sampled = sigmoid_weights(np.asarray(scores["uniform"]), weighting.scale, FLOOR)
        truth = float(sigmoid_weights(np.array([scores["truth"]]), weighting.scale, FLOOR)[0])
        counts = np.asarray(row.get("counts") or np.ones(len(sampled)))
        if weighting.kind == "sigmoid":
            z = float((counts * sampled).sum()) if row["all"] else boards * float(sampled.mean())
            weighted = truth / z
        else:  # the product with the learned prior
            if row["all"]:
                log_w = t * np.asarray(row["lw"]) + np.log(counts * sampled)
                log_z = float(log_w.max() + np.log(np.exp(log_w - log_w.max()).sum()))
            else:
                log_z = _learned_log_z(row, t) + math.log(
                    float(sigmoid_weights(np.asarray(scores["learned"]), weighting.scale, FLOOR).mean())
                )
            weighted = math.exp(t * row["learned"]["truth"] + math.log(truth) - log_z)
    return float((1.0 - weighting.mix) * count * weighted + weighting.mix * uniform)


def bits(row: dict[str, Any], weighting: Weighting) -> float:
    """``-log2 P_w(truth)`` (infinite when the set lacks the truth)."""
    p = probability(row, weighting)
    return -math.log2(p) if p > 0 else math.inf


def above(row: dict[str, Any], weighting: Weighting) -> Optional[float]:
    """The share of the set weighted above the truth (ties half), from the scored boards; None for the mixture."""
    if weighting.kind == "uniform" or (weighting.cap is not None and row["boards"] > weighting.cap):
        return 0.5 * (1.0 - float(row["truth_count"]) / float(row["boards"]))
    if weighting.kind == "learned":
        return float(row["learned"]["above"])
    if weighting.kind == "mixture":
        return None
    scores = row["cp"][str(weighting.depth)]
    log_w = np.log(sigmoid_weights(np.asarray([*scores["uniform"], scores["truth"]]), weighting.scale, FLOOR))
    if weighting.kind == "product":
        log_w += weighting.temperature * np.asarray([*row["lw"], row["learned"]["truth"]])
    counts = np.asarray(row.get("counts") or np.ones(len(log_w) - 1))
    others, truth = log_w[:-1], log_w[-1]
    tie = np.isclose(others, truth, rtol=0.0, atol=1e-9)
    return float((counts * ((others > truth) & ~tie) + 0.5 * counts * tie).sum() / counts.sum())


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a rows file, each checked for the fields every weighting reads.

    Raises:
        RowsError: the file is missing, or a line is not a row (named by number).
    """
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise RowsError(f"{path}: cannot read the rows ({error.strerror or error})") from error
    rows = []
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
            if not isinstance(row, dict) or not {"game", "turn", "stage", "boards", "truth_in"} <= row.keys():
                raise ValueError("not a row of board_weight_likelihood")
        except ValueError as error:
            raise RowsError(f"{path}, line {number}: {error}") from error
        rows.append(row)
    return rows


def game_interval(
    games: Sequence[str], differences: Sequence[float], seed: int = 0, resamples: int = 4000
) -> tuple[float, float]:
    """The 95% interval of the mean difference from a bootstrap that resamples whole games (turns of a game share a lot).

    >>> game_interval(["a", "a", "b"], [1.0, 1.0, 1.0])
    (1.0, 1.0)
    """
    names = sorted(set(games))
    index = {name: i for i, name in enumerate(names)}
    sums, counts = np.zeros(len(names)), np.zeros(len(names))
    for game, difference in zip(games, differences, strict=True):
        sums[index[game]] += difference
        counts[index[game]] += 1
    drawn = np.random.default_rng(seed).integers(0, len(names), size=(resamples, len(names)))
    means = sums[drawn].sum(axis=1) / counts[drawn].sum(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def table(rows: Sequence[dict[str, Any]], chosen: Sequence[Weighting], stage: str) -> str:
    """Markdown: per weighting, mean bits over the `stage` points whose set holds the truth, the paired difference
    from uniform with its s.e., turn-bootstrap and game-bootstrap 95% intervals, and the share of the set above the truth."""
    points = [row for row in rows if row["stage"] == stage and row["truth_in"]]
    if not points:
        return f"(no {stage} point whose set holds the truth)"
    base = np.array([bits(row, Weighting("uniform")) for row in points])
    games = [f"{row['game']} {row['color']}" for row in points]
    lines = [
        "| weighting | points | mean -log2 P (bits) | minus uniform | s.e. | 95% (turns) | 95% (games) "
        "| share above truth: mean | median |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for weighting in chosen:
        values = np.array([bits(row, weighting) for row in points])
        difference = values - base
        se = float(difference.std(ddof=1) / math.sqrt(len(difference))) if len(difference) > 1 else 0.0
        low, high = bootstrap_interval(difference.tolist())
        game_low, game_high = game_interval(games, difference.tolist())
        shares = [share for share in (above(row, weighting) for row in points) if share is not None]
        share = f"{np.mean(shares):.3f} | {np.median(shares):.3f}" if shares else "- | -"
        lines.append(
            f"| {weighting.name} | {len(points)} | {values.mean():.2f} | {difference.mean():+.2f} | {se:.2f} "
            f"| {low:+.2f} to {high:+.2f} | {game_low:+.2f} to {game_high:+.2f} | {share} |"
        )
    return "\n".join(lines)


def bucket_table(rows: Sequence[dict[str, Any]], chosen: Sequence[Weighting]) -> str:
    """Markdown: mean bits per weighting by the set's size (every stage), with the share of points holding the truth."""
    grouped: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[next(b for b in BUCKETS if b[0] <= row["boards"] <= b[1])].append(row)
    head = "| boards | points | truth in set | " + " | ".join(w.name for w in chosen) + " |"
    lines = [head, "|---|---|---|" + "---|" * len(chosen)]
    for bucket in BUCKETS:
        members = grouped.get(bucket, [])
        held = [row for row in members if row["truth_in"]]
        if not members:
            continue
        label = (
            str(bucket[0])
            if bucket[0] == bucket[1]
            else f"{bucket[0]}-{bucket[1]}"
            if bucket[1] < 10**12
            else f">{bucket[0] - 1}"
        )
        means = " | ".join(f"{np.mean([bits(row, w) for row in held]):.2f}" if held else "-" for w in chosen)
        lines.append(f"| {label} | {len(members)} | {len(held) / len(members):.0%} | {means} |")
    return "\n".join(lines)


def summary(rows: Sequence[dict[str, Any]]) -> str:
    """One line per stage: points, how many sets hold the truth, how many were capped (inexact), the mean set size."""
    lines = []
    for stage in sorted({row["stage"] for row in rows}):
        at = [row for row in rows if row["stage"] == stage]
        held = sum(row["truth_in"] for row in at)
        capped = sum(not row["exact"] for row in at)
        lines.append(
            f"{stage}: {len(at)} points from {len({(row['game'], row['color']) for row in at})} games; the true placement "
            f"in the set at {held} ({held / len(at):.0%}); {capped} sets capped (inexact); "
            f"median set {np.median([row['boards'] for row in at]):.0f} boards, mean {np.mean([row['boards'] for row in at]):.0f}"
        )
    return "\n".join(lines)
