"""Seeded games to show: random bots on 8x8 and on a teaching board (tests, benchmark, docs screenshots).

>>> history = random_game(seed=1, full_turns=3)
>>> history.num_turns(), history.get_win_reason().name
(6, 'TURN_LIMIT')
"""

from __future__ import annotations

from typing import Any

from blindchess.arbiter.game import LocalGame
from blindchess.arbiter.history import GameHistory
from blindchess.arbiter.play import play_local_game
from blindchess.bots.random_bot import RandomBot
from blindchess.variants.teaching import TEACHING_BOARDS


def random_game(seed: int, full_turns: int) -> GameHistory:
    """Two seeded random bots on 8x8, drawn after `full_turns` full turns unless a king falls first."""
    game: LocalGame[Any] = LocalGame(seconds_per_player=None, full_turn_limit=full_turns, reversible_moves_limit=None)
    _, _, history = play_local_game(RandomBot(seed), RandomBot(seed + 1), game, enforce_deadlines=False)
    return history


def teaching_game(seed: int, board: str = "teaching-4x4", full_turns: int = 8) -> GameHistory:
    """Two seeded random bots on a teaching board (see `blindchess.variants.teaching`)."""
    game: LocalGame[Any] = LocalGame(seconds_per_player=None, full_turn_limit=full_turns, rules=TEACHING_BOARDS[board])
    _, _, history = play_local_game(RandomBot(seed), RandomBot(seed + 1), game, enforce_deadlines=False)
    return history
