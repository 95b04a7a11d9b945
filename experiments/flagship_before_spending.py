"""The flagship as it was before it spent the clock it plans (commit 06acaf2), kept to judge that change.

Commit 41a7351 changed how the flagship spends a turn's plan, not the plan: the selector's
searches share 0.9 of their seconds less a 3 ms round trip each (0.7 of them before), may
search a position up to 5 s (0.5 s), and the move gets what the sense left unused. This is
the flagship with the three undone. Load it by path or module name::

    blindchess sprt flagship blindchess.experiments.flagship_before_spending --seconds 60 --increment 2
"""

from __future__ import annotations

from functools import partial
from typing import Any

from blindchess.arbiter import Player
from blindchess.bots.presets import ValueOfInformationSenseBot
from blindchess.bots.random_bot import SeedLike
from blindchess.bots.time_management import TimeManager


class FlagshipBeforeSpending(ValueOfInformationSenseBot):
    """The flagship of 06acaf2 (this preset on a `TimeManager`): a fixed sense share, searches of ``0.7 s / n`` up to 0.5 s."""

    time_manager_class = partial(TimeManager, carry_sense=False)

    def __init__(self, rng: SeedLike = None, hunt: bool = True, **selector_settings: Any) -> None:
        old_limits = {"max_position_seconds": 0.5, "search_share": 0.7, "search_overhead": 0.0}
        super().__init__(rng, hunt, **{**old_limits, **selector_settings})


def get_player() -> type[Player]:
    """The bot's class (`load_player` calls this)."""
    return FlagshipBeforeSpending
