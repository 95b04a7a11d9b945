"""One player's turn and what it recorded: `Turn`, the two phases of a turn, and the lazy truth FEN.

Contract: `Turn` is reconchess 1.6.9's turn (colour and per-colour number, ordered in play
order, hashable); `TurnRecord` holds the phases a turn got through (a game can end between
them); `TruthFen` is a truth position given as a FEN or as a snapshot turned into FEN on
first use.

Why a module of its own: the history (:mod:`blindchess.arbiter.game.history`), its JSON codec
(:mod:`blindchess.arbiter.game.history_codec`) and the play loop's faults
(:mod:`blindchess.arbiter.game.faults`) all speak of turns; with the turn here, none of them needs
another's module, so the arbiter has no import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional, Union

import chess

from ..types import Color, Square

SenseResultList = list[tuple[Square, Optional[chess.Piece]]]
"""A sense result as reconchess hands it out: a list of (square, piece or None)."""


class Turn:
    """One player's turn: its colour and how many turns that player took before it (from 0)."""

    __slots__ = ("color", "turn_number")

    def __init__(self, color: Color, turn_number: int) -> None:
        self.color = color
        self.turn_number = turn_number

    @property
    def next(self) -> Turn:
        """The turn right after this one (the other player's)."""
        return Turn(not self.color, self.turn_number + (0 if self.color == chess.WHITE else 1))

    @property
    def previous(self) -> Turn:
        """The turn right before this one (the other player's)."""
        return Turn(not self.color, self.turn_number - (1 if self.color == chess.WHITE else 0))

    def _key(self) -> tuple[int, int]:
        return self.turn_number, 0 if self.color == chess.WHITE else 1

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Turn):
            return NotImplemented
        return self.color == other.color and self.turn_number == other.turn_number

    def __hash__(self) -> int:
        return hash(self._key())

    def __lt__(self, other: Turn) -> bool:
        if not isinstance(other, Turn):
            return NotImplemented
        return self._key() < other._key()

    def __le__(self, other: Turn) -> bool:
        if not isinstance(other, Turn):
            return NotImplemented
        return self._key() <= other._key()

    def __str__(self) -> str:
        return f"Turn({chess.COLOR_NAMES[self.color]}, {self.turn_number})"

    __repr__ = __str__


class TruthFen:
    """The truth position at one moment: a FEN string, or a snapshot whose FEN is computed on first use."""

    __slots__ = ("_fen", "_snapshot", "_to_fen")

    def __init__(self, fen: Optional[str] = None, snapshot: Any = None, to_fen: Optional[Callable[[Any], str]] = None):
        self._fen = fen
        self._snapshot = snapshot
        self._to_fen = to_fen

    @property
    def fen(self) -> str:
        if self._fen is None:
            assert self._to_fen is not None, "a snapshot always carries its FEN function"
            self._fen = self._to_fen(self._snapshot)
            self._snapshot = None
        return self._fen


FenSource = Union[str, TruthFen]


class SensePhase(NamedTuple):
    """What a turn's sense phase recorded: the square asked for (None for no sense) and the window seen."""

    square: Optional[Square]
    result: SenseResultList


class MovePhase(NamedTuple):
    """What a turn's move phase recorded, with the truth position before and after the move."""

    requested_move: Optional[chess.Move]
    taken_move: Optional[chess.Move]
    capture_square: Optional[Square]
    before: TruthFen
    after: TruthFen


@dataclass(slots=True)
class TurnRecord:
    """One turn of one player: the phases it got through (a game can end between them)."""

    sense: Optional[SensePhase] = None
    move: Optional[MovePhase] = None


new_phase = tuple.__new__
"""Builds a phase as ``new_phase(SensePhase, (square, result))``: the named tuple's own constructor is a
Python function, and the game records two phases a turn."""
