"""Each stage of the Stockfish selector's pipeline on its own (plan, sample, screen, candidates, score, second look, decide),
and the `Deadline` and search policies they share."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator

import chess
import chess.engine
import numpy as np
import pytest

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.observations import GameStarted
from blindchess.arbiter.rules import reference as rules
from blindchess.beliefs import BoardSet
from blindchess.bots.flagship_config import FAST_FLAGSHIP
from blindchess.evaluation.request_values import LOSS, WIN
from blindchess.evaluation.values import outcome_value
from blindchess.fixtures.recorded_games import load_records, sensed_beliefs
from blindchess.moving.base import MoveContext, SearchRule
from blindchess.moving.search import Deadline, FixedDepth, Timed, policy_for
from blindchess.moving.selector_config import SelectorConfig
from blindchess.moving.stockfish_selector import Sample, Scores, StockfishMoveSelector
from blindchess.moving.time_management import TimeManager

ROOK_SWEEP = "6k1/8/8/8/8/8/r7/6K1 w - - 0 1"
"""Black's rook sweeps the second rank: Kf2, Kg2 and Kh2 walk into it."""
KING_CAPTURE = "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1"
"""Re8 captures the king."""


def known(fen: str) -> BoardSet:
    belief = BoardSet()
    belief.update(GameStarted(chess.Board(fen).turn, fen))
    return belief


@pytest.fixture(scope="module")
def selector() -> Iterator[StockfishMoveSelector]:
    chosen = StockfishMoveSelector(FAST_FLAGSHIP.selector)
    yield chosen
    chosen.close()


def actions(fen: str) -> list[chess.Move]:
    return rules.move_actions(chess.Board(fen))


# ---------------------------------------------------------------------------- deadline and policies


def test_a_deadline_counts_down_from_its_start_and_its_hard_budget_is_never_below_the_budget() -> None:
    deadline = Deadline.start(1.0, hard=0.5)
    assert deadline.hard == 1.0 and Deadline.start(1.0).hard == 1.0 and Deadline.start(1.0, 3.0).hard == 3.0
    past = Deadline(time.monotonic() - 2.0, 1.0, 3.0)
    assert past.left() <= -1.0 and 0.0 < past.hard_left() <= 1.0 and past.elapsed() >= 2.0


def test_fixed_depth_ignores_the_clock_and_the_time_managers_rule() -> None:
    policy = policy_for(FAST_FLAGSHIP.selector)
    assert policy == FixedDepth(1, 2, 8) and not policy.second_look
    assert policy.under(SearchRule(0.7, 0.0, 0.5)) is policy
    assert {policy.boards(t) for t in (0.0, 1.0, 100.0)} == {2} and policy.safety_boards(0.0) == 8 and not policy.pressed(0.0)
    assert policy.position_limit(1.0, 10) == policy.play_limit(1.0, 0.01) == chess.engine.Limit(depth=1)


def test_timed_search_scales_with_the_budget_and_takes_the_rule_it_is_handed() -> None:
    config = SelectorConfig()
    policy = policy_for(config)
    assert isinstance(policy, Timed) and policy.second_look
    assert policy.safety_boards(0.1) == config.safety.min_boards and policy.safety_boards(100.0) == config.safety.boards
    assert policy.safety_boards(1.0) == 60 and policy.pressed(0.2) and not policy.pressed(0.3)
    assert policy.boards(1000.0) == config.max_boards
    short = SearchRule(0.7, 0.0, 0.5)
    assert policy.under(None) is policy and policy.under(short).rule == short
    assert policy.position_limit(2.0, 16) == chess.engine.Limit(time=config.search.rule.limit(2.0, 16))
    assert policy.under(short).play_limit(10.0, 0.01) == chess.engine.Limit(time=0.5)  # the rule's longest search
    assert policy.play_limit(0.0, 0.005, 0.1) == chess.engine.Limit(time=0.005)


# ---------------------------------------------------------------------------- the stages


