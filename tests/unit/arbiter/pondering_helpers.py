"""Pondering test bots, shared by the arbiter, CLI and server tests of pondering."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import chess

from blindchess.arbiter.sandbox.isolation import CALLBACKS
from blindchess.bots.random_bot import RandomBot


class CountingPonderer(RandomBot):
    """Plays randomly; ponders by counting 1 ms steps; records whether a ponder ran during any callback.

    `log` receives, at game end: the steps counted, the ponder sessions, the callback that
    preceded each session's start, and the callbacks that ran while a ponder was running.
    """

    def __init__(self, rng: int, log: Path) -> None:
        super().__init__(rng)
        self.log = log
        self.steps = 0
        self.running = False
        self.last_callback = ""
        self.started_after: list[str] = []
        self.overlapped: list[str] = []

    def ponder(self, stop: threading.Event) -> None:
        self.running = True
        self.started_after.append(self.last_callback)
        try:
            while not stop.is_set():
                self.steps += 1
                time.sleep(0.001)
        finally:
            self.running = False

    def write_log(self) -> None:
        record = {"steps": self.steps, "started_after": self.started_after, "overlapped": self.overlapped}
        self.log.write_text(json.dumps(record))


def _recording(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    def callback(self: CountingPonderer, *args: Any) -> Any:
        if self.running:
            self.overlapped.append(name)
        self.last_callback = name
        result = method(self, *args)
        if name == "handle_game_end":
            self.write_log()
        return result

    return callback


for _name in CALLBACKS:
    setattr(CountingPonderer, _name, _recording(_name, getattr(RandomBot, _name)))


class RaisingPonderer(CountingPonderer):
    """Counts its ponder calls, each of which raises at once."""

    def ponder(self, stop: threading.Event) -> None:
        self.started_after.append(self.last_callback)
        raise RuntimeError("pondering went wrong")


LATE_SECONDS = 1.0
"""How long `LatePonderer` ignores `stop`: far above what a loaded machine adds to a quick turn (0.1-0.3 s)."""

SLOW_SECONDS = 1.5
"""How long `SlowBot` takes a move: far above an isolated bot's own time on a loaded machine (0.9 s in 4 turns seen)."""


class LatePonderer(CountingPonderer):
    """Ignores `stop` for `LATE_SECONDS` each time it ponders."""

    def ponder(self, stop: threading.Event) -> None:
        self.started_after.append(self.last_callback)
        time.sleep(LATE_SECONDS)


class SlowBot(RandomBot):
    """Takes `SLOW_SECONDS` to choose each move (asleep: it leaves the CPU and the GIL to others)."""

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        time.sleep(SLOW_SECONDS)
        return super().choose_move(move_actions, seconds_left)


PONDERING_BOT_FILE = '''
import time
from pathlib import Path

from blindchess.bots.random_bot import RandomBot

LOG = Path(__file__).with_suffix(".log")


class FileThinker(RandomBot):
    """Plays randomly; ponders by counting 1 ms steps; appends the count to LOG at each game's end."""

    steps = 0

    def ponder(self, stop):
        while not stop.is_set():
            self.steps += 1
            time.sleep(0.001)

    def handle_game_end(self, winner_color, win_reason, game_history):
        with LOG.open("a") as log:
            log.write(f"{self.steps}\\n")
'''
"""A bot file for ``blindchess match --ponder``: its log shows that each game's bot pondered."""
