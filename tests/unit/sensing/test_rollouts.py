"""`sensing/rollouts.py`: windows ranked by the bot's own move rule played on boards drawn from the belief.

Real Stockfish and the flagship's real selector as the rule (`SelectorMoveRule`, at a shallow fixed depth),
on a real board set whose only uncertainty is placed by hand, so which window matters is known by construction.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from typing import Optional

import chess
import numpy as np
import pytest

from blindchess.arbiter import LocalGame, play_local_game
from blindchess.arbiter.rules.reference import move_actions, sense_window
from blindchess.arbiter.types import Color
from blindchess.beliefs.base import Belief
from blindchess.beliefs.board_set import BoardSet
from blindchess.bots.flagship import FlagshipBot
from blindchess.bots.flagship_config import CONFIGS, FAST_FLAGSHIP, configure
from blindchess.bots.move_rule import SelectorMoveRule
from blindchess.bots.random_bot import RandomBot
from blindchess.config_tree import ConfigError
from blindchess.moving.process_clock import ProcessTreeClock, process_cpu_seconds
from blindchess.sensing import EngineValueSensePlanner, SenseContext
from blindchess.sensing.rollouts import RolloutSensePlanner, RolloutSettings

ROLLOUTS_TABLE = {"rule_depth": 4, "rule_boards": 8, "depth": 6}
ROLLOUTS = RolloutSettings(**ROLLOUTS_TABLE)
"""A shallow rule and values: the tests are about which window the rollouts rank first, not about search."""


def _back_rank() -> tuple[BoardSet, SenseContext]:
    """Black's rook guards its back rank from d8 or stands on h5, where it guards nothing; a knight stands on b4 or c4.
    Where the rook is on h5, a1a8 mates; where it is on d8, a1a8 loses the rook: only a window on d8 or h5 decides."""
    own = "6k1/5ppp/8/8/8/7P/5PP1/R1N3K1 w - - 0 1"
    boards = []
    for rook in ("d8", "h5"):
        for knight in ("b4", "c4"):
            board = chess.Board(own)
            board.set_piece_at(chess.parse_square(rook), chess.Piece(chess.ROOK, chess.BLACK))
            board.set_piece_at(chess.parse_square(knight), chess.Piece(chess.KNIGHT, chess.BLACK))
            boards.append(board)
    return BoardSet.from_boards(chess.WHITE, boards), SenseContext(chess.WHITE, move_actions=tuple(move_actions(chess.Board(own))))


class CountingRule:
    """The selector rule, counting the posteriors it is asked about."""

    def __init__(self, rule: SelectorMoveRule) -> None:
        self.rule = rule
        self.asked = 0

    def choose(self, belief: Belief, moves: Sequence[chess.Move], rng: np.random.Generator, color: Color) -> Optional[chess.Move]:
        self.asked += 1
        return self.rule.choose(belief, moves, rng, color)

    def pids(self) -> list[int]:
        return self.rule.pids()

    def close(self) -> None:
        self.rule.close()


@pytest.fixture(scope="module")
def rule() -> Iterator[SelectorMoveRule]:
    made = SelectorMoveRule(FAST_FLAGSHIP.selector, ROLLOUTS)
    yield made
    made.close()


def test_the_window_that_decides_the_mate_rolls_out_best(rule: SelectorMoveRule) -> None:
    # The knight's window (c4 sees b4 and c4) tells the knight apart, which changes no move; the rook's (e8 sees d8)
    # lets the rule mate where the rook is on h5 and keep the rook at home where it is on d8.
    belief, context = _back_rank()
    planner = RolloutSensePlanner(rule, ROLLOUTS)
    moves = list(context.move_actions)
    values = planner.rollouts(belief, moves, [chess.C4, chess.E7], np.random.default_rng(1), chess.WHITE, float("inf"))
    assert planner.boards_played == 4 and values == planner.last
    assert values[chess.E7] > values[chess.C4] + 0.3, values
    planner.shortlister.close()


def test_the_rule_runs_once_per_window_and_outcome(rule: SelectorMoveRule) -> None:
    belief, context = _back_rank()
    counting = CountingRule(rule)
    planner = RolloutSensePlanner(counting, ROLLOUTS)
    shortlist = [chess.C4, chess.E7, chess.B7, chess.F2]
    planner.rollouts(belief, list(context.move_actions), shortlist, np.random.default_rng(2), chess.WHITE, float("inf"))
    boards = belief.sample(64, np.random.default_rng(0))
    outcomes = {(centre, sense_window(board, centre)) for centre in shortlist for board in boards}
    assert counting.asked == len(outcomes) == 2 + 2 + 1 + 1  # c4 and e7 tell two outcomes apart, the rest one
    planner.shortlister.close()


def test_without_a_budget_the_proxy_answers_and_with_too_little_the_engine_values_planner(rule: SelectorMoveRule) -> None:
    belief, context = _back_rank()
    planner = RolloutSensePlanner(rule, ROLLOUTS)
    alone = EngineValueSensePlanner()
    # None and an unbounded budget (no clock): the proxy's answer; 0.1 s: too little for two boards at the assumed cost
    for budget, answers in ((None, alone.proxy), (math.inf, alone.proxy), (0.1, alone)):
        given = SenseContext(context.color, None, context.move_actions, budget)
        square = planner.choose_sense(belief, list(chess.SQUARES), 60.0, np.random.default_rng(3), given)
        expected = answers.choose_sense(belief, list(chess.SQUARES), 60.0, np.random.default_rng(3), given)
        assert square == expected and planner.last == {} and planner.boards_played == 0 and planner.rolled == 0, budget
    planner.close()
    alone.close()


def test_a_budget_buys_rollouts_and_the_deciding_window() -> None:
    belief, context = _back_rank()
    planner = RolloutSensePlanner(SelectorMoveRule(FAST_FLAGSHIP.selector, ROLLOUTS), ROLLOUTS)
    timed = SenseContext(context.color, None, context.move_actions, budget=60.0)
    square = planner.choose_sense(belief, list(chess.SQUARES), 600.0, np.random.default_rng(4), timed)
    assert planner.boards_played == 4 and len(planner.last) == ROLLOUTS.windows
    assert square is not None and square in planner.last and planner.last[square] == max(planner.last.values())
    assert {chess.D8, chess.H5} & set(chess.SquareSet(chess.BB_KING_ATTACKS[square] | chess.BB_SQUARES[square]))
    planner.close()


def test_the_flagship_builds_the_rollout_planner_with_its_own_selector_as_the_rule() -> None:
    config = configure(CONFIGS["flagship"], {"planner": {"name": "rollouts", "rollouts": {"rule_depth": 3, "windows": 4}}})
    built = config.planner.build(config.selector)
    assert isinstance(built, RolloutSensePlanner) and built.settings.windows == 4
    assert isinstance(built.rule, SelectorMoveRule) and built.rule.selector.config.search.depth == 3
    assert built.rule.selector.config.worst_case_weight == config.selector.worst_case_weight
    with pytest.raises(ConfigError, match=r"unknown planner 'rollout'.*rollouts"):
        configure(CONFIGS["flagship"], {"planner": {"name": "rollout"}})
    built.close()


def test_a_flagship_sensing_by_rollouts_plays_a_game_without_a_planner_failure() -> None:
    rollouts = {"rule_depth": 2, "rule_boards": 4, "depth": 4, "board_seconds": 0.05}
    config = configure(FAST_FLAGSHIP, {"planner": {"name": "rollouts", "rollouts": rollouts}})
    bot = FlagshipBot(rng=5, config=config)
    planner = bot.sense_planner
    assert isinstance(planner, RolloutSensePlanner)
    play_local_game(bot, RandomBot(rng=6), LocalGame(seconds_per_player=120, full_turn_limit=4))
    assert not bot.game.failures, bot.game.failures
    assert planner.rolled > 0, "every sense fell back: the game tested no rollout"


def test_on_a_cpu_clock_the_rollouts_count_the_cpu_of_the_bot_and_its_planners_engines() -> None:
    rollouts = {"name": "rollouts", "rollouts": ROLLOUTS_TABLE}
    config = configure(FAST_FLAGSHIP, {"selector": {"search": {"clock": "cpu"}}, "planner": rollouts})
    planner = config.planner.build(config.selector)
    assert isinstance(planner, RolloutSensePlanner) and isinstance(planner.clock, ProcessTreeClock)
    belief, context = _back_rank()
    planner.rollouts(belief, list(context.move_actions), [chess.C4, chess.E7], np.random.default_rng(5), chess.WHITE, math.inf)
    engines = planner.pids()
    assert len(engines) == 2 and set(planner.rule.pids()) < set(engines)  # the rule's engine and the values' engine
    before = planner.clock()
    assert before >= sum(process_cpu_seconds(pid) for pid in engines) > 0.0
    planner.close()
    assert planner.pids() == []
    wall = configure(FAST_FLAGSHIP, {"planner": {"name": "rollouts"}}).planner.build(FAST_FLAGSHIP.selector)
    assert isinstance(wall, RolloutSensePlanner) and wall.clock is time.monotonic
    wall.close()