def test_plan_takes_the_contexts_budgets_and_panics_on_a_low_clock(selector: StockfishMoveSelector) -> None:
    plan = selector.plan(100.0, MoveContext(chess.WHITE, 2.0, budget=1.5, hard_budget=4.0))
    assert (plan.deadline.budget, plan.deadline.hard, plan.panic) == (1.5, 4.0, False)
    assert selector.plan(10.0, MoveContext(chess.WHITE)).panic  # under panic.seconds
    own = selector.plan(68.0, MoveContext(chess.WHITE, 3.0))
    # the clock is planned in one place: the time manager's first turn, its increment share (0.85) included
    assert own.deadline.budget == pytest.approx(60.0 / 30 + 0.85 * 3.0) == selector.budget(68.0, 3.0)
    assert selector.budget(68.0, 3.0) == TimeManager().turn_budget(68.0, 3.0) and selector.budget(68.0, 0.0) == 60.0 / 30
    timed = StockfishMoveSelector(SelectorConfig())
    try:
        assert timed.plan(100.0, MoveContext(chess.WHITE, budget=0.1)).panic  # too short a budget to search
        rule = SearchRule(0.7, 0.0, 0.5)
        assert isinstance(timed.plan(100.0, MoveContext(chess.WHITE, search=rule)).policy, Timed)
        assert timed.plan(100.0, MoveContext(chess.WHITE, search=rule)).policy.under(None) == Timed(rule, SelectorConfig())
    finally:
        timed.close()


def test_sample_weighs_the_boards_and_reads_every_outcome_once(selector: StockfishMoveSelector) -> None:
    moves = actions(ROOK_SWEEP)
    sample = selector.sample(known(ROOK_SWEEP), moves, 4, np.random.default_rng(0), chess.WHITE)
    assert len(sample.boards) == 1 and sample.weights.tolist() == [1.0]  # one known board, drawn four times
    assert len(sample.outcomes) == 1 and [o.taken for o in sample.outcomes[0]] == moves  # every king move is made as asked
    assert sample.king_odds().tolist() == [0.0] * len(moves)
    capture = selector.sample(known(KING_CAPTURE), actions(KING_CAPTURE), 2, np.random.default_rng(0), chess.WHITE)
    assert capture.king_odds()[actions(KING_CAPTURE).index(chess.Move.from_uci("e1e8"))] == 1.0


def test_screen_marks_the_moves_into_the_rook_as_exposed_and_below_the_rest(selector: StockfishMoveSelector) -> None:
    moves = actions(ROOK_SWEEP)
    belief = known(ROOK_SWEEP)
    sample = selector.sample(belief, moves, 2, np.random.default_rng(0), chess.WHITE)
    proxy, exposure = selector.screen(belief, moves, sample, np.random.default_rng(1), chess.WHITE, 8)
    into = [moves.index(chess.Move.from_uci(uci)) for uci in ("g1f2", "g1g2", "g1h2")]
    assert exposure[into].tolist() == [1.0, 1.0, 1.0] and exposure.sum() == 3.0
    assert proxy[into].max() < np.delete(proxy, into).min()


def test_candidates_put_the_engines_move_first_then_the_hunts_then_the_proxys(selector: StockfishMoveSelector) -> None:
    moves = actions(ROOK_SWEEP)
    belief = known(ROOK_SWEEP)
    sample = selector.sample(belief, moves, 2, np.random.default_rng(0), chess.WHITE)
    proxy = np.arange(len(moves), dtype=float)  # the proxy likes the last move best
    hunt = np.zeros(len(moves))
    hunt[0] = 0.03
    chosen = selector.candidates(sample, moves, proxy, 1.0, hunt, selector.policy)
    assert len(chosen) == len(set(chosen)) == min(len(moves), FAST_FLAGSHIP.selector.candidates.count)
    assert 0 in chosen[:2]  # the engine's move on the one board, and the hunt's
    assert chosen[2:] == sorted(chosen[2:], key=lambda j: -proxy[j])  # then the proxy's best


def test_score_is_a_win_for_a_king_capture_and_a_loss_for_an_exposed_king(selector: StockfishMoveSelector) -> None:
    moves = actions(ROOK_SWEEP)
    sample = selector.sample(known(ROOK_SWEEP), moves, 2, np.random.default_rng(0), chess.WHITE)
    into, safe = moves.index(chess.Move.from_uci("g1g2")), moves.index(chess.Move.from_uci("g1f1"))
    scores = selector.score(sample.outcomes, sample.weights, [into, safe], chess.WHITE, 1.0, selector.policy)
    assert scores.candidates == [into, safe] and scores.boards == 1
    assert scores.expected[0] == scores.worst[0] == LOSS and LOSS < scores.expected[1] < WIN
    capture = selector.sample(known(KING_CAPTURE), actions(KING_CAPTURE), 2, np.random.default_rng(0), chess.WHITE)
    at = actions(KING_CAPTURE).index(chess.Move.from_uci("e1e8"))
    assert selector.score(capture.outcomes, capture.weights, [at], chess.WHITE, 1.0, selector.policy).worst.tolist() == [WIN]


