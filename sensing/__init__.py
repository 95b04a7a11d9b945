"""Sense planners: where to point the 3x3 sensor, given a belief.

Every planner implements `SensePlanner` (see `base`); `PLANNERS` maps short names to
their classes for presets, the ablation and the command line.
"""

from blindchess.errors import did_you_mean

from .base import SenseContext, SensePlanError, SensePlanner
from .eig import EntropySensePlanner
from .engine_values import EngineValueSensePlanner, EngineValueSettings
from .evoi import EvoiSettings, ValueOfInformationSensePlanner
from .expected_size import ExpectedSizeSensePlanner
from .marginal_entropy import MarginalEntropySensePlanner
from .random_planner import RandomSensePlanner
from .trout_planner import TroutSensePlanner

PLANNERS: dict[str, type] = {
    planner.name: planner
    for planner in (
        RandomSensePlanner,
        TroutSensePlanner,
        EntropySensePlanner,
        ExpectedSizeSensePlanner,
        MarginalEntropySensePlanner,
        ValueOfInformationSensePlanner,
        EngineValueSensePlanner,
    )
}
"""Short name -> planner class (each constructible without arguments)."""


def make_planner(name: str) -> SensePlanner:
    """A planner by short name.

    Raises:
        SensePlanError: `name` is not in `PLANNERS` (the message lists the names).
    """
    if name not in PLANNERS:
        raise SensePlanError(f"unknown sense planner {name!r}{did_you_mean(name, PLANNERS)}; known: {', '.join(sorted(PLANNERS))}")
    return PLANNERS[name]()  # type: ignore[no-any-return]


__all__ = [
    "PLANNERS",
    "EngineValueSensePlanner",
    "EngineValueSettings",
    "EntropySensePlanner",
    "EvoiSettings",
    "ExpectedSizeSensePlanner",
    "MarginalEntropySensePlanner",
    "RandomSensePlanner",
    "SenseContext",
    "SensePlanError",
    "SensePlanner",
    "TroutSensePlanner",
    "ValueOfInformationSensePlanner",
    "make_planner",
]
