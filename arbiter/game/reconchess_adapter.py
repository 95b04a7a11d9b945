"""Adapters between our `Player` and `reconchess.Player`, both ways.

The seven callbacks have the same names, arguments and types on both sides (colours, squares,
`chess.Move`, `chess.Piece`, sense windows as lists of ``(square, piece)`` pairs). Only two
values differ in type and are converted at the boundary:

* `WinReason`: the same members and values, but two distinct enums; converted by name.
* the game history handed to `handle_game_end`: each side gets its own `GameHistory` class,
  converted through the JSON both write (the formats are the same).

reconchess is a test dependency only, so it is imported lazily, when an adapter is built.

Examples::

    # a reconchess bot in our arbiter, against any of ours (MyBot: a blindchess Player)
    from reconchess.bots.trout_bot import TroutBot
    WrappedTrout = from_reconchess_class(TroutBot)
    play_local_game(WrappedTrout(), MyBot())

    # one of ours with reconchess's scripts, e.g. in a file given to rc-bot-match
    MyBotForReconchess = to_reconchess_class(MyBot)

(``bots/rc/`` in this repository holds such files for our baselines.)
"""

from __future__ import annotations

import importlib
import json
from typing import TYPE_CHECKING, Any, Optional

import chess

from ..types import Color, Square, WinReason
from .history import GameHistory
from .player import Player

if TYPE_CHECKING:
    import reconchess


def _reconchess() -> Any:
    """The `reconchess` package, imported on first use."""
    return importlib.import_module("reconchess")


def to_reconchess_history(history: Any) -> Any:
    """Our `GameHistory` as a `reconchess.GameHistory` (None stays None; a reconchess history is returned as is)."""
    rc = _reconchess()
    if history is None or isinstance(history, rc.GameHistory):
        return history
    return json.loads(history.to_json(), cls=rc.history.GameHistoryDecoder)


def from_reconchess_history(history: Any) -> Any:
    """A `reconchess.GameHistory` as our `GameHistory` (None stays None; anything else is returned as is)."""
    rc = _reconchess()
    if history is None or not isinstance(history, rc.GameHistory):
        return history
    return GameHistory.from_json(json.dumps(history, cls=rc.history.GameHistoryEncoder))


def _to_reconchess_reason(win_reason: Optional[WinReason]) -> Any:
    return None if win_reason is None else _reconchess().WinReason[win_reason.name]


def _from_reconchess_reason(win_reason: Any) -> Optional[WinReason]:
    return None if win_reason is None else WinReason[win_reason.name]


class _Delegating:
    """The seven callbacks forwarded to `self.player`, converting the end-of-game values on the way.

    Shared by both directions; a subclass sets the two converters.
    """

    player: Any
    convert_reason: Any = staticmethod(lambda win_reason: win_reason)
    convert_history: Any = staticmethod(lambda game_history: game_history)

    def handle_game_start(self, color: Color, board: chess.Board, opponent_name: str) -> None:
        self.player.handle_game_start(color, board, opponent_name)

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[Square]) -> None:
        self.player.handle_opponent_move_result(captured_my_piece, capture_square)

    def choose_sense(
        self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float
    ) -> Optional[Square]:
        return self.player.choose_sense(sense_actions, move_actions, seconds_left)  # type: ignore[no-any-return]

    def handle_sense_result(self, sense_result: list[tuple[Square, Optional[chess.Piece]]]) -> None:
        self.player.handle_sense_result(sense_result)

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        return self.player.choose_move(move_actions, seconds_left)  # type: ignore[no-any-return]

    def handle_move_result(
        self,
        requested_move: Optional[chess.Move],
        taken_move: Optional[chess.Move],
        captured_opponent_piece: bool,
        capture_square: Optional[Square],
    ) -> None:
        self.player.handle_move_result(requested_move, taken_move, captured_opponent_piece, capture_square)

    def handle_game_end(self, winner_color: Optional[Color], win_reason: Any, game_history: Any) -> None:
        self.player.handle_game_end(winner_color, self.convert_reason(win_reason), self.convert_history(game_history))


class ReconchessPlayerAdapter(_Delegating, Player):
    """Our `Player` that drives a `reconchess.Player` instance.

    Args:
        player: the reconchess bot to drive.
    """

    convert_reason = staticmethod(_to_reconchess_reason)
    convert_history = staticmethod(to_reconchess_history)

    def __init__(self, player: reconchess.Player) -> None:
        self.player = player


def from_reconchess_class(player_class: type[reconchess.Player]) -> type[Player]:
    """Our `Player` class (same name, same constructor arguments) playing the reconchess bot `player_class`.

    A class made by :func:`to_reconchess_class` is unwrapped back to our original class.
    """
    original = getattr(player_class, "blindchess_class", None)
    if original is not None:
        return original  # type: ignore[no-any-return]

    def __init__(self: ReconchessPlayerAdapter, *args: Any, **kwargs: Any) -> None:
        ReconchessPlayerAdapter.__init__(self, player_class(*args, **kwargs))

    return type(
        player_class.__name__,
        (ReconchessPlayerAdapter,),
        {
            "__init__": __init__,
            "__doc__": player_class.__doc__,
            "__module__": player_class.__module__,
            "reconchess_class": player_class,
        },
    )


def to_reconchess_class(player_class: type[Player]) -> type[reconchess.Player]:
    """A `reconchess.Player` subclass (same name, same constructor arguments) playing our bot `player_class`.

    Usable with reconchess's own `play_local_game`, `rc-bot-match`, `rc-connect` and `rc-playback`:
    reconchess's `load_player` finds it in any module that binds it to a name.
    A class made by :func:`from_reconchess_class` is unwrapped back to the reconchess original.
    """
    original = getattr(player_class, "reconchess_class", None)
    if original is not None:
        return original  # type: ignore[no-any-return]

    def __init__(self: _Delegating, *args: Any, **kwargs: Any) -> None:
        self.player = player_class(*args, **kwargs)

    return type(
        player_class.__name__,
        (_Delegating, _reconchess().Player),
        {
            "__init__": __init__,
            "__doc__": player_class.__doc__,
            "__module__": player_class.__module__,
            "blindchess_class": player_class,
            "convert_reason": staticmethod(_from_reconchess_reason),
            "convert_history": staticmethod(from_reconchess_history),
        },
    )
