"""A Stockfish-backed move selector over a belief.

Per turn, with boards ``b`` drawn from the belief (weights ``w``) and candidate moves ``m``::

    s(b, m) = +1                     if the request captures the king on b
              -1                     if afterwards our king stands capturable
              v(after(b, m))         otherwise: Stockfish's score for us in [-1, 1]
    S(m)    = (1 - lam) * sum_b w_b s(b, m) + lam * min_b s(b, m)

and the move with the highest ``S`` is requested. Before any of that, a move that captures
the king with probability at least `king_capture_threshold` is taken at once.

Candidates are Stockfish's own move on each sampled board plus the best few moves by the
cheap proxy of :mod:`blindchess.evaluation.values` (captures, threats, safety), so a move that is
good on most boards but best on none still competes. Positions go to an `EnginePool`
(:mod:`blindchess.evaluation.stockfish`: restarts a crashed Stockfish, refuses positions that would
crash it, caches answers keyed by position); one thread per engine scores in parallel.

Time: the bot's time manager (:mod:`blindchess.bots.time_management`) passes a budget in the
`MoveContext`; without one the selector plans its own: `reserve_seconds` of the clock are
never planned with (they pay for belief updates and sensing, which this selector does not
control), and of the rest each turn gets ``usable / moves_to_go + 0.5 * increment``, at most
a sixth of it. The work scales with the budget ``T``:

* boards: ``T / 0.08`` up to `boards` (24), past that ``boards * sqrt(T / (0.08 boards))`` up
  to `max_boards`: more time buys both more boards and longer searches, each growing as the
  square root of the budget, since both the sampling error of the belief and the engine's
  depth matter (``experiments/bench_move_time.py`` measures the result);
* per-position search time: what is left, shared over the (board, candidate) pairs, less the
  `SEARCH_OVERHEAD` each search costs beyond its limit, up to `max_position_seconds` (5 s: on a
  belief of one or a few boards there are no more boards to sample, and a long clock's budget
  goes into deeper searches instead of being left on the clock); in a game the time manager
  calls short (`MoveContext.short_clock`), by `SHORT_CLOCK_SEARCH` instead;
* a close call (the two best candidates within `close_margin`) with time left before the
  context's hard budget gets a second look: the best three candidates scored on a fresh,
  twice as large sample, pooled with the first.

Converting a won game: once the mean material lead on the sample reaches `hunt_material`, the
engine chooses its own move on the `hunt_boards` likeliest boards with a longer search (a
share `HUNT_SHARE` of the budget), each candidate's score gains `hunt_weight` times the weight
share of the boards where it was the engine's choice, and those moves join the candidates
(:mod:`blindchess.evaluation.king_hunt` says why).

Below `panic_seconds` the engine is not used at all: the proxy alone picks the move on a few
boards, in milliseconds.
"""

from __future__ import annotations

import logging
import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Optional

import chess
import chess.engine
import numpy as np

from blindchess.arbiter.bitboard_revise import request_outcome
from blindchess.arbiter.rules import RequestOutcome
from blindchess.arbiter.types import Color
from blindchess.beliefs.base import Belief
from blindchess.evaluation.king_hunt import HUNT_MATERIAL, engine_votes, material_lead
from blindchess.evaluation.stockfish import Engine, EnginePool
from blindchess.evaluation.values import KING_VALUE, material_balance, outcome_value, threat_weights

from .base import MoveContext, MoveSelectionError
from .sampling import weighted_unique_boards

logger = logging.getLogger(__name__)

WIN, LOSS = 1.0, -1.0

HUNT_SHARE = 0.3
"""Share of a move's budget spent on the engine's own moves while hunting (see the module docstring)."""

SEARCH_OVERHEAD = 0.003
"""Seconds a time-limited search costs beyond its limit: python-chess's round trip to Stockfish.

Measured on this project's 2-core machine, 20 positions per limit: a search limited to 4 ms took
7 ms, to 20 ms 22 ms, to 100 ms 102 ms, to 500 ms 500 ms. The evaluation shares its seconds
as ``search_share * seconds / positions - SEARCH_OVERHEAD`` per position (``search_share`` 0.9:
the tenth pays for the Python around the searches): at many short searches that is about what
a flat ``0.7 * seconds / positions`` gives (the flagship's rule until 41a7351, still its rule in
short games: `SHORT_CLOCK_SEARCH`), and at a long clock's few long searches it spends the
budget instead of leaving 30% of it unused.
"""


