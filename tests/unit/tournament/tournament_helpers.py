"""Small configs and bot files shared by the tournament tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

from blindchess.tournament.results_db import ResultStore

DETERMINISTIC_PLAYERS = """
[players.random]
bot = "random"

[players.attacker]
bot = "attacker"

[players.trout]
bot = "trout"
settings = { limit = { depth = 1 } }
"""

DYING_BOT = """
import os
import signal
from pathlib import Path

from blindchess.bots.random_bot import RandomBot

MARKER = Path(__file__).with_suffix(".died")


class DyingBot(RandomBot):
    '''Plays randomly; its worker process is SIGKILLed on its third move{once}.'''

    moves = 0

    def choose_move(self, move_actions, seconds_left):
        self.moves += 1
        if self.moves == 3 and {condition}:
            MARKER.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().choose_move(move_actions, seconds_left)
"""


def write_config(folder: Path, players: str, games: int = 2, turn_limit: int = 20, extra: str = "", name: str = "t") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(
        textwrap.dedent(f"""
        [tournament]
        name = "{name}"
        games_per_pairing = {games}
        seed = 5
        full_turn_limit = {turn_limit}
        {extra}
        """) + textwrap.dedent(players)
    )  # fmt: skip
    return path


def dying_bot(folder: Path, once: bool = True) -> Path:
    """A bot file whose worker dies on its third move: only the first time (`once`), or every time."""
    path = folder / ("dies_once.py" if once else "dies_always.py")
    condition = "not MARKER.exists()" if once else "True"
    path.write_text(DYING_BOT.format(once=" the first time" if once else "", condition=condition))
    return path


def recorded(db: Path) -> dict[str, tuple[bool, bool | None, str | None, str | None]]:
    """key -> (status, winner, reason, history) of every recorded game."""
    with ResultStore(db) as store:
        return {row.key: (row.ok, row.winner, row.reason, store.history(row.key)) for row in store.rows()}
