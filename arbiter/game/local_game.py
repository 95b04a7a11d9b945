"""The game flow: turns, phases, clocks, end conditions and the record, over any `Rules`.

`LocalGame` has exactly the methods and semantics of reconchess 1.6.9's `LocalGame`
(a differential test drives both with the same actions and compares everything), so a
script written against reconchess runs unchanged. What reconchess does that we keep
on purpose:

- `move()` adds a default queen promotion, then raises ValueError for a move not in
  `move_actions()` (and for `chess.Move.null()`); None is a pass. The history keeps
  the requested move as given (``a7a8``), the result reports the move taken (``a7a8q``).
- A pass or an illegal move pushes a null move (the half-move clock advances).
- The increment is added in `end_turn()`, before anyone checks `is_over()`: a player
  loses on time only when a turn overran its clock by more than the increment.
- End-reason priority: resignation, timeout, king capture, full-turn limit,
  reversible-move limit. After `end()`, `is_over()` is always True.
- `sense_actions()`/`move_actions()` return None once the game is finished;
  `sense()` returns [] and `move()` returns ``(requested, None, None)``.

What differs, none of it visible to a reconchess caller:

- Clocks use `time.monotonic()` (reconchess uses `datetime.now()`, which jumps with
  the wall clock); or, given `meters`, each colour's own reading (the CPU seconds of its
  bot's process tree, :mod:`blindchess.arbiter.sandbox.cpu_clock`), so that a turn is charged
  what that meter advanced during it. `flag(color)` ends a colour's clock (a bot that
  stopped answering under a CPU clock).
- The move actions are computed once per position and cached (reconchess recomputes
  them up to three times a turn); callers get a fresh list each time, so a bot may
  mutate what it is handed.
- Truth positions are recorded as snapshots and turned into FEN lazily; the position
  after a move is shared with the position before the next.
- `resign(color)` may name who resigns (the play loop needs to resign a bot outside
  its turn, e.g. one that crashed in `handle_game_start`); without it, the player to
  move resigns, as in reconchess.
- Each colour's observation events (:mod:`blindchess.arbiter.game.observations`) go to an
  optional `observer(color, event)` as they happen; they equal
  ``history.observations(color)``.
- A non-`chess.Move` request, or one with a square off the board, raises
  `IllegalActionError` (reconchess fails with an AttributeError or IndexError); every
  refused action raises `IllegalActionError`, a ValueError.
"""

from __future__ import annotations

import math
import numbers
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from itertools import repeat
from operator import is_
from typing import Any, Generic, Optional, overload

import chess

from blindchess.errors import BlindchessError

from ..rules.ruleset import STANDARD, BoardT, Rules
from ..types import Color, Square, WinReason
from .history import GameHistory
from .observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from .time_control import TimeControl
from .turns import TruthFen

Meter = Callable[[], float]
"""A clock's reading in seconds: `time.monotonic` for wall clocks, a bot's CPU seconds for CPU clocks."""

Observer = Callable[[Color, Observation], None]
"""Receives each observation event with the colour it is for."""

MoveOutcome = tuple[Optional[chess.Move], Optional[chess.Move], Optional[Square]]
"""(requested move, taken move, capture square) as `Game.move` returns it."""


def _is_square(value: object) -> bool:
    """An int 0..63 (numpy integers included); python-chess would index its tables with anything."""
    if type(value) is int:  # the usual case, without the slower abstract-class check
        return 0 <= value < 64
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and 0 <= int(value) < 64


class IllegalActionError(BlindchessError, ValueError):
    """A sense, move or start position the game cannot take (outside the lists, wrong type); the message quotes it."""


