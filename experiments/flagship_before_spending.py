"""The flagship as it was before it spent the clock it plans (commit 06acaf2), kept to judge that change.

Commit 41a7351 changed how the flagship spends a turn's plan, not the plan: the selector's
searches share 0.9 of their seconds less a 3 ms round trip each (0.7 of them before), may
search a position up to 5 s (0.5 s), and the move gets what the sense left unused. Since then
the flagship spends that way only in long games (`TimeManager.long_clock`, 600 s): this is the
flagship that calls every game short, so it differs from the flagship only in games of 600 s
or more. Load it by path or module name::

    blindchess match flagship blindchess.experiments.flagship_before_spending --seconds 900 --increment 5
"""

from __future__ import annotations

import math

from blindchess.arbiter import Player
from blindchess.bots.flagship_config import CONFIGS, configure
from blindchess.bots.presets import PlannerPresetBot


class FlagshipBeforeSpending(PlannerPresetBot):
    """The flagship of 06acaf2: every game short (`TimeManager.short_search`, ``clock.long_clock = inf``)."""

    config = configure(CONFIGS["flagship"], {"clock": {"long_clock": math.inf}})


def get_player() -> type[Player]:
    """The bot's class (`load_player` calls this)."""
    return FlagshipBeforeSpending
