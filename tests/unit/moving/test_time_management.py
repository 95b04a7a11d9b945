"""The clock plan: never a loss on time, most of the clock used, more for hard turns, no late turn starved in a long
game, short games planned as they were measured; and the bot that follows it."""

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
from scipy.integrate import quad
from scipy.stats import lognorm

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
starts = st.sampled_from([0.0, 900.0])
"""The clock at the first turn: a short game's plan (0) or a long one's (900, past `TimeManager.long_clock`)."""


@given(clocks, increments, st.integers(0, 400), weights, st.floats(0.0, 20.0), starts, weights)
def test_a_turn_never_plans_more_than_the_clock_allows(
    seconds_left: float, increment: float, turn: int, weight: float, overhead: float, start: float, mean_weight: float
) -> None:
    manager = TimeManager()
    plan = manager.allot(seconds_left, increment, turn, weight, overhead, start_seconds=start, mean_difficulty=mean_weight)
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
@given(
    st.floats(30.0, 1800.0), increments, st.integers(1, 300), st.lists(weights, min_size=1, max_size=8), st.floats(0.0, 2.0),
    st.sampled_from([0.0, math.inf]),
)
def test_spending_every_hard_budget_for_a_whole_game_never_flags(
    start: float, increment: float, turns: int, turn_weights: list[float], overhead: float, long_clock: float
) -> None:
    """Worst case: every turn takes its whole sense and hard move budget plus the overhead it declared (every game a
    long one, or every game a short one)."""
    manager = TimeManager(long_clock=long_clock)
    clock, total = start, 0.0
    for turn in range(turns):
        weight = turn_weights[turn % len(turn_weights)]
        total += weight
        plan = manager.allot(clock, increment, turn, weight, overhead, start_seconds=start, mean_difficulty=total / (turn + 1))
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


LONG_CLOCKS = [(900.0, 5.0, 0.2), (300.0, 5.0, 0.45)]
"""(start, increment, the share of the first turn's seconds every turn of a game of up to 120 own turns keeps)."""


@settings(max_examples=40)
@pytest.mark.parametrize(("start", "increment", "share"), LONG_CLOCKS)
@given(length=st.integers(20, 120), turn_weights=st.lists(st.floats(0.5, 2.0), min_size=1, max_size=8))
def test_no_late_turn_of_a_long_game_is_starved(
    start: float, increment: float, share: float, length: int, turn_weights: list[float]
) -> None:
    """A long game of `length` own turns, each turn spending its plan at the weights it meets: a turn of the game's usual
    weight (its mean) gets at least `share` of the first turn's seconds to the last turn, at least half of it to the
    46th (the records' mean length), and the clock, spending whole hard budgets, never falls below the reserve.

    The fixed horizon of 30 turns fails this: at 900 + 5 it gave the 46th turn 0.23 of the first, the 75th 0.15; at
    300 + 5 the 46th 0.42 (docs/clock.md, "A time plan for long games"). Past the 46th turn the share is bounded by the
    increment: a turn of a 120-turn game gets the increment share (4.25 s) and a little of the bank.
    """
    manager = TimeManager(long_clock=start)  # 300 + 5 played as a long game too (the lead's `long_clock` decides)
    clock, worst, total, usual = start, start, 0.0, []
    for turn in range(length):
        weight = turn_weights[turn % len(turn_weights)]
        total += weight
        mean = total / (turn + 1)
        ordinary = manager.allot(clock, increment, turn, mean, start_seconds=start, mean_difficulty=mean)
        usual.append(ordinary.sense + ordinary.move)
        plan = manager.allot(clock, increment, turn, weight, start_seconds=start, mean_difficulty=mean)
        hardest = manager.allot(worst, increment, turn, weight, start_seconds=start, mean_difficulty=mean)
        clock += increment - plan.sense - plan.move
        worst -= hardest.sense + hardest.hard
        assert clock >= manager.reserve and worst >= manager.reserve
        worst += increment
    assert min(usual) >= share * usual[0]
    assert min(usual[:46]) >= 0.5 * usual[0]


@pytest.mark.parametrize(
    ("start", "increment", "length", "least"), [(900.0, 5.0, 46, 0.85), (900.0, 5.0, 75, 0.95), (300.0, 5.0, 46, 0.85)]
)
def test_a_long_game_of_the_records_length_uses_most_of_the_clock(start: float, increment: float, length: int, least: float) -> None:
    """Spending the plan at weight 1 in a long game: the share of start + increments used by its end."""
    manager = TimeManager(long_clock=start)
    clock, used = start, 0.0
    for turn in range(length):
        plan = manager.allot(clock, increment, turn, start_seconds=start)
        clock += increment - plan.sense - plan.move
        used += plan.sense + plan.move
    assert used / (start + increment * length) >= least


