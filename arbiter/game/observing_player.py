"""`ObservingPlayer`: the one adapter from reconchess's seven callbacks to observation events.

A belief-keeping bot wants the event stream of :mod:`blindchess.arbiter.game.observations`,
but the arbiter (like reconchess) calls the `Player` callbacks with the events flattened
into arguments. This base turns each callback back into its event and hands it to
:meth:`ObservingPlayer.observe`, so no bot rebuilds events by hand. The events a player
receives are exactly ``history.observations(color)`` of the game it played:

==============================  =====================================================
callback                        event handed to ``observe``
==============================  =====================================================
``handle_game_start``           ``GameStarted(color, board.fen(en_passant="fen"), name)``
``handle_opponent_move_result`` ``OpponentMoved(capture_square or None)``
``handle_sense_result``         ``SenseResult(square chosen by choose_sense, window)``
``handle_move_result``          ``MoveResult(requested, taken, capture_square or None)``
``handle_game_end``             ``GameEnded(winner_color, win_reason)``
==============================  =====================================================

The FEN is written with ``en_passant="fen"``, as the 8x8 rules record it
(:data:`blindchess.arbiter.rules.ruleset.STANDARD`). The sense square is the one
``choose_sense`` returned, remembered by the adapter: it is what the history records,
and it cannot be read back from a window in general (a clipped window on a board two
squares wide has two possible centres). To remember it without asking subclasses to
cooperate, every subclass's ``choose_sense`` is wrapped once, when the class is created
(``__init_subclass__``); a subclass writes ``choose_sense`` exactly as for reconchess.

Example::

    class CountingBot(ObservingPlayer):
        def observe(self, event):
            self.seen = getattr(self, "seen", 0) + 1

        def choose_sense(self, sense_actions, move_actions, seconds_left):
            return None

        def choose_move(self, move_actions, seconds_left):
            return None
"""

from __future__ import annotations

import functools
from abc import abstractmethod
from collections.abc import Callable
from typing import Any, Optional

import chess

from ..types import Color, Square, WinReason
from .observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from .player import Player

_ChooseSense = Callable[..., Optional[Square]]


def _remembering(choose_sense: _ChooseSense) -> _ChooseSense:
    """`choose_sense` that also stores its answer on the player (``_sense_square``), for the next `SenseResult`."""

    @functools.wraps(choose_sense)
    def wrapper(self: ObservingPlayer, *args: Any, **kwargs: Any) -> Optional[Square]:
        square = choose_sense(self, *args, **kwargs)
        self._sense_square = square
        return square

    wrapper._remembers_sense = True  # type: ignore[attr-defined]
    return wrapper


class ObservingPlayer(Player):
    """A `Player` whose callbacks become observation events for :meth:`observe` (see the module docstring).

    Subclasses implement ``observe``, ``choose_sense`` and ``choose_move``. One that also
    overrides a ``handle_*`` callback calls ``super()`` so the event still arrives.

    Attributes:
        color: the player's colour in the current game (set before ``GameStarted`` is observed).
    """

    color: Color = chess.WHITE
    _sense_square: Optional[Square] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        choose_sense = cls.choose_sense  # this class's own, or the one it inherits (e.g. from a mixed-in bot)
        if not getattr(choose_sense, "__isabstractmethod__", False) and not getattr(choose_sense, "_remembers_sense", False):
            cls.choose_sense = _remembering(choose_sense)  # type: ignore[method-assign]

    @abstractmethod
    def observe(self, event: Observation) -> None:
        """Receive one event of the game, in the order the game delivers them."""

    def handle_game_start(self, color: Color, board: chess.Board, opponent_name: str) -> None:
        self.color = color
        self._sense_square = None
        self.observe(GameStarted(color, board.fen(en_passant="fen"), opponent_name))

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[Square]) -> None:
        self._sense_square = None
        self.observe(OpponentMoved(capture_square if captured_my_piece else None))

    def handle_sense_result(self, sense_result: list[tuple[Square, Optional[chess.Piece]]]) -> None:
        self.observe(SenseResult(self._sense_square, tuple(sense_result)))

    def handle_move_result(
        self,
        requested_move: Optional[chess.Move],
        taken_move: Optional[chess.Move],
        captured_opponent_piece: bool,
        capture_square: Optional[Square],
    ) -> None:
        self.observe(MoveResult(requested_move, taken_move, capture_square if captured_opponent_piece else None))

    def handle_game_end(self, winner_color: Optional[Color], win_reason: Optional[WinReason], game_history: Any) -> None:
        self.observe(GameEnded(winner_color, win_reason))
