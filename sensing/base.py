"""The sense-planner protocol: where to point the 3x3 sensor, given a belief.

A planner reads the belief (through `blindchess.beliefs.base.Belief`, and through
`WeightedBoards` when the belief can show its whole support) and returns one of the
sense actions, or None to skip the sense. Everything a planner may need besides the
belief comes in a small frozen `SenseContext`: the player's colour and where the
opponent just captured, which the belief itself does not carry (trout's heuristic
senses there; the value-of-information planner needs to know whose moves it weighs).

Every planner is deterministic for a given ``rng`` state: ties and random choices
draw from the injected `numpy.random.Generator` only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Protocol, runtime_checkable

import chess
import numpy as np

from blindchess.arbiter.types import Color, Square
from blindchess.beliefs.base import Belief
from blindchess.errors import BlindchessError


class SensePlanError(BlindchessError, ValueError):
    """A planner was given something it cannot plan from (the message names it)."""


@dataclass(frozen=True, slots=True)
class SenseContext:
    """What a planner knows besides the belief.

    Attributes:
        color: the planning player's colour.
        opponent_capture_square: where the opponent captured one of our pieces this turn, or None.
        move_actions: the moves we may request after sensing (planners that weigh moves use them).
        budget: seconds the bot's time manager gives this sense (None: the planner's defaults;
            planners that can use more time scale their samples with it).
    """

    color: Color
    opponent_capture_square: Optional[Square] = None
    move_actions: tuple[chess.Move, ...] = ()
    budget: Optional[float] = None


@runtime_checkable
class SensePlanner(Protocol):
    """Chooses the centre of the next sense window."""

    name: str
    """A short name for tables and presets (``"eig"``, ``"random"``, ...)."""

    def choose_sense(
        self,
        belief: Belief,
        sense_actions: list[Square],
        seconds_left: float,
        rng: np.random.Generator,
        context: SenseContext,
    ) -> Optional[Square]:
        """One of `sense_actions`, or None to skip sensing.

        Args:
            belief: the current belief over the hidden board (not modified).
            sense_actions: the squares the arbiter allows (not modified).
            seconds_left: the player's clock; planners spend less when it is low.
            rng: the only source of randomness (tie-breaks, random choices).
            context: colour, the opponent's capture square and our move actions.
        """
        ...


@runtime_checkable
class ClosingPlanner(Protocol):
    """A planner that holds a process (a chess engine) to stop at the end of each game, as move selectors are."""

    def close(self) -> None:
        """Stop what the planner started; it starts again when next needed."""
