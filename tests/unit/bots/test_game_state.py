"""A bot object reused for a second game starts it clean (issue 38, acceptance 5).

`BeliefBot` keeps what it learns in a game (belief, measured increment, overhead, pondering) in
one `GameState` made at `GameStarted`. The bug this guards: the increment lived on the bot and was
not reset, so a bot that played a game with an increment planned the first turn of its next game
with that increment, whatever the new clock.
"""

from __future__ import annotations

from blindchess.arbiter import LocalGame, play_local_game
from blindchess.bots.flagship import FlagshipBot
from blindchess.bots.random_bot import RandomBot
from blindchess.moving.time_management import Allotment, TimeManager


class RecordingClock(TimeManager):
    """The flagship's clock plan, remembering what each turn's plan was asked with: (clock, increment, turn)."""

    plans: list[tuple[float, float, int]]

    def __init__(self) -> None:
        super().__init__()
        object.__setattr__(self, "plans", [])

    def allot(
        self, seconds_left: float, increment: float, turn: int, difficulty: float = 1.0, overhead: float = 0.0, *,
        start_seconds: float = 0.0, mean_difficulty: float = 1.0,
    ) -> Allotment:
        self.plans.append((seconds_left, increment, turn))
        return super().allot(
            seconds_left, increment, turn, difficulty, overhead, start_seconds=start_seconds, mean_difficulty=mean_difficulty
        )


def _play(bot: FlagshipBot, clock: RecordingClock, seconds: float, increment: float, seed: int) -> list[tuple[float, float, int]]:
    """The plans of one real game of `bot` (White) on a `seconds` + `increment` clock."""
    start = len(clock.plans)
    game = LocalGame(seconds_per_player=seconds, seconds_increment=increment, full_turn_limit=4)
    play_local_game(bot, RandomBot(rng=seed), game=game)
    return clock.plans[start:]


def test_a_reused_bot_plans_its_second_games_first_turn_from_that_games_clock() -> None:
    bot = FlagshipBot(rng=3, preset="fast")
    clock = RecordingClock()
    bot.time_manager = clock
    try:
        first = _play(bot, clock, 60.0, 5.0, seed=1)
        # the bot measured the first game's increment (5 s, less what a loaded machine adds to its turns on the arbiter's clock)
        assert max(increment for _, increment, _ in first) > 0.0
        second = _play(bot, clock, 900.0, 0.0, seed=2)
        seconds_left, increment, turn = second[0]
        assert seconds_left > 800.0 and turn == 0
        assert increment == 0.0  # the second game's clock has none; the old bot planned with the first game's 5 s
        assert bot.game.turns == len(second)  # the game state holds this game's turns only
    finally:
        bot.move_selector.close()
