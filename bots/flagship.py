"""The flagship bot: `load_player('blindchess.bots.flagship')` always gives the strongest preset.

Today that is the exhaustive board set (capped), sensing by expected information gain, and
the Stockfish selector (expected value blended with the worst case, king captures taken
when likely, own-king exposure scored as a loss).
"""

from __future__ import annotations

from blindchess.arbiter import Player

from .presets import EntropySenseBot


class FlagshipBot(EntropySenseBot):
    """The strongest `BeliefBot` preset (see the module docstring)."""


def get_player() -> type[Player]:
    """The flagship's class (`load_player` calls this)."""
    return FlagshipBot
