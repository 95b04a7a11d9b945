"""TroutBot: reconchess's Stockfish baseline, without its known defects.

Like reconchess's TroutBot it keeps one naive board: the start position, updated with its own
moves, the squares where it lost pieces and whatever its senses show. It captures the king
whenever its board says it can, otherwise plays Stockfish's move for that board. It senses
where it was just captured, else where its next move would capture, else at random away from
its own pieces.

Fixed here: a king on A1 (square 0) is still a king; the `sense_actions` list it is handed is
never modified; a Stockfish crash restarts the engine instead of leaving the bot passing
forever, and positions that would crash it are not sent (see `blindchess.evaluation.stockfish`);
an engine move outside `move_actions` becomes a pass instead of an arbiter error; an en-passant
capture removes the captured pawn from its board.
"""

from __future__ import annotations

import logging
from typing import Any, Optional

import chess
import chess.engine
import numpy as np

from blindchess.arbiter import Color, Player, Square, WinReason
from blindchess.evaluation.stockfish import Engine

from .random_bot import SeedLike

logger = logging.getLogger(__name__)

DEFAULT_LIMIT = chess.engine.Limit(time=0.5)
"""reconchess's TroutBot thinks 0.5 s per move."""


class TroutBot(Player):
    """Naive-board Stockfish bot.

    Args:
        rng: a seed or `numpy.random.Generator` for the random senses; None draws fresh entropy.
        engine: an engine to use (the caller keeps it and closes it); default: the bot starts
            its own Stockfish and stops it at the end of each game.
        limit: Stockfish's search limit per move (lower it in tests, e.g. ``Limit(depth=1)``).
    """

    def __init__(
        self,
        rng: SeedLike = None,
        *,
        engine: Optional[Engine] = None,
        limit: chess.engine.Limit = DEFAULT_LIMIT,
    ) -> None:
        self.rng = np.random.default_rng(rng)
        self.owns_engine = engine is None
        self.engine = Engine() if engine is None else engine
        self.limit = limit
        self.board = chess.Board()
        self.color: Color = chess.WHITE
        self.my_piece_captured_square: Optional[Square] = None

    def handle_game_start(self, color: Color, board: chess.Board, opponent_name: str) -> None:
        self.board = board.copy(stack=False)
        self.color = color
        self.my_piece_captured_square = None

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[Square]) -> None:
        self.my_piece_captured_square = capture_square
        if capture_square is not None:
            self.board.remove_piece_at(capture_square)

    def choose_sense(
        self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float
    ) -> Optional[Square]:
        if self.my_piece_captured_square is not None and self.my_piece_captured_square in sense_actions:
            return self.my_piece_captured_square
        future_move = self.choose_move(move_actions, seconds_left)
        if future_move is not None and self.board.piece_at(future_move.to_square) is not None:
            return future_move.to_square
        mine = chess.SquareSet(self.board.occupied_co[self.color])
        away_from_mine = [square for square in sense_actions if square not in mine]
        candidates = away_from_mine or sense_actions
        return candidates[self.rng.integers(len(candidates))] if candidates else None

    def handle_sense_result(self, sense_result: list[tuple[Square, Optional[chess.Piece]]]) -> None:
        for square, piece in sense_result:
            self.board.set_piece_at(square, piece)

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        enemy_king_square = self.board.king(not self.color)
        if enemy_king_square is not None:
            for attacker_square in self.board.attackers(self.color, enemy_king_square):
                king_capture = chess.Move(attacker_square, enemy_king_square)
                if king_capture in move_actions:
                    return king_capture
        position = self.board.copy(stack=False)
        position.turn = self.color
        move = self.engine.play(position, self.limit)
        if move is not None and move not in move_actions:
            logger.warning("Stockfish proposed %s, which is not a move action on %s; passing", move, position.fen())
            return None
        return move

    def handle_move_result(
        self,
        requested_move: Optional[chess.Move],
        taken_move: Optional[chess.Move],
        captured_opponent_piece: bool,
        capture_square: Optional[Square],
    ) -> None:
        if taken_move is None:
            return
        self.board.turn = self.color
        self.board.push(taken_move)
        if capture_square is not None and capture_square != taken_move.to_square:
            self.board.remove_piece_at(capture_square)  # en passant our board did not foresee

    def handle_game_end(self, winner_color: Optional[Color], win_reason: Optional[WinReason], game_history: Any) -> None:
        if self.owns_engine:
            self.engine.close()
