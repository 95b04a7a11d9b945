"""The flagship's settings as one frozen, typed tree (`FlagshipConfig`), and its named presets.

The tree has four tables and three bot-level fields::

    time_managed, low_clock_seconds, difficulty_boards     the bot (`BeliefBot`)
    [selector]   `SelectorConfig`: boards and scoring; tables search, candidates, safety, hunt, panic, engine, ponder
    [planner]    `PlannerConfig`: which sense planner, and the value-of-information planner's weights
    [clock]      `TimeManager`: the clock plan (blindchess.moving.time_management)
    [belief]     `BeliefConfig`: the belief and its weighting

Python, a tournament's ``settings`` table and ``blindchess match ... --settings`` take the same
names: ``FlagshipBot(rng, selector={"boards": 4})``, ``settings = { selector = { boards = 4 } }``
and ``--settings 'selector.boards = 4'`` build the same config (`configure`). A ``preset`` key
first applies one of `PRESETS` (``fast``: fixed-depth search on few boards, for tests). An unknown
or mistyped name is refused with the nearest valid ones, a wrong type with the type it takes
(`blindchess.config_tree.ConfigError`); `blindchess.config_tree.to_toml` prints a config back.
`CONFIGS` holds every registered preset bot's config; `RENAMED` the old names, refused with the new one.
docs/moving.md lists the fields and their defaults.

>>> configure(CONFIGS["flagship"], {"preset": "fast"}).selector.search.depth
1
>>> configure(CONFIGS["flagship"], {"selector": {"bords": 4}})
Traceback (most recent call last):
...
blindchess.config_tree.ConfigError: unknown setting 'selector.bords' (did you mean 'selector.boards'...
>>> configure(CONFIGS["flagship"], {"selector": {"search_depth": 1}})
Traceback (most recent call last):
...
blindchess.config_tree.ConfigError: setting 'selector.search_depth' is now 'selector.search.depth'; rename it where it is set
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Annotated, Any

from blindchess.beliefs import Belief, BoardSet, HybridBelief, StockfishSigmoid, weighted
from blindchess.config_tree import Bound, ConfigError, Count, Settings, override
from blindchess.errors import did_you_mean
from blindchess.evaluation.stockfish import Engine
from blindchess.moving.process_clock import ProcessTreeClock
from blindchess.moving.selector_config import RENAMED as SELECTOR_RENAMED
from blindchess.moving.selector_config import SelectorConfig
from blindchess.moving.time_management import TimeManager
from blindchess.sensing import (
    PLANNERS,
    EngineValueSensePlanner,
    EngineValueSettings,
    EvoiSettings,
    SensePlanner,
    ValueOfInformationSensePlanner,
    make_planner,
)
from blindchess.sensing.rollouts import RolloutSensePlanner, RolloutSettings

from .move_rule import SelectorMoveRule
from .roster import BOTS


def _board_set(config: BeliefConfig) -> Belief:
    return BoardSet(max_boards=config.max_boards, move_model=None, fold_parents=config.fold_parents)


def _hybrid(config: BeliefConfig) -> Belief:
    return HybridBelief(switch_boards=config.switch_boards, particles=config.particles)


def _learned(config: BeliefConfig) -> Belief:
    from blindchess.beliefs import LearnedPrior  # torch, on first use

    return weighted(BoardSet(max_boards=config.max_boards, move_model=None, fold_parents=config.fold_parents), LearnedPrior())


_SIGMOID_ENGINE: dict[str, Engine] = {}
"""The one Stockfish of the ``stockfish`` kind in this process, started on first use (a belief per game shares it)."""


def _stockfish(config: BeliefConfig) -> Belief:
    if "engine" not in _SIGMOID_ENGINE:
        _SIGMOID_ENGINE["engine"] = Engine(cache_size=1 << 16)
    sigmoid = StockfishSigmoid(_SIGMOID_ENGINE["engine"], max_boards=config.sigmoid_boards)
    return weighted(BoardSet(max_boards=config.max_boards, move_model=None, fold_parents=config.fold_parents), sigmoid)


BELIEF_KINDS: dict[str, Callable[[BeliefConfig], Belief]] = {
    "board-set": _board_set,
    "hybrid": _hybrid,
    "learned": _learned,
    "stockfish": _stockfish,
}
"""Belief kind -> how a `BeliefConfig` builds it: the one declaration of the kinds."""


PLANNER_NAMES = (*PLANNERS, RolloutSensePlanner.name)
"""Every planner the flagship can name: `PLANNERS`, and the rollout planner, which plays the bot's own move rule."""


