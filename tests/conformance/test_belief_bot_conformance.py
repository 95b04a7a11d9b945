"""The registered `BeliefBot` presets: both colours without a fault, and the same game again by seed.

Run at the ``fast`` preset (fixed-depth search on few boards), which makes the move selector
independent of the clock. The replay plays without a clock as well: the sense planner draws more
boards as its budget grows (`sensing.evoi`), and under a clock the budget comes from the seconds
left, which the arbiter counts in wall time, so a loaded machine could change the first turn's
sample (it did once at a load average of 7, with the numba kernels loading in that turn).
"""

from __future__ import annotations

import chess
import pytest

from blindchess.arbiter import GameHistory, LocalGame, WinReason, play_local_game
from blindchess.bots.random_bot import RandomBot
from blindchess.bots.registry import resolve_bot

PRESET_NAMES = ("flagship", "belief-eig", "belief-random")


def _play(name: str, color: chess.Color, seed: int, clock: bool = True) -> tuple[str, GameHistory]:
    _, bot_class = resolve_bot(name)
    bot = bot_class(rng=seed, preset="fast")  # type: ignore[call-arg]  # ours take rng; type[Player] does not say
    opponent = RandomBot(rng=seed + 1)
    white, black = (bot, opponent) if color == chess.WHITE else (opponent, bot)
    game = LocalGame(full_turn_limit=8, seconds_per_player=900 if clock else None)  # 8 turns show every callback
    _, _, history = play_local_game(white, black, game=game)
    return history.to_json(), history


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_preset_plays_both_colours_without_faults(name: str) -> None:
    for color in (chess.WHITE, chess.BLACK):
        _, history = _play(name, color, seed=31)
        assert history.faults == []
        assert history.get_win_reason() in (WinReason.KING_CAPTURE, WinReason.TURN_LIMIT)
        assert history.num_turns(color) > 0


def test_flagship_replays_by_seed() -> None:
    first, _ = _play("flagship", chess.BLACK, seed=41, clock=False)
    second, _ = _play("flagship", chess.BLACK, seed=41, clock=False)
    assert first == second
