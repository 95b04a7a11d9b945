"""Mini-Chess on the 5x6 board (and the small teaching boards), as a rules object.

Rules implemented (seed 002, "Rules of Mini-Chess"), the default setting::

    The game is played on a 5x6 board, files a-e, ranks 1-6.  White moves first.
    Start:  kqbnr / ppppp / ..... / ..... / PPPPP / RNBQK   (rank 6 down to rank 1)
    King, queen, rook, bishop and knight move as in chess.  The pawn moves one
    square forward, captures one square diagonally forward, is blocked by any
    piece, and on the far rank becomes a queen.  No castling, no en passant, no
    double step.  Moving into check is legal.
    The first player to capture the opponent's king wins.  A game lasting more
    than 40 moves by each side is a draw.  A player with no legal move: draw.
    K v K, K v K+N, K v K+B: draw.

The rules of the Internet MiniChess Server (IMCS 2.5, "MinitChess 2011") are the
setting ``MiniChessRules(imcs=True)`` (`IMCS`):

- a bishop may also step one square orthogonally, onto an empty square only
  (never capturing);
- there are no material draws;
- a side with no legal move loses;
- the game is drawn after Black's 40th move.

Decisions where the seed text is silent or loose (deliberate, tested):

- "More than 40 moves by each side is a draw" and IMCS's "drawn after Black's
  40th move" are read the same way: once 80 plies have been played without a
  king capture the game is drawn. A king captured on ply 80 still wins.
- Terminal checks run in this order after every ply: king capture, move limit,
  material draw (seed rules only), no legal move for the side to move.
- Perft counts stop only at a king capture (as the golden counts from the start
  position do); the move limit, material draws and stalemates are game-level
  rules (:meth:`MiniChessRules.outcome`), not move-generator ones. A position
  without moves simply has no children.
- Positions are stored in python-chess's square numbering (a 5x6 board uses a1..e6
  of the 8x8 board) so that moves are `chess.Move` and a position converts to a
  `chess.Board` holding the same pieces (castling rights and en passant empty).
- The same generator, with another `Geometry` and start position, runs the
  teaching boards (:mod:`blindchess.variants.teaching`).

Internally a position is a 64-entry list of piece codes (see
:mod:`~blindchess.variants.geometry`) and a move is an int
``from | to << 6 | promotion << 12``; the `chess.Move` entry points are checked,
the int ones (`generate`, `make`, `unmake`) are unchecked and fast.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Optional

import chess

from blindchess.arbiter.types import Color, Square
from blindchess.errors import BlindchessError
from blindchess.variants.geometry import (
    BISHOP,
    BLACK_OFFSET,
    EMPTY,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    Geometry,
    code_piece,
    piece_code,
)

MINICHESS_START = "kqbnr/ppppp/5/5/PPPPP/RNBQK"
"""The seed's start position, rank 6 first (a small-board placement: digits count empty squares)."""

PROMOTION_FLAG = 1 << 12
_KING_CODES = (KING + BLACK_OFFSET, KING)  # indexed by colour: black king, white king


class MiniChessError(BlindchessError, ValueError):
    """Base class of the errors the Mini-Chess rules raise."""


class PlacementError(MiniChessError):
    """A start placement that does not fit the board."""


class IllegalMiniChessMove(MiniChessError):
    """A move that is not legal in the position."""