@dataclass(frozen=True, slots=True)
class PlannerConfig(EvoiSettings):
    """The sense planner: its short name, the value-of-information planner's settings (`EvoiSettings`, whose
    defaults are these), the engine-values planner's engine work (``engine``, which also takes the former
    for its tie-breaks and fallback) and the rollout planner's (``rollouts``, which takes both); other
    planners take none."""

    name: str = "evoi"
    """The planner's short name (`PLANNER_NAMES`)."""
    engine: EngineValueSettings = field(default_factory=EngineValueSettings)
    """``engine-values``: the searches by which it values the windows (`EngineValueSettings`)."""
    rollouts: RolloutSettings = field(default_factory=RolloutSettings)
    """``rollouts``: the windows and boards it plays the bot's move rule on (`RolloutSettings`)."""

    def __post_init__(self) -> None:
        EvoiSettings.__post_init__(self)
        if self.name not in PLANNER_NAMES:
            raise ConfigError(
                f"unknown planner {self.name!r}{did_you_mean(self.name, PLANNER_NAMES, n=3)} (planners: {', '.join(PLANNER_NAMES)})"
            )

    def build(self, selector: SelectorConfig | None = None) -> SensePlanner:
        """The planner this config names, with its settings; the rollout planner's move rule is `selector`'s
        (`SelectorConfig`'s defaults when None) at the rollouts' depth and boards, and its budget counts what
        the selector's does (`SearchSettings.clock`)."""
        evoi = EvoiSettings(**{f.name: getattr(self, f.name) for f in dataclasses.fields(EvoiSettings)})
        if self.name == ValueOfInformationSensePlanner.name:
            return ValueOfInformationSensePlanner(evoi)
        if self.name == EngineValueSensePlanner.name:
            return EngineValueSensePlanner(self.engine, evoi)
        if self.name == RolloutSensePlanner.name:
            chosen = SelectorConfig() if selector is None else selector
            planner = RolloutSensePlanner(SelectorMoveRule(chosen, self.rollouts), self.rollouts, self.engine, evoi)
            if chosen.search.clock == "cpu":  # the selector's clock, so the sense too spends CPU seconds
                planner.clock = ProcessTreeClock(planner.pids)
            return planner
        return make_planner(self.name)


@dataclass(frozen=True, slots=True)
class BeliefConfig(Settings):
    """The belief and how its boards are weighted."""

    kind: str = "board-set"
    """``board-set``: every consistent board, equally likely; ``hybrid``: exact while small, particles past
    `switch_boards`; ``learned``: the board set weighted by the shipped posterior network (torch on first use);
    ``stockfish``: the board set weighted as StrangeFish2 weighs its own (`StockfishSigmoid` at depth 1, 200 cp) up to
    `sigmoid_boards`, which gave the true board 0.22 bits more than the uniform set after the opponent's move in the
    StrangeFish2 records (docs/champion.md, "Weights from an opponent model"; not yet judged by games)."""
    max_boards: int = 60_000
    """The board set's size cap: keeps each update and plan well inside a 120 s + 5 s clock."""
    fold_parents: Annotated[int, Bound(ge=0, note="0 folds only when the set runs empty")] = 0
    """Parents past the cap that each sense and own-move update folds back into the board set (`BoardSet`'s
    ``fold_parents``; 0: the backlog is replayed only when the set runs empty). 20,000 brings the true board back
    two turns sooner in ``strangefish2-120/g1``, but it has not passed its games: in an SPRT against 0 at 120 + 5 it
    scored 43% over 36 games (95% 28-58%), changing the belief on 4% of its turns (docs/champion.md, "The backlog,
    folded back in"), so the flagship plays as it did before the fold until games say otherwise."""
    switch_boards: int = 50_000
    """``hybrid``: the board count past which particles take over."""
    particles: int = 5_000
    """``hybrid``: how many particles."""
    sigmoid_boards: Count = 300
    """``stockfish``: the largest set weighed (a depth-1 search a board, 1.4-5.6 ms on the shared 2-core machine);
    larger sets are read unweighted. 300 keeps most of the likelihood gain of 1,000 (docs/champion.md)."""

    def __post_init__(self) -> None:
        Settings.__post_init__(self)
        if self.kind not in BELIEF_KINDS:
            hint = did_you_mean(self.kind, BELIEF_KINDS)
            raise ConfigError(f"unknown belief kind {self.kind!r}{hint} (kinds: {', '.join(BELIEF_KINDS)})")

    def build(self) -> Belief:
        """A fresh, uninitialised belief of this kind (`BELIEF_KINDS`).

        The board sets are unweighted (``move_model=None``: every consistent board equally
        likely), as the presets were tuned and measured (docs/benchmarks.md); `BoardSet`'s own
        default is the uniform opponent-move model.
        """
        return BELIEF_KINDS[self.kind](self)


