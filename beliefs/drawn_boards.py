"""`Rows`: boards drawn from a board set, kept in its compact layout, and the questions planners ask of them.

Why: a planner or selector that draws thousands of boards a turn and builds a `chess.Board`
for each spends its clock building Python objects. A `Rows` holds the drawn rows as the board
set stores them (:mod:`blindchess.beliefs.board_layout`) and answers threat levels, proxy move
values, exposure, material and king squares with the compiled kernels of
:mod:`blindchess.beliefs.sample_queries`; `boards` builds `chess.Board` objects only for the few
boards an engine must see. A belief that can draw rows says so by having `sample_rows`
(`RowSampler`: the board set; the hybrid while it is exact; a weighting over a board set);
:mod:`blindchess.beliefs.samples` keeps the python-chess path for every other belief.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional, Protocol, runtime_checkable

import chess
import numpy as np

from blindchess.arbiter.types import Color
from blindchess.evaluation.king_hunt import NO_KING

from . import sample_queries
from .board_layout import piece_grid, row_board
from .board_set_updates import unique_rows


@dataclass(frozen=True, slots=True)
class Rows:
    """Boards in the compact layout: our pieces `own` (shared), and per row the opponent's `opp`, `castling`, `ep`.

    Attributes:
        color: our colour (the owner of `own`).
        turn: the side to move on every row.
        index: each row's index in the set it was drawn from (equal indices: the same board).
    """

    color: Color
    turn: Color
    own: np.ndarray
    opp: np.ndarray
    castling: np.ndarray
    ep: np.ndarray
    index: np.ndarray

    def __len__(self) -> int:
        return int(self.opp.shape[0])

    def take(self, rows: np.ndarray) -> Rows:
        """The rows `rows` (positions in this one), in that order."""
        return Rows(self.color, self.turn, self.own, self.opp[rows], self.castling[rows], self.ep[rows], self.index[rows])

    def boards(self, turn: Optional[Color] = None) -> list[chess.Board]:
        """Every row as a `chess.Board` (move counters at their defaults), `turn` to move (default: `self.turn`)."""
        side = self.turn if turn is None else turn
        return [
            row_board(self.own, self.opp[i], self.color, side, int(self.castling[i]), int(self.ep[i])) for i in range(len(self))
        ]

    def grid(self) -> np.ndarray:
        """Shape (N, 64) uint8: the marginal channel of every square on each row (`blindchess.beliefs.base.channel`)."""
        return piece_grid(self.own, self.opp, self.color)

    @property
    def _white(self) -> int:
        return 1 if self.color == chess.WHITE else 0

    def threat_levels(self) -> np.ndarray:
        """Per row: 2 where our king is attacked, 1 where a square next to it is, else 0 (`evaluation.values.threat_levels`)."""
        levels: np.ndarray = sample_queries.threat_levels(self.own, self.opp, self._white)
        return levels

    def move_values(self, moves: Sequence[Optional[chess.Move]]) -> np.ndarray:
        """Shape (N, len(moves)): `evaluation.values.proxy_move_value` of each move (None: pass) on each row, our side to move."""
        values: np.ndarray = sample_queries.move_values(self.own, self.opp, self.castling, self.ep, self._white, *self._moves(moves))
        return values

    def exposure(self, moves: Sequence[Optional[chess.Move]], weights: np.ndarray) -> np.ndarray:
        """Per move, the weight of the rows where our king stands attacked after it (and it does not capture the king)."""
        exposed: np.ndarray = sample_queries.exposure(
            self.own, self.opp, self.castling, self.ep, self._white, *self._moves(moves), np.asarray(weights, dtype=np.float64)
        )
        return exposed

    def material_balance(self) -> np.ndarray:
        """Per row, our material less the opponent's, in pawns (`evaluation.values.material_balance`)."""
        balance: np.ndarray = sample_queries.material_balance(self.own, self.opp)
        return balance

    def opponent_king_squares(self) -> np.ndarray:
        """Per row, the opponent king's square (`NO_KING` where it has none)."""
        kings = self.opp[:, 5]
        squares = np.full(len(self), NO_KING, dtype=np.int64)
        present = kings != 0
        squares[present] = np.log2(kings[present].astype(np.float64)).astype(np.int64)  # exact: one bit set
        return squares

    def unique(self) -> tuple[Rows, np.ndarray]:
        """The distinct boards in order of first appearance, and how many rows each stands for.

        Two rows are one board when their FENs agree (as `chess.Board.fen` writes them, `turn`
        our side): the en-passant square counts only where we could capture there legally
        (`sample_queries.legal_ep`). The first row of each board is kept, its raw en-passant square with it.
        """
        legal = sample_queries.legal_ep(self.own, self.opp, self.ep, self._white).astype(np.int8)
        keep, counts = unique_rows(self.opp, self.castling, legal, np.ones(len(self)), True)
        return self.take(keep), counts[keep]

    def _moves(self, moves: Sequence[Optional[chess.Move]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The move arrays of :mod:`~blindchess.beliefs.sample_queries`; the pass gets piece -1.

        Unchecked: each move is a move action of ours (its from-square holds one of our pieces).
        """
        pieces = np.full(len(moves), -1, dtype=np.int64)
        srcs, dsts, placed = (np.zeros(len(moves), dtype=np.int64) for _ in range(3))
        own = [int(bb) for bb in self.own]
        last_rank = 7 if self.color == chess.WHITE else 0
        for j, move in enumerate(moves):
            if move is None:
                continue
            piece = next(t for t in range(6) if own[t] >> move.from_square & 1)
            promotion = move.promotion
            if promotion is None and piece == 0 and chess.square_rank(move.to_square) == last_rank:
                promotion = chess.QUEEN
            pieces[j], srcs[j], dsts[j] = piece, move.from_square, move.to_square
            placed[j] = piece if promotion is None else promotion - 1
        return pieces, srcs, dsts, placed


@runtime_checkable
class RowSampler(Protocol):
    """A belief that can draw its boards as `Rows`, at least at times (the board set always)."""

    def sample_rows(self, n: int, rng: np.random.Generator) -> Optional[Rows]:
        """`n` rows drawn with replacement by weight, with the very draws `sample(n, rng)` makes.

        None when the belief holds no board-set rows just now (a hybrid under particles);
        then nothing is drawn from `rng`.
        """
        ...
