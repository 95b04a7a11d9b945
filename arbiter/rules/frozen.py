"""`FrozenMove` and `FrozenPiece`: a read-only `chess.Move` and `chess.Piece`, so the arbiter can hand out shared instances.

Contract: `frozen_move` and `frozen_piece` return one shared instance per value; each is a
`chess.Move` (or `chess.Piece`) in every respect (`isinstance` holds, it compares and hashes
equal to the plain object with the same fields, in either order of comparison, prints the
same, and python-chess takes it wherever it takes one) except that assigning or deleting a
field raises AttributeError.

Why: a turn's move actions are about 40 moves and a sense window up to nine pieces, and
building those dataclasses every turn is a measurable share of an arbiter turn
(docs/benchmarks.md). Sharing is only safe if nobody can change a shared object, and
python-chess's `Move` and `Piece` are mutable dataclasses: a bot that wrote
``move.promotion = chess.QUEEN`` into a handed-out move would silently change that move for
every later turn and game. Here such a write is an AttributeError (a bot fault in the play
loop), never silent corruption.

    >>> move = frozen_move(chess.E2, chess.E4)
    >>> move == chess.Move.from_uci("e2e4") and move is frozen_move(chess.E2, chess.E4)
    True
    >>> move.promotion = chess.QUEEN
    Traceback (most recent call last):
    ...
    AttributeError: FrozenMove e2e4 is shared by the arbiter and cannot be changed; build a chess.Move instead
    >>> frozen_piece(chess.KNIGHT, chess.WHITE) == chess.Piece.from_symbol("N")
    True
"""

from __future__ import annotations

from typing import Any, Optional

import chess

from ..types import Square


class ReadOnly:
    """Refuses every write to an instance's fields once built (the fields are set through `_set_fields`).

    The base of the python-chess value objects the arbiter shares between turns, games and
    bots (`FrozenMove`, `FrozenPiece`);
    `plain` names the class to build instead.
    """

    plain = "chess.Move"

    def _set_fields(self, **fields: Any) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} {self} is shared by the arbiter and cannot be changed; build a {self.plain} instead")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} {self} is shared by the arbiter and cannot be changed; build a {self.plain} instead")


class FrozenMove(ReadOnly, chess.Move):
    """A `chess.Move` whose fields cannot be assigned after construction (see the module docstring)."""

    def __init__(
        self, from_square: Square, to_square: Square, promotion: Optional[chess.PieceType] = None, drop: Optional[chess.PieceType] = None
    ) -> None:
        self._set_fields(from_square=from_square, to_square=to_square, promotion=promotion, drop=drop)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, chess.Move):
            return (
                self.from_square == other.from_square
                and self.to_square == other.to_square
                and self.promotion == other.promotion
                and self.drop == other.drop
            )
        return NotImplemented

    __hash__ = chess.Move.__hash__

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenMove, (self.from_square, self.to_square, self.promotion, self.drop))


_INTERNED: dict[tuple[Square, Square, Optional[chess.PieceType]], FrozenMove] = {}


def frozen_move(from_square: Square, to_square: Square, promotion: Optional[chess.PieceType] = None) -> FrozenMove:
    """The one shared `FrozenMove` for (from, to, promotion); at most 64 * 64 * 5 of them ever exist."""
    key = (from_square, to_square, promotion)
    move = _INTERNED.get(key)
    if move is None:
        move = _INTERNED[key] = FrozenMove(from_square, to_square, promotion)
    return move


class FrozenPiece(ReadOnly, chess.Piece):
    """A `chess.Piece` whose fields cannot be assigned after construction (see the module docstring)."""

    plain = "chess.Piece"

    def __init__(self, piece_type: chess.PieceType, color: chess.Color) -> None:
        self._set_fields(piece_type=piece_type, color=color)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, chess.Piece):  # equal to a plain Piece too (dataclass equality wants the same class)
            return self.piece_type == other.piece_type and self.color == other.color
        return NotImplemented

    __hash__ = chess.Piece.__hash__

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenPiece, (self.piece_type, self.color))


_PIECES = {(piece_type, color): FrozenPiece(piece_type, color) for piece_type in chess.PIECE_TYPES for color in chess.COLORS}


def frozen_piece(piece_type: chess.PieceType, color: chess.Color) -> FrozenPiece:
    """The one shared `FrozenPiece` of `piece_type` and `color`."""
    return _PIECES[piece_type, color]