class Game(ABC):
    """One RBC game as a player's driver sees it (reconchess's `Game` interface)."""

    @abstractmethod
    def sense_actions(self) -> Optional[list[Square]]:
        """The squares the player to move may sense (None once the game is finished)."""

    @abstractmethod
    def move_actions(self) -> Optional[list[chess.Move]]:
        """The moves the player to move may request (None once the game is finished)."""

    @abstractmethod
    def get_seconds_left(self) -> float:
        """Seconds left on the clock of the player to move."""

    @abstractmethod
    def start(self) -> None:
        """Start the game and White's clock."""

    @abstractmethod
    def opponent_move_results(self) -> Optional[Square]:
        """Where the opponent's last move captured, or None."""

    @abstractmethod
    def sense(self, square: Optional[Square]) -> list[tuple[Square, Optional[chess.Piece]]]:
        """Sense the 3x3 window centred on `square` (None: no sense) and return what it shows."""

    @abstractmethod
    def move(self, requested_move: Optional[chess.Move]) -> MoveOutcome:
        """Request a move (None: pass); returns (requested, taken, capture square)."""

    @abstractmethod
    def end_turn(self) -> None:
        """End the current player's turn and start the opponent's clock."""

    @abstractmethod
    def is_over(self) -> bool:
        """True when the game has ended (always True after `end`)."""

    @abstractmethod
    def get_winner_color(self) -> Optional[Color]:
        """The winner once the game is over, else None (also None for a draw)."""

    @abstractmethod
    def get_win_reason(self) -> Optional[WinReason]:
        """Why the game ended, once it is over; else None."""

    @abstractmethod
    def get_game_history(self) -> Optional[GameHistory]:
        """The history once the game is over, else None."""


