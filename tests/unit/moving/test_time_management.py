"""The clock plan: never a loss on time, most of the clock used, more for hard turns; and the bot that follows it."""

from __future__ import annotations

import math
import threading
import time
from typing import Optional

import chess
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blindchess.arbiter import LocalGame, play_local_game
from blindchess.arbiter.game.loading import load_player
from blindchess.arbiter.game.observations import MoveResult, OpponentMoved
from blindchess.beliefs import BoardSet
from blindchess.beliefs.base import Belief
from blindchess.beliefs.observed_games import play_random_game
from blindchess.bots.belief_bot import BeliefBot
from blindchess.bots.flagship_config import CONFIGS, configure
from blindchess.bots.random_bot import RandomBot
from blindchess.moving.base import MoveContext, SearchRule
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.moving.time_management import Allotment, TimeManagementError, TimeManager, difficulty
from blindchess.sensing.base import SenseContext
from blindchess.sensing.random_planner import RandomSensePlanner

clocks = st.floats(min_value=0.0, max_value=3600.0)
increments = st.floats(min_value=0.0, max_value=30.0)
weights = st.floats(min_value=0.0, max_value=10.0)


@given(clocks, increments, st.integers(0, 400), weights, st.floats(0.0, 20.0))
def test_a_turn_never_plans_more_than_the_clock_allows(
    seconds_left: float, increment: float, turn: int, weight: float, overhead: float
) -> None:
    manager = TimeManager()
    plan = manager.allot(seconds_left, increment, turn, weight, overhead)
    usable = max(0.0, seconds_left - manager.reserve)
    cap = min(usable / manager.cap_divisor + manager.increment_share * increment, usable / 2)
    assert plan.sense >= 0.0 and 0.0 <= plan.move <= plan.hard
    assert plan.sense + plan.move <= cap + 1e-9
    assert plan.sense + plan.hard + min(overhead, cap) <= 1.2 * cap + 1e-9


@given(st.floats(10.0, 3600.0), increments, st.integers(0, 400), st.floats(1.0, 100.0))
def test_more_clock_never_means_less_time(seconds_left: float, increment: float, turn: int, extra: float) -> None:
    manager = TimeManager()
    assert manager.allot(seconds_left + extra, increment, turn).move >= manager.allot(seconds_left, increment, turn).move


@settings(max_examples=60)
@given(st.floats(30.0, 1800.0), increments, st.integers(1, 300), st.lists(weights, min_size=1, max_size=8), st.floats(0.0, 2.0))
def test_spending_every_hard_budget_for_a_whole_game_never_flags(
    start: float, increment: float, turns: int, turn_weights: list[float], overhead: float
) -> None:
    """Worst case: every turn takes its whole sense and hard move budget plus the overhead it declared."""
    manager = TimeManager()
    clock = start
    for turn in range(turns):
        plan = manager.allot(clock, increment, turn, turn_weights[turn % len(turn_weights)], overhead)
        clock -= plan.sense + plan.hard + min(overhead, max(0.0, clock - manager.reserve) / 2)
        assert clock >= 0.4 * manager.reserve
        clock += increment


@pytest.mark.parametrize(("start", "increment", "turns", "least"), [(300.0, 5.0, 25, 0.8), (900.0, 5.0, 25, 0.75), (900.0, 5.0, 60, 0.9)])
def test_a_game_of_ordinary_length_uses_most_of_the_clock(start: float, increment: float, turns: int, least: float) -> None:
    """Spending the move and sense budgets at weight 1: the share of start + increments used."""
    manager = TimeManager()
    clock, used = start, 0.0
    for turn in range(turns):
        plan = manager.allot(clock, increment, turn)
        clock -= plan.sense + plan.move
        used += plan.sense + plan.move
        clock += increment
    assert used / (start + increment * turns) >= least


@given(st.floats(0.0, 60.0), st.floats(0.0, 240.0), st.floats(1.0, 2.5), st.floats(0.0, 100.0))
def test_what_the_sense_leaves_goes_to_the_move_and_no_more(sense: float, move: float, factor: float, spent: float) -> None:
    plan = Allotment(sense, move, factor * move)
    after = plan.after_sense(spent)
    assert after.sense == 0.0 and after.hard - after.move == pytest.approx(plan.hard - plan.move)
    assert after.move == pytest.approx(move + max(0.0, sense - spent))
    assert min(spent, sense) + after.hard <= plan.sense + plan.hard + 1e-9  # the turn's bound is kept


