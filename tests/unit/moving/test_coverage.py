"""The coverage loop (`StockfishMoveSelector.cover`) on beliefs of a recorded game, with the real Stockfish, and the
CPU clock a move's deadline may count (`blindchess.moving.process_clock`)."""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import chess
import chess.engine
import numpy as np
import pytest

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.rules import reference as rules
from blindchess.arbiter.rules.fast_revision import request_outcome
from blindchess.beliefs import BoardSet
from blindchess.bots.flagship_config import FAST_FLAGSHIP
from blindchess.fixtures.recorded_games import load_records, sensed_beliefs
from blindchess.moving.base import MoveContext, MoveSelectionError
from blindchess.moving.process_clock import ProcessTreeClock, process_cpu_seconds
from blindchess.moving.search import Deadline
from blindchess.moving.selector_config import CandidateSettings, CoverageSettings, SearchSettings, SelectorConfig
from blindchess.moving.stockfish_selector import Scores, StockfishMoveSelector
from blindchess.moving.time_management import TimeManager

DEPTH = 4
"""The coverage depth of these tests: cheap, and fixed, so every answer is the same on every run."""
FOREVER = 1e9
"""A budget no test reaches: the loop must stop for another reason."""


@pytest.fixture(scope="module")
def beliefs() -> list[BoardSet]:
    """White's board sets after each sense of a recorded game: sizes 1, 15, 127, 1821, 217, 5, ..."""
    return sensed_beliefs(GameHistory.from_json(load_records()[12]["history"]), chess.WHITE)


def covering(**coverage: object) -> SelectorConfig:
    return SelectorConfig(coverage=CoverageSettings(depth=DEPTH, deepen=0, **coverage))  # type: ignore[arg-type]


@pytest.fixture
def make() -> Iterator[list[StockfishMoveSelector]]:
    made: list[StockfishMoveSelector] = []
    yield made
    for selector in made:
        selector.close()


def cover(selector: StockfishMoveSelector, belief: BoardSet, budget: float = FOREVER, seed: int = 0) -> tuple[Scores, list[chess.Move]]:
    moves = rules.move_actions(next(iter(belief.boards())))
    zeros = np.zeros(len(moves))
    proxy = np.arange(len(moves), dtype=float)
    scores = selector.cover(belief, moves, proxy, zeros, zeros, np.random.default_rng(seed), chess.WHITE, Deadline.start(budget))
    return scores, moves


def test_every_board_of_a_small_set_is_scored_when_no_check_may_settle(beliefs: list[BoardSet], make: list[StockfishMoveSelector]) -> None:
    selector = StockfishMoveSelector(covering(batch=4, min_boards=10_000))
    make.append(selector)
    scores, _ = cover(selector, beliefs[1])
    assert len(beliefs[1]) == 15 and scores.boards == 15
    assert len(scores.candidates) >= FAST_FLAGSHIP.selector.candidates.count  # nobody dropped before min_boards


def test_the_loop_stops_after_one_batch_when_the_budget_is_spent(beliefs: list[BoardSet], make: list[StockfishMoveSelector]) -> None:
    selector = StockfishMoveSelector(covering(batch=4))
    make.append(selector)
    scores, _ = cover(selector, beliefs[2], budget=0.0)
    assert len(beliefs[2]) == 127 and scores.boards == 4


def test_the_loop_stops_once_the_lead_is_stable(beliefs: list[BoardSet], make: list[StockfishMoveSelector]) -> None:
    # stable_z = 0: any lead is stable, so the loop ends at the first check, after min_boards boards
    selector = StockfishMoveSelector(covering(batch=4, min_boards=8, stable_z=0.0))
    make.append(selector)
    scores, _ = cover(selector, beliefs[2])
    assert scores.boards == 8


def test_stability_asks_for_a_lead_of_several_standard_errors(make: list[StockfishMoveSelector]) -> None:
    selector = StockfishMoveSelector(covering(stable_z=3.0))
    make.append(selector)
    weights = np.ones(4)
    steady = {0: [0.5, 0.5, 0.5, 0.5], 1: [0.4, 0.4, 0.4, 0.4]}  # a lead of 0.1 on every board: no doubt
    noisy = {0: [0.9, 0.1, 0.9, 0.1], 1: [0.1, 0.9, 0.1, 0.8]}  # a lead of 0.025 that flips board by board
    for table, stable in ((steady, True), (noisy, False)):
        scores, totals = selector._covered([0, 1], table, weights, np.zeros(2), np.zeros(2))
        assert selector.is_stable(scores, totals, table, weights) is stable


