"""Sense by engine values: the window whose result most improves the move Stockfish would then choose.

The value-of-information planner (:mod:`blindchess.sensing.evoi`) weighs windows with a one-move
material proxy, which cannot see a mate, a pin or a piece lost two moves later. Given the time,
this planner weighs them with the values the move selector decides by: with boards ``b`` drawn
from the belief (weights ``w``), a few candidate moves ``m`` and ``s(b, m)`` Stockfish's value of
requesting ``m`` on ``b`` at a fixed shallow depth (:mod:`blindchess.evaluation.request_values`),
a window ``c`` whose result on board ``b`` is ``o_c(b)`` is worth::

    V(c)    = sum_o P(o) max_m E[s(b, m) | o_c(b) = o] = sum_o max_m sum_{b : o_c(b) = o} w_b s(b, m)
    V(none) = max_m sum_b w_b s(b, m)  <=  V(c)   (knowing more cannot lower the best choice's expectation)

and the planner senses where ``V`` is highest (``V(c) - V(none)`` is
`blindchess.sensing.evoi.value_of_information` on these values). This is StrangeFish2's idea
(the expected outcome of its own move rule for each sense result), on our selector's values.

Candidates: the engine's move on the `EngineValueSettings.engine_boards` likeliest boards, then
the proxy's best on average, then the moves that are the proxy's best on the most weight of boards
(a capture there only on some boards, which knowing the window would let us make).

Ties and near-ties (within `EngineValueSettings.margin`) go to the value-of-information planner's
choice, which it makes first on its default samples: where no window changes the engine's move it
still learns most, and the two planners differ only where the engine sees a window matter.

Time: the engine work is ``boards * candidates + engine_boards`` searches; their cost is the
measured seconds per search (a running mean, starting at `EngineValueSettings.search_seconds`).
The boards are valued likeliest first and the rest are left out when the budget runs out (the
cost model can guess low: a loaded machine, a first sense). Where the sense budget
(`SenseContext.budget`, less what the proxy planner took) pays for fewer than
`EngineValueSettings.min_boards` boards, the planner answers as the value-of-information
planner does on the whole budget; with no budget it scores `EngineValueSettings.boards` boards.

The values it searched stay in `EngineValueSensePlanner.last` (`SenseValues`), keyed by the
position after the request, for a move selector's score cache.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Optional

import chess
import chess.engine
import numpy as np

from blindchess.arbiter.rules.fast_revision import request_outcome
from blindchess.arbiter.types import Color, Square
from blindchess.beliefs.base import Belief
from blindchess.beliefs.samples import BoardSample, draw
from blindchess.config_tree import Bound, Count, Settings
from blindchess.evaluation.request_values import known_value, searched_value
from blindchess.evaluation.stockfish import Engine
from blindchess.evaluation.values import level_boosts

from .base import SenseContext, SensePlanError
from .evoi import EvoiSettings, ValueOfInformationSensePlanner, value_of_information
from .support import pick_best
from .windows import WindowOutcomes, undominated

logger = logging.getLogger(__name__)

MEASURE_WEIGHT = 0.3
"""How much one sense's measured seconds per search moves the running mean (an exponential average)."""


@dataclass(frozen=True, slots=True)
class EngineValueSettings(Settings):
    """The engine-values planner's settings (the flagship's ``planner.engine`` table)."""

    depth: Count = 6
    """Stockfish's depth for every value and candidate (about 3 ms a search on one core: docs/champion.md)."""
    boards: Count = 48
    """Boards drawn from the belief (duplicates merged) when the budget allows or none is given."""
    min_boards: Count = 8
    """Fewer boards than this fit the budget: the value-of-information planner answers."""
    candidates: Count = 6
    """Moves valued on every board."""
    engine_boards: Annotated[int, Bound(ge=0)] = 3
    """The likeliest boards whose engine move is a candidate."""
    margin: Annotated[float, Bound(ge=0.0)] = 0.02
    """Windows within this value (about 13 cp near an even score) of the best tie, and go to the proxy planner's choice."""
    budget_share: Annotated[float, Bound(gt=0.0, le=1.0)] = 0.8
    """The share of the sense budget left after the proxy planner that the searches may take."""
    search_seconds: Annotated[float, Bound(gt=0.0)] = 0.004
    """Seconds per search assumed before one is measured."""

    bound_error = SensePlanError


