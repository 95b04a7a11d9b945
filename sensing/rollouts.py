"""Sense by rollouts: the window after which the bot's own move does best on boards drawn from the belief.

The engine-values planner (:mod:`blindchess.sensing.engine_values`) predicts the move that follows a
sense by the best mean of a few candidates over the sampled boards that show the window as it is;
the bot then chooses its move by another rule, on another sample of the posterior. On the regret
benchmark's positions that prediction ranked the windows no better than a blind draw, while the
same bot's own move rule, played on a few boards drawn from the belief, ranked them well
(docs/champion.md, "What any sense could buy"). This planner plays that rule forward. For a
shortlist of windows ``c`` and boards ``b`` drawn from the belief by weight (``w``, summing to 1), it
senses ``c`` on ``b`` (a copy of the belief told ``b``'s window), lets the move rule choose
``m_c(b)`` on that posterior, and values the move on ``b`` (Stockfish at a fixed depth, as the
engine-values planner values requests)::

    R(c) = sum_b w_b s(b, m_c(b))          the window sensed: argmax_c R(c)

Boards that show ``c`` alike share the posterior, so the rule runs once per window and outcome.
This is StrangeFish2's way of sensing (the expected outcome of its own move rule for each sense
result), with our selector as the rule.

The shortlist is the engine-values planner's: its ``V`` ranks the windows
(`EngineValueSensePlanner.values`, on as many boards as `RolloutSettings.shortlist_share` of the
budget pays for, and at least its ``min_boards``), and the best `RolloutSettings.windows` are
rolled out. The rollouts are anytime: boards are added likeliest first, each played on every
window of the shortlist, until the budget is spent (at least `RolloutSettings.min_boards`) or
`RolloutSettings.boards` are played, so a longer sense averages over more boards. Where the budget
pays for fewer than ``min_boards`` boards at the measured seconds a board (a running mean), the
engine-values planner answers alone (`EngineValueSensePlanner.choose_sense`, which leaves a budget
too small for its own searches to the value-of-information planner); where none is given or it is
unbounded (a game without a clock), the value-of-information planner does, on its default samples.
Ties go to the shortlist's order.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Optional, Protocol, runtime_checkable

import chess
import numpy as np

from blindchess.arbiter.game.observations import SenseResult
from blindchess.arbiter.rules.reference import sense_window
from blindchess.arbiter.types import Color, Square
from blindchess.beliefs.base import Belief
from blindchess.beliefs.samples import draw
from blindchess.config_tree import Bound, Count, Settings

from .base import SenseContext, SensePlanError
from .engine_values import MEASURE_WEIGHT, EngineValueSensePlanner, EngineValueSettings
from .evoi import EvoiSettings
from .windows import undominated

logger = logging.getLogger(__name__)


@runtime_checkable
class MoveRule(Protocol):
    """The move a bot would choose on a belief: what the rollout planner plays forward (the bot supplies it)."""

    def choose(self, belief: Belief, moves: Sequence[chess.Move], rng: np.random.Generator, color: Color) -> Optional[chess.Move]:
        """The move requested on `belief` (not modified) from `moves`, or None to pass."""
        ...

    def pids(self) -> list[int]:
        """The process ids of the rule's engines running now (a CPU clock reads their times)."""
        ...

    def close(self) -> None:
        """Stop what the rule started (its engines); it starts again when next needed."""
        ...


@dataclass(frozen=True, slots=True)
class RolloutSettings(Settings):
    """The rollout planner's settings (the flagship's ``planner.rollouts`` table)."""

    windows: Count = 8
    """Windows of the shortlist rolled out."""
    boards: Count = 64
    """The most boards a sense rolls out."""
    min_boards: Count = 2
    """Fewer boards than this fit the budget: the engine-values planner answers alone."""
    depth: Count = 8
    """Stockfish's depth for the value of each rolled-out move on its board."""
    rule_depth: Count = 6
    """The move rule's search depth (the bot builds its rule with it)."""
    rule_boards: Count = 12
    """Boards the move rule samples from each posterior (the bot builds its rule with it)."""
    shortlist_share: Annotated[float, Bound(gt=0.0, lt=1.0)] = 0.25
    """The share of the sense budget the engine-values shortlist may take."""
    shortlist_boards: Count = 400
    """The most boards the shortlist values (its `EngineValueSettings.boards`: as many as its share pays for)."""
    shortlist_candidates: Count = 12
    """Moves the shortlist values on every board (its `EngineValueSettings.candidates`)."""
    shortlist_engine_boards: Annotated[int, Bound(ge=0)] = 12
    """The likeliest boards whose engine move is a shortlist candidate (its `EngineValueSettings.engine_boards`)."""
    board_seconds: Annotated[float, Bound(gt=0.0)] = 0.3
    """Seconds a board's rollouts are assumed to take before one is measured."""

    bound_error = SensePlanError