def test_the_engines_move_on_each_new_board_joins_the_candidates(beliefs: list[BoardSet], make: list[StockfishMoveSelector]) -> None:
    config = covering(batch=1, probes=1, min_boards=10_000, max_candidates=64)
    selector = StockfishMoveSelector(SelectorConfig(candidates=CandidateSettings(count=1), coverage=config.coverage))
    make.append(selector)
    belief = beliefs[1]
    scores, moves = cover(selector, belief)
    listed, _ = selector.coverage_boards(belief, np.random.default_rng(0), chess.WHITE)  # the loop's order
    with selector.pool.engine() as engine:  # the engine's answers are cached: the loop's very moves
        chosen = [engine.play(board, chess.engine.Limit(depth=DEPTH)) for board in listed.boards(chess.WHITE)]
    expected = list(dict.fromkeys(moves.index(move) for move in chosen if move is not None))
    assert len(expected) > 1  # the boards disagree, so later boards brought new candidates
    assert scores.candidates == expected and scores.boards == len(belief)


def test_fixed_depth_values_are_reused_by_the_next_turn_and_by_shallower_requests(
    beliefs: list[BoardSet], make: list[StockfishMoveSelector]
) -> None:
    selector = StockfishMoveSelector(covering(batch=8, min_boards=10_000))
    make.append(selector)
    first, _ = cover(selector, beliefs[1])
    assert len(selector.cache) > 0  # the loop stores what it searched
    lookups, hits = selector.cache.lookups, selector.cache.hits
    again, _ = cover(selector, beliefs[1])  # the same boards and candidates a turn later: every search is stored
    assert selector.cache.lookups - lookups == selector.cache.hits - hits > 0
    assert again.candidates == first.candidates and np.array_equal(again.expected, first.expected)
    board = next(iter(beliefs[1].boards()))
    moves = rules.move_actions(board)
    stored = [request_outcome(board, moves[j]).after() for j in first.candidates]
    found = [selector.cache.get(after, chess.WHITE, chess.engine.Limit(depth=DEPTH - 2), counted=False) for after in stored]
    assert any(value is not None for value in found)
    assert all(selector.cache.get(after, chess.WHITE, chess.engine.Limit(depth=DEPTH + 1), counted=False) is None for after in stored)


def test_only_a_timed_move_with_budget_enough_covers(make: list[StockfishMoveSelector]) -> None:
    timed = StockfishMoveSelector(covering(move_seconds=3.0))
    fixed = StockfishMoveSelector(FAST_FLAGSHIP.selector)
    make += [timed, fixed]
    context = MoveContext(chess.WHITE, budget=5.0)
    assert timed.covers(timed.plan(900.0, context), context)
    short = MoveContext(chess.WHITE, budget=2.0)
    assert not timed.covers(timed.plan(900.0, short), short)
    assert not fixed.covers(fixed.plan(900.0, context), context)  # a fixed-depth preset plays the same whatever the clock
    game = TimeManager()
    short_game = MoveContext(chess.WHITE, budget=7.0, search=game.search_rule(120.0))  # 120 s + 5 s: the timed path
    assert game.search_rule(900.0) is None and not timed.covers(timed.plan(100.0, short_game), short_game)
    never = StockfishMoveSelector(covering(move_seconds=float("inf")))
    make.append(never)
    huge = MoveContext(chess.WHITE, budget=1e6)
    assert not never.covers(never.plan(900.0, huge), huge)


def test_bad_coverage_and_clock_settings_are_refused_in_one_line() -> None:
    with pytest.raises(MoveSelectionError, match="move_seconds must be > 0"):
        CoverageSettings(move_seconds=0.0)
    with pytest.raises(MoveSelectionError, match="depth must be >= 1"):
        CoverageSettings(depth=0)
    with pytest.raises(MoveSelectionError, match="clock must be one of wall, cpu, got 'gpu'"):
        SearchSettings(clock="gpu")


# ---------------------------------------------------------------------------- the CPU clock


def test_the_cpu_clock_counts_a_busy_child_process_and_not_the_time_it_waits() -> None:
    child = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        clock = ProcessTreeClock(lambda: [child.pid])
        start, own = clock(), time.process_time()
        for _ in itertools.count():  # wait (sleeping: no CPU of ours) until the child has burnt 0.3 s
            if process_cpu_seconds(child.pid) >= 0.3 or child.poll() is not None:
                break
            time.sleep(0.05)
        spent, ours = clock() - start, time.process_time() - own
        assert spent >= process_cpu_seconds(child.pid) - 0.05 and spent >= 0.25 and ours < 0.2
        assert ProcessTreeClock(lambda: [])() < start + ours + 0.05  # without the child, only our own seconds
    finally:
        child.kill()
        child.wait()
    assert process_cpu_seconds(child.pid) == 0.0  # gone: nothing to read


