"""simulchess: simultaneous-move chess with established threats and backup moves (seed 004, Martin Bays 2012).

Rule text implemented (abridged from the seed)::

    Players simultaneously submit legal moves, then played out by the usual rules.
    A piece "threatens" a square if it could legally take an enemy piece there.
    A threat "A takes B" is established if
      (i)   in the previous board state A threatened the square B now occupies
            (not for en passant), or
      (ii)  that square has been revealed: in the previous state a piece of B's
            colour blocked A from moving to it, and now A can move unblocked in
            that direction to it, or
      (iii) it is en passant, B moved two squares on the previous turn and A did not move.
    Submitted moves must be legal; "A takes B" only if the threat is established.
    A backup move is required when
      (I)   the primary moves a piece under established threat (the backup must
            not move that piece), or
      (II)  the primary moves a pawn forward to a square the opponent could move
            a piece to (the backup must differ from the primary).
    Castling: only if neither piece has moved and neither piece nor any square
    between them is under established threat.
    If one primary is "A takes B" and the other moves B and is not "B takes A",
    the second player's backup is used. If one primary moves a pawn forward to S
    and the other moves a piece to S, the pawn's backup is used; if both are pawns,
    the pawn on whose side of the board S lies moves and the other's backup is used.
    Moves are carried out simultaneously; {A takes B; B takes A} and {A to S;
    B to S} (S empty) take both pieces. Capturing the king wins; both kings
    taken together is a draw.

Where the seed leaves points open we settle them as follows (each has a test):

- **Check.** Not enforced: "legal" means pseudo-legal (moving into or staying in
  check is allowed), since the game is won by capturing the king and a player
  cannot know the opponent's simultaneous move. There is no checkmate or stalemate.
- **Threats** use python-chess's attack sets on the relevant board (a pawn
  threatens its two forward diagonals). Piece identity is tracked across turns
  (a promoted pawn keeps its identity), so "A threatened ... in the previous
  state" looks at where A stood then. Before the first turn, the previous state
  is the start position itself.
- **Revealed (ii)** applies to sliders: from A's previous square, the first piece
  on the line towards B's square (strictly before it) was of B's colour, A's
  piece type moves along that line, and now A attacks B's square along the same
  direction.
- **Castling** is submitted as the king's two-square move (e1g1, e1c1, e8g8,
  e8c8) of standard chess; "neither piece has moved" is the castling right; the
  squares between king and rook must be empty. A square is under established
  threat when (i) or (ii) holds for some enemy piece and that square.
- **Promotion** to any of N, B, R, Q; a pawn move onto the last rank without a
  promotion piece is read as a queen promotion.
- **Backups are validated when submitted, so never need re-validation:** a backup
  must be a submittable move other than the primary that moves no piece under
  established threat and is not a pawn advance onto a contested square; or a pass
  (`chess.Move.null()`), which is always a valid backup. Substitutions are decided
  once, from the two primaries; the final moves then execute simultaneously.
- **Swaps:** two pieces of different colours that exchange squares (necessarily
  "A takes B; B takes A") are both taken. Any two final moves that end on the
  same square take both pieces (a square's stationary occupant, if any, is
  taken too). A capture whose target moves away in the same turn takes nothing.
- **Passes and length.** A player with no submittable move passes. The game is
  drawn after `max_turns` turns (default 300) without a king capture (the seed
  has no such rule; it keeps random play finite).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import chess

from blindchess.arbiter.types import Color, Square
from blindchess.errors import BlindchessError

NULL = chess.Move.null()
_CASTLES = {
    chess.Move(chess.E1, chess.G1): (chess.H1, chess.F1),
    chess.Move(chess.E1, chess.C1): (chess.A1, chess.D1),
    chess.Move(chess.E8, chess.G8): (chess.H8, chess.F8),
    chess.Move(chess.E8, chess.C8): (chess.A8, chess.D8),
}
"""King's castling move -> (rook's origin, rook's destination)."""


class SimulchessError(BlindchessError, ValueError):
    """Base class of the errors the simulchess arbiter raises."""


class IllegalSubmission(SimulchessError):
    """A primary or backup move that the rules do not allow (the message names it and why)."""


@dataclass(frozen=True, slots=True)
class Submission:
    """One player's turn: a primary move and, when the rules require one, a backup (`NULL` is a pass)."""

    primary: chess.Move
    backup: Optional[chess.Move] = None


@dataclass(frozen=True, slots=True)
class TurnReport:
    """What a turn did: the moves submitted and carried out, and the pieces taken (square and piece)."""

    submitted: tuple[Submission, Submission]
    """White's, then Black's."""
    played: tuple[chess.Move, chess.Move]
    """The move each side actually made (its primary or its backup)."""
    used_backup: tuple[bool, bool]
    taken: tuple[tuple[Square, chess.Piece], ...]


