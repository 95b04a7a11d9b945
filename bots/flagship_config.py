"""The flagship's settings as one frozen, typed tree (`FlagshipConfig`), and its named presets.

The tree has four tables and three bot-level fields::

    time_managed, low_clock_seconds, difficulty_boards     the bot (`BeliefBot`)
    [selector]   `SelectorConfig`: boards, search, exposure, hunt (blindchess.moving.selector_config)
    [planner]    `PlannerConfig`: which sense planner, and the value-of-information planner's weights
    [clock]      `TimeManager`: the clock plan (blindchess.bots.time_management)
    [belief]     `BeliefConfig`: the belief and its weighting

Python, a tournament's ``settings`` table and ``blindchess match ... --settings`` take the same
names: ``FlagshipBot(rng, selector={"boards": 4})``, ``settings = { selector = { boards = 4 } }``
and ``--settings 'selector.boards = 4'`` build the same config (`configure`). A ``preset`` key
first applies one of `PRESETS` (``fast``: fixed-depth search on few boards, for tests). An unknown
or mistyped name is refused with the nearest valid ones, a wrong type with the type it takes
(`blindchess.config_tree.ConfigError`); `blindchess.config_tree.to_toml` prints a config back.
`CONFIGS` holds every registered preset bot's config. docs/moving.md lists the fields and their defaults.

>>> configure(CONFIGS["flagship"], {"preset": "fast"}).selector.search_depth
1
>>> configure(CONFIGS["flagship"], {"selector": {"bords": 4}})
Traceback (most recent call last):
...
blindchess.config_tree.ConfigError: unknown setting 'selector.bords'; did you mean 'selector.boards'...
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from blindchess.beliefs import Belief, BoardSet, HybridBelief, weighted
from blindchess.config_tree import ConfigError, check_types, override
from blindchess.evaluation.king_hunt import HUNT_MATERIAL
from blindchess.moving.selector_config import SelectorConfig
from blindchess.sensing import PLANNERS, SensePlanner, ValueOfInformationSensePlanner, make_planner
from blindchess.sensing.support import DEFAULT_MAX_BOARDS

from .time_management import TimeManager

BELIEF_KINDS = ("board-set", "hybrid", "learned")


@dataclass(frozen=True, slots=True)
class PlannerConfig:
    """The sense planner: its short name, and the value-of-information planner's settings (``evoi``; other planners take none)."""

    name: str = "evoi"
    """The planner's short name (`blindchess.sensing.PLANNERS`)."""
    boards: int = 48
    """Boards drawn from the belief to score (the proxy is per board and move)."""
    information_weight: float = 0.5
    """Pawns of value per bit of information gain added to a sense's score."""
    max_boards: int = DEFAULT_MAX_BOARDS
    """The information gain reads at most this many boards (subsampled by weight)."""
    threat_boost: float = 12.0
    """Boards where our king is attacked weigh this many times more (a third of the extra next to it)."""
    threat_weight: float = 4.0
    """Pawns of value per bit of information about the threat level next to our king."""
    threat_sample: int = 600
    """Boards drawn to find the rare threatened ones."""
    hunt_material: float = HUNT_MATERIAL
    """From this material lead (pawns) on, look for the opponent's king; ``inf`` never."""
    king_weight: float = 2.0
    """Pawns of value per bit of information about the king's square while hunting."""

    def __post_init__(self) -> None:
        check_types(self)
        if self.name not in PLANNERS:
            close = difflib.get_close_matches(self.name, list(PLANNERS), n=3)
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            raise ConfigError(f"unknown planner {self.name!r}{hint} (planners: {', '.join(PLANNERS)})")

    def build(self) -> SensePlanner:
        """The planner this config names, with its settings."""
        if self.name != ValueOfInformationSensePlanner.name:
            return make_planner(self.name)
        settings = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "name"}
        return ValueOfInformationSensePlanner(**settings)


