"""`BotFault`: why a bot lost by the arbiter's hand, and `BotFaultError`, which carries one to the play loop.

Contract: a `BotFault` names the bot, its colour, the callback, the turn (None off the
turn: game start and end), what went wrong, the traceback where there is one, and whether
it was a timeout. Its `message` is the one line the play loop logs.

Why a module of its own: the history records faults (``GameHistory.faults``) and the play
loop makes them; with the fault here, neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import chess

from blindchess.errors import BlindchessError

from ..types import Color
from .turns import Turn


@dataclass(frozen=True)
class BotFault:
    """Why a bot lost by the arbiter's hand (or misbehaved after the game ended)."""

    player_name: str
    color: Color
    callback: str
    problem: str
    turn: Optional[Turn] = None
    traceback: Optional[str] = field(default=None, repr=False)
    timed_out: bool = False

    @property
    def message(self) -> str:
        where = "" if self.turn is None else f" on {self.turn}"
        return f"{self.player_name} ({chess.COLOR_NAMES[self.color]}) {self.problem} in {self.callback}{where}"

    def __str__(self) -> str:
        return self.message


class BotFaultError(BlindchessError):
    """Carries a `BotFault` from the callback that failed to the loop that ends the game."""

    def __init__(self, fault: BotFault) -> None:
        super().__init__(fault.message)
        self.fault = fault
