"""One game on the server: the arbiter game, the phase of the current turn and the clocks.

A turn is ``sense -> move -> end_turn`` by the side to move. The server keeps the
clocks: a turn runs from the opponent's ``end_turn`` (or from both players being
ready) to the mover's own ``end_turn``, so the mover's ``handle_move_result`` (which
the official client calls after ``end_turn``) costs it nothing. At ``end_turn`` the
clock is charged the turn's time and credited the increment; a player loses on time
once a turn overruns its clock plus the increment, the same rule as a local game,
which checks only between turns and after the increment.

Once a game is over, turn actions are answered as no-ops (an empty sense result, a
move result with no taken move), as reconchess's ``LocalGame`` does, rather than with
errors: the official client raises on any 4xx, and a player whose opponent resigned
or whose clock ran out mid-turn should still reach ``handle_game_end``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Optional

import chess

from blindchess.arbiter.game.local_game import IllegalActionError, MoveOutcome
from blindchess.arbiter.types import Color, Square, WinReason
from blindchess.server.arbiter_game import force_timeout, history_json, new_arbiter_game
from blindchess.server.codec import encode_sense_result
from blindchess.server.database import Action
from blindchess.server.errors import InvalidRequest


class Phase(enum.Enum):
    """What the side to move must send next."""

    WAITING = "waiting for both players to be ready"
    SENSE = "sense"
    MOVE = "move"
    END_TURN = "end_turn"
    OVER = "game over"


@dataclass(frozen=True, slots=True)
class GameSettings:
    seconds_per_player: float
    seconds_increment: float
    reversible_moves_limit: Optional[int]
    full_turn_limit: Optional[int]


@dataclass(frozen=True, slots=True)
class GameResult:
    winner_color: Optional[Color]
    win_reason: Optional[WinReason]
    history: dict[str, Any]


@dataclass
class ServerGame:
    """The live state of one game; every method is called with the service lock held."""

    game_id: int
    names: dict[Color, str]
    player_ids: dict[Color, int]
    settings: GameSettings
    seconds_left: dict[Color, float]
    ready: dict[Color, bool]
    result: Optional[GameResult] = None
    arbiter: Any = None
    turn: Color = chess.WHITE
    phase: Phase = Phase.WAITING
    turn_started: Optional[float] = None
    waiting_since: Optional[float] = None
    """When this server began waiting for both players to be ready (None once started)."""
    actions: list[Action] = field(default_factory=list)
    last_sense_result: list[list[Any]] = field(default_factory=list)
    last_move_result: Optional[MoveOutcome] = None

    @classmethod
    def rebuild(
        cls,
        game_id: int,
        names: dict[Color, str],
        player_ids: dict[Color, int],
        settings: GameSettings,
        seconds_left: dict[Color, float],
        ready: dict[Color, bool],
        actions: list[Action],
        now: float,
    ) -> ServerGame:
        """The game as it stood after `actions`, its current turn (re)starting at `now`.

        Time a player spent in a turn that a server restart interrupted is not charged.
        """
        game = cls(game_id, names, player_ids, settings, dict(seconds_left), dict(ready))
        game.arbiter = new_arbiter_game(
            names[chess.WHITE], names[chess.BLACK], settings.reversible_moves_limit, settings.full_turn_limit
        )
        if all(ready.values()):
            game.phase = Phase.SENSE
            game.turn_started = now
        else:
            game.waiting_since = now
        for action in actions:
            if action.kind == "sense":
                game._apply_sense(None if action.value is None else int(action.value))
            elif action.kind == "move":
                game._apply_move(None if action.value is None else chess.Move.from_uci(action.value))
            else:
                game._apply_end_turn()
        game.actions = list(actions)
        return game

    @classmethod
    def finished(
        cls,
        game_id: int,
        names: dict[Color, str],
        player_ids: dict[Color, int],
        settings: GameSettings,
        seconds_left: dict[Color, float],
        result: GameResult,
    ) -> ServerGame:
        """A game that is over: only its result and clocks are kept."""
        ready = {chess.WHITE: True, chess.BLACK: True}
        game = cls(game_id, names, player_ids, settings, dict(seconds_left), ready, result=result)
        game.phase = Phase.OVER
        return game

    # queries
    def color_of(self, user_id: int) -> Optional[Color]:
        """The colour `user_id` plays, or None for a stranger."""
        for color, player_id in self.player_ids.items():
            if player_id == user_id:
                return color
        return None

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def is_my_turn(self, color: Color) -> bool:
        return self.phase not in (Phase.WAITING, Phase.OVER) and self.turn == color

    def clock(self, color: Color, now: float) -> float:
        """Seconds `color` has left at `now` (its clock runs only during its own turn)."""
        if self.is_my_turn(color) and self.turn_started is not None:
            return self.seconds_left[color] - (now - self.turn_started)
        return self.seconds_left[color]

    def overdue(self, now: float) -> bool:
        """Whether the side to move has overrun its clock plus the increment (it can no longer end in time)."""
        return self.is_my_turn(self.turn) and self.clock(self.turn, now) + self.settings.seconds_increment <= 0

    def sense_actions(self, color: Color) -> list[Square]:
        if self.over:
            return []
        self._require_turn(color)
        return list(self.arbiter.sense_actions())

    def move_actions(self, color: Color) -> list[chess.Move]:
        if self.over:
            return []
        self._require_turn(color)
        return list(self.arbiter.move_actions())

    def opponent_move_results(self, color: Color) -> Optional[Square]:
        if self.over:
            return None
        self._require_turn(color)
        capture: Optional[Square] = self.arbiter.opponent_move_results()
        return capture

    # actions; each returns the Action to persist (None when nothing changed) and the answer
    def mark_ready(self, color: Color, now: float) -> None:
        """Mark `color` ready; the game (and White's clock) starts when both are."""
        self.ready[color] = True
        if all(self.ready.values()):
            self.phase = Phase.SENSE
            self.turn_started = now
            self.waiting_since = None

    def sense(self, color: Color, square: Optional[Square]) -> tuple[Optional[Action], list[list[Any]]]:
        if self.over:
            return None, []
        if self._is_retry(color, Phase.MOVE, "sense", None if square is None else str(square)):
            return None, self.last_sense_result
        self._require_phase(color, Phase.SENSE)
        action = Action("sense", None if square is None else str(square))
        self._apply_sense(square)
        self.actions.append(action)
        return action, self.last_sense_result

    def move(self, color: Color, requested: Optional[chess.Move]) -> tuple[Optional[Action], MoveOutcome]:
        if self.over:
            return None, (requested, None, None)
        if self._is_retry(color, Phase.END_TURN, "move", None if requested is None else requested.uci()):
            assert self.last_move_result is not None
            return None, self.last_move_result
        self._require_phase(color, Phase.MOVE)
        action = Action("move", None if requested is None else requested.uci())
        try:
            self._apply_move(requested)  # the arbiter refuses a move outside move_actions before changing anything
        except IllegalActionError as error:
            raise InvalidRequest(str(error)) from None
        self.actions.append(action)
        assert self.last_move_result is not None
        return action, self.last_move_result

    def end_turn(self, color: Color, now: float) -> Optional[Action]:
        """End `color`'s turn; charges its clock and starts the opponent's. None for a repeat or a finished game."""
        if self.over:
            return None
        if self.turn != color and self.actions and self.actions[-1].kind == "end_turn":
            return None  # our answer to the first end_turn was lost; the turn has already passed
        self._require_phase(color, Phase.END_TURN)
        assert self.turn_started is not None
        self.seconds_left[color] += self.settings.seconds_increment - (now - self.turn_started)
        self._apply_end_turn()
        self.turn_started = now
        action = Action("end_turn", None)
        self.actions.append(action)
        return action

    def arbiter_result(self) -> Optional[tuple[Optional[Color], Optional[WinReason]]]:
        """If the arbiter (or a clock) says the game is over after an end_turn, its result; else None."""
        for color in (chess.WHITE, chess.BLACK):
            if self.seconds_left[color] <= 0:
                force_timeout(self.arbiter, color)
        if not self.arbiter.is_over():
            return None
        return self.arbiter.get_winner_color(), _win_reason(self.arbiter.get_win_reason())

    def finish_by_resignation(self, color: Color) -> None:
        self._require_turn(color)
        self.arbiter.resign()
        self._finish()

    def finish_on_time(self, color: Color, now: float) -> None:
        """`color` loses on time (its clock ran out, or it told the server it crashed)."""
        self.seconds_left[color] = min(self.clock(color, now), 0.0)
        force_timeout(self.arbiter, color)
        self._finish()

    def withdraw(self, result: GameResult) -> None:
        """End a game that never started with `result` (no winner, an empty history)."""
        self.result = result
        self.phase = Phase.OVER
        self.waiting_since = None

    def finish(self) -> None:
        """Close a game the arbiter says is over (after :meth:`arbiter_result` returned a result)."""
        self._finish()

    # internals
    def _finish(self) -> None:
        self.arbiter.end()
        self.result = GameResult(
            self.arbiter.get_winner_color(),
            _win_reason(self.arbiter.get_win_reason()),
            history_json(self.arbiter.get_game_history()),
        )
        self.phase = Phase.OVER
        self.turn_started = None

    def _apply_sense(self, square: Optional[Square]) -> None:
        self.last_sense_result = encode_sense_result(self.arbiter.sense(square))
        self.phase = Phase.MOVE

    def _apply_move(self, requested: Optional[chess.Move]) -> None:
        requested_move, taken_move, capture = self.arbiter.move(requested)
        self.last_move_result = (requested_move, taken_move, capture)
        self.phase = Phase.END_TURN

    def _apply_end_turn(self) -> None:
        self.arbiter.end_turn()
        self.turn = not self.turn
        self.phase = Phase.SENSE

    def _require_turn(self, color: Color) -> None:
        if self.phase is Phase.WAITING:
            raise InvalidRequest(f"game {self.game_id} has not started: both players must POST ready")
        if self.turn != color:
            raise InvalidRequest(f"it is not your turn in game {self.game_id}")

    def _require_phase(self, color: Color, expected: Phase) -> None:
        self._require_turn(color)
        if self.phase is not expected:
            raise InvalidRequest(f"game {self.game_id} expects {self.phase.value} from you now, not {expected.value}")

    def _is_retry(self, color: Color, phase_after: Phase, kind: str, value: Optional[str]) -> bool:
        """Whether this is a repeat of the action just taken (a client retrying after a lost answer)."""
        return (
            self.turn == color
            and self.phase is phase_after
            and bool(self.actions)
            and self.actions[-1] == Action(kind, value)
        )


def _win_reason(reason: Any) -> Optional[WinReason]:
    """The arbiter's win reason in our enum (same names and values as reconchess's)."""
    return None if reason is None else WinReason[reason.name]
