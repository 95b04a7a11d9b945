"""The variant seam: what the game flow asks of a rule set.

The game flow (phases, clocks, observations, histories) never touches a board
directly; it asks a `Rules` object. The 8x8 RBC rules are `STANDARD`; Mini-Chess
(5x6) and the small teaching boards implement the same protocol over their own
board type. Squares and moves stay python-chess's `Square` (0..63, a1 = 0) and
`chess.Move` on every board size, so notation and observations are shared: a
smaller board simply uses the lower-left files and ranks.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Generic, Optional, Protocol, TypeVar

import chess

from blindchess.arbiter.rules import fast_actions, fast_push, fast_reading, fast_revision
from blindchess.arbiter.rules import reference as rules
from blindchess.arbiter.types import Color, SenseWindow, Square

BoardT = TypeVar("BoardT")


class Rules(Protocol, Generic[BoardT]):
    """A rule set for the RBC turn structure (sense, then move with revision)."""

    name: str

    def starting_board(self, fen: Optional[str] = None) -> BoardT:
        """The start position (or the one `fen` gives)."""
        ...

    def fen(self, board: BoardT) -> str:
        """A FEN of `board`, as histories record it."""
        ...

    def copy(self, board: BoardT) -> BoardT: ...

    def turn(self, board: BoardT) -> Color: ...

    def sense_actions(self, board: BoardT) -> list[Square]: ...

    def sense(self, board: BoardT, square: Square) -> SenseWindow: ...

    def move_actions(self, board: BoardT) -> list[chess.Move]:
        """Moves the side to move may request, knowing only its own pieces."""
        ...

    def normalize(self, board: BoardT, move: chess.Move) -> chess.Move:
        """The request as the arbiter reads it (e.g. a default promotion piece added)."""
        ...

    def revise(self, board: BoardT, move: chess.Move) -> Optional[chess.Move]:
        """The move actually made for a normalized request, or None if it is illegal."""
        ...

    def capture_square(self, board: BoardT, move: Optional[chess.Move]) -> Optional[Square]: ...

    def push(self, board: BoardT, move: Optional[chess.Move]) -> None:
        """Make `move` in place; None is a pass (the turn still changes)."""
        ...

    def king_captured(self, board: BoardT) -> Optional[Color]:
        """The colour whose king has been captured, or None."""
        ...

    def halfmove_clock(self, board: BoardT) -> int:
        """Half-moves since the last capture or pawn move (for the reversible-move limit)."""
        ...

    def fullmove_number(self, board: BoardT) -> int: ...


class StandardRules:
    """Reconnaissance Blind Chess on the 8x8 board (see :mod:`blindchess.arbiter.rules`).

    The fast readers and writers are bound as static methods rather than wrapped: the
    game calls them several times a turn, and a delegating method would add a Python
    call each time. Each equals its reference in `rules` (see the modules' tests).
    """

    name = "rbc"

    def starting_board(self, fen: Optional[str] = None) -> chess.Board:
        return chess.Board(fen) if fen is not None else chess.Board()

    fen = staticmethod(fast_reading.fen)  # equal to board.fen(en_passant="fen"), faster
    snapshot = staticmethod(fast_reading.position_key)  # optional capability used by the game flow: a cheap comparable record
    snapshot_fen = staticmethod(fast_reading.fen_of_key)

    def copy(self, board: chess.Board) -> chess.Board:
        return board.copy(stack=False)

    def turn(self, board: chess.Board) -> Color:
        return board.turn

    def sense_actions(self, board: chess.Board) -> list[Square]:
        return rules.sense_actions()

    sense = staticmethod(fast_reading.sense_window)  # equal to rules.sense_window
    move_actions = staticmethod(fast_actions.move_actions)  # equal to rules.move_actions, without copying the board
    normalize = staticmethod(rules.with_default_promotion)
    revise = staticmethod(fast_revision.revise_move)  # equal to rules.revise_move, from bitboards
    capture_square = staticmethod(fast_revision.capture_square)  # equal to rules.capture_square_of_move
    push = staticmethod(fast_push.push)  # equal to rules.push, without python-chess's undo stack
    king_captured = staticmethod(rules.king_captured)

    halfmove_clock = staticmethod(attrgetter("halfmove_clock"))  # read in C: `is_over` asks every turn
    fullmove_number = staticmethod(attrgetter("fullmove_number"))


STANDARD = StandardRules()
"""The 8x8 RBC rules."""