@dataclass(frozen=True, slots=True)
class SearchRule:
    """How an evaluation's seconds become each search's time limit.

    ``limit = min(longest, share * seconds / positions - overhead)``, at least 4 ms (with
    several engines, ``seconds`` counts once per engine: they search side by side).

    Attributes:
        share: share of the seconds given to the searches (the rest pays for the Python
            around them).
        overhead: seconds taken off each limit for the search's round trip (`SEARCH_OVERHEAD`).
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
                "need 0 < search_share <= 1, search_overhead >= 0 and max_position_seconds > 0, "
                f"got {self.share!r}, {self.overhead!r}, {self.longest!r}"
            )

    def limit(self, seconds: float, positions: int) -> float:
        """Seconds for each of `positions` searches sharing `seconds`."""
        return max(0.004, min(self.longest, self.share * seconds / max(1, positions) - self.overhead))


SHORT_CLOCK_SEARCH = SearchRule(share=0.7, overhead=0.0, longest=0.5)
"""The searches of a game the time manager calls short: the flagship's rule until 41a7351.

With it the flagship scored 57.5% (50.5-64.5%) over 200 games at 60 + 2 against the flagship
before the clock work and 30 of 30 against reconchess's TroutBot at 120 + 5; the fuller
spending of 41a7351 (this module's defaults, and the sense's unused share going to the move)
scored 40.0% (26.9-53.1%) against it over 40 games at 60 + 2 and is kept for long games,
where the old rule left most of a 900 + 5 clock unused (docs/clock.md).
"""


def score_to_value(score: chess.engine.PovScore, color: chess.Color) -> float:
    """Stockfish's score as a value in [-1, 1] for `color`.

    Centipawns go through a logistic scaled into (-0.95, 0.95); a mate in ``n`` is worth
    ``0.999 - 0.001 n`` (down to 0.96), so any forced mate beats any material lead and a
    shorter mate beats a longer one. Without the distance, every move of a won ending scored
    the same and the bot shuffled a rook until the 50-move draw (a game against TroutBot).
    """
    pov = score.pov(color)
    mate = pov.mate()
    if mate is not None:
        magnitude = 0.999 - 0.001 * min(abs(mate), 39)
        return magnitude if pov > chess.engine.Cp(0) else -magnitude  # MateGiven has mate() == 0 too
    centipawns = pov.score(mate_score=100_000) or 0
    return 0.95 * (2.0 / (1.0 + math.exp(-centipawns / 300.0)) - 1.0)


class StockfishMoveSelector:
    """Expected Stockfish value blended with the worst case, over boards sampled from the belief.

    Args:
        boards: the most boards to sample per turn.
        candidates: the most candidate moves scored on every board.
        worst_case_weight: ``lam`` above: 0 is pure expectation, 1 pure worst case.
        king_capture_threshold: take a king capture at least this likely without further thought.
        safety_boards: boards sampled for the cheap own-king exposure check (many more than
            are scored by Stockfish, so that a rare but deadly threat is still seen).
        exposure_penalty: subtracted from a move's score per unit probability that it leaves
            our king capturable on the safety sample (scores lie in [-1, 1], so 10 makes a
            3% risk of losing the king on the spot outweigh most positional differences).
        threat_boost: boards where our king is attacked right now weigh this many times their
            belief weight, boards where a square next to it is attacked a third of that extra
            (`blindchess.evaluation.values.threat_weights`): rushing opponents aim there on purpose,
            far more often than a uniform opponent-move model assumes.
        max_boards: the most boards sampled when the budget is large (see the module docstring).
        max_position_seconds: the longest search of one position.
        search_share: share of the evaluation's seconds given to its searches (the rest pays
            for the Python around them; see `SEARCH_OVERHEAD`).
        search_overhead: seconds taken off each search's limit for its round trip. These three
            make `search`, the `SearchRule` of every game but those the context calls short
            (`SHORT_CLOCK_SEARCH`).
        close_margin: candidates scoring within this of the best make a close call.
        engines: how many Stockfish processes (one scoring thread each).
        moves_to_go: the clock is spread over this many future turns.
        reserve_seconds: clock never planned with (see the module docstring).
        panic_seconds: below this clock the engine is skipped.
        engine_options: UCI options for every engine.
        search_depth: search every position to this depth instead of by time, and sample a
            fixed number of boards: the selector is then deterministic for a seed (tests,
            replays), at the price of ignoring the clock above `panic_seconds`.
        hunt_material: hunt the king from this material lead (pawns) on; None never hunts.
        hunt_weight: score added to the move the engine chooses on every hunted board (in
            proportion to its weight share): 0.03 is above the few thousandths between quiet
            moves of a won position and below what losing a rook costs at +15 (0.06).
        hunt_boards: on how many of the likeliest sampled boards the engine chooses its move.
    """

    def __init__(
        self,
        boards: int = 24,
        candidates: int = 8,
        worst_case_weight: float = 0.3,
        king_capture_threshold: float = 0.5,
        safety_boards: int = 160,
        exposure_penalty: float = 10.0,
        threat_boost: float = 4.0,
        max_boards: int = 96,
        max_position_seconds: float = 5.0,
        search_share: float = 0.9,
        search_overhead: float = SEARCH_OVERHEAD,
        close_margin: float = 0.03,
        engines: int = 1,
        moves_to_go: int = 30,
        reserve_seconds: float = 8.0,
        panic_seconds: float = 15.0,
        engine_options: Optional[dict[str, int]] = None,
        search_depth: Optional[int] = None,
        hunt_material: Optional[float] = HUNT_MATERIAL,
        hunt_weight: float = 0.03,
        hunt_boards: int = 4,
    ) -> None:
        if boards < 1 or candidates < 1 or engines < 1:
            raise MoveSelectionError(f"boards, candidates and engines must be >= 1, got {boards!r}, {candidates!r}, {engines!r}")
        if not 0.0 <= worst_case_weight <= 1.0:
            raise MoveSelectionError(f"worst_case_weight must be in [0, 1], got {worst_case_weight!r}")
        self.boards = boards
        self.candidates = candidates
        self.worst_case_weight = worst_case_weight
        self.king_capture_threshold = king_capture_threshold
        self.safety_boards = safety_boards
        self.exposure_penalty = exposure_penalty
        self.threat_boost = threat_boost
        self.max_boards = max(boards, max_boards)
        self.search = SearchRule(search_share, search_overhead, max_position_seconds)
        self.close_margin = close_margin
        self.moves_to_go = moves_to_go
        self.reserve_seconds = reserve_seconds
        self.panic_seconds = panic_seconds
        self.pool = EnginePool(engines, options=engine_options or {"Threads": 1, "Hash": 16}, cache_size=4096)
        self.engines = engines
        self.search_depth = search_depth
        self.hunt_material = hunt_material
        self.hunt_weight = hunt_weight
        self.hunt_boards = hunt_boards

    def close(self) -> None:
        self.pool.close()

    def budget(self, seconds_left: float, increment: float) -> float:
        """Seconds to spend on this move when the bot gives no budget."""
        usable = max(0.0, seconds_left - self.reserve_seconds)
        return min(usable / self.moves_to_go + 0.5 * increment, usable / 6.0)

    def boards_for(self, budget: float) -> int:
        """How many boards to sample for a move of `budget` seconds (see the module docstring).

        >>> selector = StockfishMoveSelector.__new__(StockfishMoveSelector)
        >>> selector.boards, selector.max_boards = 24, 96
        >>> [selector.boards_for(t) for t in (0.1, 1.0, 1.92, 7.68, 30.0)]
        [2, 12, 24, 48, 94]
        """
        full = self.boards * 0.08
        if budget <= full:
            return max(2, min(self.boards, int(budget / 0.08)))
        return min(self.max_boards, int(self.boards * math.sqrt(budget / full)))

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
        started = time.monotonic()
        budget = context.budget if context.budget is not None else self.budget(seconds_left, context.increment)
        hard = max(budget, context.hard_budget if context.hard_budget is not None else budget)
        color = context.color
        search = SHORT_CLOCK_SEARCH if context.short_clock else self.search
        panic = seconds_left < self.panic_seconds or (self.search_depth is None and budget < 0.3)
        if panic:
            n_boards = 8
        elif self.search_depth is not None:
            n_boards = self.boards
        else:
            n_boards = self.boards_for(budget)
        boards, weights = self._sample(belief, n_boards, rng, color)
        # Each (board, move) outcome once: king captures, the proxy and Stockfish all read it.
        outcomes = [[request_outcome(board, move) for move in move_actions] for board in boards]

        king_odds = np.array([[o.captures_king for o in row] for row in outcomes], dtype=float).T @ weights
        if king_odds.max() >= self.king_capture_threshold:
            return _pick(move_actions, king_odds, rng)

        proxy = np.array([[outcome_value(outcome, color) for outcome in row] for row in outcomes])
        proxy_score = (1 - self.worst_case_weight) * (weights @ proxy) + self.worst_case_weight * proxy.min(axis=0)
        safety_boards = (
            16 if panic else self.safety_boards if self.search_depth is not None
            else int(np.clip(budget * 60, 16, self.safety_boards))
        )
        exposure = self._exposure(belief, move_actions, rng, color, safety_boards)
        proxy_score = proxy_score - KING_VALUE * exposure
        if panic:
            return _pick(move_actions, proxy_score, rng)

        hunt = self.hunt_bonus(boards, weights, move_actions, color, HUNT_SHARE * (budget - (time.monotonic() - started)), search)
        remaining = budget - (time.monotonic() - started)
        candidates = self._candidates(boards, move_actions, proxy_score, remaining * 0.3, hunt)
        remaining = budget - (time.monotonic() - started)
        expected, worst = self._evaluate(outcomes, weights, candidates, color, remaining, search)
        second_look = self.search_depth is None and hard > budget and self._is_close(expected, worst, hunt[candidates])
        if second_look:
            ranked = np.argsort(-(self._blend(expected, worst) + hunt[candidates]), kind="stable")
            top = [candidates[k] for k in ranked[:3]]
            more, more_weights = self._sample(belief, 2 * n_boards, rng, color)
            more_outcomes = [[request_outcome(board, move_actions[j]) for j in top] for board in more]
            remaining = hard - (time.monotonic() - started)
            more_expected, more_worst = self._evaluate(
                more_outcomes, more_weights, list(range(len(top))), color, remaining, search
            )
            share = len(more) / (len(more) + len(boards))  # pool the two estimates by sample size
            for k, j in enumerate(top):
                at = candidates.index(j)
                expected[at] = (1 - share) * expected[at] + share * more_expected[k]
                worst[at] = min(worst[at], more_worst[k])
        scores = np.full(len(move_actions), -np.inf)
        scores[candidates] = self._blend(expected, worst) + hunt[candidates] - self.exposure_penalty * exposure[candidates]
        logger.debug(
            "chose among %d candidates on %d boards in %.2f s (budget %.2f s, hard %.2f s, second look %s, hunting %s)",
            len(candidates), len(boards), time.monotonic() - started, budget, hard, second_look, bool(hunt.any()),
        )
        return _pick(move_actions, scores, rng)

    def _sample(
        self, belief: Belief, n: int, rng: np.random.Generator, color: Color
    ) -> tuple[list[chess.Board], np.ndarray]:
        """`n` boards drawn from the belief, weighted by it and by the threat boost."""
        boards, weights = weighted_unique_boards(belief, n, rng, color)
        weights = weights * self._aggression(boards, color)
        return boards, weights / weights.sum()

    def _blend(self, expected: np.ndarray, worst: np.ndarray) -> np.ndarray:
        blended: np.ndarray = (1 - self.worst_case_weight) * expected + self.worst_case_weight * worst
        return blended

    def hunt_bonus(
        self,
        boards: list[chess.Board],
        weights: np.ndarray,
        move_actions: list[chess.Move],
        color: Color,
        seconds: float,
        search: SearchRule,
    ) -> np.ndarray:
        """Per move, ``hunt_weight * V(m)`` (`engine_votes` on the `hunt_boards` likeliest boards, searched
        in `seconds` together, each at most `search.longest`) when the material lead calls for a
        king hunt, else zeros."""
        if self.hunt_material is None or not boards or material_lead(boards, weights, color) < self.hunt_material:
            return np.zeros(len(move_actions))
        likeliest = np.argsort(-weights, kind="stable")[: self.hunt_boards]
        limit = self._limit(max(0.01, min(search.longest, seconds / len(likeliest))))
        with self.pool.engine() as engine:
            chosen = [engine.play(boards[i], limit) for i in likeliest]  # a king capture comes first (Engine)
        bonus: np.ndarray = self.hunt_weight * engine_votes(move_actions, chosen, weights[likeliest])
        return bonus

    def _is_close(self, expected: np.ndarray, worst: np.ndarray, bonus: np.ndarray) -> bool:
        """Whether the two best candidates score within `close_margin` of each other."""
        if len(expected) < 2:
            return False
        best_two = np.sort(self._blend(expected, worst) + bonus)[-2:]
        return bool(best_two[1] - best_two[0] < self.close_margin)

    def _evaluate(
        self,
        outcomes: list[list[RequestOutcome]],
        weights: np.ndarray,
        columns: list[int],
        color: Color,
        seconds: float,
        search: SearchRule,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per column of `outcomes` in `columns`: the weighted mean and the minimum of s(b, m) over the
        boards, in `seconds`, each search limited by `search`."""
        evaluations = [(i, j) for j in columns for i in range(len(outcomes))]
        limit = self._limit(search.limit(seconds * self.engines, len(evaluations)))
        values = self._values(outcomes, evaluations, color, limit)
        table = np.array([[values[(i, j)] for i in range(len(outcomes))] for j in columns]).reshape(len(columns), len(outcomes))
        return table @ weights, table.min(axis=1)

    def _aggression(self, boards: list[chess.Board], color: chess.Color) -> np.ndarray:
        return threat_weights(boards, color, self.threat_boost)

    def _limit(self, seconds: float) -> chess.engine.Limit:
        return chess.engine.Limit(time=seconds) if self.search_depth is None else chess.engine.Limit(depth=self.search_depth)

    def _exposure(
        self, belief: Belief, move_actions: list[chess.Move], rng: np.random.Generator, color: chess.Color, n_boards: int
    ) -> np.ndarray:
        """Per move, the probability (on `n_boards` sampled boards) that our king is capturable after it."""
        boards, weights = weighted_unique_boards(belief, n_boards, rng, color)
        kings = [board.king(color) for board in boards]
        weights = weights * self._aggression(boards, color)
        weights = weights / max(weights.sum(), 1e-12)
        exposed = np.zeros(len(move_actions))
        for board, weight, king in zip(boards, weights, kings, strict=True):
            if king is None:
                continue
            for j, move in enumerate(move_actions):
                outcome = request_outcome(board, move)
                if outcome.exposes_king(color) and not outcome.captures_king:
                    exposed[j] += weight
        return exposed

    def _candidates(
        self, boards: list[chess.Board], move_actions: list[chess.Move], proxy_score: np.ndarray, seconds: float,
        hunt: np.ndarray,
    ) -> list[int]:
        """Indices of the moves worth scoring: Stockfish's choice per board, the engine's choices
        while hunting, then the proxy's best."""
        index = {move: j for j, move in enumerate(move_actions)}
        chosen: list[int] = []
        limit = self._limit(max(0.005, min(0.1, seconds / max(1, len(boards)))))
        with self.pool.engine() as engine:
            for board in boards:
                if len(chosen) >= self.candidates // 2 + 1:
                    break
                move = engine.play(board, limit)
                if move is not None and move in index and index[move] not in chosen:
                    chosen.append(index[move])
        chosen += [int(j) for j in np.flatnonzero(hunt > 0) if int(j) not in chosen]
        for j in np.argsort(-proxy_score, kind="stable"):
            if len(chosen) >= self.candidates:
                break
            if int(j) not in chosen:
                chosen.append(int(j))
        return chosen

    def _values(
        self, outcomes: list[list[RequestOutcome]], evaluations: list[tuple[int, int]], color: chess.Color, limit: chess.engine.Limit
    ) -> dict[tuple[int, int], float]:
        """s(b, m) for every (board, move) index pair, scored on the pool's engines in parallel."""
        shards = [evaluations[k :: self.engines] for k in range(self.engines)]

        def score_shard(shard: list[tuple[int, int]]) -> dict[tuple[int, int], float]:
            result: dict[tuple[int, int], float] = {}
            with self.pool.engine() as engine:
                for i, j in shard:
                    result[(i, j)] = _position_value(engine, outcomes[i][j], color, limit)
            return result

        if self.engines == 1:
            return score_shard(evaluations)
        values: dict[tuple[int, int], float] = {}
        with ThreadPoolExecutor(max_workers=self.engines) as executor:
            for part in executor.map(score_shard, shards):
                values.update(part)
        return values


def _position_value(engine: Engine, outcome: RequestOutcome, color: chess.Color, limit: chess.engine.Limit) -> float:
    if outcome.captures_king:
        return WIN
    if outcome.exposes_king(color):
        return LOSS
    after = outcome.after()
    info = engine.analyse(after, limit)
    if isinstance(info, dict) and "score" in info:
        return score_to_value(info["score"], color)
    # Unsearchable or the engine died twice: fall back on the material balance.
    return math.tanh(material_balance(after, color) / 10.0)


def _pick(moves: list[chess.Move], scores: np.ndarray, rng: np.random.Generator) -> chess.Move:
    best = np.flatnonzero(scores >= np.max(scores) - 1e-9)
    return moves[int(best[rng.integers(len(best))])]