class Termination(Enum):
    """Why a Mini-Chess game ended."""

    KING_CAPTURE = 1
    MOVE_LIMIT = 2
    MATERIAL = 3
    NO_MOVES = 4


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: the winner (None for a draw) and why."""

    winner: Optional[Color]
    termination: Termination


@dataclass(slots=True)
class Position:
    """A Mini-Chess position: piece codes on the 64 python-chess squares, the side to move, plies played."""

    cells: list[int]
    turn: Color = chess.WHITE
    ply: int = 0

    def copy(self) -> Position:
        return Position(list(self.cells), self.turn, self.ply)

    def key(self) -> tuple[tuple[int, ...], Color, int]:
        """A hashable snapshot (for determinism checks and tables)."""
        return tuple(self.cells), self.turn, self.ply


def encode(move: chess.Move) -> int:
    """The int form of a `chess.Move` (promotion flag set for any promotion piece)."""
    return move.from_square | move.to_square << 6 | (PROMOTION_FLAG if move.promotion is not None else 0)


def decode(move: int) -> chess.Move:
    """The `chess.Move` of an int move (promotions are to a queen)."""
    return chess.Move(move & 63, move >> 6 & 63, chess.QUEEN if move & PROMOTION_FLAG else None)


@dataclass(frozen=True)
class MiniChessRules:
    """A Mini-Chess rule set: board geometry, start placement and the seed/IMCS settings.

    >>> MINICHESS.perft(MINICHESS.start(), 3), IMCS.perft(IMCS.start(), 3)
    (452, 473)
    """

    name: str = "minichess"
    files: int = 5
    ranks: int = 6
    start_placement: str = MINICHESS_START
    imcs: bool = False
    """IMCS 2.5 rules: bishop's orthogonal step, no material draws, no legal move loses."""
    moves_per_side: int = 40
    geometry: Geometry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "geometry", Geometry(self.files, self.ranks))
        self.start()  # validates the placement now rather than at the first game

    # -- positions ---------------------------------------------------------------

    def start(self) -> Position:
        """The start position (White to move)."""
        return self.position(self.start_placement)

    def position(self, placement: str, turn: Color = chess.WHITE, ply: int = 0) -> Position:
        """The position of a small-board placement (rank `ranks` first, digits or ``.`` for empty squares).

        Raises:
            PlacementError: the placement does not fit the board (the message quotes it).
        """
        rows = placement.split("/")
        if len(rows) != self.ranks:
            raise PlacementError(f"placement {placement!r} has {len(rows)} ranks, the board has {self.ranks}")
        cells = [EMPTY] * 64
        for i, row in enumerate(rows):
            rank = self.ranks - 1 - i
            file = 0
            for char in row:
                if char.isdigit():
                    file += int(char)
                    continue
                if char == ".":
                    file += 1
                    continue
                try:
                    piece = chess.Piece.from_symbol(char)
                except ValueError:
                    raise PlacementError(f"placement {placement!r}: unknown piece {char!r}") from None
                if file >= self.files:
                    raise PlacementError(f"placement {placement!r}: rank {rank + 1} is longer than {self.files} files")
                cells[chess.square(file, rank)] = piece_code(piece)
                file += 1
            if file != self.files:
                raise PlacementError(f"placement {placement!r}: rank {rank + 1} has {file} files, not {self.files}")
        return Position(cells, turn, ply)

    def placement(self, position: Position) -> str:
        """The small-board placement of `position`, rank `ranks` first (as `start_placement` is written)."""
        rows = []
        for rank in range(self.ranks - 1, -1, -1):
            row, empty = "", 0
            for file in range(self.files):
                piece = code_piece(position.cells[chess.square(file, rank)])
                if piece is None:
                    empty += 1
                    continue
                row += (str(empty) if empty else "") + piece.symbol()
                empty = 0
            rows.append(row + (str(empty) if empty else ""))
        return "/".join(rows)

    def to_board(self, position: Position) -> chess.Board:
        """A `chess.Board` holding the same pieces on the same squares (no castling rights, no en passant)."""
        board = chess.Board(None)
        for square in self.geometry.squares:
            piece = code_piece(position.cells[square])
            if piece is not None:
                board.set_piece_at(square, piece)
        board.turn = position.turn
        board.fullmove_number = position.ply // 2 + 1
        return board

    def from_board(self, board: chess.Board) -> Position:
        """The position a `chess.Board` holds (pieces off this board raise `PlacementError`)."""
        cells = [EMPTY] * 64
        for square, piece in board.piece_map().items():
            if not self.geometry.contains(square):
                raise PlacementError(
                    f"{board.fen()}: {piece.symbol()} on {chess.square_name(square)} is off the {self.files}x{self.ranks} board"
                )
            cells[square] = piece_code(piece)
        ply = 2 * (board.fullmove_number - 1) + (0 if board.turn == chess.WHITE else 1)
        return Position(cells, board.turn, ply)

    # -- move generation (unchecked, int moves) ----------------------------------

    def generate(self, cells: list[int], turn: Color) -> list[int]:
        """Every legal move (int form) of `turn` on `cells`. Unchecked: `cells` must be on this board."""
        geometry = self.geometry
        low, high = (1, 6) if turn else (7, 12)
        push, captures = geometry.pawn_push[turn], geometry.pawn_captures[turn]
        last_rank_mask = 0
        for square in geometry.last_rank[turn]:
            last_rank_mask |= 1 << square
        moves: list[int] = []
        append = moves.append
        for square in geometry.squares:
            code = cells[square]
            if code < low or code > high:
                continue
            kind = code - low + 1
            if kind == PAWN:
                target = push[square]
                flag = PROMOTION_FLAG if target >= 0 and last_rank_mask >> target & 1 else 0
                if target >= 0 and cells[target] == EMPTY:
                    append(square | target << 6 | flag)
                for target in captures[square]:
                    other = cells[target]
                    if other != EMPTY and (other < low or other > high):
                        append(square | target << 6 | flag)
            elif kind in (KNIGHT, KING):
                for target in (geometry.knight if kind == KNIGHT else geometry.king)[square]:
                    other = cells[target]
                    if other < low or other > high:
                        append(square | target << 6)
            else:
                rays = geometry.rook_rays if kind == ROOK else geometry.bishop_rays if kind == BISHOP else geometry.queen_rays
                for ray in rays[square]:
                    for target in ray:
                        other = cells[target]
                        if other == EMPTY:
                            append(square | target << 6)
                            continue
                        if other < low or other > high:
                            append(square | target << 6)
                        break
                if kind == BISHOP and self.imcs:
                    for target in geometry.orthogonal_step[square]:
                        if cells[target] == EMPTY:
                            append(square | target << 6)
        return moves

    @staticmethod
    def make(cells: list[int], move: int) -> int:
        """Make an int move in place; returns the captured code (0 for none). Unchecked."""
        origin, target = move & 63, move >> 6 & 63
        moved, captured = cells[origin], cells[target]
        cells[origin] = EMPTY
        cells[target] = (QUEEN + (BLACK_OFFSET if moved > BLACK_OFFSET else 0)) if move & PROMOTION_FLAG else moved
        return captured

    @staticmethod
    def unmake(cells: list[int], move: int, captured: int) -> None:
        """Take back `make(cells, move)` that returned `captured`. Unchecked."""
        origin, target = move & 63, move >> 6 & 63
        moved = cells[target]
        if move & PROMOTION_FLAG:
            moved = PAWN + (BLACK_OFFSET if moved > BLACK_OFFSET else 0)
        cells[origin] = moved
        cells[target] = captured

    # -- perft --------------------------------------------------------------------

    def perft(self, position: Position, depth: int) -> int:
        """Leaf count of the move tree to `depth` plies, stopping at king captures (bulk-counted at the leaves)."""
        if depth < 0:
            raise MiniChessError(f"perft depth {depth} is negative")
        if self.king_captured(position) is not None:
            return 1 if depth == 0 else 0
        if depth == 0:
            return 1
        return self._perft(list(position.cells), position.turn, depth)

    def _perft(self, cells: list[int], turn: Color, depth: int) -> int:
        moves = self.generate(cells, turn)
        if depth == 1:
            return len(moves)
        total = 0
        opponent_king = _KING_CODES[not turn]
        for move in moves:
            if cells[move >> 6 & 63] == opponent_king:
                continue  # the child is terminal: no leaves below it
            captured = self.make(cells, move)
            total += self._perft(cells, not turn, depth - 1)
            self.unmake(cells, move, captured)
        return total

    def reference_perft(self, position: Position, depth: int) -> int:
        """`perft` by the slow, obviously correct walk over the checked API (`legal_moves`, `push`): its reference."""
        if depth == 0:
            return 1
        total = 0
        for move in self.legal_moves(position):
            child = position.copy()
            self.push(child, move)
            total += self.reference_perft(child, depth - 1)
        return total

    # -- checked entry points (chess.Move) --------------------------------------

    def legal_moves(self, position: Position) -> list[chess.Move]:
        """The legal moves of the side to move (none once the game is over)."""
        if self.outcome(position) is not None:
            return []
        return [decode(move) for move in self.generate(position.cells, position.turn)]

    def push(self, position: Position, move: chess.Move) -> Optional[Square]:
        """Make a legal `move` in place; returns the capture square or None.

        Raises:
            IllegalMiniChessMove: `move` is not legal here (the position is unchanged).
        """
        encoded = encode(move)
        if self.outcome(position) is not None or encoded not in self.generate(position.cells, position.turn):
            raise IllegalMiniChessMove(f"{move.uci()} is not legal in {self.placement(position)} ({'w' if position.turn else 'b'})")
        captured = self.make(position.cells, encoded)
        position.turn = not position.turn
        position.ply += 1
        return move.to_square if captured != EMPTY else None

    def king_captured(self, position: Position) -> Optional[Color]:
        """The colour whose king is gone, or None."""
        cells = position.cells
        kings = {cells[square] for square in self.geometry.squares if cells[square] in _KING_CODES}
        if KING not in kings:
            return chess.WHITE
        if KING + BLACK_OFFSET not in kings:
            return chess.BLACK
        return None

    def is_material_draw(self, position: Position) -> bool:
        """K v K, K v K+N or K v K+B (the seed's material draw)."""
        others = [code for code in (position.cells[s] for s in self.geometry.squares) if code != EMPTY and code not in _KING_CODES]
        if not others:
            return True
        return len(others) == 1 and others[0] in (KNIGHT, BISHOP, KNIGHT + BLACK_OFFSET, BISHOP + BLACK_OFFSET)

    def outcome(self, position: Position) -> Optional[Outcome]:
        """The result if the game is over in `position`, else None (checks in the order the module docstring gives)."""
        lost = self.king_captured(position)
        if lost is not None:
            return Outcome(not lost, Termination.KING_CAPTURE)
        if position.ply >= 2 * self.moves_per_side:
            return Outcome(None, Termination.MOVE_LIMIT)
        if not self.imcs and self.is_material_draw(position):
            return Outcome(None, Termination.MATERIAL)
        if not self.generate(position.cells, position.turn):
            return Outcome(not position.turn if self.imcs else None, Termination.NO_MOVES)
        return None


MINICHESS = MiniChessRules()
"""Mini-Chess with the seed's rules."""

IMCS = MiniChessRules(name="minichess-imcs", imcs=True)
"""Mini-Chess as the Internet MiniChess Server 2.5 enforces it."""