@dataclass
class SimulState:
    """The full game state: board, piece identities, the previous state and last turn's facts."""

    board: chess.Board
    ids: dict[Square, int]
    previous_board: chess.Board
    previous_squares: dict[int, Square]
    """Piece id -> its square in the previous state."""
    moved_last_turn: frozenset[int] = frozenset()
    double_step: dict[Color, Optional[Square]] = field(default_factory=lambda: {chess.WHITE: None, chess.BLACK: None})
    """Per colour: the square skipped by its pawn's two-square move last turn (the en passant target), or None."""
    turn_number: int = 1
    cache: dict[object, object] = field(default_factory=dict, repr=False, compare=False)
    """Per-state memo of derived facts (move lists, threats); a state is never changed after it is built."""

    @classmethod
    def start(cls, fen: str = chess.STARTING_FEN) -> SimulState:
        board = chess.Board(fen)
        ids = {square: i for i, square in enumerate(sorted(board.piece_map()))}
        return cls(board, ids, board.copy(stack=False), {i: s for s, i in ids.items()})

    def copy(self) -> SimulState:
        return SimulState(
            self.board.copy(stack=False),
            dict(self.ids),
            self.previous_board,
            self.previous_squares,
            self.moved_last_turn,
            dict(self.double_step),
            self.turn_number,
        )


def view(state: SimulState, color: Color) -> chess.Board:
    """The board with `color` to move and the en passant square the opponent's double step left."""
    board = state.board.copy(stack=False)
    board.turn = color
    board.ep_square = state.double_step[not color]
    return board


def _unit(origin: Square, target: Square) -> Optional[tuple[int, int]]:
    """The one-square step from `origin` towards `target` along a rank, file or diagonal; None off those lines."""
    df = chess.square_file(target) - chess.square_file(origin)
    dr = chess.square_rank(target) - chess.square_rank(origin)
    if (df, dr) == (0, 0) or (df != 0 and dr != 0 and abs(df) != abs(dr)):
        return None
    return (df > 0) - (df < 0), (dr > 0) - (dr < 0)


def _slides_along(piece_type: int, direction: tuple[int, int]) -> bool:
    diagonal = direction[0] != 0 and direction[1] != 0
    return piece_type == chess.QUEEN or piece_type == (chess.BISHOP if diagonal else chess.ROOK)


def _revealed(state: SimulState, attacker: Square, target: Square) -> bool:
    """Rule (ii): from the attacker's previous square a piece of the target's colour blocked the line to `target`."""
    piece_id = state.ids[attacker]
    before = state.previous_squares.get(piece_id)
    if before is None:
        return False
    previous_piece = state.previous_board.piece_at(before)
    direction = _unit(before, target)
    now = _unit(attacker, target)
    if previous_piece is None or direction is None or now != direction or not _slides_along(previous_piece.piece_type, direction):
        return False
    target_color = not state.board.color_at(attacker)
    square = before
    while True:
        square = chess.square(chess.square_file(square) + direction[0], chess.square_rank(square) + direction[1])
        if square == target:
            return False  # the line was open: nothing blocked it
        blocker = state.previous_board.color_at(square)
        if blocker is not None:
            return blocker == target_color and bool(state.board.attacks_mask(attacker) & chess.BB_SQUARES[target])


def square_threat_established(state: SimulState, attacker: Square, target: Square) -> bool:
    """Rules (i) and (ii) for the piece on `attacker` and the square `target` (no en passant)."""
    if not state.board.attacks_mask(attacker) & chess.BB_SQUARES[target]:
        return False
    before = state.previous_squares.get(state.ids[attacker])
    if before is not None and state.previous_board.attacks_mask(before) & chess.BB_SQUARES[target]:
        return True
    return _revealed(state, attacker, target)


def capture_established(state: SimulState, board: chess.Board, move: chess.Move) -> bool:
    """Whether the capture `move` (pseudo-legal on `board` = `view(state, mover)`) is an established threat."""
    if board.is_en_passant(move):
        victim = move.to_square + (-8 if board.turn == chess.WHITE else 8)
        return (
            state.ids[victim] in state.moved_last_turn
            and state.double_step[not board.turn] == move.to_square
            and state.ids[move.from_square] not in state.moved_last_turn
        )
    return square_threat_established(state, move.from_square, move.to_square)


def established_threats(state: SimulState, color: Color) -> dict[Square, list[chess.Move]]:
    """The pieces of `color` under established threat, each with the enemy captures that threaten it."""
    enemy = view(state, not color)
    threats: dict[Square, list[chess.Move]] = {}
    for move in enemy.generate_pseudo_legal_captures():
        if capture_established(state, enemy, move):
            victim = move.to_square if not enemy.is_en_passant(move) else move.to_square + (-8 if enemy.turn == chess.WHITE else 8)
            threats.setdefault(victim, []).append(move)
    return threats


def _square_under_threat(state: SimulState, color: Color, square: Square) -> bool:
    return any(square_threat_established(state, attacker, square) for attacker in chess.scan_forward(state.board.occupied_co[not color]))


