"""The simulchess arbiter: checks both submissions, picks primaries or backups, and carries the moves out together.

See :mod:`blindchess.variants.simulchess.rules` for the rules and the decisions on
the points the seed leaves open. The arbiter is perfect-information: both
players see the whole board; each turn yields one `TurnReport` for both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import chess

from blindchess.arbiter.types import Color, Square
from blindchess.variants.simulchess.rules import (
    _CASTLES,
    NULL,
    SimulchessError,
    SimulState,
    Submission,
    TurnReport,
    _castle_move,
    _is_pawn_advance,
    check_submission,
    view,
)


class GameOverError(SimulchessError):
    """A turn was submitted after the game ended."""


@dataclass(frozen=True)
class SimulResult:
    """How a simulchess game ended: the winner (None for a draw) and why ("king capture", "both kings", "turn limit")."""

    winner: Optional[Color]
    reason: str


@dataclass(frozen=True)
class _Mover:
    color: Color
    origin: Square
    destination: Square
    piece: chess.Piece
    """The piece as it lands (promoted if the move promotes)."""


def _victim_square(board: chess.Board, move: chess.Move) -> Optional[Square]:
    if not board.is_capture(move):
        return None
    if board.is_en_passant(move):
        return move.to_square + (-8 if board.turn == chess.WHITE else 8)
    return move.to_square


def _uses_backup(state: SimulState, color: Color, mine: chess.Move, theirs: chess.Move) -> bool:
    """Whether `color`'s primary `mine` gives way to its backup because of the opponent's primary `theirs`."""
    if mine == NULL or theirs == NULL:
        return False
    moved = {mine.from_square, _CASTLES[mine][0]} if _castle_move(state, mine) else {mine.from_square}
    victim = _victim_square(view(state, not color), theirs)
    if victim is not None and victim in moved and mine.to_square != theirs.from_square:
        return True  # "A takes B" against a move of B that is not "B takes A"
    if not _is_pawn_advance(state.board, mine):
        return False
    target = mine.to_square
    arrivals = {theirs.to_square, _CASTLES[theirs][1]} if _castle_move(state, theirs) else {theirs.to_square}
    if target not in arrivals:
        return False
    if _is_pawn_advance(state.board, theirs):
        on_white_side = chess.square_rank(target) <= 3
        return on_white_side != (color == chess.WHITE)  # the pawn on whose side the square lies moves
    return True


def _movers(state: SimulState, color: Color, move: chess.Move) -> list[_Mover]:
    if move == NULL:
        return []
    board = state.board
    piece = board.piece_at(move.from_square)
    assert piece is not None, f"{move.uci()} moves nothing"
    if move.promotion is not None:
        piece = chess.Piece(move.promotion, color)
    movers = [_Mover(color, move.from_square, move.to_square, piece)]
    if _castle_move(state, move):
        rook_from, rook_to = _CASTLES[move]
        movers.append(_Mover(color, rook_from, rook_to, chess.Piece(chess.ROOK, color)))
    return movers


def resolve(state: SimulState, white: Submission, black: Submission) -> tuple[SimulState, TurnReport]:
    """The next state and the report of one turn. Unchecked: both submissions must have passed `check_submission`."""
    primaries = {chess.WHITE: white.primary, chess.BLACK: black.primary}
    submissions = {chess.WHITE: white, chess.BLACK: black}
    played: dict[Color, chess.Move] = {}
    used_backup: dict[Color, bool] = {}
    for color in (chess.WHITE, chess.BLACK):
        used_backup[color] = _uses_backup(state, color, primaries[color], primaries[not color])
        backup = submissions[color].backup
        assert not used_backup[color] or backup is not None, "a move that can be overridden always needs a backup"
        played[color] = backup if used_backup[color] and backup is not None else primaries[color]

    board = state.board
    movers = _movers(state, chess.WHITE, played[chess.WHITE]) + _movers(state, chess.BLACK, played[chess.BLACK])
    origins = {m.origin for m in movers}
    victims = {
        v for color in (chess.WHITE, chess.BLACK) if played[color] != NULL
        for v in [_victim_square(view(state, color), played[color])] if v is not None
    }
    dying: set[_Mover] = set()
    for a in movers:
        for b in movers:
            if a.color != b.color and (a.destination == b.destination or (a.destination == b.origin and b.destination == a.origin)):
                dying |= {a, b}  # same-square arrival, or mutual capture
    arrival_squares = {m.destination for m in movers}
    taken: list[tuple[Square, chess.Piece]] = []
    for square in sorted((victims | arrival_squares) - origins):
        piece = board.piece_at(square)
        if piece is not None:
            taken.append((square, piece))  # a stationary piece captured or arrived on
    taken.extend((m.origin, board.piece_at(m.origin)) for m in movers if m in dying)  # type: ignore[misc]

    after = board.copy(stack=False)
    ids = dict(state.ids)
    moving_ids = {m: ids.pop(m.origin) for m in movers}
    for square, _ in taken:
        if square not in origins:
            after.remove_piece_at(square)
            ids.pop(square, None)
    for m in movers:
        after.remove_piece_at(m.origin)
    for m in movers:
        if m not in dying:
            after.set_piece_at(m.destination, m.piece)
            ids[m.destination] = moving_ids[m]
    rights = after.castling_rights
    for square in origins | {square for square, _ in taken}:
        rights &= ~chess.BB_SQUARES[square]
    for m in movers:
        if m.piece.piece_type == chess.KING and board.piece_type_at(m.origin) == chess.KING:
            rights &= ~(chess.BB_RANK_1 if m.color == chess.WHITE else chess.BB_RANK_8)
    after.castling_rights = rights
    after.ep_square = None
    double_step: dict[Color, Optional[Square]] = {chess.WHITE: None, chess.BLACK: None}
    for m in movers:
        if m not in dying and m.piece.piece_type == chess.PAWN and abs(m.destination - m.origin) == 16:
            double_step[m.color] = (m.origin + m.destination) // 2
    next_state = SimulState(
        after,
        ids,
        board,
        {i: s for s, i in state.ids.items()},
        frozenset(moving_ids[m] for m in movers if m not in dying),
        double_step,
        state.turn_number + 1,
    )
    report = TurnReport(
        (white, black),
        (played[chess.WHITE], played[chess.BLACK]),
        (used_backup[chess.WHITE], used_backup[chess.BLACK]),
        tuple(taken),
    )
    return next_state, report


class SimulGame:
    """A simulchess game: submit both players' moves each turn until `result` is set.

    >>> game = SimulGame()
    >>> report = game.play_turn(Submission(chess.Move.from_uci("e2e4")), Submission(chess.Move.from_uci("e7e5")))
    >>> game.state.board.board_fen()
    'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR'
    """

    def __init__(self, fen: str = chess.STARTING_FEN, max_turns: int = 300) -> None:
        self.state = SimulState.start(fen)
        self.max_turns = max_turns
        self.reports: list[TurnReport] = []
        self.result: Optional[SimulResult] = None

    def play_turn(self, white: Submission, black: Submission) -> TurnReport:
        """Check both submissions (`IllegalSubmission` names the bad one), then play the turn.

        Raises:
            GameOverError: the game has already ended.
        """
        if self.result is not None:
            raise GameOverError(f"the game is over ({self.result})")
        checked_white = check_submission(self.state, chess.WHITE, white)
        checked_black = check_submission(self.state, chess.BLACK, black)
        self.state, report = resolve(self.state, checked_white, checked_black)
        self.reports.append(report)
        self.result = self._result()
        return report

    def _result(self) -> Optional[SimulResult]:
        board = self.state.board
        white_king = bool(board.kings & board.occupied_co[chess.WHITE])
        black_king = bool(board.kings & board.occupied_co[chess.BLACK])
        if not white_king and not black_king:
            return SimulResult(None, "both kings")
        if not white_king or not black_king:
            return SimulResult(chess.WHITE if white_king else chess.BLACK, "king capture")
        if len(self.reports) >= self.max_turns:
            return SimulResult(None, "turn limit")
        return None
