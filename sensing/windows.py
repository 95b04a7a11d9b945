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
    uncertain: np.ndarray = np.asarray(marginals).max(axis=1) < 1.0 - tolerance
    return uncertain


def informative_centres(centres: Iterable[Square], varying: np.ndarray) -> list[Square]:
    """The undominated centres among `centres` whose window holds at least one varying square."""
    varying_mask = sum(1 << int(s) for s in np.flatnonzero(varying))
    return [c for c in undominated(centres) if int(WINDOW_MASKS[c]) & varying_mask]


class WindowOutcomes:
    """The outcome label of every candidate window on every board of a grid.

    Labels are computed lazily per centre and cached, so a planner that prunes centres by
    a bound (see `entropies`) never pays for the pruned ones.

    Args:
        grid: shape (N, 64) uint8 channels (see `WeightedBoards.piece_grid`).
        centres: the candidate centres to label.
    """

    DIRECT_RANGE_PER_BOARD = 8
    """Label ranges up to this many times N (and at least 4096) are counted directly with bincount."""

    def __init__(self, grid: np.ndarray, centres: Sequence[Square]) -> None:
        grid = np.asarray(grid)
        if grid.ndim != 2 or grid.shape[1] != 64:
            raise ValueError(f"piece grid must have shape (N, 64), got {grid.shape}")
        self.centres = list(centres)
        self.n_boards = grid.shape[0]
        by_square = np.ascontiguousarray(grid.T)  # one contiguous row per square
        if self.n_boards:
            varying = np.flatnonzero(by_square.min(axis=1) != by_square.max(axis=1))
        else:
            varying = np.zeros(0, dtype=np.int64)
        self._raw = {int(s): by_square[s] for s in varying}
        self._dense: dict[int, np.ndarray] = {}
        self._radix: dict[int, int] = {}
        for square, row in self._raw.items():
            present = np.bincount(row, minlength=N_CHANNELS) > 0
            relabel = (np.cumsum(present) - 1).astype(np.uint8)
            self._dense[square] = relabel[row]
            self._radix[square] = int(present.sum())
        self._labels: dict[int, Optional[tuple[np.ndarray, int]]] = {}

    def label(self, index: int) -> Optional[tuple[np.ndarray, int]]:
        """For centre number `index`: shape (N,) int64 outcome labels and their range; None if constant."""
        if index not in self._labels:
            self._labels[index] = self._compute_label(self.centres[index])
        return self._labels[index]

    @property
    def labels(self) -> list[Optional[tuple[np.ndarray, int]]]:
        """`label` of every centre, in order."""
        return [self.label(i) for i in range(len(self.centres))]

    def _compute_label(self, centre: Square) -> Optional[tuple[np.ndarray, int]]:
        squares = [s for s in WINDOWS[centre] if s in self._dense]
        if not squares:
            return None
        direct_limit = max(4096, self.DIRECT_RANGE_PER_BOARD * self.n_boards)
        code = self._dense[squares[0]].astype(np.int64)
        size = self._radix[squares[0]]
        for square in squares[1:]:
            if size * self._radix[square] > direct_limit:
                code, size = _compress(code)
            code += self._dense[square].astype(np.int64) * size
            size *= self._radix[square]
        if size > direct_limit:
            code, size = _compress(code)
        return code, size

    def square_entropies(self, weights: np.ndarray) -> np.ndarray:
        """Shape (64,): the entropy in bits of each square's content (0 for constant squares)."""
        result = np.zeros(64)
        for square, row in self._raw.items():
            result[square] = _entropy(np.bincount(row, weights=weights, minlength=N_CHANNELS))
        return result

    def entropy(self, index: int, weights: np.ndarray) -> float:
        """The entropy (bits) of centre number `index`'s outcome: the expected information gain there."""
        item = self.label(index)
        return 0.0 if item is None else _entropy(np.bincount(item[0], weights=weights, minlength=item[1]))

    def entropies(self, weights: np.ndarray, prune: bool = False) -> np.ndarray:
        """Per centre, the entropy of its outcome in bits.

        With `prune`, only what is needed to find the maximum is computed exactly: a window's
        entropy lies between the largest and the sum of its squares' entropies
        (subadditivity), so centres are scored in decreasing order of that upper bound and the
        rest are skipped once the bound falls below the best exact score; skipped centres get
        ``-inf``. The maximum and every centre within 1e-9 of it are exact either way.
        """
        if not prune:
            return np.array([self.entropy(i, weights) for i in range(len(self.centres))])
        per_square = self.square_entropies(weights)
        upper = np.array([per_square[list(WINDOWS[c])].sum() for c in self.centres])
        upper = np.minimum(upper, np.log2(max(1, self.n_boards)) + 1e-9)
        result = np.full(len(self.centres), -np.inf)
        best = -np.inf
        for index in np.argsort(-upper, kind="stable"):
            if upper[index] < best - 1e-9:
                break
            result[index] = self.entropy(int(index), weights)
            best = max(best, float(result[index]))
        return result

    def expected_sizes(self, weights: np.ndarray) -> np.ndarray:
        """Per centre, the expected number of boards left after sensing there: sum_o P(o) |{b : o(b) = o}|."""
        result = np.full(len(self.centres), float(self.n_boards))
        for i in range(len(self.centres)):
            item = self.label(i)
            if item is not None:
                code, size = item
                counts = np.bincount(code, minlength=size)
                result[i] = float(np.dot(weights, counts[code]))
        return result


def _compress(code: np.ndarray) -> tuple[np.ndarray, int]:
    """Relabel arbitrary int64 codes densely (a sort); used when a window's label range grows large."""
    unique, inverse = np.unique(code, return_inverse=True)
    return inverse.astype(np.int64).ravel(), len(unique)


def _entropy(probabilities: np.ndarray) -> float:
    total = probabilities.sum()
    if total <= 0:
        return 0.0
    p = probabilities[probabilities > 0] / total
    return float(-(p * np.log2(p)).sum())
