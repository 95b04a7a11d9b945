"""Sense likelihoods: how probable a reported 3x3 window is on each board, for the particle filter.

RBC's sensor is exact, but the RBC family of variants anticipates noisy ones. A
likelihood here models a sensor that reports each square of the window independently,
so all it needs per board is ``k``, how many window squares the report gets wrong on
that board (``n`` squares in all)::

    L(o | s) = f(k(s, o), n)

`ExactSensing` is ``f = [k == 0]`` (hard consistency: the board set's filter).
`NoisySensing(p)` is the sensor that misreports each square with probability ``p``,
replacing its content by one of the 12 other contents uniformly::

    f(k, n) = (p / 12)^k (1 - p)^(n - k)

Any object with ``is_exact`` and ``factors(mismatches, squares)`` drops in (see
`SenseLikelihood`). `NoisySensing.corrupt` is the matching simulator, for tests and
benchmarks that need noisy observations of real games.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import chess
import numba as nb
import numpy as np

from blindchess.arbiter.rules.lookup_tables import BIT
from blindchess.arbiter.types import SenseWindow

_OTHER_CONTENTS = 12
"""A misreported square shows one of the 13 contents (empty, 12 pieces) other than the true one."""

NOT_OPPONENT_PIECE = -1
"""`window_mismatches` code: the report shows no opponent piece (empty)."""
ALWAYS_WRONG = -2
"""`window_mismatches` code: the report is wrong on every board (our own piece misreported, or shown where we have none)."""


@runtime_checkable
class SenseLikelihood(Protocol):
    """``f(k, n)``: the likelihood of a window report that is wrong on ``k`` of its ``n`` squares."""

    @property
    def is_exact(self) -> bool:
        """True when every board the report gets wrong on any square has likelihood zero."""
        ...

    def factors(self, mismatches: np.ndarray, squares: int) -> np.ndarray:
        """Per board, the likelihood (up to one shared constant) from its mismatch count."""
        ...


@dataclass(frozen=True)
class ExactSensing:
    """RBC's sensor: the window is reported exactly, so a board either agrees (1) or is impossible (0)."""

    @property
    def is_exact(self) -> bool:
        return True

    def factors(self, mismatches: np.ndarray, squares: int) -> np.ndarray:
        factors: np.ndarray = (mismatches == 0).astype(np.float64)
        return factors


@dataclass(frozen=True)
class NoisySensing:
    """Each sensed square misreported with probability `p` (to one of the 12 other contents, uniformly).

    >>> NoisySensing(0.1).factors(np.array([0, 1]), 9).round(4).tolist()
    [0.3874, 0.0036]
    """

    p: float

    def __post_init__(self) -> None:
        if not 0.0 < self.p < 1.0:
            raise ValueError(f"a noisy sensor needs 0 < p < 1, got {self.p!r} (use ExactSensing for p = 0)")

    @property
    def is_exact(self) -> bool:
        return False

    def factors(self, mismatches: np.ndarray, squares: int) -> np.ndarray:
        k = mismatches.astype(np.float64)
        return (self.p / _OTHER_CONTENTS) ** k * (1.0 - self.p) ** (squares - k)

    def corrupt(self, window: SenseWindow, rng: np.random.Generator) -> SenseWindow:
        """The window as this sensor would report it: each square, with probability `p`, shows another content."""
        contents: list[chess.Piece | None] = [None] + [chess.Piece(t, c) for c in (chess.WHITE, chess.BLACK) for t in chess.PIECE_TYPES]
        reported = []
        for square, piece in window:
            if rng.random() < self.p:
                others = [c for c in contents if c != piece]
                piece = others[int(rng.integers(len(others)))]
            reported.append((square, piece))
        return tuple(reported)


def window_codes(window: SenseWindow, color: chess.Color, own_piece_at: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The report as kernel input: (squares, code per square) for `window_mismatches`.

    A square holding our own piece (``own_piece_at``: square -> piece type index) is
    the same on every board, so it is left out when reported correctly and coded
    `ALWAYS_WRONG` otherwise; an opponent piece is coded by its type index (0..5).
    """
    squares, codes = [], []
    for square, piece in window:
        own = own_piece_at.get(square)
        reported_own = piece.piece_type - 1 if piece is not None and piece.color == color else None
        if own is not None:
            if own != reported_own:
                squares.append(square)
                codes.append(ALWAYS_WRONG)
            continue
        squares.append(square)
        if piece is None:
            codes.append(NOT_OPPONENT_PIECE)
        else:
            codes.append(ALWAYS_WRONG if reported_own is not None else piece.piece_type - 1)
    return np.array(squares, dtype=np.int64), np.array(codes, dtype=np.int64)


@nb.njit(cache=True)
def window_mismatches(opp: np.ndarray, squares: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Per board (row of ``opp``), how many of ``squares`` disagree with ``codes`` (see `window_codes`). Unchecked."""
    n = opp.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        wrong = 0
        for j in range(squares.shape[0]):
            code = codes[j]
            if code == ALWAYS_WRONG:
                wrong += 1
                continue
            bit = BIT[squares[j]]
            here = NOT_OPPONENT_PIECE
            for t in range(6):
                if opp[i, t] & bit:
                    here = t
                    break
            if here != code:
                wrong += 1
        out[i] = wrong
    return out
