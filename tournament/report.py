"""Tables and a plot of recorded games: Elo (MLE, 95%), win/draw/loss with Wilson intervals, pentanomials.

The score interval is Wilson's on the score fraction (a draw counts a half), which is
conservative with draws (they shrink the true variance). Pentanomial counts are over the
colour-swapped pairs whose two games both finished, from the first-named player's side.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from blindchess.text_tables import table as text_table

from .ratings import EloFit, fit_elo, scores_by_player
from .results_db import GameRow
from .stats import pentanomial, wilson_interval


@dataclass(frozen=True)
class Standings:
    """Ratings and counts of a set of games."""

    fit: EloFit
    records: dict[str, tuple[int, int, int]]
    pentanomials: dict[str, tuple[int, int, int, int, int]]
    failed: int


def standings(rows: Sequence[GameRow], prior_games: float = 2.0) -> Standings:
    """Rate the played games of `rows` (failed games are only counted)."""
    played = [row for row in rows if row.ok]
    games = [(row.white, row.black, row.white_score()) for row in played]
    pairs: dict[tuple[str, int], list[GameRow]] = defaultdict(list)
    for row in played:
        pairs[row.pairing, row.pair].append(row)
    pair_scores: dict[str, list[float]] = defaultdict(list)
    for (pairing, _), games_of_pair in sorted(pairs.items()):
        if len(games_of_pair) == 2:
            first = pairing.split(" vs ")[0]
            pair_scores[pairing].append(sum(row.white_score() if row.white == first else 1.0 - row.white_score() for row in games_of_pair))
    return Standings(
        fit=fit_elo(games, prior_games=prior_games),
        records=scores_by_player(games),
        pentanomials={pairing: pentanomial(scores) for pairing, scores in pair_scores.items()},
        failed=len(rows) - len(played),
    )


def table(result: Standings) -> str:
    """The standings as plain text: players by rating, then pentanomials and significant differences."""
    fit = result.fit
    order = sorted(fit.ratings, key=lambda player: -fit.ratings[player])
    rows: list[list[object]] = []
    for player in order:
        wins, draws, losses = result.records[player]
        games = wins + draws + losses
        low, high = wilson_interval(wins + draws / 2, games)
        rows.append([
            player, f"{fit.ratings[player]:.0f}", f"{fit.margins[player]:.0f}", games, wins, draws, losses,
            f"{(wins + draws / 2) / games:.3f}", f"{low:.3f}-{high:.3f}",
        ])  # fmt: skip
    lines = [text_table(["player", "Elo", "95%", "games", "W", "D", "L", "score", "95% (Wilson)"], rows), ""]
    lines.append(f"{fit.games} games rated; White advantage {fit.advantage:+.0f} Elo, draw width {fit.draw_elo:.0f} Elo"
                 + (f"; {result.failed} failed games not rated" if result.failed else ""))
    if result.pentanomials:
        header = ["pairing (pairs, first player scoring 0 .. 2)", "0", "1/2", "1", "3/2", "2"]
        lines += ["", text_table(header, [[pairing, *counts] for pairing, counts in result.pentanomials.items()])]
    significant = [
        (a, b, *fit.difference(a, b))
        for index, a in enumerate(order)
        for b in order[index + 1 :]
        if abs(fit.difference(a, b)[0]) > fit.difference(a, b)[1]
    ]
    lines.append("")
    listed = ", ".join(f"{a} > {b} by {d:.0f} +- {m:.0f}" for a, b, d, m in significant)
    lines.append("significant differences (95%): " + (listed or "none"))
    return "\n".join(lines)


def clock_use(label: str, shares: Sequence[float]) -> str:
    """One line on how much of its clock a player used over games (each share: see `GameResult.clock_share`).

    >>> clock_use("A", [0.8, 0.9, 1.0])
    'clock used by A: mean 90%, least 80%, most 100% of start + increments (3 games)'
    """
    return (
        f"clock used by {label}: mean {sum(shares) / len(shares):.0%}, least {min(shares):.0%}, most {max(shares):.0%}"
        f" of start + increments ({len(shares)} games)"
    )


def plot(result: Standings, path: str | Path, title: str = "") -> None:
    """Each player's Elo with its 95% interval, best at the top, saved to `path` (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fit = result.fit
    order = sorted(fit.ratings, key=lambda player: fit.ratings[player])
    figure, axes = plt.subplots(figsize=(7, 0.5 * len(order) + 1.5))
    axes.errorbar([fit.ratings[p] for p in order], range(len(order)), xerr=[fit.margins[p] for p in order], fmt="o", capsize=4)
    axes.set_yticks(range(len(order)), order)
    axes.axvline(0.0, color="grey", linewidth=0.5)
    axes.set_xlabel("Elo (maximum likelihood, mean 0) with 95% interval")
    axes.set_title(title or f"{fit.games} games")
    figure.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(str(path), dpi=120)
    plt.close(figure)
