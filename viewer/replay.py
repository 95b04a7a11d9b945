"""A game history as the viewer's replay document, and the observations each side had at each ply.

A *ply* here is one player's turn (sense and move), in play order: ply 0 is the start,
ply ``p`` is the position after the first ``p`` turns (White's turns are the even
ones). The document holds, per turn, what the arbiter recorded (sense square and
window, requested and taken move, capture square, the truth before and after) and
what the mover learned at the start of it (the square where the opponent captured);
each side's own view is the true board restricted to its own pieces, which the page
derives from the FEN.

`observations_at(events, ply)` cuts one colour's event stream
(`GameHistory.observations(color)`) at a ply. Each event gets the ply by which its
owner knew it::

    GameStarted                          ply 0
    OpponentMoved opening turn at ply t  ply t      (the turn begins)
    SenseResult, MoveResult of turn t    ply t + 1  (the turn is over)

`GameEnded` carries nothing about the board and is left out, so the belief at the
last ply is the belief the player held when the game ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import chess

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.observations import GameEnded, GameStarted, Observation, OpponentMoved
from blindchess.arbiter.types import Color
from blindchess.errors import BlindchessError


class PlyOutOfRangeError(BlindchessError, ValueError):
    """A ply outside ``0..plies`` of a game; the message quotes the ply and the range."""


@dataclass(frozen=True, slots=True)
class TurnView:
    """One turn as the replay shows it."""

    color: Color
    number: int
    opponent_capture: Optional[int]
    sense: Optional[int]
    window: tuple[tuple[int, Optional[str]], ...]
    requested: Optional[str]
    taken: Optional[str]
    capture: Optional[int]
    fen_before: str
    fen_after: str

    def as_json(self) -> dict[str, Any]:
        return {
            "color": chess.COLOR_NAMES[self.color],
            "number": self.number,
            "opponent_capture": self.opponent_capture,
            "sense": self.sense,
            "window": [list(cell) for cell in self.window],
            "requested": self.requested,
            "taken": self.taken,
            "capture": self.capture,
            "fen_before": self.fen_before,
            "fen_after": self.fen_after,
        }


def turn_views(history: GameHistory) -> list[TurnView]:
    """Every turn of `history` in play order (a turn cut short by the end of the game has what it got through)."""
    views: list[TurnView] = []
    fen = history.starting_fen
    for turn in history.turns():
        previous = turn.previous
        opponent_capture = history.capture_square(previous) if previous.turn_number >= 0 and history.has_move(previous) else None
        window: tuple[tuple[int, Optional[str]], ...] = ()
        sense = None
        if history.has_sense(turn):
            sense = history.sense(turn)
            window = tuple((square, None if piece is None else piece.symbol()) for square, piece in history.sense_result(turn))
        requested = taken = None
        capture = None
        before = after = fen
        if history.has_move(turn):
            requested_move, taken_move, capture = history.move_result(turn)
            requested = None if requested_move is None else requested_move.uci()
            taken = None if taken_move is None else taken_move.uci()
            before, after = history.truth_fen_before_move(turn), history.truth_fen_after_move(turn)
        views.append(TurnView(turn.color, turn.turn_number, opponent_capture, sense, window, requested, taken, capture, before, after))
        fen = after
    return views


def check_ply(ply: int, plies: int) -> int:
    """`ply` if it is a ply of a game with `plies` turns, else `PlyOutOfRangeError`.

    >>> check_ply(3, 10)
    3
    >>> try:
    ...     check_ply(11, 10)
    ... except PlyOutOfRangeError as error:
    ...     print(error)
    ply 11 is out of range: this game has plies 0..10
    """
    if not 0 <= ply <= plies:
        raise PlyOutOfRangeError(f"ply {ply} is out of range: this game has plies 0..{plies}")
    return ply


def event_plies(events: list[Observation]) -> list[int]:
    """The ply by which the player knew each of its `events` (see the module docstring); GameEnded gets -1.

    >>> from blindchess.arbiter.game.observations import MoveResult, SenseResult
    >>> black = [GameStarted(chess.BLACK, chess.STARTING_FEN), OpponentMoved(None), SenseResult(None, ()),
    ...          MoveResult(None, None, None), OpponentMoved(None)]
    >>> event_plies(black)
    [0, 1, 2, 2, 3]
    """
    plies: list[int] = []
    start = 0
    for event in events:
        if isinstance(event, GameStarted):
            start = 0 if event.color == chess.WHITE else 1
            plies.append(0)
        elif isinstance(event, OpponentMoved):
            plies.append(start)
            start += 2
        elif isinstance(event, GameEnded):
            plies.append(-1)
        else:
            plies.append(start - 1)  # the turn that began at start - 2 ends at ply start - 1
    return plies


def observations_at(events: list[Observation], ply: int) -> list[Observation]:
    """The prefix of one colour's `events` that the player had received by `ply` (GameEnded left out)."""
    return [event for event, known in zip(events, event_plies(events), strict=True) if 0 <= known <= ply]


def replay_document(history: GameHistory, clocks: Optional[list[list[float]]] = None) -> dict[str, Any]:
    """The JSON the replay page draws: players, result, start and one entry per turn."""
    turns = turn_views(history)
    reason = history.get_win_reason()
    winner = history.get_winner_color()
    return {
        "white": history.get_white_player_name() or "White",
        "black": history.get_black_player_name() or "Black",
        "winner": None if winner is None else chess.COLOR_NAMES[winner],
        "win_reason": None if reason is None else reason.name,
        "starting_fen": history.starting_fen,
        "plies": len(turns),
        "turns": [turn.as_json() for turn in turns],
        "clocks": clocks if clocks is not None and len(clocks) == len(turns) + 1 else None,
    }