class RolloutSensePlanner:
    """Senses where the bot's own move, chosen after the sense, scores best on boards drawn from the belief.

    Args:
        rule: the bot's move rule, played on each posterior.
        settings: the rollouts (`RolloutSettings`' defaults when None).
        engine: the engine-values planner's settings, for the shortlist (its sizes replaced by the rollouts') and the values.
        evoi: the value-of-information planner's settings, for the engine-values planner's tie-breaks and fallback.
        compiled: as `EngineValueSensePlanner`'s.
    """

    name = "rollouts"

    def __init__(
        self,
        rule: MoveRule,
        settings: Optional[RolloutSettings] = None,
        engine: Optional[EngineValueSettings] = None,
        evoi: Optional[EvoiSettings] = None,
        *,
        compiled: bool = True,
    ) -> None:
        self.rule = rule
        self.clock: Callable[[], float] = time.monotonic
        """What the budget counts, in seconds: wall time, or where the bot plays on a CPU clock the CPU time of its
        process and of the engines the rollouts use (`pids`), so a loaded machine does not cut the rollouts short
        (the shortlist's own deadline stays in wall seconds)."""
        self.settings = RolloutSettings() if settings is None else settings
        sizes = {
            "boards": self.settings.shortlist_boards, "candidates": self.settings.shortlist_candidates,
            "engine_boards": self.settings.shortlist_engine_boards,
        }  # fmt: skip
        self.shortlister = EngineValueSensePlanner(
            dataclasses.replace(EngineValueSettings() if engine is None else engine, **sizes), evoi, compiled=compiled
        )
        self.compiled = compiled
        self.seconds_per_board = self.settings.board_seconds
        """The running mean of the measured seconds a board's rollouts take (the cost model)."""
        self.last: dict[Square, float] = {}
        """R of every window rolled out by the last sense (empty after one another planner answered)."""
        self.boards_played = 0
        """Boards the last sense rolled out."""
        self.rolled = 0
        """Senses decided by rollouts (the others the engine-values planner answered alone)."""

    def pids(self) -> list[int]:
        """The process ids of the engines the planner runs now: the shortlist's and the rule's."""
        return [*self.shortlister.pids(), *self.rule.pids()]

    def close(self) -> None:
        """Stop the engines of the shortlist and of the rule (they start again when next needed)."""
        self.shortlister.close()
        self.rule.close()

    def choose_sense(
        self,
        belief: Belief,
        sense_actions: list[Square],
        seconds_left: float,
        rng: np.random.Generator,
        context: SenseContext,
    ) -> Optional[Square]:
        started = self.clock()
        self.last, self.boards_played = {}, 0
        settings = self.settings
        budget = context.budget
        moves = [move for move in context.move_actions if move is not None]
        centres = undominated(sense_actions)
        shortlister = self.shortlister
        if budget is None or not math.isfinite(budget):
            return shortlister.proxy.choose_sense(belief, sense_actions, seconds_left, rng, context)
        affordable = settings.min_boards * self.seconds_per_board <= (1.0 - settings.shortlist_share) * budget
        if not affordable or not moves or not centres:
            return shortlister.choose_sense(belief, sense_actions, seconds_left, rng, context)
        seconds = settings.shortlist_share * budget
        n_boards = max(shortlister.settings.min_boards, shortlister.affordable_boards(seconds))
        valued = shortlister.values(belief, moves, centres, n_boards, rng, context.color, shortlister.settings.budget_share * seconds)
        shortlist = sorted(centres, key=lambda centre: -valued.windows[centre])[: settings.windows]
        totals = self.rollouts(belief, moves, shortlist, rng, context.color, started + budget)
        self.rolled += 1
        best = max(totals.values())
        chosen = next(centre for centre in shortlist if totals[centre] >= best)
        logger.debug(
            "rolled out %d windows on %d boards in %.2f s (%.2f s a board; budget %.1f): %s, the shortlist's %s",
            len(shortlist), self.boards_played, self.clock() - started, self.seconds_per_board, budget, chosen, shortlist[0],
        )
        return chosen

    def rollouts(
        self, belief: Belief, moves: Sequence[chess.Move], shortlist: Sequence[Square], rng: np.random.Generator, color: Color,
        deadline: float,
    ) -> dict[Square, float]:
        """R of each window of `shortlist` (the module docstring), boards added likeliest first until `deadline`
        (at least `RolloutSettings.min_boards`); fills `last` and `boards_played`."""
        settings = self.settings
        sample, counts = draw(belief, settings.boards, rng, color, self.compiled).unique()
        order = np.argsort(-counts, kind="stable")
        drawn = sample.boards(color)
        boards = [drawn[index] for index in order]
        weights = counts[order].astype(float)
        chosen: dict[tuple[Square, tuple[object, ...]], Optional[chess.Move]] = {}
        sums = dict.fromkeys(shortlist, 0.0)
        played = 0.0
        for board, weight in zip(boards, weights, strict=True):
            now = self.clock()
            if self.boards_played >= settings.min_boards and now + self.seconds_per_board > deadline:
                break
            values: dict[Optional[chess.Move], float] = {}
            for centre in shortlist:
                window = sense_window(board, centre)
                key = (centre, window)
                if key not in chosen:
                    posterior = belief.copy()
                    posterior.update(SenseResult(centre, window))
                    chosen[key] = self.rule.choose(posterior, moves, rng, color)
                move = chosen[key]
                if move not in values:
                    values[move] = self.shortlister.request_value(board, move, color, settings.depth)
                sums[centre] += weight * values[move]
            played += weight
            self.boards_played += 1
            self.seconds_per_board += MEASURE_WEIGHT * (self.clock() - now - self.seconds_per_board)
        self.last = {centre: total / played for centre, total in sums.items()}
        return self.last
