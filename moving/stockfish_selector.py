"""A Stockfish-backed move selector over a belief.

Per turn, with boards ``b`` drawn from the belief (weights ``w``) and candidate moves ``m``::

    s(b, m) = +1                     if the request captures the king on b
              -1                     if afterwards our king stands capturable
              v(after(b, m))         otherwise: Stockfish's score for us in [-1, 1]
    S(m)    = (1 - lam) * sum_b w_b s(b, m) + lam * min_b s(b, m)  - exposure_penalty * P(m exposes our king)

and the move with the highest ``S`` is requested. `choose_move` is a pipeline of named stages,
each a method with its own tests:

1. `plan`: the move's `Deadline` and `SearchPolicy` (:mod:`blindchess.moving.search`), and
   whether to panic (too little clock or budget to search: the proxy alone decides);
2. `sample`: boards from the belief, weighted by it and by the threat boost, with every
   (board, move) outcome computed once;
3. `screen`: a king capture likely enough is taken at once; otherwise the cheap proxy
   (:mod:`blindchess.evaluation.values`) less the own-king exposure on a larger sample;
4. `hunt_bonus`: far ahead in material, the engine's own move on the likeliest boards gains a
   bonus (:mod:`blindchess.evaluation.king_hunt` says why);
5. `candidates`: Stockfish's move on each sampled board, the hunt's moves, then the proxy's best,
   so a move that is good on most boards but best on none still competes;
6. `score`: ``expected`` and ``worst`` of s(b, m) per candidate, on the `EnginePool`'s engines
   in parallel (:mod:`blindchess.evaluation.stockfish`: restarts a crashed Stockfish, caches
   answers); a close call with hard budget left gets a `second_look` on a fresh, larger sample;
7. `decide`: ``S`` per candidate, ties broken by the injected generator.

A timed move whose budget reaches `CoverageSettings.move_seconds` replaces stages 5 and 6 by
`cover`, an anytime loop at a fixed depth: boards of the belief in batches, likeliest and most
threatened first (every board of a small board set), the engine's own move on a few boards of each
batch joining the candidates, until the best candidate's lead is several standard errors wide,
every board is scored or the budget ends (the hard budget on a close call). Its values go through
the score cache, so a later turn or pondering at that depth reuses them.

`ponder`, run on the opponent's time, fills a `ScoreCache` (:mod:`blindchess.moving.score_cache`),
whose values then answer the same position at an equal or weaker limit (without pondering it stays
empty and every position is searched, as before): it draws the likeliest boards of the belief the bot expects at its next turn,
asks the engine for its move on the first few (the candidates the next turn will most likely
score) and searches those moves on every drawn board, likeliest first, until stopped.

The settings are one `SelectorConfig` (:mod:`blindchess.moving.selector_config`). Time: the
bot's time manager passes a budget in the `MoveContext`; without one the selector asks its own
`TimeManager` for the first turn's plan (`budget`): the clock is planned in one place. Without a clock
(``seconds_left`` infinite) a move takes `SelectorConfig.unclocked_move_seconds`.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Optional

import chess
import chess.engine
import numpy as np

from blindchess.arbiter.rules.fast_revision import request_outcome
from blindchess.arbiter.rules.reference import RequestOutcome
from blindchess.arbiter.types import Color
from blindchess.beliefs.base import Belief
from blindchess.beliefs.board_set import BoardSet
from blindchess.beliefs.samples import BoardList, BoardSample, draw
from blindchess.evaluation.king_hunt import engine_votes, material_lead
from blindchess.evaluation.request_values import fallback_value, info_value, known_value
from blindchess.evaluation.stockfish import EnginePool
from blindchess.evaluation.values import KING_VALUE, level_boosts

from .base import MoveContext
from .process_clock import ProcessTreeClock
from .score_cache import ScoreCache
from .search import Deadline, SearchPolicy, Timed, policy_for
from .selector_config import SelectorConfig
from .time_management import TimeManager

logger = logging.getLogger(__name__)

CANDIDATE_FLOOR_SECONDS = 0.005
"""The shortest timed search for the engine's own move on a board (choosing candidates)."""
HUNT_FLOOR_SECONDS = 0.01
"""The shortest timed search for the engine's own move while hunting."""
DEEPENING_GROWTH = 3.0
"""How many times longer `cover` expects a pass two plies deeper to take: it deepens only while that fits."""
PONDER_STRENGTH = 2.0
"""Pondering searches a position this many times as long as the last turn's searches (up to
`SearchSettings.max_position_seconds`), so that the next turn's request, usually no longer, finds it."""


