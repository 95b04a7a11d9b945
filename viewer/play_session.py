"""A game between a person in the browser and a bot, on the arbiter's `LocalGame`.

The person's side is driven by requests (sense a square, then request a move); the
bot's turns are played with the arbiter's refereed `play_turn` as soon as the person's
turn ends, so a bot that crashes or overruns loses as it would in `blindchess match`.
The page is only ever sent what the person may know: their own pieces, their last sense
window, where the opponent captured and the outcome of their own move; never the true
board until the game is over. A finished game is handed to `on_finish` (the library
saves it like any other history), with both clocks at each ply.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, Optional

import chess

from blindchess.arbiter.game.faults import BotFaultError
from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.local_game import LocalGame
from blindchess.arbiter.game.player import Player
from blindchess.arbiter.play import Referee, play_turn
from blindchess.arbiter.types import Color, Square
from blindchess.errors import BlindchessError

logger = logging.getLogger(__name__)

HUMAN_NAME = "you"


class PlayError(BlindchessError, ValueError):
    """A request the game cannot take now (wrong phase, a square or move not allowed); the message says which."""


FinishHook = Callable[[GameHistory, list[list[float]]], str]
"""Receives a finished game and its clocks; returns the id of its replay."""


class PlaySession:
    """One game of a person (`human_color`) against `bot`.

    Args:
        bot: the bot, already constructed.
        bot_name: shown as the bot's name in the history.
        seconds: each side's clock; `increment` is added after each turn.
        on_finish: called once with the finished history (see `FinishHook`).
    """

    def __init__(
        self, bot: Player, bot_name: str, human_color: Color, seconds: float, increment: float, on_finish: FinishHook
    ) -> None:
        self.bot, self.bot_name, self.color = bot, bot_name, human_color
        self.game: LocalGame[Any] = LocalGame(seconds_per_player=seconds, seconds_increment=increment)
        self.names = {human_color: HUMAN_NAME, not human_color: bot_name}
        self.game.store_players(self.names[chess.WHITE], self.names[chess.BLACK])
        self.referee = Referee(self.game, self.names)
        self._on_finish = on_finish
        self._lock = threading.Lock()
        self.phase = "sense"
        self.window: list[tuple[Square, Optional[str]]] = []
        self.opponent_capture: Optional[Square] = None
        self.last_move: Optional[dict[str, Any]] = None
        self.replay_id: Optional[str] = None
        self.fault: Optional[str] = None
        self.clocks: list[list[float]] = [[seconds, seconds]]
        try:
            start = self.game.rules.copy(self.game.board)
            self.referee.call(bot, not human_color, "handle_game_start", not human_color, start, HUMAN_NAME, timed=False)
        except BotFaultError as error:
            self.game.resign(not human_color)
            self.fault = error.fault.message
        self.game.start()
        self._advance()

    # ------------------------------------------------------------------ the person's actions

    def sense(self, square: Optional[Square]) -> None:
        """Sense around `square` (None: skip the sense)."""
        with self._lock:
            self._expect("sense")
            actions = self.game.sense_actions() or []
            if square is not None and square not in actions:
                raise PlayError(f"cannot sense at {square!r}: not one of the sense actions")
            result = self.game.sense(square)
            self.window = [(sq, None if piece is None else piece.symbol()) for sq, piece in result]
            self.phase = "move"

    def move(self, uci: Optional[str]) -> None:
        """Request the move `uci` (None: pass); a pawn reaching the last rank becomes a queen unless told otherwise."""
        with self._lock:
            self._expect("move")
            move = self._parse(uci)
            requested, taken, capture = self.game.move(move)
            self.last_move = {
                "requested": None if requested is None else requested.uci(),
                "taken": None if taken is None else taken.uci(),
                "capture": capture,
            }
            self.game.end_turn()
            self._record_clocks()
            self.window = []
            self._advance()

    def resign(self) -> None:
        with self._lock:
            if self.phase != "over":
                self.game.resign(self.color)
                self._advance()

    # ------------------------------------------------------------------ state

    def state(self) -> dict[str, Any]:
        """What the page may show now (see the module docstring)."""
        with self._lock:
            if self.phase != "over" and self.game.is_over():
                self._finish()  # the person's clock ran out between requests
            game = self.game
            board = chess.Board(game.rules.fen(game.board))
            own = chess.Board(None)
            for square, piece in board.piece_map().items():
                if piece.color == self.color or self.phase == "over":
                    own.set_piece_at(square, piece)
            winner, reason = game.get_winner_color(), game.get_win_reason()
            return {
                "color": chess.COLOR_NAMES[self.color],
                "bot": self.bot_name,
                "phase": self.phase,
                "board": own.board_fen(),
                "window": [list(cell) for cell in self.window],
                "opponent_capture": self.opponent_capture,
                "last_move": self.last_move,
                "move_actions": [move.uci() for move in (game.move_actions() or [])] if self.phase == "move" else [],
                "clocks": {name: game.seconds_left_by_color[color] for color, name in ((chess.WHITE, "white"), (chess.BLACK, "black"))},
                "seconds_left": game.get_seconds_left(),
                "winner": None if winner is None else chess.COLOR_NAMES[winner],
                "win_reason": None if reason is None else reason.name,
                "replay": self.replay_id,
                "fault": self.fault,
            }

    # ------------------------------------------------------------------ internals

    def _expect(self, phase: str) -> None:
        if self.phase == "over" or self.game.is_over():
            if self.phase != "over":
                self._finish()
            raise PlayError("the game is over")
        if self.phase != phase:
            raise PlayError(f"it is the {self.phase} phase, not the {phase} phase")

    def _parse(self, uci: Optional[str]) -> Optional[chess.Move]:
        if uci is None:
            return None
        try:
            move = chess.Move.from_uci(uci)
        except ValueError as error:
            raise PlayError(f"not a UCI move: {uci!r}") from error
        actions = self.game.move_actions() or []
        if move not in actions:
            promoted = chess.Move(move.from_square, move.to_square, chess.QUEEN)
            if move.promotion is None and promoted in actions:
                return promoted
            raise PlayError(f"cannot request {uci!r}: not one of the move actions")
        return move

    def _record_clocks(self) -> None:
        self.clocks.append([self.game.seconds_left_by_color[chess.WHITE], self.game.seconds_left_by_color[chess.BLACK]])

    def _advance(self) -> None:
        """Play the bot's turns until it is the person's turn or the game is over."""
        while not self.game.is_over() and self.game.turn != self.color:
            fault = play_turn(self.game, self.bot, end_turn_last=True, referee=self.referee)
            self._record_clocks()
            if fault is not None:
                self.fault = fault.message
                logger.warning("bot fault: %s", fault.message)
        if self.game.is_over():
            self._finish()
            return
        self.opponent_capture = self.game.opponent_move_results()
        self.phase = "sense"

    def _finish(self) -> None:
        game = self.game
        game.end()
        self.phase = "over"
        history = game.get_game_history()
        assert history is not None, "a game is over after end()"
        try:
            winner, reason = game.get_winner_color(), game.get_win_reason()
            self.referee.call(self.bot, not self.color, "handle_game_end", winner, reason, history, timed=False)
        except BotFaultError as error:
            logger.warning("bot fault at the end: %s", error.fault.message)
        if len(self.clocks) != history.num_turns() + 1:
            self.clocks = []  # a turn was cut short: the clocks no longer line up with the plies
        self.replay_id = self._on_finish(history, self.clocks)
