"""The flagship's senses and moves on a fixed seeded game at fixed depth, against a recording.

The recording (``tests/fixtures/flagship_fast_game.json``) is the whole history of one
untimed game of the flagship at the ``fast`` preset (White, seed 5) against the random bot
(seed 105), 14 full turns at most: untimed, so the time manager's plan is the same on every
machine, and at fixed depth, so Stockfish's answers are. A refactoring of the flagship's
settings, planner or selector that changes any sense or move fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

from blindchess.arbiter import LocalGame, play_local_game
from blindchess.bots.flagship import FlagshipBot
from blindchess.bots.random_bot import RandomBot

RECORDING = Path(__file__).parent.parent / "fixtures" / "flagship_fast_game.json"


def test_the_flagship_plays_the_recorded_game() -> None:
    flagship = FlagshipBot(rng=5, preset="fast")
    _, _, history = play_local_game(flagship, RandomBot(rng=105), game=LocalGame(seconds_per_player=None, full_turn_limit=14))
    assert json.loads(history.to_json()) == json.loads(RECORDING.read_text())