def _castles(state: SimulState, color: Color) -> list[chess.Move]:
    board = state.board
    moves = []
    for king_move, (rook_from, _) in _CASTLES.items():
        if board.color_at(king_move.from_square) != color or board.piece_type_at(king_move.from_square) != chess.KING:
            continue
        if not board.castling_rights & chess.BB_SQUARES[rook_from] or board.piece_type_at(rook_from) != chess.ROOK:
            continue
        between = chess.between(king_move.from_square, rook_from)
        if board.occupied & between:
            continue
        squares = [king_move.from_square, rook_from, *chess.scan_forward(between)]
        if not any(_square_under_threat(state, color, square) for square in squares):
            moves.append(king_move)
    return moves


def submittable_moves(state: SimulState, color: Color) -> list[chess.Move]:
    """Every primary `color` may submit: pseudo-legal, captures only when established, castling per the rules."""
    key = ("moves", color)
    cached = state.cache.get(key)
    if isinstance(cached, tuple):
        return list(cached)
    board = view(state, color)
    moves = []
    for move in board.generate_pseudo_legal_moves():
        if board.is_castling(move):
            continue
        if board.is_capture(move) and not capture_established(state, board, move):
            continue
        moves.append(move)
    moves += _castles(state, color)
    state.cache[key] = tuple(moves)
    return moves


def _destinations(move: chess.Move) -> set[Square]:
    if move in _CASTLES:
        return {move.to_square, _CASTLES[move][1]}
    return {move.to_square}


def _moved_squares(move: chess.Move) -> set[Square]:
    return {move.from_square, _CASTLES[move][0]} if move in _CASTLES else {move.from_square}


def _is_pawn_advance(board: chess.Board, move: chess.Move) -> bool:
    return board.piece_type_at(move.from_square) == chess.PAWN and chess.square_file(move.from_square) == chess.square_file(move.to_square)


def _castle_move(state: SimulState, move: chess.Move) -> bool:
    """True for a king's castling move (cheap integer tests first: this runs for every move of every turn)."""
    return (
        abs(move.to_square - move.from_square) == 2
        and move.from_square in (chess.E1, chess.E8)
        and move in _CASTLES
        and state.board.piece_type_at(move.from_square) == chess.KING
    )


@dataclass(frozen=True)
class _BackupContext:
    """What rules (I) and (II) look at, computed once per player and turn."""

    threatened: frozenset[Square]
    contested: frozenset[Square]


def _backup_context(state: SimulState, color: Color) -> _BackupContext:
    key = ("backup", color)
    cached = state.cache.get(key)
    if isinstance(cached, _BackupContext):
        return cached
    contested: set[Square] = set()
    for move in submittable_moves(state, not color):
        contested |= _destinations(move) if _castle_move(state, move) else {move.to_square}
    context = _BackupContext(frozenset(established_threats(state, color)), frozenset(contested))
    state.cache[key] = context
    return context


def _needs_backup(state: SimulState, context: _BackupContext, primary: chess.Move) -> bool:
    if primary == NULL:
        return False
    moved = _moved_squares(primary) if _castle_move(state, primary) else {primary.from_square}
    if moved & context.threatened:
        return True
    return _is_pawn_advance(state.board, primary) and primary.to_square in context.contested


def needs_backup(state: SimulState, color: Color, primary: chess.Move) -> bool:
    """Rules (I) and (II): the primary moves a piece under established threat, or advances a pawn onto a contested square."""
    return _needs_backup(state, _backup_context(state, color), primary)


def valid_backups(state: SimulState, color: Color, primary: chess.Move) -> list[chess.Move]:
    """The backups allowed with `primary`: safe submittable moves other than it, and the pass."""
    key = ("safe", color)
    safe = state.cache.get(key)
    if not isinstance(safe, tuple):
        context = _backup_context(state, color)
        safe = tuple(m for m in submittable_moves(state, color) if not _needs_backup(state, context, m))
        state.cache[key] = safe
    return [NULL] + [m for m in safe if m != primary]


def normalize(state: SimulState, move: chess.Move) -> chess.Move:
    """A pawn move onto the last rank without a promotion piece becomes a queen promotion."""
    if (
        move != NULL and move.promotion is None and state.board.piece_type_at(move.from_square) == chess.PAWN
        and chess.square_rank(move.to_square) in (0, 7)
    ):
        return chess.Move(move.from_square, move.to_square, chess.QUEEN)
    return move


def check_submission(state: SimulState, color: Color, submission: Submission) -> Submission:
    """The submission with promotions normalised, or `IllegalSubmission` naming what is wrong."""
    name = "White" if color == chess.WHITE else "Black"
    moves = submittable_moves(state, color)
    primary = normalize(state, submission.primary)
    if primary == NULL:
        if moves:
            raise IllegalSubmission(f"{name} passed with {len(moves)} moves available")
        return Submission(NULL)
    if primary not in moves:
        raise IllegalSubmission(f"{name}'s primary {primary.uci()} is not submittable in {state.board.board_fen()}")
    if not needs_backup(state, color, primary):
        return Submission(primary)
    if submission.backup is None:
        raise IllegalSubmission(f"{name}'s primary {primary.uci()} needs a backup move")
    backup = normalize(state, submission.backup)
    if backup not in valid_backups(state, color, primary):
        raise IllegalSubmission(f"{name}'s backup {backup.uci()} for {primary.uci()} is not a valid backup")
    return Submission(primary, backup)
