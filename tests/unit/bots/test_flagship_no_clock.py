"""The flagship without a clock plays at a fixed budget, and a planner or selector failure is counted and shown.

Without a clock (``blindchess sprt``'s default) the time manager's plan and the selector's own
budget are infinite; a timed search used to turn that into ``int(inf)`` boards and fail every
move (`OverflowError`), and the bot passed all game long without anything showing it.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Optional

import chess
import numpy as np
import pytest

from blindchess.arbiter import LocalGame, play_local_game
from blindchess.arbiter.game.history import GameHistory
from blindchess.beliefs import Belief, BoardSet
from blindchess.bots.belief_bot import BeliefBot
from blindchess.bots.random_bot import RandomBot
from blindchess.commands.cli_match import BotRecord, MatchSummary, _record_game
from blindchess.moving import MoveContext
from blindchess.moving.selector_config import SelectorConfig
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.sensing.random_planner import RandomSensePlanner
from blindchess.tournament.spec import BotSpec, GameResult, GameSpec
from blindchess.tournament.task import failures, play_game

QUICK = {"selector": {"unclocked_move_seconds": 0.2, "boards": 4, "safety": {"boards": 16}}, "planner": {"boards": 16, "threat_sample": 64}}
"""A timed flagship (no fixed depth: that ignored the clock and never failed) with a small unclocked budget."""


def test_an_unbounded_budget_becomes_the_unclocked_move_budget() -> None:
    selector = StockfishMoveSelector(SelectorConfig(unclocked_move_seconds=0.7))
    try:
        own = selector.plan(math.inf, MoveContext(chess.WHITE))  # no time manager: the selector's own budget
        managed = selector.plan(math.inf, MoveContext(chess.WHITE, budget=math.inf, hard_budget=math.inf))
    finally:
        selector.close()
    for plan in (own, managed):
        assert plan.deadline.budget == plan.deadline.hard == 0.7
        assert not plan.panic
        assert plan.policy.boards(plan.deadline.budget) == 8  # 0.7 s / 0.08 s per board


@pytest.mark.parametrize("seconds", [0.0, -1.0, math.inf, math.nan])
def test_the_unclocked_budget_must_be_finite_and_positive(seconds: float) -> None:
    with pytest.raises(ValueError, match="unclocked_move_seconds"):
        SelectorConfig(unclocked_move_seconds=seconds)


def test_without_a_clock_the_flagship_plays_a_whole_game_with_no_selector_failure() -> None:
    white = BotSpec("flagship", "flagship", QUICK)
    spec = GameSpec("no-clock#0.0", white, BotSpec("random", "random"), 3, 4, seconds=None, full_turn_limit=6)
    result = play_game(spec)
    assert result.ok and result.faults == ()
    assert result.turns >= 11  # six full turns, or a king capture on the way
    assert result.history is not None
    history = GameHistory.from_json(result.history)
    moves = [history.requested_move(turn) for turn in history.turns(chess.WHITE)]
    assert None not in moves  # the bot never passed: every move came from the selector


class FailingSelector:
    """A selector that raises on its second call."""

    def __init__(self) -> None:
        self.calls = 0

    def choose_move(
        self, belief: Belief, move_actions: list[chess.Move], seconds_left: float, rng: np.random.Generator, context: MoveContext
    ) -> Optional[chess.Move]:
        self.calls += 1
        if self.calls >= 2:
            raise RuntimeError("broken on purpose")
        return move_actions[0]

    def close(self) -> None:
        pass


def test_a_selector_failure_is_counted_and_named_in_the_game_faults() -> None:
    bot = BeliefBot(BoardSet, RandomSensePlanner(), FailingSelector(), rng=1)
    game = LocalGame(seconds_per_player=60, full_turn_limit=3)
    play_local_game(bot, RandomBot(rng=2), game=game)
    assert bot.game.failures == {"choose_move": 2}
    (line,) = failures(bot, chess.WHITE)
    assert line == "BeliefBot (white) choose_move raised on 2 turns (first: RuntimeError: broken on purpose)"
    assert failures(RandomBot(rng=3), chess.BLACK) == ()


def test_a_match_prints_each_fault_and_counts_the_games_with_one(tmp_path: Path) -> None:
    _, _, history = play_local_game(RandomBot(rng=1), RandomBot(rng=2), game=LocalGame(seconds_per_player=60, full_turn_limit=2))
    spec = GameSpec("m#0", BotSpec("a", "random"), BotSpec("b", "random"), 1, 2)
    line = "BeliefBot (white) choose_move raised on 2 turns (first: RuntimeError: broken on purpose)"
    result = GameResult(key="m#0", winner=None, reason="TURN_LIMIT", turns=4, seconds=0.1, faults=(line,), history=history.to_json())
    summary, progress = MatchSummary((BotRecord("a"), BotRecord("b"))), io.StringIO()
    _record_game(summary, 0, spec, result, 1, tmp_path, "stamp-1-a-vs-b", progress, ("match", "a"))
    assert f"    fault: {line}\n" in progress.getvalue()
    assert "games with a bot fault or a planner or selector failure: 1" in summary.table()