def test_short_clocks_stay_short() -> None:
    """At 30 s + 1 s the first move gets what the selector's own plan gave it (about 1.2 s)."""
    plan = TimeManager().allot(30.0, 1.0, 0)
    selector = StockfishMoveSelector()
    try:
        own = selector.budget(30.0, 1.0)
    finally:
        selector.close()
    assert 0.8 * own <= plan.move <= 1.2 * own


def test_untimed_games_are_not_limited() -> None:
    assert TimeManager().allot(math.inf, 0.0, 3).move == math.inf


@given(st.integers(1, 10**6), st.floats(0.0, 1.0), st.integers(1, 10**6), st.floats(0.0, 1.0))
def test_difficulty_grows_with_the_belief_and_the_threat(boards: int, threat: float, more: int, more_threat: float) -> None:
    low, high = difficulty(boards, threat), difficulty(boards + more, min(1.0, threat + more_threat))
    assert 0.5 <= low <= high <= 2.0


@pytest.mark.parametrize(
    "settings_",
    [{"reserve": -1.0}, {"min_turns_left": 0}, {"expected_turns": 5, "min_turns_left": 6}, {"sense_share": 1.5}, {"cap_divisor": 0.5},
     {"long_clock": -1.0}, {"long_clock": math.nan}, {"short_search_share": 0.0}, {"short_search_longest": -1.0}],
)
def test_impossible_settings_are_refused_by_name(settings_: dict[str, float]) -> None:
    with pytest.raises(TimeManagementError, match=next(iter(settings_))):
        TimeManager(**settings_)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- the bot


class RecordingSelector(StockfishMoveSelector):
    """The real selector at test settings, remembering each context and clock it was given."""

    def __init__(self) -> None:
        super().__init__(configure(CONFIGS["flagship"], {"preset": "fast"}).selector)
        self.seen: list[tuple[float, MoveContext]] = []

    def choose_move(
        self, belief: Belief, move_actions: list[chess.Move], seconds_left: float, rng: np.random.Generator, context: MoveContext
    ) -> Optional[chess.Move]:
        self.seen.append((seconds_left, context))
        return super().choose_move(belief, move_actions, seconds_left, rng, context)


class RecordingPlanner(RandomSensePlanner):
    def __init__(self) -> None:
        self.seen: list[SenseContext] = []
        self.clocks: list[float] = []
        self.spent: list[float] = []

    def choose_sense(
        self, belief: Belief, sense_actions: list[int], seconds_left: float, rng: np.random.Generator, context: SenseContext
    ) -> Optional[int]:
        self.seen.append(context)
        self.clocks.append(seconds_left)
        started = time.monotonic()
        square = super().choose_sense(belief, sense_actions, seconds_left, rng, context)
        self.spent.append(time.monotonic() - started)
        return square


def test_the_bot_passes_its_plan_to_planner_and_selector() -> None:
    manager = TimeManager(long_clock=100.0)  # this 120 s game is a long one: the sense's unused share is carried
    planner, selector = RecordingPlanner(), RecordingSelector()
    bot = BeliefBot(lambda: BoardSet(max_boards=5_000), planner, selector, rng=3, time_manager=manager)
    play_local_game(bot, RandomBot(rng=4), LocalGame(seconds_per_player=120.0, seconds_increment=2.0, full_turn_limit=8))
    assert len(selector.seen) >= 6 and len(planner.seen) == len(selector.seen)
    seen = zip(selector.seen, planner.seen, planner.clocks, planner.spent, strict=True)
    for turn, ((_, context), sense, clock, spent) in enumerate(seen):
        assert context.budget is not None and sense.budget is not None and context.hard_budget is not None
        # the plan was made at the sense, for that clock (bounded by the hardest turn, no overhead,
        # the increment as measured, give or take the bot's rounding)
        hardest = manager.allot(clock, 2.5, turn, 2.0)
        assert context.budget <= hardest.sense + hardest.move + 1e-9
        assert context.hard_budget >= context.budget > 0.0
        # what the planner left of its share (a quarter of the move's, about 1 s here) reached the
        # move, less the bot's own time around the planner: microseconds, but a loaded machine can
        # preempt the process there, so up to 0.5 s of it is allowed
        left = sense.budget - spent
        assert 4 * sense.budget + max(0.0, left - 0.5) - 1e-9 <= context.budget <= 4 * sense.budget + max(0.0, left) + 1e-9
        assert context.search is None  # a long game: the selector's own rule
    assert bot.game.turns == len(selector.seen) and bot.game.overhead >= 0.0


