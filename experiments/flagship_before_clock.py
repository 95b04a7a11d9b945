"""The flagship as it was before its time manager (commit 187bf11), kept to measure the new one against.

Same belief, planner and selector; no `TimeManager` (the planner and selector keep their
fixed plans: the selector's ``usable / 30 + increment / 2``, at most 24 boards and 0.1 s per
position, no second look) and no king hunt (neither the selector's check bonus nor the
planner's look for the king). Load it by path or module name::

    blindchess match flagship experiments/flagship_before_clock.py --seconds 300 --increment 5
    blindchess sprt flagship blindchess.experiments.flagship_before_clock --seconds 60 --increment 2
"""

from __future__ import annotations

from blindchess.arbiter import Player
from blindchess.bots.flagship_config import CONFIGS, configure
from blindchess.bots.presets import ValueOfInformationSenseBot

OLD_LIMITS: dict[str, float] = {"max_boards": 24, "max_position_seconds": 0.1, "search_share": 0.7, "search_overhead": 0.0}
"""The selector's settings at 187bf11 (its defaults then, where they differ from today's)."""


class FlagshipBeforeClock(ValueOfInformationSenseBot):
    """`belief-evoi` with the selector's old limits and no hunt: what `flagship` was at 187bf11."""

    config = configure(CONFIGS["belief-evoi"], {"preset": "no-hunt", "selector": OLD_LIMITS})


def get_player() -> type[Player]:
    """The bot's class (`load_player` calls this)."""
    return FlagshipBeforeClock