@given(st.floats(0.0, 599.0), st.floats(0.0, 599.0), increments, st.integers(0, 400), weights, weights, st.floats(0.0, 20.0))
def test_a_short_game_is_planned_as_it_was_measured(
    start: float, seconds_left: float, increment: float, turn: int, weight: float, mean_weight: float, overhead: float
) -> None:
    """Below `long_clock` the plan is 06acaf2's formula (fixed horizon, absolute weight), whatever the long game's settings."""
    manager = TimeManager(game_median_turns=10.0, game_turns_sigma=2.0, cover_board_seconds=0.01)
    plan = manager.allot(seconds_left, increment, turn, weight, overhead, start_seconds=start, mean_difficulty=mean_weight)
    usable = max(0.0, seconds_left - 8.0)
    cap = min(usable / 6.0 + 0.85 * increment, usable / 2.0)
    turn_seconds = max(0.0, min((usable / max(12, 30 - turn) + 0.85 * increment) * min(2.0, max(0.5, weight)), cap) - overhead)
    expected = Allotment(0.2 * turn_seconds, 0.8 * turn_seconds, max(0.8 * turn_seconds, min(2.5 * 0.8 * turn_seconds, cap - overhead)))
    if usable <= 0.0:
        expected = Allotment(0.0, 0.0, 0.0)
    assert (plan.sense, plan.move, plan.hard) == pytest.approx((expected.sense, expected.move, expected.hard))


@given(st.floats(20.0, 80.0), st.floats(0.1, 0.8), st.integers(0, 200))
def test_the_horizon_is_the_mean_residual_life_of_the_fitted_length(median: float, sigma: float, turn: int) -> None:
    """`residual_turns` against the definition, ``integral of P(L > u) du from t / P(L > t)``, integrated numerically
    (over ``x = log u``, where the integrand is smooth, to 40 sigmas past the median)."""
    manager = TimeManager(game_median_turns=median, game_turns_sigma=sigma)
    length = lognorm(s=sigma, scale=median)
    survival = float(length.sf(turn))
    if survival < 1e-6:
        return  # far past the data: the closed form stands alone (its tail is the next test's)
    if turn == 0:
        expected = float(length.mean())
    else:
        integrand = lambda x: float(length.sf(math.exp(x))) * math.exp(x)  # noqa: E731
        expected = quad(integrand, math.log(turn), math.log(median) + 40 * sigma, limit=200)[0] / survival
    assert manager.residual_turns(turn) == pytest.approx(expected, rel=1e-6)


@given(st.integers(100, 10**12))
def test_the_horizon_stays_finite_and_grows_in_the_far_tail(turn: int) -> None:
    """Past the records (the defaults' horizon is least, 13 turns, near the 90th), a game that has lasted longer is
    expected to last longer still, also where the asymptote takes over from the closed form."""
    manager = TimeManager()
    left = manager.residual_turns(turn)
    assert 0.0 < left < math.inf and manager.turns_left(turn, long_game=True) >= manager.min_turns_left
    assert manager.residual_turns(2 * turn) > left


@given(st.floats(0.0, 60.0), st.floats(0.0, 240.0), st.floats(1.0, 2.5), st.floats(-1.0, 300.0))
def test_a_move_is_capped_by_the_work_it_can_buy(sense: float, move: float, factor: float, work: float) -> None:
    plan = Allotment(sense, move, factor * move)
    capped = plan.within(work)
    assert capped.sense == sense and capped.move == pytest.approx(min(move, max(0.0, work)))
    assert capped.move <= capped.hard <= plan.hard
    assert capped.hard == pytest.approx(plan.hard * (capped.move / move if move else 1.0))


def test_an_unbounded_plan_is_not_capped() -> None:
    plan = Allotment(math.inf, math.inf, math.inf)
    assert plan.within(4.0) == plan


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
     {"long_clock": -1.0}, {"long_clock": math.nan}, {"short_search_share": 0.0}, {"short_search_longest": -1.0},
     {"game_median_turns": 0.0}, {"game_turns_sigma": -0.3}, {"game_turns_sigma": math.inf}, {"cover_board_seconds": math.nan}],
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
        self.sizes: list[int] = []

    def choose_move(
        self, belief: Belief, move_actions: list[chess.Move], seconds_left: float, rng: np.random.Generator, context: MoveContext
    ) -> Optional[chess.Move]:
        self.seen.append((seconds_left, context))
        self.sizes.append(len(belief))
        return super().choose_move(belief, move_actions, seconds_left, rng, context)


