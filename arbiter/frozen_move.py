"""`FrozenMove`: a read-only `chess.Move`, so the arbiter can hand out the same instances every turn.

Why: a turn's move actions are about 40 moves, and building 40 `chess.Move` dataclasses
costs a fifth of a whole arbiter turn. The move generator therefore keeps one instance per
(from, to, promotion) and hands out those. Sharing is only safe if nobody can change a
shared move; python-chess's `Move` is a mutable dataclass, so a bot that wrote
``move.promotion = chess.QUEEN`` into a handed-out move would silently change that move
for every later turn and game. A `FrozenMove` refuses such writes with an
AttributeError (a bot fault in the play loop, never silent corruption), and in every
other respect is a `chess.Move`: `isinstance` holds, it compares and hashes equal to the
`chess.Move` with the same fields (in either order of comparison: as a subclass that
defines ``__eq__``, Python asks it first), prints the same, and python-chess takes it
wherever it takes a move.

    >>> move = frozen_move(chess.E2, chess.E4)
    >>> move == chess.Move.from_uci("e2e4") and move is frozen_move(chess.E2, chess.E4)
    True
    >>> move.promotion = chess.QUEEN
    Traceback (most recent call last):
    ...
    AttributeError: FrozenMove e2e4 is shared by the arbiter and cannot be changed; build a chess.Move instead
"""

from __future__ import annotations

from typing import Any, Optional

import chess

from .types import Square


class ReadOnly:
    """Refuses every write to an instance's fields once built (the fields are set through `_set_fields`).

    The base of the python-chess value objects the arbiter shares between turns, games and
    bots (`FrozenMove`, and `FrozenPiece` in :mod:`blindchess.arbiter.frozen_piece`);
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
