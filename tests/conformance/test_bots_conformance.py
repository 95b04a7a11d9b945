"""The baseline bots: play both colours in our arbiter without a fault, and replay exactly by seed.

Limited to the baselines (`BASELINES`): the belief-based presets registered beside them take
minutes per game at their settings and are tested with their own budget in their own files.
"""

from __future__ import annotations

import chess
import chess.engine
import pytest

from blindchess.arbiter import GameHistory, LocalGame, WinReason, play_local_game
from blindchess.bots.random_bot import RandomBot
from blindchess.bots.registry import resolve_bot

BASELINES = ("attacker", "random", "trout")

FAST_SETTINGS: dict[str, dict[str, object]] = {"trout": {"limit": chess.engine.Limit(depth=2)}}
"""Constructor arguments that keep a bot's games short in tests."""

TURN_LIMIT = 20


def _play(name: str, color: chess.Color, seed: int) -> tuple[str, GameHistory]:
    _, bot_class = resolve_bot(name)
    bot = bot_class(rng=seed, **FAST_SETTINGS.get(name, {}))  # type: ignore[call-arg]  # ours take rng; type[Player] does not say
    opponent = RandomBot(rng=seed + 1)
    white, black = (bot, opponent) if color == chess.WHITE else (opponent, bot)
    _winner, _reason, history = play_local_game(white, black, game=LocalGame(full_turn_limit=TURN_LIMIT))
    return history.to_json(), history


@pytest.mark.parametrize("name", BASELINES)
@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK], ids=["white", "black"])
def test_bot_plays_without_faults_and_replays_by_seed(name: str, color: chess.Color) -> None:
    first_json, history = _play(name, color, seed=21)
    assert history.faults == []  # never raised, never answered outside its action lists, never overran
    assert history.get_win_reason() in (WinReason.KING_CAPTURE, WinReason.TURN_LIMIT, WinReason.MOVE_LIMIT)
    assert history.num_turns(color) > 0
    second_json, _ = _play(name, color, seed=21)
    assert second_json == first_json