@dataclass(frozen=True, eq=False)
class SenseValues:
    """What one sense valued: s(b, m) on its boards, and every window's V (the module docstring).

    Attributes:
        color: whose values (the planner's side).
        limit: the search every value was made at.
        boards: the boards valued (our side to move), the rows of `table`.
        moves: the candidate moves, the columns of `table`.
        weights: the boards' weights (summing to 1).
        table: s(b, m), shape (boards, candidates).
        searched: the position after each searched request (the opponent to move), by its EPD, and its value for
            `color` (king captures and exposures need no search and are not here).
        no_sense: V(none).
        windows: V(c) of every window valued, by centre.
    """

    color: Color
    limit: chess.engine.Limit
    boards: tuple[chess.Board, ...]
    moves: tuple[chess.Move, ...]
    weights: np.ndarray
    table: np.ndarray
    searched: dict[str, tuple[chess.Board, float]]
    no_sense: float
    windows: dict[Square, float]


class EngineValueSensePlanner:
    """Senses where knowing the result most raises the expected Stockfish value of the move chosen after it.

    Args:
        settings: the engine work (`EngineValueSettings`' defaults when None).
        evoi: the value-of-information planner's settings, for its tie-breaks and its fallback answer.
        compiled: as `ValueOfInformationSensePlanner`'s.
    """

    name = "engine-values"

    def __init__(
        self, settings: Optional[EngineValueSettings] = None, evoi: Optional[EvoiSettings] = None, *, compiled: bool = True
    ) -> None:
        self.settings = EngineValueSettings() if settings is None else settings
        self.proxy = ValueOfInformationSensePlanner(evoi, compiled=compiled)
        self.compiled = compiled
        self.seconds_per_search = self.settings.search_seconds
        """The running mean of the measured seconds per search (the cost model)."""
        self.last: Optional[SenseValues] = None
        """The values of the last sense that used the engine (None after one the proxy planner answered)."""
        self.fallbacks = 0
        """Senses the proxy planner answered alone, the budget too small for the engine."""
        self._engine: Optional[Engine] = None

    def close(self) -> None:
        """Stop the engine (it starts again on the next sense that needs it)."""
        if self._engine is not None:
            self._engine.close()

    def pids(self) -> list[int]:
        """The process id of the planner's engine while it runs (a CPU clock reads its time)."""
        pid = None if self._engine is None else self._engine.pid
        return [] if pid is None else [pid]

    def affordable_boards(self, seconds: Optional[float]) -> int:
        """How many boards the searches of `seconds` pay for at the measured cost (`boards` without a budget)."""
        settings = self.settings
        if seconds is None:
            return settings.boards
        searches = settings.budget_share * max(0.0, seconds) / self.seconds_per_search - settings.engine_boards
        return min(settings.boards, max(0, int(searches // settings.candidates)))

    def choose_sense(
        self,
        belief: Belief,
        sense_actions: list[Square],
        seconds_left: float,
        rng: np.random.Generator,
        context: SenseContext,
    ) -> Optional[Square]:
        started = time.monotonic()
        self.last = None
        moves = [move for move in context.move_actions if move is not None]
        if self.affordable_boards(context.budget) < self.settings.min_boards or not moves:
            self.fallbacks += 1
            return self.proxy.choose_sense(belief, sense_actions, seconds_left, rng, context)
        proxy_choice = self.proxy.choose_sense(belief, sense_actions, seconds_left, rng, dataclasses.replace(context, budget=None))
        left = None if context.budget is None else context.budget - (time.monotonic() - started)
        n_boards = self.affordable_boards(left)
        centres = undominated(sense_actions)
        if not centres:
            return proxy_choice
        if n_boards < self.settings.min_boards:
            self.fallbacks += 1
            return proxy_choice
        seconds = None if left is None else self.settings.budget_share * left
        values = self.values(belief, moves, centres, n_boards, rng, context.color, seconds)
        self.last = values
        scores = np.array([values.windows[c] for c in centres])
        near = {c for c, score in zip(centres, scores, strict=True) if score >= scores.max() - self.settings.margin}
        chosen = proxy_choice if proxy_choice in near else pick_best(centres, scores, rng)
        logger.debug(
            "valued %d windows on %d boards x %d moves in %.2f s (%.1f ms a search; budget %s): %s, evoi's %s, gain %.3f",
            len(centres), len(values.boards), len(values.moves), time.monotonic() - started, 1000 * self.seconds_per_search,
            context.budget, chosen, proxy_choice, scores.max() - values.no_sense,
        )
        return chosen

    def values(
        self, belief: Belief, moves: Sequence[chess.Move], centres: Sequence[Square], n_boards: int,
        rng: np.random.Generator, color: Color, seconds: Optional[float] = None,
    ) -> SenseValues:
        """s(b, m) on up to `n_boards` boards drawn from `belief` and V of every window of `centres` (the module docstring).

        The boards are valued likeliest first; past `seconds` (None: no limit) the rest are left out once
        `EngineValueSettings.min_boards` are valued, so a cost model that guessed low cannot overspend the sense.
        """
        sample, weights = self._sample(belief, n_boards, rng, color)
        order = np.argsort(-weights, kind="stable")
        sample, weights = sample.take(order), weights[order]
        boards = sample.boards(color)
        limit = chess.engine.Limit(depth=self.settings.depth)
        engine = self._running()
        started = time.monotonic()
        deadline = None if seconds is None else started + seconds
        chosen = self._candidates(engine, sample, boards, weights, moves, limit)
        searches = min(self.settings.engine_boards, len(boards))
        rows: list[list[float]] = []
        searched: dict[str, tuple[chess.Board, float]] = {}
        for board in boards:
            if deadline is not None and len(rows) >= self.settings.min_boards and time.monotonic() > deadline:
                break
            row = []
            for move in chosen:
                outcome = request_outcome(board, move)
                known = known_value(outcome, color)
                if known is None:
                    after = outcome.after()
                    key = after.epd()
                    if key not in searched:
                        searched[key] = (after, searched_value(engine, after, color, limit))
                        searches += 1
                    known = searched[key][1]
                row.append(known)
            rows.append(row)
        if searches:
            measured = (time.monotonic() - started) / searches
            self.seconds_per_search += MEASURE_WEIGHT * (measured - self.seconds_per_search)
        kept = len(rows)
        table = np.array(rows).reshape(kept, len(chosen))
        weights = weights[:kept] / weights[:kept].sum()
        no_sense = float((weights @ table).max())
        outcomes = WindowOutcomes(sample.take(np.arange(kept)).grid(), centres)
        windows = {
            centre: no_sense + (0.0 if item is None else value_of_information(item[0], item[1], weights, table))
            for centre, item in zip(centres, outcomes.labels, strict=True)
        }
        return SenseValues(color, limit, tuple(boards[:kept]), tuple(chosen), weights, table, searched, no_sense, windows)

    def request_value(self, board: chess.Board, move: Optional[chess.Move], color: Color, depth: int) -> float:
        """s(`board`, `move`) for `color` (the module docstring): known where no search is needed, else searched at `depth`."""
        outcome = request_outcome(board, move)
        known = known_value(outcome, color)
        return known if known is not None else searched_value(self._running(), outcome.after(), color, chess.engine.Limit(depth=depth))

    def _sample(self, belief: Belief, n: int, rng: np.random.Generator, color: Color) -> tuple[BoardSample, np.ndarray]:
        """`n` boards drawn by weight, duplicates merged, weighted by their share of the draw times their threat
        boost (the proxy planner's `threat_boost`), normalised."""
        distinct, counts = draw(belief, n, rng, color, self.compiled).unique()
        weights = counts * level_boosts(self.proxy.settings.threat_boost)[distinct.threat_levels()]
        return distinct, weights / weights.sum()

    def _candidates(
        self, engine: Engine, sample: BoardSample, boards: list[chess.Board], weights: np.ndarray, moves: Sequence[chess.Move],
        limit: chess.engine.Limit,
    ) -> list[chess.Move]:
        """The engine's move on the likeliest boards, the proxy's best on average, then the proxy's best on the most
        weight of boards, up to `EngineValueSettings.candidates` (the module docstring)."""
        count = self.settings.candidates
        legal = set(moves)
        chosen: list[chess.Move] = []
        for board in boards[: self.settings.engine_boards]:  # the likeliest: `values` orders them so
            move = engine.play(board, limit)
            if move is not None and move in legal and move not in chosen and len(chosen) < count:
                chosen.append(move)
        proxy = sample.move_values(list(moves))
        mean = weights @ proxy
        best_on = np.bincount(proxy.argmax(axis=1), weights=weights, minlength=len(moves))
        for j in [int(np.argmax(mean)), *np.lexsort((-mean, -best_on))]:
            if len(chosen) >= count:
                break
            if moves[int(j)] not in chosen:
                chosen.append(moves[int(j)])
        return chosen

    def _running(self) -> Engine:
        if self._engine is None:
            self._engine = Engine(options={"Hash": 16})
        return self._engine
