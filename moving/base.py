"""The move-selector protocol: which move to request, given a belief.

A selector reads the belief (through `blindchess.beliefs.base.Belief`) and returns one of
the move actions, or None to pass. Everything it may need besides the belief comes in a
small frozen `MoveContext`. In RBC a request is not the move made: on each board the arbiter
may shorten a slide, turn a blocked double step into a single one or refuse the move, so a
selector scores what would happen (`blindchess.arbiter.rules.reference.request_outcome`), not what
was asked for; the move values it shares with the sense planners live in
`blindchess.evaluation.values`.

Every selector is deterministic for a given ``rng`` state (and, for an engine-backed one, a
fixed search depth): ties and random choices draw from the injected generator only.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Optional, Protocol, runtime_checkable

import chess
import numpy as np

from blindchess.arbiter.types import Color
from blindchess.beliefs.base import Belief
from blindchess.errors import BlindchessError


class MoveSelectionError(BlindchessError, ValueError):
    """A selector was given settings or input it cannot choose from (the message names it)."""


@dataclass(frozen=True, slots=True)
class SearchRule:
    """How an evaluation's seconds become each search's time limit.

    ``limit = min(longest, share * seconds / positions - overhead)``, at least 4 ms (with
    several engines, ``seconds`` counts once per engine: they search side by side).

    Attributes:
        share: share of the seconds given to the searches (the rest pays for the Python
            around them).
        overhead: seconds taken off each limit for the search's round trip to the engine.
        longest: the longest search of one position.

    >>> SearchRule(share=0.9, overhead=0.003, longest=5.0).limit(2.0, positions=16)
    0.1095
    """

    share: float
    overhead: float
    longest: float

    def __post_init__(self) -> None:
        if not 0.0 < self.share <= 1.0 or self.overhead < 0.0 or self.longest <= 0.0:
            raise MoveSelectionError(
                "a search rule needs 0 < share <= 1, overhead >= 0 and longest > 0, "
                f"got {self.share!r}, {self.overhead!r}, {self.longest!r}"
            )

    def limit(self, seconds: float, positions: int) -> float:
        """Seconds for each of `positions` searches sharing `seconds`."""
        return max(0.004, min(self.longest, self.share * seconds / max(1, positions) - self.overhead))


@dataclass(frozen=True, slots=True)
class MoveContext:
    """What a selector knows besides the belief.

    Attributes:
        color: the selecting player's colour.
        increment: seconds added to the clock after each turn (measured by the bot).
        budget: seconds the bot's time manager gives this move (None: the selector plans its
            own from the clock; see `blindchess.moving.time_management`).
        hard_budget: seconds the move may take on a close call (None: `budget`).
        search: how a timed search turns its seconds into search limits in this game, as the
            bot's time manager decides (`TimeManager.search_rule`; None: the selector's own rule).
            A fixed-depth selector has no use for it.
    """

    color: Color
    increment: float = 0.0
    budget: Optional[float] = None
    hard_budget: Optional[float] = None
    search: Optional[SearchRule] = None


@runtime_checkable
class MoveSelector(Protocol):
    """Chooses the move to request."""

    def choose_move(
        self,
        belief: Belief,
        move_actions: list[chess.Move],
        seconds_left: float,
        rng: np.random.Generator,
        context: MoveContext,
    ) -> Optional[chess.Move]:
        """One of `move_actions`, or None to pass. Neither the belief nor the list is modified.

        Args:
            belief: the current belief over the hidden board (not modified).
            move_actions: the moves the arbiter allows (not modified).
            seconds_left: the player's clock; selectors spend less when it is low.
            rng: the only source of randomness (tie-breaks, board samples).
            context: colour and clock increment.
        """
        ...

    def close(self) -> None:
        """Release what the selector holds (engine processes); it may be used again afterwards."""
        ...


@runtime_checkable
class PonderingSelector(Protocol):
    """A selector that can prepare its next move on the opponent's time (see `BeliefBot.ponder`)."""

    def ponder(
        self, belief: Belief, move_actions: list[chess.Move], color: Color, stop: threading.Event, rng: np.random.Generator
    ) -> int:
        """Work towards the next move on `belief` (the one expected then) until `stop` is set; returns the positions searched.

        It must return promptly once `stop` is set and leave the selector usable whenever it returns.
        """
        ...
