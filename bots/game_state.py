"""What a `BeliefBot` learns during one game, in one object made afresh at every `GameStarted`.

A bot object may play many games (a tournament worker reuses it); whatever it measured or
inferred in one game (its belief, the clock's increment, its overhead, pondering's work) must
not leak into the next. Holding all of it in one `GameState`, replaced whole when a game
starts, makes a reused bot start clean by construction rather than by a list of resets that
can miss a field (the increment once was: a second game planned its first turn with the
first game's increment).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

import chess

from blindchess.arbiter import Square
from blindchess.arbiter.game.observations import Observation
from blindchess.beliefs.base import Belief
from blindchess.moving.time_management import Allotment


@dataclass(slots=True)
class GameState:
    """One game's knowledge and bookkeeping of a `blindchess.bots.belief_bot.BeliefBot` (see the module docstring)."""

    belief: Belief
    """The belief over the opponent's boards."""
    events: list[Observation] = field(default_factory=list)
    """Every event so far (a rebuild replays them)."""
    rebuilds: int = 0
    """How many times an inconsistent observation forced a rebuild of the belief."""
    belief_stale: bool = False
    """True once a rebuild failed: the bot plays on its last good belief and stops rebuilding."""
    failures: Counter[str] = field(default_factory=Counter)
    """This game's planner and selector calls that raised, by callback (``choose_sense``, ``choose_move``)."""
    first_failure: dict[str, str] = field(default_factory=dict)
    """The first error of each callback that raised."""
    increment: float = 0.0
    """The clock's increment, measured from our own clock readings (the `Player` API does not tell it)."""
    capture_square: Optional[Square] = None
    """Where the opponent captured at the start of this turn."""
    move_clock: Optional[tuple[float, float]] = None
    """(seconds_left, monotonic time) when the last ``choose_move`` began."""
    turn_end: Optional[float] = None
    """Monotonic time our last turn ended."""
    turns: int = 0
    """Own turns finished."""
    overhead: float = 0.0
    """Seconds per turn spent outside the planner and selector (a moving average)."""
    allotment: Optional[Allotment] = None
    """This turn's plan from the time manager."""
    difficulty_total: float = 0.0
    """The difficulty weights of the turns planned so far, summed (a long game weighs a turn against their mean)."""
    sense_seconds: float = 0.0
    """What this turn's sense took."""
    start_clock: Optional[float] = None
    """Our clock at our first turn."""
    turn_start: Optional[float] = None
    """Monotonic time this turn began."""
    thinking: float = 0.0
    """Planner and selector seconds this turn."""
    pondered: Optional[tuple[Belief, Belief]] = None
    """(the belief pondering expanded, its expansion)."""
    pondered_sense: Optional[tuple[Belief, tuple[chess.Move, ...], Optional[Square]]] = None
    """(the belief, our moves, the sense) pondering chose."""
    sense_actions: list[Square] = field(default_factory=list)
    """The last turn's sense actions (every turn offers the same)."""
    pondered_turns: int = 0
    """Turns of this game that began on the belief pondering expanded."""
    pondered_senses: int = 0
    """Turns of this game that sensed where pondering chose."""