@dataclass(frozen=True, slots=True)
class Plan:
    """A move's plan (`StockfishMoveSelector.plan`): its deadline, its search policy and whether it panics."""

    deadline: Deadline
    policy: SearchPolicy
    panic: bool


@dataclass(frozen=True, slots=True)
class Sample:
    """Boards drawn for one move, their weights (summing to 1), ``outcomes[board][move]`` and
    ``proxy[board, move]``, the outcome's proxy value (`blindchess.evaluation.values.outcome_value`)."""

    boards: list[chess.Board]
    weights: np.ndarray
    outcomes: list[list[RequestOutcome]]
    proxy: np.ndarray

    def king_odds(self) -> np.ndarray:
        """Per move, the probability that it captures the king."""
        captures = np.array([[outcome.captures_king for outcome in row] for row in self.outcomes], dtype=float)
        odds: np.ndarray = captures.T @ self.weights
        return odds


@dataclass(frozen=True, slots=True)
class Scores:
    """Stockfish's verdict on the candidates (`StockfishMoveSelector.score`): per candidate, in order,
    the weighted mean and the minimum of s(b, m) over the sampled boards."""

    candidates: list[int]
    expected: np.ndarray
    worst: np.ndarray
    boards: int


class StockfishMoveSelector:
    """Expected Stockfish value blended with the worst case, over boards sampled from the belief.

    Args:
        config: the settings (`SelectorConfig`'s defaults when None).
        clock: plans a move no bot gives a budget (`budget`; `TimeManager`'s defaults when None).
        compiled: read the board set's compact rows with compiled kernels (proxy values, threat levels,
            exposure); False always builds `chess.Board` objects and asks python-chess (the reference
            path: the same answers, slower).
    """

    def __init__(self, config: Optional[SelectorConfig] = None, *, clock: Optional[TimeManager] = None, compiled: bool = True) -> None:
        self.config = SelectorConfig() if config is None else config
        self.clock = TimeManager() if clock is None else clock
        self.compiled = compiled
        self.policy = policy_for(self.config)
        self.pool = EnginePool(self.config.engine.processes, options=self.config.engine.options, cache_size=self.config.engine.cache)
        self.cache = ScoreCache(self.config.ponder.score_cache)
        self._closed_counts = (0, 0)  # the cache's (lookups, hits) at the last `close`
        self._last_limit: Optional[chess.engine.Limit] = None  # the last turn's search of one position
        self.seconds: Callable[[], float] = time.monotonic if self.config.search.clock == "wall" else ProcessTreeClock(self.pool.pids)
        """What a move's deadline counts (`SearchSettings.clock`)."""

    def close(self) -> None:
        """Stop the engines and forget the game's positions (the cache's counts stay, for measurements).

        Logs (INFO) the game's lookups and hits: the cache's counts since the last close.
        """
        self.pool.close()
        lookups, hits = self.cache.lookups - self._closed_counts[0], self.cache.hits - self._closed_counts[1]
        if lookups:
            logger.info("score cache: %d of %d lookups hit this game (%.1f%%)", hits, lookups, 100 * hits / lookups)
        self._closed_counts = (self.cache.lookups, self.cache.hits)
        self.cache.clear(counts=False)
        self._last_limit = None

    def choose_move(
        self,
        belief: Belief,
        move_actions: list[chess.Move],
        seconds_left: float,
        rng: np.random.Generator,
        context: MoveContext,
    ) -> Optional[chess.Move]:
        if not move_actions:
            return None
        plan = self.plan(seconds_left, context)
        budget, color, policy = plan.deadline.budget, context.color, plan.policy
        n_boards = self.config.panic.boards if plan.panic else policy.boards(budget)
        sample = self.sample(belief, move_actions, n_boards, rng, color)
        king_odds = sample.king_odds()
        if king_odds.max() >= self.config.king_capture_threshold:
            return pick(move_actions, king_odds, rng)
        safety = self.config.panic.safety_boards if plan.panic else policy.safety_boards(budget)
        proxy, exposure = self.screen(belief, move_actions, sample, rng, color, safety)
        if plan.panic:
            return pick(move_actions, proxy, rng)
        hunt = self.hunt_bonus(sample, move_actions, color, self.config.hunt.share * plan.deadline.left(), policy)
        if self.covers(plan, context):
            scores = self.cover(belief, move_actions, proxy, hunt, exposure, rng, color, plan.deadline)
            looked = False
        else:
            candidates = self.candidates(sample, move_actions, proxy, self.config.candidates.share * plan.deadline.left(), hunt, policy)
            scores = self.score(sample.outcomes, sample.weights, candidates, color, plan.deadline.left(), policy)
            looked = policy.second_look and plan.deadline.hard > budget and self.is_close(scores, hunt)
            if looked:
                scores = self.second_look(belief, move_actions, scores, hunt, rng, color, plan, n_boards)
        logger.debug(
            "chose among %d candidates on %d boards in %.2f s (budget %.2f s, hard %.2f s, second look %s, hunting %s)",
            len(scores.candidates), scores.boards, plan.deadline.elapsed(), budget, plan.deadline.hard, looked, bool(hunt.any()),
        )
        return self.decide(move_actions, scores, hunt, exposure, rng)

    # ------------------------------------------------------------------ stages

    def budget(self, seconds_left: float, increment: float) -> float:
        """Seconds to spend on this move when the bot gives no budget: the clock plan's first turn, all of it
        (`TimeManager.turn_budget`), so the clock is planned in one place with one set of defaults."""
        return self.clock.turn_budget(seconds_left, increment)

    def plan(self, seconds_left: float, context: MoveContext) -> Plan:
        """The move's deadline (the context's budgets, else `budget`), search policy and panic.

        An unbounded budget (no clock: the time manager's plan and `budget` are both infinite)
        becomes `SelectorConfig.unclocked_move_seconds`, and so does an unbounded hard budget: a
        timed search needs a finite time to divide among its boards.
        """
        budget = context.budget if context.budget is not None else self.budget(seconds_left, context.increment)
        hard = context.hard_budget
        if not math.isfinite(budget):
            budget = self.config.unclocked_move_seconds
        if hard is not None and not math.isfinite(hard):
            hard = self.config.unclocked_move_seconds
        deadline = Deadline.start(budget, hard, self.seconds)
        policy = self.policy.under(context.search)
        return Plan(deadline, policy, seconds_left < self.config.panic.seconds or policy.pressed(budget))

    def sample(
        self, belief: Belief, move_actions: list[chess.Move], n: int, rng: np.random.Generator, color: Color
    ) -> Sample:
        """`n` boards drawn from the belief, weighted by it and by the threat boost, with every move's outcome on each."""
        distinct, weights = self._distinct(belief, n, rng, color)
        boards = distinct.boards(color)
        outcomes = [[request_outcome(board, move) for move in move_actions] for board in boards]
        return Sample(boards, weights / weights.sum(), outcomes, distinct.move_values(move_actions))

    def _distinct(self, belief: Belief, n: int, rng: np.random.Generator, color: Color) -> tuple[BoardSample, np.ndarray]:
        """`n` boards drawn by weight, duplicates merged (by FEN, `color` to move), weighted by their share of the
        draw times their threat boost (`level_boosts`), not normalised."""
        distinct, counts = draw(belief, n, rng, color, self.compiled).unique()
        weights = counts / max(1.0, counts.sum())
        return distinct, weights * level_boosts(self.config.threat_boost)[distinct.threat_levels()]

    def screen(
        self, belief: Belief, move_actions: list[chess.Move], sample: Sample, rng: np.random.Generator, color: Color, safety_boards: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per move, the proxy's blended score less `KING_VALUE` times its exposure, and the exposure
        (on `safety_boards` boards drawn afresh)."""
        lam = self.config.worst_case_weight
        proxy = sample.proxy
        blended = (1 - lam) * (sample.weights @ proxy) + lam * proxy.min(axis=0)
        exposure = self.exposure(belief, move_actions, rng, color, safety_boards)
        return blended - KING_VALUE * exposure, exposure

    def exposure(
        self, belief: Belief, move_actions: list[chess.Move], rng: np.random.Generator, color: Color, n_boards: int
    ) -> np.ndarray:
        """Per move, the probability (on `n_boards` sampled boards) that our king is capturable after it."""
        distinct, weights = self._distinct(belief, n_boards, rng, color)
        return distinct.exposure(move_actions, weights / max(weights.sum(), 1e-12))

    def hunt_bonus(
        self, sample: Sample, move_actions: list[chess.Move], color: Color, seconds: float, policy: SearchPolicy
    ) -> np.ndarray:
        """Per move, ``hunt.weight * V(m)`` (`engine_votes` on the `hunt.boards` likeliest boards, searched
        in `seconds` together) when the material lead reaches `hunt.material`, else zeros."""
        config, boards, weights = self.config, sample.boards, sample.weights
        if not boards or material_lead(BoardList(boards, color).material_balance(), weights) < config.hunt.material:
            return np.zeros(len(move_actions))
        likeliest = np.argsort(-weights, kind="stable")[: config.hunt.boards]
        limit = policy.play_limit(seconds / len(likeliest), HUNT_FLOOR_SECONDS)
        with self.pool.engine() as engine:
            chosen = [engine.play(boards[i], limit) for i in likeliest]  # a king capture comes first (Engine)
        bonus: np.ndarray = config.hunt.weight * engine_votes(move_actions, chosen, weights[likeliest])
        return bonus

    def candidates(
        self, sample: Sample, move_actions: list[chess.Move], proxy: np.ndarray, seconds: float, hunt: np.ndarray,
        policy: SearchPolicy,
    ) -> list[int]:
        """Indices of the moves worth scoring: Stockfish's choice per board (up to half the candidates
        and one), the engine's choices while hunting, then the proxy's best."""
        index = {move: j for j, move in enumerate(move_actions)}
        chosen: list[int] = []
        limit = policy.play_limit(seconds / max(1, len(sample.boards)), CANDIDATE_FLOOR_SECONDS, self.config.candidates.search_seconds)
        with self.pool.engine() as engine:
            for board in sample.boards:
                if len(chosen) >= self.config.candidates.count // 2 + 1:
                    break
                move = engine.play(board, limit)
                if move is not None and move in index and index[move] not in chosen:
                    chosen.append(index[move])
        chosen += [int(j) for j in np.flatnonzero(hunt > 0) if int(j) not in chosen]
        for j in np.argsort(-proxy, kind="stable"):
            if len(chosen) >= self.config.candidates.count:
                break
            if int(j) not in chosen:
                chosen.append(int(j))
        return chosen

    def score(
        self, outcomes: list[list[RequestOutcome]], weights: np.ndarray, columns: list[int], color: Color, seconds: float,
        policy: SearchPolicy,
    ) -> Scores:
        """Per column of `outcomes` in `columns`: the weighted mean and the minimum of s(b, m) over the
        boards, searched in `seconds` under `policy`."""
        evaluations = [(i, j) for j in columns for i in range(len(outcomes))]
        limit = policy.position_limit(seconds * self.config.engine.processes, len(evaluations))
        self._last_limit = limit
        values = self._values({(i, j): outcomes[i][j] for i, j in evaluations}, color, limit)
        table = np.array([[values[(i, j)] for i in range(len(outcomes))] for j in columns]).reshape(len(columns), len(outcomes))
        return Scores(columns, table @ weights, table.min(axis=1), len(outcomes))

    def covers(self, plan: Plan, context: MoveContext) -> bool:
        """Whether this move takes `cover`: a timed search with a budget of at least `coverage.move_seconds`, in a
        long game (no short-game search rule in the `context`: `TimeManager.search_rule`, ``clock.long_clock``).

        A fixed-depth policy never covers (its moves are the same whatever the clock), and neither does a short
        game such as 120 s + 5 s, whose 5-7 s moves the timed path plays as it was measured.
        """
        long_game = context.search is None
        return long_game and isinstance(plan.policy, Timed) and plan.deadline.budget >= self.config.coverage.move_seconds

    def coverage_boards(self, belief: Belief, rng: np.random.Generator, color: Color) -> tuple[BoardSample, np.ndarray]:
        """The boards `cover` scores, in the order it takes them, and their weights (summing to one).

        Every board of a board set of at most `coverage.boards` boards with its weight, else that many
        draws, duplicates merged; each weighted by its threat boost too (`level_boosts`), taken heaviest
        first, equal weights in random order.
        """
        n = self.config.coverage.boards
        if self.compiled and isinstance(belief, BoardSet) and len(belief) <= n:
            listed = belief.rows(np.arange(len(belief)))
            boards: BoardSample = listed
            weights = belief.weights() * level_boosts(self.config.threat_boost)[listed.threat_levels()]
        else:
            boards, weights = self._distinct(belief, n, rng, color)
        shuffled = rng.permutation(len(boards))
        order = shuffled[np.argsort(-weights[shuffled], kind="stable")]
        ordered: np.ndarray = weights[order] / weights.sum()
        return boards.take(order), ordered

    def cover(
        self, belief: Belief, move_actions: list[chess.Move], proxy: np.ndarray, hunt: np.ndarray, exposure: np.ndarray,
        rng: np.random.Generator, color: Color, deadline: Deadline,
    ) -> Scores:
        """The candidates' ``expected`` and ``worst`` s(b, m) over as many `coverage_boards` as the deadline allows,
        every search to `coverage.depth` at first (an anytime loop; the module docstring).

        The first batch starts the candidates as `candidates` does (the engine's move per board, the hunt's
        moves, the proxy's best); each later batch asks the engine's move on `coverage.probes` of its boards
        and scores one not yet a candidate on every board scored so far. Past `coverage.min_boards`, a
        candidate trailing the best ``S`` by `coverage.drop_margin` stops being scored, and once the best leads
        the second by `coverage.stable_z` standard errors of their mean difference no board is added. Then,
        or once every board is scored, the boards scored are searched again `coverage.deepen` plies deeper
        (board by board, each deeper value replacing the shallower), up to `coverage.max_depth`, while the
        budget left is at least `DEEPENING_GROWTH` times the last pass's seconds (with `coverage.deepen_in_part`,
        that times one batch's share of it: the boards go deeper heaviest first, and a pass may end part way, before
        a batch that would outlast the budget at the pass's pace so far; its boards' values are then of two depths,
        each board's candidates all of one). The loop stops there or when
        the budget is spent (the hard budget on a close call).
        """
        settings = self.config.coverage
        depth = settings.depth
        self._last_limit = chess.engine.Limit(depth=depth)  # pondering fills the cache at the first depth
        listed, weights = self.coverage_boards(belief, rng, color)
        index = {move: j for j, move in enumerate(move_actions)}
        boards: list[chess.Board] = []
        tried: list[int] = []  # every candidate so far, dropped ones too (at most `max_candidates`)
        alive: list[int] = []
        table: dict[int, list[float]] = {}  # per candidate: s(b, m) on each board scored, in order
        scores, starting = Scores([], np.zeros(0), np.zeros(0), 0), self.config.candidates.count
        cursor, settled = 0, False  # the next board to search at `depth`; whether boards are still added
        pass_started = deadline.elapsed()
        while True:
            passed = deadline.elapsed() - pass_started  # the seconds of this depth's pass so far
            left = deadline.hard_left() if self.is_close(scores, hunt) else deadline.left()
            first = cursor
            if cursor < len(boards):  # searching the boards again, deeper
                if settings.deepen_in_part and cursor and passed / cursor * settings.batch > left:
                    break  # a pass in part: its next batch, at its boards' pace so far, would outlast the budget
                joining: list[int] = []
                cursor = min(len(boards), cursor + settings.batch)
            elif settled or len(boards) == len(listed):
                needed = DEEPENING_GROWTH * passed * (min(1.0, settings.batch / max(1, len(boards))) if settings.deepen_in_part else 1.0)
                if not settings.deepen or depth + settings.deepen > settings.max_depth or needed > left:
                    break  # it would not finish (or not one batch of it): one batch can outlast the budget many times
                depth, cursor, pass_started = depth + settings.deepen, 0, deadline.elapsed()
                continue
            else:
                boards += listed.take(np.arange(first, min(len(listed), first + settings.batch))).boards(color)
                cursor = len(boards)
                joining = self._probe(boards[first:], index, tried, len(tried) + settings.probes if tried else starting // 2 + 1, depth)
                if first == 0:  # as `candidates` starts them: the engine's, the hunt's, then the proxy's best
                    joining += [int(j) for j in np.flatnonzero(hunt > 0) if int(j) not in joining]
                    by_proxy = [int(j) for j in np.argsort(-proxy, kind="stable") if int(j) not in joining]
                    joining += by_proxy[: max(0, starting - len(joining))]
                tried += joining
            pairs = [(i, j) for j in joining for i in range(first)] + [(i, j) for j in alive + joining for i in range(first, cursor)]
            outcomes = {(i, j): request_outcome(boards[i], move_actions[j]) for i, j in pairs}
            values = self._values(outcomes, color, chess.engine.Limit(depth=depth), store=True)
            for j in alive:
                table[j][first:cursor] = [values[(i, j)] for i in range(first, cursor)]
            for j in joining:
                table[j] = [values[(i, j)] for i in range(cursor)]
            alive += joining
            scores, totals = self._covered(alive, table, weights[: len(boards)], hunt, exposure)
            if len(boards) >= settings.min_boards:
                alive = [alive[k] for k in np.flatnonzero(totals >= totals.max() - settings.drop_margin)]
                scores, totals = self._covered(alive, table, weights[: len(boards)], hunt, exposure)
                settled = settled or self.is_stable(scores, totals, table, weights[: len(boards)])
            if deadline.left() <= 0.0 and (deadline.hard_left() <= 0.0 or not self.is_close(scores, hunt)):
                break
        logger.debug(
            "covered %d of %d boards to depth %d (stable %s), %d of %d candidates left, in %.2f s",
            len(boards), len(listed), depth, settled, len(alive), len(tried), deadline.elapsed(),
        )
        return scores

    def _probe(self, boards: list[chess.Board], index: Mapping[chess.Move, int], tried: list[int], most: int, depth: int) -> list[int]:
        """The engine's moves at `depth` on `boards` (one per board, up to `coverage.probes` boards once candidates
        exist) that are not in `tried`, while fewer than `most` (and `coverage.max_candidates`) candidates."""
        settings = self.config.coverage
        limit = chess.engine.Limit(depth=depth)
        joining: list[int] = []
        most = min(most, settings.max_candidates)
        with self.pool.engine() as engine:
            for board in boards if not tried else boards[: settings.probes]:
                if len(tried) + len(joining) >= most:
                    break
                move = engine.play(board, limit)
                if move is not None and move in index and index[move] not in tried and index[move] not in joining:
                    joining.append(index[move])
        return joining

    def _covered(
        self, alive: list[int], table: Mapping[int, list[float]], weights: np.ndarray, hunt: np.ndarray, exposure: np.ndarray
    ) -> tuple[Scores, np.ndarray]:
        """`Scores` of the `alive` candidates from their values in `table` on the boards weighted `weights`,
        and their ``S`` as `decide` reckons it."""
        values = np.array([table[j] for j in alive]).reshape(len(alive), len(weights))
        scores = Scores(list(alive), values @ (weights / weights.sum()), values.min(axis=1), len(weights))
        return scores, self.total(scores, hunt, exposure)

    def is_stable(self, scores: Scores, totals: np.ndarray, table: Mapping[int, list[float]], weights: np.ndarray) -> bool:
        """Whether the best candidate's ``S`` (`totals`) leads the second's by `coverage.stable_z` standard errors
        of their weighted mean difference over the boards scored (scaled by the mean's share of the blend)."""
        if len(scores.candidates) < 2:
            return True
        best, second = np.argsort(-totals, kind="stable")[:2]
        difference = np.array(table[scores.candidates[best]]) - np.array(table[scores.candidates[second]])
        share = weights / weights.sum()
        error = math.sqrt(float(share**2 @ (difference - share @ difference) ** 2))
        lead = float(totals[best] - totals[second])
        return lead >= self.config.coverage.stable_z * (1.0 - self.config.worst_case_weight) * error

    def blend(self, scores: Scores) -> np.ndarray:
        """``(1 - lam) * expected + lam * worst`` per candidate."""
        lam = self.config.worst_case_weight
        blended: np.ndarray = (1 - lam) * scores.expected + lam * scores.worst
        return blended

    def is_close(self, scores: Scores, hunt: np.ndarray) -> bool:
        """Whether the two best candidates (with their hunt bonus) score within `candidates.close_margin` of each other."""
        if len(scores.candidates) < 2:
            return False
        best_two = np.sort(self.blend(scores) + hunt[scores.candidates])[-2:]
        return bool(best_two[1] - best_two[0] < self.config.candidates.close_margin)

    def second_look(
        self, belief: Belief, move_actions: list[chess.Move], scores: Scores, hunt: np.ndarray, rng: np.random.Generator,
        color: Color, plan: Plan, boards: int,
    ) -> Scores:
        """`scores` with the best `candidates.second_look` scored again on ``2 * boards`` boards drawn afresh in the
        hard budget left, each estimate pooled with the first by sample size (the worst case by minimum)."""
        candidates = scores.candidates
        ranked = np.argsort(-(self.blend(scores) + hunt[candidates]), kind="stable")
        top = [candidates[k] for k in ranked[: self.config.candidates.second_look]]
        more = self.sample(belief, [move_actions[j] for j in top], 2 * boards, rng, color)
        fresh = self.score(more.outcomes, more.weights, list(range(len(top))), color, plan.deadline.hard_left(), plan.policy)
        share = fresh.boards / (fresh.boards + scores.boards)
        expected, worst = scores.expected.copy(), scores.worst.copy()
        for k, j in enumerate(top):
            at = candidates.index(j)
            expected[at] = (1 - share) * expected[at] + share * fresh.expected[k]
            worst[at] = min(worst[at], fresh.worst[k])
        return Scores(candidates, expected, worst, scores.boards)

    def decide(
        self, move_actions: list[chess.Move], scores: Scores, hunt: np.ndarray, exposure: np.ndarray, rng: np.random.Generator
    ) -> chess.Move:
        """The candidate of highest ``S`` (blend, hunt bonus, exposure penalty); ties drawn from `rng`."""
        total = np.full(len(move_actions), -np.inf)
        total[scores.candidates] = self.total(scores, hunt, exposure)
        return pick(move_actions, total, rng)

    def total(self, scores: Scores, hunt: np.ndarray, exposure: np.ndarray) -> np.ndarray:
        """``S`` per candidate of `scores`: the blend, plus the hunt bonus, less the exposure penalty."""
        candidates = scores.candidates
        total: np.ndarray = self.blend(scores) + hunt[candidates] - self.config.safety.exposure_penalty * exposure[candidates]
        return total

    def ponder(
        self, belief: Belief, move_actions: list[chess.Move], color: Color, stop: threading.Event, rng: np.random.Generator
    ) -> int:
        """Score the positions the next turn will likely ask for into the cache until `stop` is set (see the module
        docstring); returns how many positions were searched.

        `belief` is the belief expected at the next turn (before its sense) and `move_actions` our moves then.
        Each search is the last turn's, `PONDER_STRENGTH` times as long (the same depth at fixed depth), and
        `stop` abandons it at once (`Engine.analyse`'s `stop`); the engine's own moves take the shorter
        of the last search and `candidates.search_seconds`. After a turn scored by `cover`, the searches are at its
        depth and `coverage.boards` boards are drawn, as many as that turn may score.
        """
        if not move_actions or stop.is_set():
            return 0
        limit = self._ponder_limit()
        play_limit = limit if limit.time is None else chess.engine.Limit(time=min(limit.time, self.config.candidates.search_seconds))
        covering = isinstance(self.policy, Timed) and limit == chess.engine.Limit(depth=self.config.coverage.depth)
        distinct, weights = self._distinct(belief, self.config.coverage.boards if covering else self.config.ponder.boards, rng, color)
        boards = distinct.boards(color)
        likeliest = [boards[i] for i in np.argsort(-weights, kind="stable")]
        legal = set(move_actions)
        chosen: list[chess.Move] = []
        searched = 0
        with self.pool.engine() as engine:
            for board in likeliest[: self.config.candidates.count // 2 + 1]:  # as `candidates` picks them
                if stop.is_set():
                    return searched
                move = engine.play(board, play_limit)
                if move is not None and move in legal and move not in chosen:
                    chosen.append(move)
            for board in likeliest:
                for move in chosen:
                    if stop.is_set():
                        return searched
                    outcome = request_outcome(board, move)
                    if known_value(outcome, color) is not None:
                        continue
                    after = outcome.after()
                    if self.cache.get(after, color, limit, counted=False) is not None:
                        continue
                    value = info_value(engine.analyse(after, limit, info=chess.engine.INFO_SCORE, stop=stop), color)
                    if value is not None:
                        self.cache.store(after, color, limit, value)
                        searched += 1
        return searched

    def _ponder_limit(self) -> chess.engine.Limit:
        """The search of one position while pondering (see `ponder`)."""
        last = self._last_limit
        if last is None:  # no turn yet: the engine's own move's search
            last = self.policy.play_limit(self.config.candidates.search_seconds, CANDIDATE_FLOOR_SECONDS)
        if last.time is None:
            return last  # a fixed depth: the same search
        return chess.engine.Limit(time=min(self.config.search.max_position_seconds, PONDER_STRENGTH * last.time))

    def _values(
        self, outcomes: Mapping[tuple[int, int], RequestOutcome], color: chess.Color, limit: chess.engine.Limit, *, store: bool = False
    ) -> dict[tuple[int, int], float]:
        """s(b, m) for the outcome of every (board, move) index pair, scored on the pool's engines in parallel;
        `store` keeps each search's value in the score cache (the fixed-depth values of `cover`)."""
        engines = self.config.engine.processes
        evaluations = list(outcomes)
        shards = [evaluations[k::engines] for k in range(engines)]

        def score_shard(shard: list[tuple[int, int]]) -> dict[tuple[int, int], float]:
            result: dict[tuple[int, int], float] = {}
            with self.pool.engine() as engine:
                for key in shard:
                    known = known_value(outcomes[key], color)
                    if known is not None:
                        result[key] = known
                        continue
                    after = outcomes[key].after()
                    value = self.cache.get(after, color, limit)
                    if value is None:
                        value = info_value(engine.analyse(after, limit, info=chess.engine.INFO_SCORE), color)  # the score is all we read
                        if store and value is not None:
                            self.cache.store(after, color, limit, value)
                    # unsearchable, or the engine died twice: the material balance
                    result[key] = fallback_value(after, color) if value is None else value
            return result

        if engines == 1:
            return score_shard(evaluations)
        values: dict[tuple[int, int], float] = {}
        with ThreadPoolExecutor(max_workers=engines) as executor:
            for part in executor.map(score_shard, shards):
                values.update(part)
        return values


def pick(moves: list[chess.Move], scores: np.ndarray, rng: np.random.Generator) -> chess.Move:
    """The move of highest score, a tie drawn from `rng`."""
    best = np.flatnonzero(scores >= np.max(scores) - 1e-9)
    return moves[int(best[rng.integers(len(best))])]