def test_without_a_manager_the_contexts_carry_no_budget() -> None:
    planner, selector = RecordingPlanner(), RecordingSelector()
    bot = BeliefBot(lambda: BoardSet(max_boards=5_000), planner, selector, rng=3)
    play_local_game(bot, RandomBot(rng=4), LocalGame(seconds_per_player=60.0, full_turn_limit=4))
    assert selector.seen and all(context.budget is None for _, context in selector.seen)
    assert planner.seen and all(context.budget is None for context in planner.seen)


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_pondering_gives_the_belief_the_next_update_would(seed: int) -> None:
    """A bot that pondered after each move ends every turn with the same boards as one that did not."""
    game = play_random_game(np.random.default_rng(seed), full_turn_limit=12)
    for color in (chess.WHITE, chess.BLACK):
        plain, pondering = (
            BeliefBot(lambda: BoardSet(max_boards=20_000), RandomSensePlanner(), RecordingSelector(), rng=0) for _ in range(2)
        )
        pondering.color = plain.color = color
        for event in game.events[color]:
            plain.observe(event)
            pondering.observe(event)
            if isinstance(event, MoveResult):
                pondering.ponder(threading.Event())
            assert isinstance(plain.belief, BoardSet) and isinstance(pondering.belief, BoardSet)
            assert sorted(map(bytes, plain.belief.piece_grid())) == sorted(map(bytes, pondering.belief.piece_grid()))
        quiet = sum(isinstance(e, OpponentMoved) and e.capture_square is None for e in game.events[color][1:])
        assert 0 < pondering.pondered_turns <= quiet


def test_a_stop_before_pondering_does_nothing() -> None:
    bot = BeliefBot(lambda: BoardSet(max_boards=1_000), RandomSensePlanner(), RecordingSelector(), rng=0)
    game = play_random_game(np.random.default_rng(9), full_turn_limit=3)
    stop = threading.Event()
    stop.set()
    for event in game.events[chess.WHITE]:
        bot.observe(event)
        bot.ponder(stop)
    assert bot.pondered_turns == 0


def test_a_short_game_keeps_the_short_clock_spending() -> None:
    """Below `long_clock` (600 s by default) the move gets its fixed share and the selector searches by the short rule."""
    planner, selector = RecordingPlanner(), RecordingSelector()
    bot = BeliefBot(lambda: BoardSet(max_boards=5_000), planner, selector, rng=3, time_manager=TimeManager())
    play_local_game(bot, RandomBot(rng=4), LocalGame(seconds_per_player=599.0, seconds_increment=2.0, full_turn_limit=6))
    assert selector.seen and len(planner.seen) == len(selector.seen)
    for (_, context), sense in zip(selector.seen, planner.seen, strict=True):
        assert sense.budget is not None and context.budget == pytest.approx(4 * sense.budget)
        assert context.search == TimeManager().short_search != selector.config.search.rule


@given(st.floats(0.0, 100.0), st.integers(1, 500))
def test_the_short_clock_search_is_the_rule_judged_at_short_clocks(seconds: float, positions: int) -> None:
    """`TimeManager.short_search` limits each search as the flagship measured at short clocks did (docs/clock.md)."""
    rule = TimeManager().short_search
    assert rule.limit(seconds, positions) == pytest.approx(max(0.004, min(0.5, seconds / positions * 0.7)))


@pytest.mark.parametrize(
    ("spec", "share", "overhead", "longest", "long_clock"),
    [
        ("blindchess.bots.flagship", 0.9, 0.003, 5.0, 600.0),
        ("blindchess.experiments.flagship_before_spending", 0.9, 0.003, 5.0, math.inf),
        ("blindchess.experiments.flagship_before_clock", 0.7, 0.0, 0.1, None),
    ],
)
def test_the_baselines_spend_as_their_commits_did(
    spec: str, share: float, overhead: float, longest: float, long_clock: Optional[float]
) -> None:
    """The flagship and the two bots kept to judge it against (experiments/): their selectors' and clocks' settings
    (a game shorter than ``long_clock`` searches by `TimeManager.short_search`)."""
    _, player = load_player(spec)
    bot = player(rng=0)  # type: ignore[call-arg]
    assert isinstance(bot, BeliefBot) and isinstance(bot.move_selector, StockfishMoveSelector)
    try:
        selector = bot.move_selector
        assert selector.config.search.rule == SearchRule(share, overhead, longest)
        assert (None if bot.time_manager is None else bot.time_manager.long_clock) == long_clock
    finally:
        bot.move_selector.close()
