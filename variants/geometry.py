"""Board geometry for small rectangular boards embedded in python-chess's 8x8 numbering.

A board of `files` x `ranks` uses the lower-left corner of the 8x8 board: files
a.. and ranks 1.., so every square is still a python-chess `Square` (a1 = 0,
b1 = 1, a2 = 8). The geometry precomputes, for every on-board square, the
targets of each piece kind clipped to the small board; the move generators of
Mini-Chess and the teaching boards only walk these tables.

Piece codes are the marginal channels of :func:`blindchess.beliefs.base.channel`:
0 empty, 1..6 white pawn..king, 7..12 black pawn..king.
"""

from __future__ import annotations

import chess

from blindchess.arbiter.types import Square
from blindchess.errors import BlindchessError

EMPTY = 0
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
BLACK_OFFSET = 6
"""A black piece's code is its python-chess piece type plus 6."""

_KNIGHT_STEPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_KING_STEPS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
_ORTHOGONAL = ((0, 1), (1, 0), (0, -1), (-1, 0))
_DIAGONAL = ((1, 1), (1, -1), (-1, -1), (-1, 1))


def piece_code(piece: chess.Piece | None) -> int:
    """The code of a python-chess piece (0 for None)."""
    if piece is None:
        return EMPTY
    return piece.piece_type + (0 if piece.color == chess.WHITE else BLACK_OFFSET)


def code_piece(code: int) -> chess.Piece | None:
    """The python-chess piece of a code (None for an empty square)."""
    if code == EMPTY:
        return None
    return chess.Piece(code - BLACK_OFFSET, chess.BLACK) if code > BLACK_OFFSET else chess.Piece(code, chess.WHITE)


class BoardSizeError(BlindchessError, ValueError):
    """A board size outside what the 8x8 numbering can hold."""


class Geometry:
    """The on-board squares of a `files` x `ranks` board and the piece-target tables over them."""

    def __init__(self, files: int, ranks: int) -> None:
        if not (3 <= files <= 8 and 3 <= ranks <= 8):
            raise BoardSizeError(f"board size {files}x{ranks} is outside 3x3..8x8")
        self.files = files
        self.ranks = ranks
        self._windows: dict[Square, tuple[Square, ...]] = {}
        self.squares: tuple[Square, ...] = tuple(chess.square(f, r) for r in range(ranks) for f in range(files))
        self.mask = 0
        for square in self.squares:
            self.mask |= 1 << square
        self.knight = self._steps(_KNIGHT_STEPS)
        self.king = self._steps(_KING_STEPS)
        self.orthogonal_step = self._steps(_ORTHOGONAL)
        self.rook_rays = self._rays(_ORTHOGONAL)
        self.bishop_rays = self._rays(_DIAGONAL)
        self.queen_rays = tuple(r + b for r, b in zip(self.rook_rays, self.bishop_rays, strict=True))
        # pawn_push[color][square] is the one-step target or -1; pawn_captures[color][square] the diagonals.
        self.pawn_push = (self._pawn_push(-1), self._pawn_push(1))
        self.pawn_captures = (self._steps(((-1, -1), (1, -1))), self._steps(((-1, 1), (1, 1))))
        # path[(origin, target)]: the squares after `origin` up to and including `target` on a rank, file or diagonal.
        self.path: dict[tuple[Square, Square], tuple[Square, ...]] = {}
        for origin in self.squares:
            for ray in self.queen_rays[origin]:
                for i, target in enumerate(ray):
                    self.path[(origin, target)] = ray[: i + 1]
        self.last_rank = (tuple(chess.square(f, 0) for f in range(files)), tuple(chess.square(f, ranks - 1) for f in range(files)))

    def __repr__(self) -> str:
        return f"Geometry({self.files}, {self.ranks})"

    def contains(self, square: Square) -> bool:
        """True when `square` lies on this board."""
        return 0 <= square < 64 and bool(self.mask >> square & 1)

    def _on(self, file: int, rank: int) -> bool:
        return 0 <= file < self.files and 0 <= rank < self.ranks

    def _steps(self, steps: tuple[tuple[int, int], ...]) -> tuple[tuple[Square, ...], ...]:
        table: list[tuple[Square, ...]] = [()] * 64
        for square in self.squares:
            f, r = chess.square_file(square), chess.square_rank(square)
            table[square] = tuple(chess.square(f + df, r + dr) for df, dr in steps if self._on(f + df, r + dr))
        return tuple(table)

    def _rays(self, directions: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[Square, ...], ...], ...]:
        table: list[tuple[tuple[Square, ...], ...]] = [()] * 64
        for square in self.squares:
            f, r = chess.square_file(square), chess.square_rank(square)
            rays = []
            for df, dr in directions:
                ray = []
                nf, nr = f + df, r + dr
                while self._on(nf, nr):
                    ray.append(chess.square(nf, nr))
                    nf, nr = nf + df, nr + dr
                if ray:
                    rays.append(tuple(ray))
            table[square] = tuple(rays)
        return tuple(table)

    def _pawn_push(self, direction: int) -> tuple[Square, ...]:
        table = [-1] * 64
        for square in self.squares:
            f, r = chess.square_file(square), chess.square_rank(square)
            if self._on(f, r + direction):
                table[square] = chess.square(f, r + direction)
        return tuple(table)

    def window(self, square: Square) -> tuple[Square, ...]:
        """The 3x3 window centred on `square`, clipped to the board, rank descending then file ascending."""
        window = self._windows.get(square)
        if window is None:
            f, r = chess.square_file(square), chess.square_rank(square)
            window = tuple(
                chess.square(nf, nr) for nr in (r + 1, r, r - 1) for nf in (f - 1, f, f + 1) if self._on(nf, nr)
            )
            self._windows[square] = window
        return window
