"""Named `BeliefBot` presets: the flagship on each belief, and one per sense planner, all with the same move selector.

They differ only in their config (:mod:`blindchess.bots.flagship_config`), declared with their name
in the registry (`blindchess.bots.roster.BOTS`): the planner, which is what the sensing ablation
compares, the clock plan and the belief (`preset_bot` makes each one's class). Every preset is a `Player` class constructible with just
``rng``, so the registry and `blindchess match` can build it; settings given to the
constructor (as Python, a tournament's TOML or ``--settings``) override its config.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar, Optional

from blindchess.beliefs import BoardSet
from blindchess.moving.stockfish_selector import StockfishMoveSelector

from .belief_bot import BeliefBot
from .flagship_config import CONFIGS, BeliefConfig, FlagshipConfig, configure
from .random_bot import SeedLike


def capped_board_set() -> BoardSet:
    """The presets' belief: the default `BeliefConfig`'s capped, unweighted board set."""
    belief = BeliefConfig().build()
    assert isinstance(belief, BoardSet)
    return belief


class PlannerPresetBot(BeliefBot):
    """A `BeliefBot` built from one `FlagshipConfig`: the class's `config` with the given settings.

    Args:
        rng: seed or generator for every random choice.
        config: the config to start from (the class's `config` when None).
        **settings: fields of the config to override, nested tables as mappings
            (``selector={"boards": 4}``), and ``preset`` for one of `PRESETS` (``preset="fast"``:
            the tests' fast, seed-deterministic games).

    Raises:
        ConfigError: an unknown or mistyped setting (named, with the nearest valid names).
    """

    config: ClassVar[FlagshipConfig] = CONFIGS["flagship"]
    """The preset's settings."""

    def __init__(self, rng: SeedLike = None, config: Optional[FlagshipConfig] = None, **settings: Any) -> None:
        self.settings = type(self).configured(settings, config)
        """The settings this bot was built from."""
        chosen = self.settings
        super().__init__(
            chosen.belief.build,
            chosen.planner.build(chosen.selector),
            StockfishMoveSelector(chosen.selector, clock=chosen.clock),
            rng,
            low_clock_seconds=chosen.low_clock_seconds,
            difficulty_boards=chosen.difficulty_boards,
            time_manager=chosen.clock if chosen.time_managed else None,
        )

    @classmethod
    def configured(cls, settings: Mapping[str, Any], config: Optional[FlagshipConfig] = None) -> FlagshipConfig:
        """The config a bot of this class built with `settings` plays with (a tournament checks settings with it)."""
        return configure(cls.config if config is None else config, settings)


@functools.cache
def preset_bot(name: str) -> type[PlannerPresetBot]:
    """The class of the registered preset `name` (`blindchess.bots.roster.BOTS`): its `config` is ``CONFIGS[name]``.

    The flagship has a class of its own (`blindchess.bots.flagship.FlagshipBot`, for `load_player` and for
    subclassing); every other preset is this class, made once per name.

    >>> preset_bot("belief-eig").config.planner.name, preset_bot("belief-eig") is preset_bot("belief-eig")
    ('eig', True)

    Raises:
        KeyError: `name` is no registered preset.
    """
    config = CONFIGS[name]
    class_name = "".join(part.capitalize() for part in name.split("-")) + "Bot"
    return type(class_name, (PlannerPresetBot,), {"config": config, "__module__": __name__, "__doc__": f"The ``{name}`` preset."})