def test_a_cpu_clocked_selector_counts_its_engines_seconds(make: list[StockfishMoveSelector]) -> None:
    selector = StockfishMoveSelector(SelectorConfig(search=SearchSettings(clock="cpu")))
    make.append(selector)
    plan = selector.plan(900.0, MoveContext(chess.WHITE, budget=10.0))
    assert selector.pool.pids() == []  # no engine started yet
    with selector.pool.engine() as engine:
        engine.analyse(chess.Board(), chess.engine.Limit(depth=16))
    (pid,) = selector.pool.pids()
    assert plan.deadline.elapsed() >= process_cpu_seconds(pid) >= 0.05  # the engine's seconds are the deadline's


def test_with_budget_left_every_board_is_searched_again_deeper(beliefs: list[BoardSet], make: list[StockfishMoveSelector]) -> None:
    config = covering(batch=4, min_boards=10_000)
    deepening = CoverageSettings(depth=DEPTH, batch=4, min_boards=10_000, max_depth=DEPTH + 2)
    selector = StockfishMoveSelector(SelectorConfig(coverage=deepening))
    shallow = StockfishMoveSelector(config)
    make += [selector, shallow]
    deeper, moves = cover(selector, beliefs[5])
    once, _ = cover(shallow, beliefs[5])
    assert deeper.boards == once.boards == len(beliefs[5]) == 5 and deeper.candidates == once.candidates
    positions = [request_outcome(board, moves[j]).after() for board in beliefs[5].boards() for j in deeper.candidates]
    limit = chess.engine.Limit(depth=DEPTH + 2)
    assert any(selector.cache.get(after, chess.WHITE, limit, counted=False) is not None for after in positions)
    assert all(shallow.cache.get(after, chess.WHITE, limit, counted=False) is None for after in positions)


def test_deepening_in_part_takes_the_heaviest_boards_deeper_when_a_whole_pass_would_not_fit(
    beliefs: list[BoardSet], make: list[StockfishMoveSelector]
) -> None:
    """The deadline's clock counts the cache's lookups, so the budget is exact: after the first pass (``n`` lookups) half
    a pass is left, a whole deeper pass needs ``3 n`` and one batch of it (2 of 16 boards) ``3 n / 8``."""
    belief, settings = beliefs[3], {"depth": DEPTH, "boards": 16, "batch": 2, "min_boards": 10_000, "max_depth": DEPTH + 2}
    shallow = StockfishMoveSelector(covering(boards=16, batch=2, min_boards=10_000))
    make.append(shallow)
    cover(shallow, belief)
    first_pass = shallow.cache.lookups
    limit, chosen = chess.engine.Limit(depth=DEPTH + 2), {}
    for in_part in (False, True):
        selector = StockfishMoveSelector(SelectorConfig(coverage=CoverageSettings(**settings, deepen_in_part=in_part)))
        make.append(selector)
        moves = rules.move_actions(next(iter(belief.boards())))
        zeros, proxy = np.zeros(len(moves)), np.arange(len(moves), dtype=float)
        deadline = Deadline.start(1.5 * first_pass, clock=lambda: float(selector.cache.lookups))  # noqa: B023 (used at once)
        scores = selector.cover(belief, moves, proxy, zeros, zeros, np.random.default_rng(0), chess.WHITE, deadline)
        listed, _ = selector.coverage_boards(belief, np.random.default_rng(0), chess.WHITE)  # cover's order: its rng's first use
        deeper = [[request_outcome(board, moves[j]).after() for j in scores.candidates] for board in listed.boards(chess.WHITE)]
        chosen[in_part] = [any(selector.cache.get(a, chess.WHITE, limit, counted=False) is not None for a in afters) for afters in deeper]
    assert not any(chosen[False])  # the whole-pass rule: a deeper pass (3 n) does not fit in n / 2
    assert chosen[True][0] and not chosen[True][-1] and chosen[True] == sorted(chosen[True], reverse=True)  # heaviest first, part way


def test_after_a_covered_turn_pondering_fills_the_cache_at_the_coverage_depth(
    beliefs: list[BoardSet], make: list[StockfishMoveSelector]
) -> None:
    selector = StockfishMoveSelector(covering(batch=4))
    make.append(selector)
    cover(selector, beliefs[5])  # a covered turn: its depth is the one pondering searches at
    belief = beliefs[1]
    moves = rules.move_actions(next(iter(belief.boards())))
    searched = selector.ponder(belief, moves, chess.WHITE, threading.Event(), np.random.default_rng(1))
    assert searched > 0
    limit = chess.engine.Limit(depth=DEPTH)
    stored = [
        after for board in belief.boards() for move in moves
        if selector.cache.get(after := request_outcome(board, move).after(), chess.WHITE, limit, counted=False) is not None
    ]  # fmt: skip
    assert len(stored) >= searched  # every search pondered is kept at the coverage depth, and answers it
    lookups, hits = selector.cache.lookups, selector.cache.hits
    cover(selector, belief, budget=0.0)  # the next turn's first batch finds some of them
    assert selector.cache.hits > hits and selector.cache.lookups > lookups