class LocalGame(Game, Generic[BoardT]):
    """A game run in this process, with reconchess `LocalGame`'s constructor and behaviour.

    Args:
        seconds_per_player: Starting clock per player; None for unlimited.
        seconds_increment: Seconds added at the end of each turn; None counts as 0.
        time_controls: White's and Black's own clocks, for time odds; when given, they replace
            `seconds_per_player` and `seconds_increment` (which then read White's).
        reversible_moves_limit: Half-moves without a capture or pawn move that draw the game; None for no limit.
        full_turn_limit: Full turns after which the game is drawn; None for no limit.
        rules: The rule set (the variant seam); 8x8 RBC by default.
        starting_fen: A start position other than the rule set's own (White to move).
        observer: Called with (colour, event) for every observation event, as it happens.
        meters: White's and Black's clock readings (a turn is charged what the mover's meter
            advanced during it); None: wall time, `time.monotonic`, for both.
    """

    # Two signatures so that the board type follows the rules: `LocalGame()` is a
    # `LocalGame[chess.Board]`, `LocalGame(rules=r)` a `LocalGame[B]` for `r: Rules[B]`.
    @overload
    def __init__(
        self: LocalGame[chess.Board],
        seconds_per_player: Optional[float] = 900,
        seconds_increment: Optional[float] = 5,
        reversible_moves_limit: Optional[int] = 100,
        full_turn_limit: Optional[int] = None,
        *,
        starting_fen: Optional[str] = None,
        observer: Optional[Observer] = None,
        time_controls: Optional[tuple[TimeControl, TimeControl]] = None,
        meters: Optional[tuple[Meter, Meter]] = None,
    ) -> None: ...

    @overload
    def __init__(
        self,
        seconds_per_player: Optional[float] = 900,
        seconds_increment: Optional[float] = 5,
        reversible_moves_limit: Optional[int] = 100,
        full_turn_limit: Optional[int] = None,
        *,
        rules: Rules[BoardT],
        starting_fen: Optional[str] = None,
        observer: Optional[Observer] = None,
        time_controls: Optional[tuple[TimeControl, TimeControl]] = None,
        meters: Optional[tuple[Meter, Meter]] = None,
    ) -> None: ...

    def __init__(
        self,
        seconds_per_player: Optional[float] = 900,
        seconds_increment: Optional[float] = 5,
        reversible_moves_limit: Optional[int] = 100,
        full_turn_limit: Optional[int] = None,
        *,
        rules: Rules[Any] = STANDARD,
        starting_fen: Optional[str] = None,
        observer: Optional[Observer] = None,
        time_controls: Optional[tuple[TimeControl, TimeControl]] = None,
        meters: Optional[tuple[Meter, Meter]] = None,
    ) -> None:
        self.meters: Optional[dict[Color, Meter]] = None if meters is None else {chess.WHITE: meters[0], chess.BLACK: meters[1]}
        """Each colour's clock reading, when not wall time (see the `meters` argument)."""
        if time_controls is None:
            both = TimeControl(
                math.inf if seconds_per_player is None else seconds_per_player, 0 if seconds_increment is None else seconds_increment
            )
            time_controls = (both, both)
        self.time_controls: dict[Color, TimeControl] = {chess.WHITE: time_controls[0], chess.BLACK: time_controls[1]}
        """Each colour's clock: its start and its increment."""
        # reconchess's attributes, for code written against its LocalGame; with time odds they read White's clock
        self.seconds_per_player: float = time_controls[0].seconds
        self.seconds_increment: float = time_controls[0].increment
        self.reversible_moves_limit: float = math.inf if reversible_moves_limit is None else reversible_moves_limit
        self.full_turn_limit: float = math.inf if full_turn_limit is None else full_turn_limit
        self.rules = rules
        self.board: BoardT = rules.starting_board(starting_fen)
        if rules.turn(self.board) != chess.WHITE:  # histories and observations number turns from White's first
            raise IllegalActionError(f"starting position {starting_fen!r} has Black to move; White must move first")
        self.turn: Color = chess.WHITE
        self.seconds_left_by_color: dict[Color, float] = {color: clock.seconds for color, clock in self.time_controls.items()}
        self.current_turn_start_time: Optional[float] = None
        self.move_results: Optional[Square] = None
        self._history = GameHistory(starting_fen=rules.fen(self.board))
        self._observer = observer
        self._is_finished = False
        self._resignee: Optional[Color] = None
        self._sense_actions: list[Square] = rules.sense_actions(self.board)
        self._sense_squares = frozenset(self._sense_actions)
        self._move_actions: Optional[list[chess.Move]] = None  # for the current position; None = not computed yet
        self._last_snapshot: Optional[tuple[Any, TruthFen]] = None  # the position after the last move
        self._take_snapshot: Optional[Callable[[Any], Any]] = getattr(rules, "snapshot", None)
        self._snapshot_fen: Optional[Callable[[Any], str]] = getattr(rules, "snapshot_fen", None)

    # ------------------------------------------------------------------ set-up and clocks

    def store_players(self, white_name: Optional[str], black_name: Optional[str]) -> None:
        self._history.store_players(white_name, black_name)

    def start(self) -> None:
        """Start White's clock; tells White its first turn began (unless the game is already over)."""
        self.current_turn_start_time = self._reading(self.turn)
        if self._observer is not None:
            white, black = self._history.get_white_player_name() or "", self._history.get_black_player_name() or ""
            fen = self._history.starting_fen
            self._observer(chess.WHITE, GameStarted(chess.WHITE, fen, black))
            self._observer(chess.BLACK, GameStarted(chess.BLACK, fen, white))
            if not self.is_over():
                self._observer(self.turn, OpponentMoved(self.move_results))

    def get_seconds_left(self) -> float:
        """Seconds left for the player to move, counting the running turn."""
        left = self.seconds_left_by_color[self.turn]
        if not self._is_finished and self.current_turn_start_time is not None:
            return left - (self._reading(self.turn) - self.current_turn_start_time)
        return left

    def _reading(self, color: Color) -> float:
        """`color`'s clock reading now: the wall clock, or its meter."""
        return time.monotonic() if self.meters is None else self.meters[color]()

    def end_turn(self) -> None:
        """Charge the mover's clock, add the increment, and hand the turn (and the clock) to the opponent."""
        now = self._reading(self.turn)
        if self.current_turn_start_time is not None:
            self.seconds_left_by_color[self.turn] -= now - self.current_turn_start_time
        self.seconds_left_by_color[self.turn] += self.time_controls[self.turn].increment
        self.turn = not self.turn
        self.current_turn_start_time = now if self.meters is None else self._reading(self.turn)
        if self._observer is not None and not self.is_over():
            self._observer(self.turn, OpponentMoved(self.move_results))

    def flag(self, color: Color) -> None:
        """`color`'s clock falls: it has no time left and loses on time (a bot that stopped answering under a CPU clock)."""
        spent = 0.0 if color != self.turn or self.current_turn_start_time is None else self._reading(color) - self.current_turn_start_time
        self.seconds_left_by_color[color] = min(self.seconds_left_by_color[color], spent)

    def resign(self, color: Optional[Color] = None) -> None:
        """`color` (by default the player to move) resigns."""
        self._resignee = self.turn if color is None else color

    def end(self) -> None:
        """Finish the game: freeze the mover's clock and record the result."""
        self.seconds_left_by_color[self.turn] = self.get_seconds_left()
        self._is_finished = True
        winner, reason = self.get_winner_color(), self.get_win_reason()
        self._history.store_results(winner, reason)
        if self._observer is not None:
            for color in (chess.WHITE, chess.BLACK):
                self._observer(color, GameEnded(winner, reason))

    # ------------------------------------------------------------------ actions

    def sense_actions(self) -> Optional[list[Square]]:
        return None if self._is_finished else list(self._sense_actions)

    def move_actions(self) -> Optional[list[chess.Move]]:
        return None if self._is_finished else list(self._current_move_actions())

    def _current_move_actions(self) -> list[chess.Move]:
        if self._move_actions is None:
            self._move_actions = self.rules.move_actions(self.board)
        return self._move_actions

    def _truth_snapshot(self, reuse_last: bool) -> TruthFen:
        """The truth position now, FEN deferred.

        Rules that offer ``snapshot(board)``/``snapshot_fen(snapshot)`` get cheap
        comparable snapshots, and the position after one move is shared with the
        position before the next (unless the board was changed in between); other
        rules get a board copy and their `fen`.
        """
        take_snapshot = self._take_snapshot
        if take_snapshot is None:
            return TruthFen(snapshot=self.rules.copy(self.board), to_fen=self.rules.fen)
        snapshot = take_snapshot(self.board)
        last = self._last_snapshot
        if reuse_last and last is not None and last[0] == snapshot:
            return last[1]
        truth = TruthFen(snapshot=snapshot, to_fen=self._snapshot_fen)
        self._last_snapshot = (snapshot, truth)
        return truth

    def _is_handed_out(self, move: object) -> bool:
        """`move` is one of the move action objects themselves: bots usually return an element of the
        list, and an identity scan runs in C where `in` calls a Python `__eq__` per element."""
        return any(map(is_, self._current_move_actions(), repeat(move)))

    def _is_move_action(self, move: chess.Move) -> bool:
        """`move in move_actions`, by identity first (see `_is_handed_out`)."""
        return self._is_handed_out(move) or move in self._current_move_actions()

    def _is_sense_action(self, square: object) -> bool:
        """`square in sense_actions`, by a set (an unhashable answer is simply not in it, as with the list)."""
        try:
            return square in self._sense_squares
        except TypeError:
            return square in self._sense_actions

    def opponent_move_results(self) -> Optional[Square]:
        return self.move_results

    def sense(self, square: Optional[Square]) -> list[tuple[Square, Optional[chess.Piece]]]:
        """Sense around `square` (None: no sense); raises `IllegalActionError` for a square not in `sense_actions()`."""
        if self._is_finished:
            return []
        if square is None:
            window: list[tuple[Square, Optional[chess.Piece]]] = []
        else:
            if not self._is_sense_action(square):
                raise IllegalActionError(f"LocalGame::sense({square}): {square} is not a valid square.")
            window = list(self.rules.sense(self.board, square))
        self._history.store_sense(self.turn, square, window)
        if self._observer is not None:
            self._observer(self.turn, SenseResult(square, tuple(window)))
        return list(window)

    def move(self, requested_move: Optional[chess.Move]) -> MoveOutcome:
        """Make the move the request revises to; raises `IllegalActionError` for a request not in `move_actions()`."""
        if self._is_finished:
            return requested_move, None, None
        board, rules = self.board, self.rules
        taken_move: Optional[chess.Move] = None
        capture_square: Optional[Square] = None
        if requested_move is not None:
            if self._is_handed_out(requested_move):  # a move action itself: a chess.Move on the board
                move = rules.normalize(board, requested_move)
                is_action = move is requested_move or self._is_move_action(move)
            else:
                if not isinstance(requested_move, chess.Move):
                    raise IllegalActionError(f"Requested move {requested_move!r} is not a chess.Move or None")
                if not (_is_square(requested_move.from_square) and _is_square(requested_move.to_square)):
                    raise IllegalActionError(
                        f"Requested move from {requested_move.from_square!r} to {requested_move.to_square!r} leaves the board"
                    )
                move = rules.normalize(board, requested_move)
                is_action = self._is_move_action(move)
            if not is_action:
                raise IllegalActionError(f"Requested move {requested_move} was not in move_actions()")
            taken_move = rules.revise(board, move)
            capture_square = rules.capture_square(board, taken_move)
        before = self._truth_snapshot(reuse_last=True)
        rules.push(board, taken_move)
        self._move_actions = None
        after = self._truth_snapshot(reuse_last=False)
        self._history.store_move(self.turn, requested_move, taken_move, capture_square, before, after)
        self.move_results = capture_square
        if self._observer is not None:
            self._observer(self.turn, MoveResult(requested_move, taken_move, capture_square))
        return requested_move, taken_move, capture_square

    # ------------------------------------------------------------------ the end

    def _king_lost(self) -> Optional[Color]:
        return self.rules.king_captured(self.board)

    def is_over(self) -> bool:
        if self._is_finished:
            return True
        rules, board = self.rules, self.board
        return (
            self._resignee is not None
            or self.get_seconds_left() <= 0
            or self.seconds_left_by_color[not self.turn] <= 0
            or rules.king_captured(board) is not None
            or rules.fullmove_number(board) > self.full_turn_limit
            or rules.halfmove_clock(board) >= self.reversible_moves_limit
        )

    def get_winner_color(self) -> Optional[Color]:
        if not self.is_over():
            return None
        if self._resignee is not None:
            return not self._resignee
        if self.seconds_left_by_color[chess.WHITE] <= 0:
            return chess.BLACK
        if self.seconds_left_by_color[chess.BLACK] <= 0:
            return chess.WHITE
        loser = self._king_lost()
        return None if loser is None else not loser

    def get_win_reason(self) -> Optional[WinReason]:
        if not self.is_over():
            return None
        if self._resignee is not None:
            return WinReason.RESIGN
        if self.seconds_left_by_color[chess.WHITE] <= 0 or self.seconds_left_by_color[chess.BLACK] <= 0:
            return WinReason.TIMEOUT
        if self._king_lost() is not None:
            return WinReason.KING_CAPTURE
        if self.rules.fullmove_number(self.board) > self.full_turn_limit:
            return WinReason.TURN_LIMIT
        if self.rules.halfmove_clock(self.board) >= self.reversible_moves_limit:
            return WinReason.MOVE_LIMIT
        return None

    def get_game_history(self) -> Optional[GameHistory]:
        return self._history if self.is_over() else None

    def history_so_far(self) -> GameHistory:
        """The record of the game so far, over or not (the live object: it grows as the game goes on).

        For whoever runs the game (the learning environment's `history()`). It holds the true
        board after every move, so nothing that serves a running game may hand it out: players get
        the history only at the end, through `get_game_history`, as in reconchess.
        """
        return self._history
