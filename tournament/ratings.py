"""Elo ratings by maximum likelihood over all games, with draws and a first-move advantage (BayesElo's model).

The online Elo of the server (:func:`blindchess.elo.updated_ratings`) moves two ratings after each
game, so its result depends on the order of the games. Here every game counts the same: the ratings
are the ones under which the games seen are most probable. Both use the one Elo curve of
:mod:`blindchess.elo`.

Model (Coulom's BayesElo): with :math:`f(x) = 1 / (1 + 10^{-x/400})`, White rated :math:`r_w`,
Black :math:`r_b`, a White advantage :math:`a` and a draw width :math:`\\delta \\ge 0`,

.. math::
    P(\\text{White wins}) = f(r_w - r_b + a - \\delta), \\quad
    P(\\text{Black wins}) = f(r_b - r_w - a - \\delta), \\quad
    P(\\text{draw}) = 1 - \\text{both}.

Ratings are relative: their mean is fixed at 0. :math:`a` and :math:`\\delta` are fitted with
them; the 95% intervals are :math:`\\pm 1.96` standard errors from the inverse of the observed
information (the Hessian of the negative log-likelihood in the ratings, with :math:`a` and
:math:`\\delta` held at their estimates, as BayesElo does), in the sum-to-zero subspace.

A player who won (or lost) every game has an infinite MLE rating. `prior_games` adds that many
virtual games between every pair of players who met, half won by each side, spread over both
colours: a Beta-like prior that keeps a perfect score finite. (BayesElo adds virtual draws
instead, which works because it holds the draw width fixed; with the draw width fitted, virtual
draws would be explained by a wide draw width and leave the ratings unbounded.) 0 gives the plain MLE.

Example: 2 players, 60 wins, 20 draws, 20 losses for A with colours balanced; with two
players the fitted probabilities equal the observed frequencies, so
:math:`r_A - r_B = 200 (\\log_{10}\\frac{0.6}{0.4} - \\log_{10}\\frac{0.2}{0.8})`::

    >>> games = [("A", "B", 1.0)] * 30 + [("B", "A", 0.0)] * 30 + [("A", "B", 0.5)] * 10 + \\
    ...         [("B", "A", 0.5)] * 10 + [("A", "B", 0.0)] * 10 + [("B", "A", 1.0)] * 10
    >>> fit = fit_elo(games, prior_games=0.0)
    >>> round(fit.ratings["A"] - fit.ratings["B"], 1)
    155.6
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from blindchess.elo import log_expected_score

from .stats import StatisticsError

Z95 = 1.959963984540054


@dataclass(frozen=True)
class EloFit:
    """Fitted ratings (mean 0) with 95% interval half-widths, the White advantage and the draw width."""

    ratings: dict[str, float]
    margins: dict[str, float]
    advantage: float
    draw_elo: float
    games: int
    covariance: dict[tuple[str, str], float] = field(repr=False, default_factory=dict)

    def interval(self, player: str) -> tuple[float, float]:
        return self.ratings[player] - self.margins[player], self.ratings[player] + self.margins[player]

    def difference(self, first: str, second: str) -> tuple[float, float]:
        """``(r_first - r_second, 95% half-width)``: significant at 5% when the width is below the difference."""
        variance = self.covariance[first, first] + self.covariance[second, second] - 2 * self.covariance[first, second]
        return self.ratings[first] - self.ratings[second], Z95 * math.sqrt(max(variance, 0.0))


def _outcome_logs(diff: np.ndarray, draw: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log P(White wins), log P(draw), log P(Black wins) at Elo differences `diff` (advantage included)."""
    log_win = log_expected_score(diff - draw)
    log_loss = log_expected_score(-diff - draw)
    p_draw = 1.0 - np.exp(log_win) - np.exp(log_loss)
    return log_win, np.log(np.maximum(p_draw, 1e-300)), log_loss