@dataclass(frozen=True, slots=True)
class BeliefConfig:
    """The belief and how its boards are weighted."""

    kind: str = "board-set"
    """``board-set``: every consistent board, equally likely; ``hybrid``: exact while small, particles past
    `switch_boards`; ``learned``: the board set weighted by the shipped posterior network (torch on first use)."""
    max_boards: int = 60_000
    """The board set's size cap: keeps each update and plan well inside a 120 s + 5 s clock."""
    switch_boards: int = 50_000
    """``hybrid``: the board count past which particles take over."""
    particles: int = 5_000
    """``hybrid``: how many particles."""

    def __post_init__(self) -> None:
        check_types(self)
        if self.kind not in BELIEF_KINDS:
            close = difflib.get_close_matches(self.kind, BELIEF_KINDS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"unknown belief kind {self.kind!r}{hint} (kinds: {', '.join(BELIEF_KINDS)})")

    def build(self) -> Belief:
        """A fresh, uninitialised belief of this kind.

        The board sets are unweighted (``move_model=None``: every consistent board equally
        likely), as the presets were tuned and measured (docs/benchmarks.md); `BoardSet`'s own
        default is the uniform opponent-move model.
        """
        if self.kind == "hybrid":
            return HybridBelief(switch_boards=self.switch_boards, particles=self.particles)
        board_set = BoardSet(max_boards=self.max_boards, move_model=None)
        if self.kind == "learned":
            from blindchess.beliefs import LearnedPrior

            return weighted(board_set, LearnedPrior())
        return board_set


@dataclass(frozen=True, slots=True)
class FlagshipConfig:
    """Every setting of a `PlannerPresetBot` (the module docstring has the layout)."""

    time_managed: bool = True
    """Plan each turn's sense and move time with the `clock` table; false keeps the planner's and selector's fixed plans."""
    low_clock_seconds: float = 12.0
    """Below this clock the bot does not sense."""
    difficulty_boards: int = 64
    """Boards sampled each turn to weigh its difficulty for the clock plan."""
    selector: SelectorConfig = field(default_factory=SelectorConfig)
    """The move selector's settings."""
    planner: PlannerConfig = field(default_factory=PlannerConfig)
    """The sense planner and its settings."""
    clock: TimeManager = field(default_factory=TimeManager)
    """The clock plan (used when `time_managed`)."""
    belief: BeliefConfig = field(default_factory=BeliefConfig)
    """The belief."""

    def __post_init__(self) -> None:
        check_types(self)
        if self.difficulty_boards < 1:
            raise ConfigError(f"difficulty_boards must be >= 1, got {self.difficulty_boards!r}")

    def belief_factory(self) -> Callable[[], Belief]:
        """Builds a fresh belief for each game."""
        return self.belief.build


NEVER = math.inf

PRESETS: dict[str, Mapping[str, Any]] = {
    "fast": {"selector": {"search_depth": 1, "boards": 2, "safety_boards": 8}},
    "no-hunt": {"selector": {"hunt_material": NEVER}, "planner": {"hunt_material": NEVER}},
}
"""Named settings a ``preset`` key applies first: ``fast`` searches to depth 1 on 2 boards with 8 exposure
boards (seconds per game, deterministic for a seed: the tests' setting); ``no-hunt`` turns the king
hunt off in the selector and the planner, for measuring what hunting is worth."""


def configure(base: FlagshipConfig, settings: Mapping[str, Any]) -> FlagshipConfig:
    """`base` with `settings` applied: first the preset a ``preset`` key names, then the rest.

    Raises:
        ConfigError: an unknown preset or setting (with the nearest names), or a value of the wrong type.
    """
    settings = dict(settings)
    preset = settings.pop("preset", None)
    if preset is not None:
        if preset not in PRESETS:
            close = difflib.get_close_matches(str(preset), list(PRESETS), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"unknown preset {preset!r}{hint} (presets: {', '.join(PRESETS)})")
        base = override(base, PRESETS[preset])
    return override(base, settings)


FAST_FLAGSHIP = configure(FlagshipConfig(), {"preset": "fast"})
"""The flagship at the ``fast`` preset: what the tests build bots and selectors with."""

_BENCH = FlagshipConfig(time_managed=False)


def _bench(planner: str) -> FlagshipConfig:
    return dataclasses.replace(_BENCH, planner=PlannerConfig(name=planner))


CONFIGS: dict[str, FlagshipConfig] = {
    "flagship": FlagshipConfig(),
    "flagship-hybrid": FlagshipConfig(belief=BeliefConfig(kind="hybrid")),
    "flagship-learned": FlagshipConfig(belief=BeliefConfig(kind="learned")),
    **{f"belief-{name}": _bench(name) for name in ("random", "trout", "eig", "size", "marginal", "evoi")},
}
"""The config of every registered preset bot, by its short name: the flagship on each belief, and
``belief-<planner>``, the flagship's selector and board set with each planner and no clock plan."""
