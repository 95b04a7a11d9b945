"""The regret-per-budget benchmark's results: per setting and budget, position by position, and their tables and plot.

`experiments/regret_per_budget.py` fills an `Arm` per setting and turn budget, one entry per
position in the same order for every arm (an arm run on fewer positions holds the first ones),
and writes each choice as a JSON line; `arms_from_rows` reads those lines back, so the tables
and the plot of a finished run can be drawn again without rerunning it. Errors are over
positions: the standard error and a bootstrap 95% interval of each arm's mean, and the paired
difference from the baseline arm (the first), which cancels what the positions share.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import chess
import numpy as np

from blindchess.arbiter.game.history import GameHistory, Turn
from blindchess.experiments.true_board_regret import ScoreFile, loses_king, loses_material


@dataclass
class Arm:
    """One setting at one budget, and its results position by position."""

    label: str
    settings: dict[str, Any]
    budget: float
    regrets: list[int] = field(default_factory=list)
    kings: list[bool] = field(default_factory=list)
    material: list[bool] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    senses: list[Optional[int]] = field(default_factory=list)


def bootstrap_interval(values: Sequence[float], seed: int = 0, resamples: int = 4000) -> tuple[float, float]:
    """The percentile bootstrap 95% interval of the mean of `values`.

    >>> bootstrap_interval([5.0, 5.0, 5.0])
    (5.0, 5.0)
    """
    data = np.asarray(values, dtype=float)
    means = data[np.random.default_rng(seed).integers(0, len(data), size=(resamples, len(data)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def table(arms: Sequence[Arm], positions: Optional[int] = None) -> str:
    """The results as Markdown; with `positions`, over the first that many positions only."""
    rows = [
        "| setting | turn budget (s) | positions | mean regret (cp) | s.e. | bootstrap 95% | regret / baseline "
        "| minus baseline, paired (s.e.) | loses king | loses >= 300 cp | CPU s per turn | wall s per turn |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    baseline = statistics.mean(arms[0].regrets[:positions])
    for arm in arms:
        regrets = arm.regrets[:positions]
        if not regrets or (positions is not None and len(regrets) < positions):
            continue
        mean = statistics.mean(regrets)
        error = statistics.stdev(regrets) / math.sqrt(len(regrets)) if len(regrets) > 1 else math.nan
        low, high = bootstrap_interval(regrets)
        ratio = mean / baseline if baseline > 0 else math.nan
        rows.append(
            f"| {arm.label} | {arm.budget:g} | {len(regrets)} | {mean:.0f} | {error:.0f} | {low:.0f} to {high:.0f} | {ratio:.2f} "
            f"| {paired(regrets, arms[0].regrets)} "
            f"| {np.mean(arm.kings[:positions]):.0%} | {np.mean(arm.material[:positions]):.0%} "
            f"| {statistics.mean(arm.cpu[:positions]):.2f} | {statistics.mean(arm.wall[:positions]):.2f} |"
        )
    return "\n".join(rows)


def paired(mine: Sequence[float], base: Sequence[float]) -> str:
    """The mean paired difference ``mine - base`` over the positions both hold, with its standard error.

    >>> paired([10.0, 30.0, 20.0], [0.0, 10.0, 20.0])
    '+10 (6)'
    """
    both = min(len(mine), len(base))  # an arm on fewer positions holds the first ones (the module docstring)
    differences = [a - b for a, b in zip(mine[:both], base[:both], strict=True)]
    error = statistics.stdev(differences) / math.sqrt(len(differences)) if len(differences) > 1 else math.nan
    return f"{statistics.mean(differences):+.0f} ({error:.0f})"


def paired_table(arms: Sequence[Arm]) -> str:
    """Each setting against the first setting at the same budget, and against itself at its smallest budget:
    paired differences of mean regret over the same positions (the comparisons the curves are read by). The last
    column counts the positions where the turn sensed another square than at the smallest budget, and the share of
    the absolute change in regret that those positions carry: a planner whose choice moves with its budget
    changes the belief the move is chosen on, which can outweigh the move's own seconds."""
    rows = [
        "| setting | turn budget (s) | minus the first setting at this budget (s.e.) | minus its smallest budget (s.e.) "
        "| sensed elsewhere than at its smallest budget (share of the change) |",
        "|---|---|---|---|---|",
    ]
    for arm in arms:
        first = next(other for other in arms if other.budget == arm.budget)
        smallest = min((other for other in arms if other.label == arm.label), key=lambda other: other.budget)
        both = min(len(arm.regrets), len(smallest.regrets))
        moved = [a != b for a, b in zip(arm.senses[:both], smallest.senses[:both], strict=True)]
        changes = [abs(a - b) for a, b in zip(arm.regrets[:both], smallest.regrets[:both], strict=True)]
        share = sum(change for change, elsewhere in zip(changes, moved, strict=True) if elsewhere) / max(1, sum(changes))
        rows.append(
            f"| {arm.label} | {arm.budget:g} | {paired(arm.regrets, first.regrets)} | {paired(arm.regrets, smallest.regrets)} "
            f"| {sum(moved)} of {len(moved)} ({share:.0%}) |"
        )
    return "\n".join(rows)