class CoveringSelector(RecordingSelector):
    """A selector that says what covering its belief would take (`CoverageReporter`): `per_board` seconds a board,
    or raises when `per_board` is negative."""

    def __init__(self, per_board: float) -> None:
        super().__init__()
        self.per_board = per_board

    def cover_seconds(self, belief: Belief, move_actions: list[chess.Move], color: chess.Color) -> float:
        if self.per_board < 0:
            raise RuntimeError("no estimate")
        return self.per_board * len(belief)


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
    # this 300 s game is a long one: the sense's unused share is carried (and no move is capped by its work)
    manager = TimeManager(long_clock=100.0, cover_board_seconds=1000.0)
    planner, selector = RecordingPlanner(), RecordingSelector()
    bot = BeliefBot(lambda: BoardSet(max_boards=5_000), planner, selector, rng=3, time_manager=manager)
    play_local_game(bot, RandomBot(rng=4), LocalGame(seconds_per_player=300.0, seconds_increment=2.0, full_turn_limit=8))
    assert len(selector.seen) >= 6 and len(planner.seen) == len(selector.seen)
    seen = zip(selector.seen, planner.seen, planner.clocks, planner.spent, strict=True)
    for turn, ((_, context), sense, clock, spent) in enumerate(seen):
        assert context.budget is not None and sense.budget is not None and context.hard_budget is not None
        # the plan was made at the sense, for that clock (bounded by the hardest turn, no overhead,
        # the increment as measured, give or take the bot's rounding)
        # the heaviest weight a long game's turn can get: the top difficulty over the lowest mean (4)
        hardest = manager.allot(clock, 2.0, turn, 2.0, start_seconds=300.0, mean_difficulty=0.5)
        assert context.budget <= hardest.sense + hardest.move + 1e-9
        assert context.hard_budget >= context.budget > 0.0
        # what the planner left of its share (a quarter of the move's, about 1.5 s here) reached the
        # move, less the bot's own time around the planner: microseconds, but a loaded machine can
        # preempt the process there, so up to 0.5 s of it is allowed
        left = sense.budget - spent
        assert 4 * sense.budget + max(0.0, left - 0.5) - 1e-9 <= context.budget <= 4 * sense.budget + max(0.0, left) + 1e-9
        assert context.search is None  # a long game: the selector's own rule
    assert bot.game.turns == len(selector.seen) and bot.game.overhead >= 0.0


@pytest.mark.parametrize(("reported", "per_board"), [(None, 0.05), (0.03, 0.03), (-1.0, 0.05)])
def test_a_long_games_move_is_capped_by_the_work_it_can_buy(reported: Optional[float], per_board: float) -> None:
    """The move's budget is at most what covering the belief takes: the selector's word when it gives one (`reported`
    seconds a board), else `TimeManager.cover_board_seconds` a board (also when the selector's estimate raises, which
    is counted)."""
    selector = RecordingSelector() if reported is None else CoveringSelector(reported)
    manager = TimeManager(long_clock=100.0, cover_board_seconds=0.05)
    bot = BeliefBot(lambda: BoardSet(max_boards=5_000), RecordingPlanner(), selector, rng=3, time_manager=manager)
    try:
        play_local_game(bot, RandomBot(rng=4), LocalGame(seconds_per_player=120.0, seconds_increment=2.0, full_turn_limit=8))
    finally:
        selector.close()
    assert len(selector.seen) >= 6
    capped = 0
    for (_, context), boards in zip(selector.seen, selector.sizes, strict=True):
        assert context.budget is not None and context.hard_budget is not None
        assert context.budget <= per_board * max(1, boards) + 1e-9 and context.hard_budget >= context.budget
        capped += context.budget == pytest.approx(per_board * max(1, boards))
    assert capped >= 1  # the first turns' beliefs are small: their plan was cut to the work
    assert bot.game.failures["cover_seconds"] == (len(selector.seen) if reported is not None and reported < 0 else 0)


class RecordingWeights(TimeManager):
    """The clock plan, remembering each turn's (difficulty, mean_difficulty)."""

    weights: list[tuple[float, float]]

    def __init__(self, long_clock: float) -> None:
        super().__init__(long_clock=long_clock)
        object.__setattr__(self, "weights", [])

    def allot(
        self, seconds_left: float, increment: float, turn: int, difficulty: float = 1.0, overhead: float = 0.0, *,
        start_seconds: float = 0.0, mean_difficulty: float = 1.0,
    ) -> Allotment:
        self.weights.append((difficulty, mean_difficulty))
        return super().allot(
            seconds_left, increment, turn, difficulty, overhead, start_seconds=start_seconds, mean_difficulty=mean_difficulty
        )


def test_the_bot_weighs_each_turn_against_the_games_mean() -> None:
    manager = RecordingWeights(long_clock=100.0)
    bot = BeliefBot(lambda: BoardSet(max_boards=5_000), RecordingPlanner(), RecordingSelector(), rng=3, time_manager=manager)
    try:
        play_local_game(bot, RandomBot(rng=4), LocalGame(seconds_per_player=120.0, seconds_increment=2.0, full_turn_limit=6))
    finally:
        bot.move_selector.close()
    assert len(manager.weights) >= 5 and len({weight for weight, _ in manager.weights}) > 1
    for turn, (_, mean) in enumerate(manager.weights):
        assert mean == pytest.approx(sum(weight for weight, _ in manager.weights[: turn + 1]) / (turn + 1))


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
        assert 0 < pondering.game.pondered_turns <= quiet


def test_a_stop_before_pondering_does_nothing() -> None:
    bot = BeliefBot(lambda: BoardSet(max_boards=1_000), RandomSensePlanner(), RecordingSelector(), rng=0)
    game = play_random_game(np.random.default_rng(9), full_turn_limit=3)
    stop = threading.Event()
    stop.set()
    for event in game.events[chess.WHITE]:
        bot.observe(event)
        bot.ponder(stop)
    assert bot.game.pondered_turns == 0


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