@dataclass(frozen=True, slots=True)
class FlagshipConfig(Settings):
    """Every setting of a `PlannerPresetBot` (the module docstring has the layout)."""

    time_managed: bool = True
    """Plan each turn's sense and move time with the `clock` table; false keeps the planner's and selector's fixed plans."""
    low_clock_seconds: float = 12.0
    """Below this clock the bot does not sense."""
    difficulty_boards: Count = 64
    """Boards sampled each turn to weigh its difficulty for the clock plan."""
    selector: SelectorConfig = field(default_factory=SelectorConfig)
    """The move selector's settings."""
    planner: PlannerConfig = field(default_factory=PlannerConfig)
    """The sense planner and its settings."""
    clock: TimeManager = field(default_factory=TimeManager)
    """The clock plan (used when `time_managed`)."""
    belief: BeliefConfig = field(default_factory=BeliefConfig)
    """The belief."""


NEVER = math.inf

PRESETS: dict[str, Mapping[str, Any]] = {
    "fast": {"selector": {"search": {"depth": 1}, "boards": 2, "safety": {"boards": 8}}},
    "no-hunt": {"selector": {"hunt": {"material": NEVER}}, "planner": {"hunt_material": NEVER}},
    "coverage": {"selector": {"coverage": {"move_seconds": 3.0}}},
}
"""Named settings a ``preset`` key applies first: ``fast`` searches to depth 1 on 2 boards with 8 exposure
boards (seconds per game, deterministic for a seed: the tests' setting); ``no-hunt`` turns the king
hunt off in the selector and the planner, for measuring what hunting is worth; ``coverage`` turns on the
coverage loop for moves of 3 s or more in long games (`CoverageSettings`), to be judged in games."""


RENAMED: Mapping[str, str] = MappingProxyType({
    **{f"selector.{old}": f"selector.{new}" for old, new in SELECTOR_RENAMED.items()},
    "selector.moves_to_go": "clock.expected_turns",
    "selector.reserve_seconds": "clock.reserve",
    "selector.budget_cap_divisor": "clock.cap_divisor",
    "selector.increment_share": "clock.increment_share",
})
"""Dotted names the flagship's settings no longer have -> their new names: refused, naming the new one
(`blindchess.config_tree.override`). The selector's clock settings went to the ``clock`` table, which now
plans a selector's move too (its increment share 0.85 where the selector's was 0.5)."""


def configure(base: FlagshipConfig, settings: Mapping[str, Any]) -> FlagshipConfig:
    """`base` with `settings` applied: first the preset a ``preset`` key names, then the rest.

    Raises:
        ConfigError: an unknown preset or setting (with the nearest names), or a value of the wrong type.
    """
    settings = dict(settings)
    preset = settings.pop("preset", None)
    if preset is not None:
        if preset not in PRESETS:
            raise ConfigError(f"unknown preset {preset!r}{did_you_mean(str(preset), PRESETS)} (presets: {', '.join(PRESETS)})")
        base = override(base, PRESETS[preset])
    return override(base, settings, renamed=RENAMED)


FAST_FLAGSHIP = configure(FlagshipConfig(), {"preset": "fast"})
"""The flagship at the ``fast`` preset: what the tests build bots and selectors with."""

CONFIGS: dict[str, FlagshipConfig] = {
    name: override(FlagshipConfig(), entry.preset) for name, entry in BOTS.items() if entry.preset is not None
}
"""The config of every registered preset bot, by its short name (`blindchess.bots.roster.BOTS` declares them):
the flagship on each belief, and ``belief-<planner>``, the flagship's selector and board set with each planner
and no clock plan."""