def test_a_close_call_is_looked_at_again_and_pooled_by_sample_size(selector: StockfishMoveSelector) -> None:
    moves = actions(ROOK_SWEEP)
    belief = known(ROOK_SWEEP)
    sample = selector.sample(belief, moves, 2, np.random.default_rng(0), chess.WHITE)
    columns = [moves.index(chess.Move.from_uci(uci)) for uci in ("g1f1", "g1h1", "g1g2")]
    first = selector.score(sample.outcomes, sample.weights, columns, chess.WHITE, 1.0, selector.policy)
    hunt = np.zeros(len(moves))
    assert selector.is_close(first, hunt)  # f1 and h1 score alike
    plan = selector.plan(100.0, MoveContext(chess.WHITE, budget=1.0, hard_budget=2.0))
    again = selector.second_look(belief, moves, first, hunt, np.random.default_rng(2), chess.WHITE, plan, 2)
    # the same one board, searched to the same depth: pooling changes nothing, and the first stays untouched
    assert again.candidates == first.candidates
    assert np.allclose(again.expected, first.expected) and np.array_equal(again.worst, first.worst)
    assert not selector.is_close(Scores([0, 1], np.array([0.5, 0.0]), np.array([0.5, 0.0]), 1), hunt)


def test_decide_takes_the_best_blend_less_the_exposure_penalty(selector: StockfishMoveSelector) -> None:
    moves = actions(ROOK_SWEEP)
    scores = Scores([0, 1], np.array([0.2, 0.1]), np.array([0.2, 0.1]), 1)
    none = np.zeros(len(moves))
    assert selector.decide(moves, scores, none, none, np.random.default_rng(0)) == moves[0]
    exposed = none.copy()
    exposed[0] = 0.05  # a 5% risk to the king outweighs the 0.1 lead
    assert selector.decide(moves, scores, none, exposed, np.random.default_rng(0)) == moves[1]
    hunt = none.copy()
    hunt[1] = 0.2
    assert selector.decide(moves, scores, hunt, none, np.random.default_rng(0)) == moves[1]


def test_choose_move_runs_the_stages_end_to_end(selector: StockfishMoveSelector) -> None:
    move = selector.choose_move(known(KING_CAPTURE), actions(KING_CAPTURE), 100.0, np.random.default_rng(0), MoveContext(chess.WHITE))
    assert move == chess.Move.from_uci("e1e8")
    move = selector.choose_move(known(ROOK_SWEEP), actions(ROOK_SWEEP), 100.0, np.random.default_rng(0), MoveContext(chess.WHITE))
    assert move is not None and move.uci() not in ("g1f2", "g1g2", "g1h2")
    assert selector.choose_move(known(ROOK_SWEEP), [], math.inf, np.random.default_rng(0), MoveContext(chess.WHITE)) is None


def test_sample_is_frozen() -> None:
    sample = Sample([chess.Board()], np.ones(1), [], np.zeros((1, 0)))
    with pytest.raises(AttributeError):
        sample.boards = []  # type: ignore[misc]


def test_the_compiled_sample_and_exposure_equal_the_python_chess_reference() -> None:
    # Beliefs of recorded games; the same draws give the same boards, weights, outcomes, proxy values and exposure.
    history = GameHistory.from_json(load_records()[12]["history"])
    fast = StockfishMoveSelector(FAST_FLAGSHIP.selector)
    reference = StockfishMoveSelector(FAST_FLAGSHIP.selector, compiled=False)
    try:
        for color in (chess.WHITE, chess.BLACK):
            beliefs = sensed_beliefs(history, color)
            for k, belief in enumerate(beliefs[:: max(1, len(beliefs) // 5)]):
                own = belief.sample(1, np.random.default_rng(0))[0]
                own.turn = color
                moves = rules.move_actions(own)
                samples = [s.sample(belief, moves, 12, np.random.default_rng(k), color) for s in (fast, reference)]
                assert [b.fen() for b in samples[0].boards] == [b.fen() for b in samples[1].boards]
                assert samples[0].weights.tolist() == samples[1].weights.tolist()
                assert [[o.taken for o in row] for row in samples[0].outcomes] == [[o.taken for o in row] for row in samples[1].outcomes]
                assert samples[0].proxy.tolist() == samples[1].proxy.tolist()
                assert samples[0].proxy.tolist() == [[outcome_value(o, color) for o in row] for row in samples[0].outcomes]
                exposures = [s.exposure(belief, moves, np.random.default_rng(k), color, 80) for s in (fast, reference)]
                assert exposures[0].tolist() == exposures[1].tolist()
    finally:
        fast.close()
        reference.close()
