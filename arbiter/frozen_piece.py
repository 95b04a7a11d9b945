"""`FrozenPiece`: a read-only `chess.Piece`, so sense windows can hold the same twelve pieces every turn.

Why: building a `chess.Piece` (a dataclass) for each occupied square of a sense window was
a few percent of an arbiter turn. The windows therefore hold shared instances, which is
only safe if nobody can change one: python-chess's `Piece` is a mutable dataclass, and a
bot that wrote ``piece.color = chess.BLACK`` into a shared piece would change it in every
later window. A `FrozenPiece` refuses such writes with an AttributeError (a bot fault in
the play loop, never silent corruption) and in every other respect is a `chess.Piece`,
as `FrozenMove` is a `chess.Move` (see :mod:`blindchess.arbiter.frozen_move`).

    >>> frozen_piece(chess.KNIGHT, chess.WHITE) == chess.Piece.from_symbol("N")
    True
"""

from __future__ import annotations

from typing import Any

import chess

from .frozen_move import ReadOnly


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