def plot(arms: Sequence[Arm], path: Path) -> None:
    """Mean regret against the turn budget and against the CPU seconds a turn took, one line per setting.

    Bars are standard errors over positions; the number of positions is in the title when every point has the
    same, else beside each point. The legend sits below both panels, where long settings fit.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

    counts = {len(arm.regrets) for arm in arms}
    figure, panels = plt.subplots(1, 2, figsize=(11, 5), sharey=True)
    for label in dict.fromkeys(arm.label for arm in arms):
        mine = sorted((arm for arm in arms if arm.label == label), key=lambda arm: arm.budget)
        means = [statistics.mean(arm.regrets) for arm in mine]
        errors = [statistics.stdev(arm.regrets) / math.sqrt(len(arm.regrets)) if len(arm.regrets) > 1 else 0.0 for arm in mine]
        for axes, xs in ((panels[0], [arm.budget for arm in mine]), (panels[1], [statistics.mean(arm.cpu) for arm in mine])):
            axes.errorbar(xs, means, yerr=errors, marker="o", capsize=4, label=label)
            for arm, x, mean in zip(mine, xs, means, strict=True):
                if len(counts) > 1:
                    axes.annotate(f"n={len(arm.regrets)}", (x, mean), textcoords="offset points", xytext=(6, 6), fontsize=8)
    panels[0].set_xlabel("turn budget, seconds (sense + move; wall or CPU, as the run's --clock)")
    panels[1].set_xlabel("CPU seconds the turn took (bot and its engines)")
    panels[0].set_ylabel("mean regret on the true board (cp)")
    for axes in panels:
        axes.set_xscale("log")
        axes.xaxis.set_major_formatter(ScalarFormatter())
        axes.xaxis.set_minor_formatter(NullFormatter())
        axes.grid(alpha=0.3)
    panels[0].set_xticks(sorted({arm.budget for arm in arms}))
    panels[1].xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    handles, labels = panels[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=2, fontsize=8)
    positions = f", {counts.pop()} positions" if len(counts) == 1 else ""
    figure.suptitle(f"The flagship's regret against the seconds of its turn{positions}")
    figure.tight_layout(rect=(0.0, 0.1, 1.0, 1.0))
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)


class RowsError(ValueError):
    """A rows file that is not the benchmark's JSON lines (the message names the file and line)."""


@dataclass(frozen=True, slots=True)
class Row:
    """One choice of the benchmark: which turn, what the bot sensed and requested, and its regret on the true board."""

    position: int
    game: str
    color: chess.Color
    turn: int
    setting: str
    budget: float
    move: Optional[str]
    sense: Optional[int]
    regret: int
    cpu: float
    wall: float


