"""The `Player` interface: reconchess's seven callbacks, as a real abstract base class.

A bot written for `reconchess.Player` runs here by changing its import; the
callbacks, their order and their signatures are the same. Unlike reconchess,
forgetting to implement one is an error at construction time.

Callbacks in the order a game calls them:

#. :meth:`Player.handle_game_start`
#. :meth:`Player.handle_opponent_move_result`  (every turn, White's first included)
#. :meth:`Player.choose_sense`
#. :meth:`Player.handle_sense_result`
#. :meth:`Player.choose_move`
#. :meth:`Player.handle_move_result`
#. :meth:`Player.handle_game_end`
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Optional, TypeVar

import chess

from ..types import Color, Square, WinReason

if TYPE_CHECKING:  # the history module imports the game flow, which imports this one
    from .history import GameHistory


class Player(ABC):
    """Base class of an RBC player; subclass it and implement every callback."""

    variants: ClassVar[Optional[frozenset[str]]] = frozenset({"rbc"})
    """The games this bot can play, by their names in the variant catalog (``blindchess match --variant``).

    8x8 RBC unless a bot says more; None for a bot that plays every variant from the action lists
    it is handed (`RandomBot`). ``match``, ``tournament`` and ``sprt`` refuse a bot for a variant
    it does not list, before the first game. Not a reconchess attribute: a reconchess bot plays 8x8.
    """

    @abstractmethod
    def handle_game_start(self, color: Color, board: chess.Board, opponent_name: str) -> None:
        """The game starts: your colour, the starting board (a copy you may keep) and the opponent's name."""

    @abstractmethod
    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[Square]) -> None:
        """Your turn starts: whether (and where) the opponent captured one of your pieces."""

    @abstractmethod
    def choose_sense(
        self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float
    ) -> Optional[Square]:
        """The centre of the 3x3 window to sense (one of `sense_actions`), or None to skip sensing."""

    @abstractmethod
    def handle_sense_result(self, sense_result: list[tuple[Square, Optional[chess.Piece]]]) -> None:
        """What the window showed: each square with its piece, or None for an empty square."""

    @abstractmethod
    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        """The move to request (one of `move_actions`), or None to pass."""

    @abstractmethod
    def handle_move_result(
        self,
        requested_move: Optional[chess.Move],
        taken_move: Optional[chess.Move],
        captured_opponent_piece: bool,
        capture_square: Optional[Square],
    ) -> None:
        """What your move did: the move made (None if illegal or a pass) and any capture."""

    @abstractmethod
    def handle_game_end(
        self, winner_color: Optional[Color], win_reason: Optional[WinReason], game_history: GameHistory | Any
    ) -> None:
        """The game is over: the winner (None for a draw), the reason and the full history."""


StandIn = TypeVar("StandIn", bound=Player)


def stand_in_class(name: str, base: type[StandIn]) -> type[StandIn]:
    """A subclass of `base` named `name`, for a stand-in (isolated, pondering) that acts for a bot.

    Why: the arbiter names players by their class (``type(player).__name__``), so a stand-in
    named after the bot it stands for keeps the bot's name in histories and fault messages.
    """
    named: type[StandIn] = type(name, (base,), {"__module__": base.__module__, "__doc__": base.__doc__})
    return named
