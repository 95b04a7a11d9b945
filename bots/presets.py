"""Named `BeliefBot` presets: one per sense planner, all with the same belief and move selector.

They differ only in their config (:mod:`blindchess.bots.flagship_config`): the planner, which
is what the sensing ablation compares, and for the flagship (:mod:`blindchess.bots.flagship`)
the clock plan and the belief. Every preset is a `Player` class constructible with just
``rng``, so the registry and `blindchess match` can build it; settings given to the
constructor (as Python, a tournament's TOML or ``--settings``) override its config.
"""

from __future__ import annotations

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

    config: ClassVar[FlagshipConfig] = CONFIGS["belief-eig"]
    """The preset's settings."""

    def __init__(self, rng: SeedLike = None, config: Optional[FlagshipConfig] = None, **settings: Any) -> None:
        self.settings = type(self).configured(settings, config)
        """The settings this bot was built from."""
        chosen = self.settings
        super().__init__(
            chosen.belief_factory(),
            chosen.planner.build(),
            StockfishMoveSelector(chosen.selector),
            rng,
            low_clock_seconds=chosen.low_clock_seconds,
            difficulty_boards=chosen.difficulty_boards,
            time_manager=chosen.clock if chosen.time_managed else None,
        )

    @classmethod
    def configured(cls, settings: Mapping[str, Any], config: Optional[FlagshipConfig] = None) -> FlagshipConfig:
        """The config a bot of this class built with `settings` plays with (a tournament checks settings with it)."""
        return configure(cls.config if config is None else config, settings)


class RandomSenseBot(PlannerPresetBot):
    config = CONFIGS["belief-random"]


class TroutSenseBot(PlannerPresetBot):
    config = CONFIGS["belief-trout"]


class EntropySenseBot(PlannerPresetBot):
    config = CONFIGS["belief-eig"]


class ExpectedSizeSenseBot(PlannerPresetBot):
    config = CONFIGS["belief-size"]


class MarginalEntropySenseBot(PlannerPresetBot):
    config = CONFIGS["belief-marginal"]


class ValueOfInformationSenseBot(PlannerPresetBot):
    config = CONFIGS["belief-evoi"]


PRESET_BOTS: dict[str, type[PlannerPresetBot]] = {
    f"belief-{cls.config.planner.name}": cls
    for cls in (RandomSenseBot, TroutSenseBot, EntropySenseBot, ExpectedSizeSenseBot, MarginalEntropySenseBot, ValueOfInformationSenseBot)
}
"""Short name (``belief-<planner>``) -> preset class."""
