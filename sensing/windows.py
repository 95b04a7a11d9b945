"""Sense-window geometry and vectorised window outcomes over a whole board set.

Two facts make planning over 100,000 boards cheap:

* **Dominance.** A window centred on an edge square is a subset of the window of the
  neighbouring inner square (a1's {a1, a2, b1, b2} lies inside b2's), so it can never tell
  more; only the 36 inner centres b2..g7 need scoring when all squares may be sensed.
* **Small alphabets.** Over a real belief most squares hold the same thing on every board
  (own pieces, far-away empty squares), and a varying square takes only a handful of values.
  Each square's channel is relabelled densely (0..k-1 for its k distinct values); a window's
  outcome is then the mixed-radix number of its *varying* squares' labels, which usually fits
  a small range, so outcome counts are one `numpy.bincount` per window instead of a sort.

The outcome of sensing at ``c`` on board ``b`` is the tuple of channels in ``window(c)``;
boards with equal outcomes stay together after the sense. Everything here works on the
``(N, 64)`` uint8 channel grid of `blindchess.beliefs.base.WeightedBoards.piece_grid`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Optional

import chess
import numpy as np

from blindchess.arbiter.types import Square
from blindchess.beliefs.base import N_CHANNELS


def window_squares(centre: Square) -> tuple[Square, ...]:
    """The squares a sense centred on `centre` shows (clipped at the edges)."""
    rank, file = chess.square_rank(centre), chess.square_file(centre)
    return tuple(
        chess.square(f, r)
        for r in (rank + 1, rank, rank - 1)
        if 0 <= r <= 7
        for f in (file - 1, file, file + 1)
        if 0 <= f <= 7
    )


WINDOWS: tuple[tuple[Square, ...], ...] = tuple(window_squares(centre) for centre in chess.SQUARES)
"""`window_squares` of every square, indexed by centre."""

WINDOW_MASKS = np.array([sum(1 << s for s in window) for window in WINDOWS], dtype=np.uint64)
"""The window of every centre as a python-chess bitboard."""


def undominated(centres: Iterable[Square]) -> list[Square]:
    """`centres` without those whose window is a strict subset of another candidate's window.

    Two centres with the same window would both be kept; on 8x8 no two windows are equal.

    >>> len(undominated(chess.SQUARES))
    36
    """
    candidates = sorted(set(centres))
    masks = {c: int(WINDOW_MASKS[c]) for c in candidates}
    return [
        c for c in candidates
        if not any(other != c and masks[c] & masks[other] == masks[c] and masks[other] != masks[c] for other in candidates)
    ]


def varying_squares_from_marginals(marginals: np.ndarray, tolerance: float = 1e-12) -> np.ndarray:
    """Shape (64,) bool: squares whose content is uncertain under the marginals."""
    return np.asarray(marginals).max(axis=1) < 1.0 - tolerance


def informative_centres(centres: Iterable[Square], varying: np.ndarray) -> list[Square]:
    """The undominated centres among `centres` whose window holds at least one varying square."""
    varying_mask = sum(1 << int(s) for s in np.flatnonzero(varying))
    return [c for c in undominated(centres) if int(WINDOW_MASKS[c]) & varying_mask]


class WindowOutcomes:
    """The outcome label of every candidate window on every board of a grid.

    Args:
        grid: shape (N, 64) uint8 channels (see `WeightedBoards.piece_grid`).
        centres: the candidate centres to label.

    Attributes:
        centres: the centres, in the order given.
        labels: per centre, shape (N,) int64 labels (boards with equal labels give the same
            outcome) and the label range; None for a window constant over the grid.
    """

    DIRECT_RANGE_PER_BOARD = 8
    """Label ranges up to this many times N (and at least 4096) are counted directly with bincount."""

    def __init__(self, grid: np.ndarray, centres: Sequence[Square]) -> None:
        grid = np.asarray(grid)
        if grid.ndim != 2 or grid.shape[1] != 64:
            raise ValueError(f"piece grid must have shape (N, 64), got {grid.shape}")
        n = grid.shape[0]
        self.centres = list(centres)
        varying = np.flatnonzero(grid.min(axis=0) != grid.max(axis=0)) if n else np.zeros(0, dtype=np.int64)
        column = {int(s): j for j, s in enumerate(varying)}
        dense, radix = _dense_labels(grid[:, varying])
        direct_limit = max(4096, self.DIRECT_RANGE_PER_BOARD * n)
        self.labels: list[Optional[tuple[np.ndarray, int]]] = []
        for centre in self.centres:
            columns = [column[s] for s in WINDOWS[centre] if s in column]
            if not columns:
                self.labels.append(None)
                continue
            code = dense[:, columns[0]].astype(np.int64)
            size = int(radix[columns[0]])
            for j in columns[1:]:
                if size * int(radix[j]) > 2**62:  # keep the mixed-radix number inside int64
                    code, size = _compress(code)
                code += dense[:, j].astype(np.int64) * size
                size *= int(radix[j])
            if size > direct_limit:
                code, size = _compress(code)
            self.labels.append((code, size))

    def outcome_probabilities(self, weights: np.ndarray) -> list[Optional[np.ndarray]]:
        """Per centre, the probability of each outcome label (None for a constant window)."""
        return [None if item is None else np.bincount(item[0], weights=weights, minlength=item[1]) for item in self.labels]

    def entropies(self, weights: np.ndarray) -> np.ndarray:
        """Per centre, the entropy (bits) of its outcome: the expected information gain of sensing there."""
        result = np.zeros(len(self.centres))
        for i, probabilities in enumerate(self.outcome_probabilities(weights)):
            if probabilities is not None:
                result[i] = _entropy(probabilities)
        return result

    def expected_sizes(self, weights: np.ndarray) -> np.ndarray:
        """Per centre, the expected number of boards left after sensing there: sum_o P(o) |{b : o(b) = o}|."""
        n = len(weights)
        result = np.full(len(self.centres), float(n))
        for i, item in enumerate(self.labels):
            if item is not None:
                code, size = item
                counts = np.bincount(code, minlength=size)
                result[i] = float(np.dot(weights, counts[code]))
        return result


def _dense_labels(columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Relabel each column's channels to 0..k-1; returns the labels (uint8) and each column's k."""
    n, width = columns.shape
    if width == 0:
        return np.zeros((n, 0), dtype=np.uint8), np.zeros(0, dtype=np.int64)
    offsets = (np.arange(width, dtype=np.int64) * N_CHANNELS)[None, :]
    present = np.bincount((columns.astype(np.int64) + offsets).ravel(), minlength=width * N_CHANNELS)
    present = present.reshape(width, N_CHANNELS) > 0
    relabel = (np.cumsum(present, axis=1) - 1).astype(np.uint8)
    dense = relabel[np.arange(width)[None, :], columns]
    return dense, present.sum(axis=1)


def _compress(code: np.ndarray) -> tuple[np.ndarray, int]:
    """Relabel arbitrary int64 codes densely (a sort); used when a window's label range is large."""
    unique, inverse = np.unique(code, return_inverse=True)
    return inverse.astype(np.int64).ravel(), len(unique)


def _entropy(probabilities: np.ndarray) -> float:
    total = probabilities.sum()
    if total <= 0:
        return 0.0
    p = probabilities[probabilities > 0] / total
    return float(-(p * np.log2(p)).sum())
