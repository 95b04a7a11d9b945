"""The action numbering of the learning environment: one `Discrete` space per board for both phases.

A board with ``n`` squares (its sense actions: 64 on 8x8, 16 on the 4x4 teaching board) numbers
its actions as below, where ``i(s)`` is the position of square ``s`` among the board's squares in
ascending python-chess order (a1 = 0, b1, ..., then rank 2; a 4x4 board uses a1..d4)::

    0 .. n-1                       sense the 3x3 window centred on square i^-1(a)
    n                              NONE: skip the sense (sense phase) or pass (move phase)
    n+1 + k*n*n + i(from)*n + i(to)  request the move from -> to, k the promotion kind

``k`` is 0 for no promotion or a queen promotion (one square pair never has both: only a
pawn moves onto its last rank, and a pawn must promote), and 1, 2, 3 for the under-promotions to
knight, bishop and rook, which only 8x8 RBC offers; the small boards promote to a queen only
and have ``k = 0`` alone. So the 8x8 space has ``64 + 1 + 4 * 4096 = 16449`` actions and the 4x4
teaching board ``16 + 1 + 256 = 273``.

The phase decides which actions apply; the mask in each observation marks them (the sense
actions and NONE, or the move actions and NONE). A move index means the *requested* move:
the arbiter revises it (a slider stops at the first blocker, an impossible pawn move passes),
exactly as it would for a `Player`.

>>> import chess
>>> codec = ActionCodec(tuple(chess.SQUARES))
>>> codec.size, codec.none
(16449, 64)
>>> codec.move_action(chess.Move.from_uci("e2e4")) == 65 + chess.E2 * 64 + chess.E4
True
>>> codec.move_action(chess.Move.from_uci("a7a8n")) - codec.move_action(chess.Move.from_uci("a7a8q")) == 4096
True
"""

from __future__ import annotations

from typing import Optional

import chess
import numpy as np

from blindchess.arbiter.types import Square

_PROMOTION_KINDS = {None: 0, chess.QUEEN: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3}


class ActionCodec:
    """Maps senses and requested moves to action numbers and back, for one board (see the module docstring).

    Args:
        squares: the board's squares (its sense actions), in any order; they are sorted.
    """

    def __init__(self, squares: tuple[Square, ...]) -> None:
        self.squares = tuple(sorted(squares))
        n = len(self.squares)
        self.n_squares = n
        self.none = n
        """The action that skips the sense or passes the move."""
        self.under_promotions = n == 64
        self.size = n + 1 + (4 if self.under_promotions else 1) * n * n
        self._position = np.full(64, -1, dtype=np.int64)
        self._position[list(self.squares)] = np.arange(n)
        self._position_of = {square: int(self._position[square]) for square in self.squares}
        self._sense_cache: dict[tuple[Square, ...], np.ndarray] = {}
        self._number_by_id: dict[int, int] = {}  # see move_numbers
        self._kept: list[chess.Move] = []
        self._cache_limit = 8 * n * n  # every (from, to, promotion) of the board, and then some

    def sense_action(self, square: Optional[Square]) -> int:
        """The action that senses around `square` (None: skip the sense)."""
        return self.none if square is None else self._position_of[square]

    def sense_of(self, action: int) -> Optional[Square]:
        """The sense square of a sense-phase action (None for NONE); unchecked: `action` must be below `none + 1`."""
        return None if action == self.none else self.squares[action]

    def move_action(self, move: Optional[chess.Move]) -> int:
        """The action that requests `move` (None: pass).

        Raises:
            KeyError: a square of `move` is not on this board, or its promotion is not one of this board's.
        """
        if move is None:
            return self.none
        n = self.n_squares
        kind = _PROMOTION_KINDS[move.promotion]
        if kind and not self.under_promotions:
            raise KeyError(f"{move.uci()}: this board promotes to a queen only")
        return n + 1 + kind * n * n + self._position_of[move.from_square] * n + self._position_of[move.to_square]

    def sense_indices(self, sense_actions: list[Square]) -> np.ndarray:
        """The actions of a sense phase (the sense squares, then NONE), cached: every turn offers the same squares."""
        key = tuple(sense_actions)
        indices = self._sense_cache.get(key)
        if indices is None:
            indices = np.array([self._position_of[square] for square in key] + [self.none], dtype=np.int64)
            self._sense_cache[key] = indices
        return indices

    def move_numbers(self, move_actions: list[chess.Move]) -> list[int]:
        """The action number of each move of `move_actions`, in order (unchecked: every move must be on this board).

        The arbiter hands out shared move instances (`FrozenMove`), the same objects turn after turn, so the
        numbers are cached by object identity: a cached turn is two C-level maps. The cache keeps each move it
        numbered alive, so an id in it always names that very object (no other can reuse the id meanwhile);
        it is cleared when it outgrows the board's possible moves (rules that build fresh moves every turn).
        """
        numbers = list(map(self._number_by_id.get, map(id, move_actions)))
        if None in numbers:
            if len(self._number_by_id) > self._cache_limit:
                self._number_by_id.clear()
                self._kept.clear()
            for position, move in enumerate(move_actions):
                if numbers[position] is None:
                    numbers[position] = self._number_by_id[id(move)] = self.move_action(move)
                    self._kept.append(move)
        return numbers  # type: ignore[return-value]  # no None left

    def move_indices(self, move_actions: list[chess.Move]) -> tuple[np.ndarray, dict[int, chess.Move]]:
        """The actions of a move phase (the move actions, then NONE) and each move action's number -> the move itself.

        The table hands the arbiter the very objects of its own `move_actions()` list (it finds those fastest).
        Unchecked: every move must be on this board (the arbiter's lists are).
        """
        numbers = self.move_numbers(move_actions)
        table = dict(zip(numbers, move_actions, strict=True))
        numbers.append(self.none)
        return np.array(numbers, dtype=np.int64), table

    def mask_of(self, indices: np.ndarray) -> np.ndarray:
        """The action mask (int8, shape ``(size,)``) that allows exactly `indices`."""
        mask = np.zeros(self.size, dtype=np.int8)
        mask[indices] = 1
        return mask

    def sense_mask(self, sense_actions: list[Square]) -> np.ndarray:
        """The action mask of a sense phase: the sense squares and NONE."""
        return self.mask_of(self.sense_indices(sense_actions))

    def move_table(self, move_actions: list[chess.Move]) -> tuple[np.ndarray, dict[int, chess.Move]]:
        """The action mask of a move phase (the move actions and NONE) and the table of `move_indices`."""
        indices, table = self.move_indices(move_actions)
        return self.mask_of(indices), table
