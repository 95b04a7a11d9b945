"""Named `BeliefBot` presets: one per sense planner, all with the same belief and move selector.

They differ only in the planner, which is what the sensing ablation compares; the flagship
(:mod:`blindchess.bots.flagship`) is the strongest of them. Every preset is a `Player`
class constructible with just ``rng``, so the registry and `blindchess match` can build it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Optional

from blindchess.beliefs import Belief, BoardSet, HybridBelief, Weighted, weighted
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.sensing import ValueOfInformationSensePlanner, make_planner

from .belief_bot import BeliefBot
from .random_bot import SeedLike
from .time_management import TimeManager

BELIEF_CAP = 60_000
"""`BoardSet` size cap of every preset: keeps each update and plan well inside a 120 s + 5 s clock."""


def capped_board_set() -> BoardSet:
    """The presets' belief: an exhaustive board set capped at `BELIEF_CAP` boards, unweighted.

    Unweighted (``move_model=None``: every consistent board equally likely) is what the presets
    were tuned and measured with (docs/benchmarks.md); `BoardSet`'s own default is the uniform
    opponent-move model.
    """
    return BoardSet(max_boards=BELIEF_CAP, move_model=None)


HYBRID_SWITCH_BOARDS = 50_000
HYBRID_PARTICLES = 5_000


def hybrid_belief() -> HybridBelief:
    """The hybrid belief for presets: exact up to `HYBRID_SWITCH_BOARDS` boards, `HYBRID_PARTICLES` particles past it."""
    return HybridBelief(switch_boards=HYBRID_SWITCH_BOARDS, particles=HYBRID_PARTICLES)


def learned_prior_belief() -> Weighted:
    """The presets' capped board set weighted by the shipped posterior network (`LearnedPrior`, torch on first use)."""
    from blindchess.beliefs import LearnedPrior

    return weighted(capped_board_set(), LearnedPrior())


class PlannerPresetBot(BeliefBot):
    """A `BeliefBot` with the capped board set, the Stockfish selector and the planner named by `planner_name`.

    Args:
        rng: seed or generator for every random choice.
        hunt: hunt the king when far ahead in material (``evaluation/king_hunt.py``: the selector's
            check bonus and the value-of-information planner's look for the king); False turns
            both off, for measuring what hunting is worth.
        **selector_settings: passed to `StockfishMoveSelector` (tests use
            ``search_depth=1, boards=2, safety_boards=8`` for fast, seed-deterministic games).
    """

    planner_name: ClassVar[str] = "eig"
    make_belief: ClassVar[Callable[[], Belief]] = staticmethod(capped_board_set)
    time_manager_class: ClassVar[Optional[Callable[[], TimeManager]]] = None
    """Builds the preset's time manager (None: the planner's and selector's fixed plans)."""

    def __init__(self, rng: SeedLike = None, hunt: bool = True, **selector_settings: Any) -> None:
        make_manager = type(self).time_manager_class
        planner = make_planner(self.planner_name)
        if not hunt:
            selector_settings["hunt_material"] = None
            if isinstance(planner, ValueOfInformationSensePlanner):
                planner.hunt_material = None
        super().__init__(
            type(self).make_belief,
            planner,
            StockfishMoveSelector(**selector_settings),
            rng,
            time_manager=None if make_manager is None else make_manager(),
        )


class RandomSenseBot(PlannerPresetBot):
    planner_name = "random"


class TroutSenseBot(PlannerPresetBot):
    planner_name = "trout"


class EntropySenseBot(PlannerPresetBot):
    planner_name = "eig"


class ExpectedSizeSenseBot(PlannerPresetBot):
    planner_name = "size"


class MarginalEntropySenseBot(PlannerPresetBot):
    planner_name = "marginal"


class ValueOfInformationSenseBot(PlannerPresetBot):
    planner_name = "evoi"


PRESETS: dict[str, type[PlannerPresetBot]] = {
    f"belief-{cls.planner_name}": cls
    for cls in (RandomSenseBot, TroutSenseBot, EntropySenseBot, ExpectedSizeSenseBot, MarginalEntropySenseBot, ValueOfInformationSenseBot)
}
"""Short name (``belief-<planner>``) -> preset class."""
