"""The flagship as it was before its time manager (commit 187bf11), kept to measure the new one against.

Same belief, planner and selector; no `TimeManager` (the planner and selector keep their
fixed plans: the selector's ``usable / 30 + increment / 2`` from the ``clock`` table's first turn,
at most 24 boards and 0.1 s per position, no second look; its cap, ``usable / 6``, now gains the
increment's share too, as the time manager's does) and no king hunt (neither the selector's check bonus nor the
planner's look for the king). Load it by path or module name::

    blindchess match flagship experiments/flagship_before_clock.py --seconds 300 --increment 5
    blindchess sprt flagship blindchess.experiments.flagship_before_clock --seconds 60 --increment 2
"""

from __future__ import annotations

from typing import Any

from blindchess.arbiter import Player
from blindchess.bots.flagship_config import CONFIGS, configure
from blindchess.bots.presets import PlannerPresetBot

OLD_LIMITS: dict[str, Any] = {"max_boards": 24, "search": {"max_position_seconds": 0.1, "share": 0.7, "overhead": 0.0}}
"""The selector's settings at 187bf11 (its defaults then, where they differ from today's)."""


class FlagshipBeforeClock(PlannerPresetBot):
    """`belief-evoi` with the selector's old limits and no hunt: what `flagship` was at 187bf11."""

    config = configure(CONFIGS["belief-evoi"], {"preset": "no-hunt", "selector": OLD_LIMITS, "clock": {"increment_share": 0.5}})


def get_player() -> type[Player]:
    """The bot's class (`load_player` calls this)."""
    return FlagshipBeforeClock
