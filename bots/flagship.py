"""The flagship bot: `load_player('blindchess.bots.flagship')` always gives the strongest preset.

Today that is the exhaustive board set (capped), sensing by expected value of information
blended with information gain (the ``evoi`` planner: it looks where the answer would
change the move, above all at threats to its own king, and otherwise where it learns most),
and the Stockfish selector (expected value blended with the worst case, king captures taken
when likely, own-king exposure penalised on a large sample), on the clock plan of
`TimeManager` (:mod:`blindchess.moving.time_management`: most of the clock over a game of
ordinary length, more time for large beliefs and threats to its king, a second look at close
calls), and it thinks on the opponent's turn when the arbiter lets it (`BeliefBot.ponder`).
"""

from __future__ import annotations

from blindchess.arbiter import Player

from .flagship_config import CONFIGS
from .presets import PlannerPresetBot


class FlagshipBot(PlannerPresetBot):
    """The strongest `BeliefBot` preset (see the module docstring); its settings are `FlagshipConfig`'s defaults."""

    config = CONFIGS["flagship"]


def get_player() -> type[Player]:
    """The flagship's class (`load_player` calls this)."""
    return FlagshipBot
