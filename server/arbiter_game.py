"""The server's one seam onto the arbiter: build a game, end it on time, export its history.

The server adjudicates with the arbiter's :class:`LocalGame` but keeps the clocks
itself (they must survive a restart, and on a server ``handle_move_result`` is not
charged to the mover), so the arbiter game runs with unlimited time and this module
tells it when a player has run out.
"""

from __future__ import annotations

import json
import math
from typing import Any, Optional

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.local_game import LocalGame
from blindchess.arbiter.types import Color


def new_arbiter_game(
    white_name: str, black_name: str, reversible_moves_limit: Optional[int], full_turn_limit: Optional[int]
) -> LocalGame[Any]:
    """An arbiter game with the players' names stored and unlimited arbiter-side time, already started."""
    game: LocalGame[Any] = LocalGame(
        seconds_per_player=None,
        seconds_increment=0,
        reversible_moves_limit=reversible_moves_limit,
        full_turn_limit=full_turn_limit,
    )
    game.store_players(white_name, black_name)
    game.start()
    return game


def force_timeout(game: LocalGame[Any], color: Color) -> None:
    """Make `color` lose on time (the server's clock ran out, or the player gave up with error_resign)."""
    game.seconds_left_by_color[color] = -math.inf


def history_json(history: GameHistory) -> dict[str, Any]:
    """The history as reconchess's GameHistory JSON object (key order and encodings included)."""
    loaded: dict[str, Any] = json.loads(history.to_json())
    return loaded


def history_from_json(history: dict[str, Any]) -> GameHistory:
    """A GameHistory from the JSON object a server sends (checked: a malformed one raises HistoryFormatError)."""
    return GameHistory.from_json(json.dumps(history), source="the server's game_history")