def read_rows(path: Path, budgets: Optional[set[float]] = None, setting: Optional[str] = None) -> list[Row]:
    """The rows of `path` for `setting` and `budgets` (every one of either when not given), whatever their regret.

    Raises:
        RowsError: the file cannot be read, or a line is not a benchmark row (one line naming the file and line).
    """
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise RowsError(f"cannot read rows file {path}: {error.strerror}") from None
    rows = []
    for number, line in enumerate(lines, start=1):
        try:
            data = json.loads(line)
            if data["color"] not in ("white", "black"):
                raise ValueError(f"color {data['color']!r}")
            row = Row(
                int(data["position"]), str(data["game"]), data["color"] == "white", int(data["turn"]), str(data["setting"]),
                float(data["budget"]), None if data["move"] is None else chess.Move.from_uci(data["move"]).uci(),
                None if data["sense"] is None else int(data["sense"]), int(data["regret"]), float(data["cpu"]), float(data["wall"]),
            )  # fmt: skip
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as error:
            raise RowsError(f"{path} line {number} is not a regret benchmark row ({type(error).__name__}: {error})") from None
        if setting in (None, row.setting) and (budgets is None or row.budget in budgets):
            rows.append(row)
    return rows


def unfinished(rows: Sequence[Row]) -> list[int]:
    """The positions some arm lacks while it holds a later one, in order.

    Arms hold their positions in drawn order, one arm's being the first of another's (``--few``), so that
    tables pair them by index. Rows of shards stopped part way break that: a shard cut off in the middle
    of a position has written it for some arms only, while the other shards went on. Those positions
    are left out of every arm.

    >>> rows = [Row(p, "g", True, 1, s, 2.0, None, None, 0, 0.0, 0.0) for p, s in [(0, "a"), (0, "b"), (1, "a"), (2, "a"), (2, "b")]]
    >>> unfinished(rows)
    [1]
    """
    held: dict[tuple[str, float], set[int]] = {}
    for row in rows:
        held.setdefault((row.setting, row.budget), set()).add(row.position)
    every = {row.position for row in rows}
    return sorted({p for positions in held.values() for p in every - positions if p < max(positions)})


def arms_from_rows(path: Path, scores: ScoreFile, depth: int) -> tuple[list[Arm], list[int]]:
    """The arms of a run, from the JSON lines it wrote and the true-board values it kept (at `depth`), positions
    in their drawn order (rows of ``--shard`` runs may be joined in any order), and the `unfinished` positions
    left out of them.

    Raises:
        RowsError: the file cannot be read, or a line is not a row (`read_rows`).
        ValueError: a row whose true board `scores` does not hold at `depth` (the message names it).
    """
    arms: dict[tuple[str, float], Arm] = {}
    histories: dict[str, GameHistory] = {}
    rows = read_rows(path)
    left_out = unfinished(rows)
    for row in sorted(rows, key=lambda row: row.position):  # shards' rows joined: in position order
        if row.position in left_out:
            continue
        history = histories.setdefault(row.game, GameHistory.from_file(row.game))
        truth = history.truth_board_before_move(Turn(row.color, row.turn))
        values = scores.known(truth, depth)
        if values is None:
            raise ValueError(f"{scores.path} has no values at depth {depth} for {row.game} turn {row.turn} ({truth.fen()})")
        move = None if row.move is None else chess.Move.from_uci(row.move)
        arm = arms.setdefault((row.setting, row.budget), Arm(row.setting, {}, row.budget))
        arm.regrets.append(row.regret)
        arm.kings.append(loses_king(values, move))
        arm.material.append(loses_material(values, move))
        arm.cpu.append(row.cpu)
        arm.wall.append(row.wall)
        arm.senses.append(row.sense)
    return list(arms.values()), left_out