def fit_elo(games: Iterable[tuple[str, str, float]], prior_games: float = 2.0) -> EloFit:
    """Maximum-likelihood Elo of every player from ``(white, black, white_score)`` games.

    Raises:
        StatisticsError: no games, a score other than 0, 1/2 or 1, or a player against itself.
    """
    table: dict[tuple[str, str], list[float]] = {}
    count = 0
    for white, black, score in games:
        if score not in (0.0, 0.5, 1.0):
            raise StatisticsError(f"a game score is 0, 0.5 or 1, got {score!r} in {white!r} vs {black!r}")
        if white == black:
            raise StatisticsError(f"player {white!r} is paired with itself")
        table.setdefault((white, black), [0.0, 0.0, 0.0])[int(2 * score)] += 1.0  # [losses, draws, wins] for White
        count += 1
    if not table:
        raise StatisticsError("no games to rate")
    if prior_games > 0:
        for white, black in {tuple(sorted(pair)) for pair in table}:
            for key in ((white, black), (black, white)):
                cell = table.setdefault(key, [0.0, 0.0, 0.0])
                cell[0] += prior_games / 4.0  # White lost
                cell[2] += prior_games / 4.0  # White won
    players = sorted({name for pair in table for name in pair})
    index = {name: position for position, name in enumerate(players)}
    white_index = np.array([index[white] for white, _ in table])
    black_index = np.array([index[black] for _, black in table])
    counts = np.array(list(table.values()))  # columns: White lost, drew, won
    n = len(players)

    def ratings_of(free: np.ndarray) -> np.ndarray:
        return np.append(free, -free.sum())  # mean zero: the last rating is minus the sum of the others

    def negative_log_likelihood(parameters: np.ndarray) -> float:
        ratings = ratings_of(parameters[: n - 1])
        advantage, draw = parameters[n - 1], parameters[n]
        log_win, log_draw, log_loss = _outcome_logs(ratings[white_index] - ratings[black_index] + advantage, draw)
        return -float(np.sum(counts[:, 2] * log_win + counts[:, 1] * log_draw + counts[:, 0] * log_loss))

    from scipy.optimize import minimize  # here, not at the top: scipy takes a second to import (`blindchess --help`)

    start = np.append(np.zeros(n + 1 - 1), 100.0)
    bounds = [(-2000.0, 2000.0)] * (n - 1) + [(-1000.0, 1000.0), (0.0, 2000.0)]
    solution = minimize(negative_log_likelihood, start, method="L-BFGS-B", bounds=bounds, options={"ftol": 1e-15, "gtol": 1e-10})
    parameters = solution.x
    ratings = ratings_of(parameters[: n - 1])
    advantage, draw = float(parameters[n - 1]), float(parameters[n])
    covariance = _rating_covariance(ratings, advantage, draw, white_index, black_index, counts)
    margins = Z95 * np.sqrt(np.maximum(np.diag(covariance), 0.0))
    return EloFit(
        ratings={name: float(ratings[index[name]]) for name in players},
        margins={name: float(margins[index[name]]) for name in players},
        advantage=advantage,
        draw_elo=draw,
        games=count,
        covariance={(a, b): float(covariance[index[a], index[b]]) for a in players for b in players},
    )


def _rating_covariance(
    ratings: np.ndarray, advantage: float, draw: float, white: np.ndarray, black: np.ndarray, counts: np.ndarray
) -> np.ndarray:
    """Covariance of the ratings in the mean-zero subspace (module docstring), by exact second derivatives.

    Every game's log-likelihood depends on the ratings only through :math:`d = r_w - r_b`, so
    the Hessian is :math:`\\sum_g c_g\\, \\ell''(d_g) (e_w - e_b)(e_w - e_b)^T`; :math:`\\ell''` is
    taken by central differences of the closed-form log-probabilities (step 1e-3 Elo).
    """
    n = len(ratings)
    diff = ratings[white] - ratings[black] + advantage
    step = 1e-3

    def game_log_likelihood(d: np.ndarray) -> np.ndarray:
        log_win, log_draw, log_loss = _outcome_logs(d, draw)
        return np.asarray(counts[:, 2] * log_win + counts[:, 1] * log_draw + counts[:, 0] * log_loss)

    curvature = -(game_log_likelihood(diff + step) - 2 * game_log_likelihood(diff) + game_log_likelihood(diff - step)) / step**2
    information = np.zeros((n, n))
    for w, b, c in zip(white, black, curvature, strict=True):
        information[w, w] += c
        information[b, b] += c
        information[w, b] -= c
        information[b, w] -= c
    basis = _sum_to_zero_basis(n)
    reduced = basis.T @ information @ basis
    return np.asarray(basis @ np.linalg.pinv(reduced) @ basis.T)


def _sum_to_zero_basis(n: int) -> np.ndarray:
    """An orthonormal basis (n x n-1) of the vectors whose entries sum to zero."""
    full = np.linalg.qr(np.column_stack([np.ones(n), np.eye(n)[:, : n - 1]]))[0]
    return np.asarray(full[:, 1:])


def scores_by_player(games: Sequence[tuple[str, str, float]]) -> dict[str, tuple[int, int, int]]:
    """(wins, draws, losses) of every player.

    >>> scores_by_player([("A", "B", 1.0), ("B", "A", 0.5)])
    {'A': (1, 1, 0), 'B': (0, 1, 1)}
    """
    tally: dict[str, list[int]] = {}
    for white, black, score in games:
        for player, own in ((white, score), (black, 1.0 - score)):
            tally.setdefault(player, [0, 0, 0])[0 if own == 1.0 else 1 if own == 0.5 else 2] += 1
    return {player: (wins, draws, losses) for player, (wins, draws, losses) in sorted(tally.items())}
