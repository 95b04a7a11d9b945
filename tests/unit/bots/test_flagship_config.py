"""The flagship's config tree: one set of names for Python, TOML and ``--settings``; refusals that name the field; TOML both ways."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import chess
import numpy as np
import pytest

from blindchess.beliefs import StockfishSigmoid, Weighted
from blindchess.beliefs.observed_games import play_random_game
from blindchess.bots.flagship import FlagshipBot
from blindchess.bots.flagship_config import (
    BELIEF_KINDS,
    CONFIGS,
    FAST_FLAGSHIP,
    PRESETS,
    RENAMED,
    BeliefConfig,
    FlagshipConfig,
    PlannerConfig,
    configure,
)
from blindchess.bots.presets import PlannerPresetBot, preset_bot
from blindchess.bots.registry import BOTS, resolve_bot
from blindchess.config_tree import ConfigError, build, to_toml
from blindchess.moving.selector_config import HuntSettings, SelectorConfig
from blindchess.moving.time_management import TimeManager
from blindchess.sensing import PLANNERS, EvoiSettings, ValueOfInformationSensePlanner
from blindchess.sensing.rollouts import RolloutSensePlanner
from blindchess.tournament.config import parse_config, parse_settings, tomllib
from blindchess.tournament.spec import BotSpec
from blindchess.tournament.task import BotSettingError, check_bot

EVERY_PRESET = [
    pytest.param(configure(config, {"preset": preset} if preset else {}), id=f"{name}+{preset or 'none'}")
    for name, config in CONFIGS.items()
    for preset in (None, *PRESETS)
]


@pytest.mark.parametrize("config", EVERY_PRESET)
def test_every_preset_is_built_again_from_its_printed_toml(config: FlagshipConfig) -> None:
    text = to_toml(config)
    assert build(FlagshipConfig, tomllib.loads(text)) == config
    assert to_toml(build(FlagshipConfig, tomllib.loads(text))) == text


def test_python_tournament_toml_and_settings_strings_take_the_same_names() -> None:
    settings = {"selector": {"boards": 4, "hunt": {"material": math.inf}}, "clock": {"reserve": 5.0}, "preset": "fast"}
    python = FlagshipBot.configured(settings)
    command_line = parse_settings('preset = "fast", selector.boards = 4, selector.hunt.material = inf, clock.reserve = 5.0', "--settings")
    tournament = parse_config(tomllib.loads(
        '[tournament]\nformat = "round-robin"\n'
        '[players.a]\nbot = "flagship"\n'
        'settings = { preset = "fast", selector = { boards = 4, hunt = { material = inf } }, clock = { reserve = 5.0 } }\n'
        '[players.b]\nbot = "random"\n'
    ))
    (spec,) = [player for player in tournament.players if player.label == "a"]
    assert FlagshipBot.configured(command_line) == FlagshipBot.configured(spec.settings) == python
    assert python.selector == dataclasses.replace(FAST_FLAGSHIP.selector, boards=4, hunt=HuntSettings(material=math.inf))
    assert python.clock == TimeManager(reserve=5.0) and python.planner == PlannerConfig()


@pytest.mark.parametrize(
    ("settings", "named", "nearest"),
    [
        ({"selector": {"bords": 2}}, "selector.bords", "selector.boards"),
        ({"selectr": {"boards": 2}}, "selectr", "selector"),
        ({"clock": {"reserv": 2.0}}, "clock.reserv", "clock.reserve"),
        ({"low_clock_second": 5.0}, "low_clock_second", "low_clock_seconds"),
        ({"preset": "fats"}, "fats", "fast"),
        ({"planner": {"name": "evio"}}, "evio", "evoi"),
        ({"belief": {"kind": "hybird"}}, "hybird", "hybrid"),
    ],
)
def test_an_unknown_or_mistyped_name_is_refused_with_the_nearest(settings: dict[str, object], named: str, nearest: str) -> None:
    with pytest.raises(ConfigError, match=f"'{re.escape(named)}'.*did you mean '{re.escape(nearest)}'") as raised:
        FlagshipBot.configured(settings)
    assert isinstance(raised.value, ValueError)


def test_a_misspelt_name_gets_the_few_nearest_names_not_the_whole_table() -> None:
    """Issue 41: ``selector.bords`` printed about 40 names after its "did you mean"; now the nearest three at most."""
    with pytest.raises(ConfigError) as raised:
        FlagshipBot.configured({"selector": {"bords": 2}})
    message = str(raised.value)
    assert "did you mean 'selector.boards'" in message
    assert message.count("'selector.") <= 4 and "hunt" not in message and "settings:" not in message
    with pytest.raises(ConfigError, match=r"'selector\.zzzz' \(selector's settings: boards, .*, coverage\)$"):
        FlagshipBot.configured({"selector": {"zzzz": 2}})  # nothing close: the table's own names, a short list now


@pytest.mark.parametrize(
    ("settings", "old", "new"),
    [
        ({"selector": {"hunt_weight": 0.1}}, "selector.hunt_weight", "selector.hunt.weight"),
        ({"selector": {"search_depth": 1}}, "selector.search_depth", "selector.search.depth"),
        ({"selector": {"engines": 2}}, "selector.engines", "selector.engine.processes"),
        ({"selector": {"candidates": 4}}, "selector.candidates", "selector.candidates.count"),  # now a table's name
        ({"selector": {"moves_to_go": 40}}, "selector.moves_to_go", "clock.expected_turns"),
        ({"selector": {"increment_share": 0.5}}, "selector.increment_share", "clock.increment_share"),
    ],
)
def test_an_old_flat_name_is_refused_naming_its_new_one(settings: dict[str, object], old: str, new: str) -> None:
    with pytest.raises(ConfigError, match=f"^setting '{re.escape(old)}' is now '{re.escape(new)}'; rename it where it is set$"):
        FlagshipBot.configured(settings)
    with pytest.raises(BotSettingError, match=re.escape(new)):
        check_bot(BotSpec("f", "flagship", settings))


def test_every_old_name_has_a_new_name_that_exists() -> None:
    """The rename table points at real settings, and no old name is still a setting."""
    config = FlagshipConfig()
    for old, new in RENAMED.items():
        value = config
        for part in new.split("."):
            value = getattr(value, part)
        assert isinstance(value, (int, float)), new
        with pytest.raises(ConfigError, match="is now"):
            configure(config, _nested(old, 1))


def _nested(dotted: str, value: object) -> dict[str, object]:
    head, _, rest = dotted.partition(".")
    return {head: _nested(rest, value) if rest else value}


def test_the_planner_defaults_are_stated_once() -> None:
    """`PlannerConfig` is `EvoiSettings` plus a name: the planner the flagship builds has the planner's own defaults."""
    assert issubclass(PlannerConfig, EvoiSettings)
    planner = PlannerConfig().build()
    assert isinstance(planner, ValueOfInformationSensePlanner) and planner.settings == EvoiSettings()
    assert ValueOfInformationSensePlanner().settings == EvoiSettings()
    rollouts = PlannerConfig(name="rollouts").build()  # its fallback is the same planner
    assert isinstance(rollouts, RolloutSensePlanner) and rollouts.shortlister.proxy.settings == EvoiSettings()
    rollouts.close()


def test_a_preset_is_declared_once_in_the_registry() -> None:
    """Every preset's config and class come from its registry entry; every belief kind builds."""
    presets = {name: entry.preset for name, entry in BOTS.items() if entry.preset is not None}
    assert set(CONFIGS) == set(presets) and {"flagship", "flagship-hybrid", "belief-evoi"} <= set(presets)
    for name, settings in presets.items():
        _, cls = resolve_bot(name)
        assert issubclass(cls, PlannerPresetBot) and cls.config == CONFIGS[name] == configure(FlagshipConfig(), settings)
    assert resolve_bot("flagship")[1] is FlagshipBot and preset_bot("flagship-hybrid").config.belief.kind == "hybrid"
    assert {f"belief-{name}" for name in PLANNERS} <= set(presets)
    assert {type(BeliefConfig(kind=kind).build()).__name__ for kind in ("board-set", "hybrid")} == {"BoardSet", "HybridBelief"}
    assert set(BELIEF_KINDS) == {"board-set", "hybrid", "learned", "stockfish"}  # learned: torch, its own tests


def test_the_stockfish_kind_weighs_a_set_by_the_sigmoid_up_to_its_cap() -> None:
    game = play_random_game(np.random.default_rng(4), full_turn_limit=4)
    small, large = (BeliefConfig(kind="stockfish", sigmoid_boards=cap).build() for cap in (10_000, 1))
    for belief in (small, large):
        for event in game.events[chess.WHITE][:5]:  # to Black's first move: about 20 boards
            belief.update(event)
    assert isinstance(small, Weighted) and isinstance(small.weighting, StockfishSigmoid) and len(small) > 1
    assert small.weights().max() > 1.1 * small.weights().min()  # Black's first moves score a little apart
    assert isinstance(large, Weighted) and isinstance(large.weighting, StockfishSigmoid)
    assert np.allclose(large.weights(), 1 / len(large))  # past the cap: unweighted
    assert small.weighting.engine is large.weighting.engine  # one Stockfish per process


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        ({"selector": {"boards": "4"}}, "'selector.boards' takes int, got '4'"),
        ({"selector": {"boards": 2.5}}, "'selector.boards' takes int, got 2.5"),
        ({"time_managed": 1}, "'time_managed' takes bool, got 1"),
        ({"selector": 3}, "'selector' is a table of settings"),
        ({"clock": {"sense_share": 2.0}}, "sense_share must be in"),
        ({"selector": {"worst_case_weight": -1.0}}, "worst_case_weight must be in"),
        ({"belief": {"sigmoid_boards": 0}}, "sigmoid_boards must be >= 1"),
    ],
)
def test_a_wrong_type_or_value_is_refused_naming_the_field(settings: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        FlagshipBot.configured(settings)


def test_python_construction_is_checked_too() -> None:
    with pytest.raises(ConfigError, match="'boards' takes int"):
        SelectorConfig(boards="2")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="'selector' takes SelectorConfig"):
        FlagshipConfig(selector={"boards": 2})  # type: ignore[arg-type]


def test_nothing_changes_after_construction() -> None:
    base = CONFIGS["flagship"]
    changed = configure(base, {"preset": "no-hunt"})
    assert base == FlagshipConfig() and changed.selector.hunt.material == changed.planner.hunt_material == math.inf
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.selector.boards = 3  # type: ignore[misc]


def test_a_bot_is_built_from_its_config() -> None:
    bot = preset_bot("belief-eig")(rng=1, preset="fast", low_clock_seconds=3.0, planner={"name": "size"})
    try:
        assert bot.settings == configure(CONFIGS["belief-eig"], {"preset": "fast", "low_clock_seconds": 3.0, "planner": {"name": "size"}})
        assert bot.time_manager is None and bot.low_clock_seconds == 3.0
        assert bot.move_selector.config == FAST_FLAGSHIP.selector  # type: ignore[attr-defined]
        assert type(bot.sense_planner).name == "size"
    finally:
        bot.move_selector.close()
    flagship = FlagshipBot(rng=1, config=FAST_FLAGSHIP)
    try:
        assert flagship.settings == FAST_FLAGSHIP and flagship.time_manager == FAST_FLAGSHIP.clock
    finally:
        flagship.move_selector.close()


def test_a_tournament_refuses_an_unknown_setting_before_any_game() -> None:
    with pytest.raises(BotSettingError, match=r"'selector\.bords' \(did you mean 'selector\.boards'"):
        check_bot(BotSpec("f", "flagship", {"selector": {"bords": 2}}))
    check_bot(BotSpec("f", "flagship", {"preset": "fast"}))


def test_the_documented_defaults_are_the_flagships() -> None:
    """docs/moving.md prints `FlagshipConfig`'s defaults as TOML: adding or changing a field updates the page."""
    page = (Path(__file__).resolve().parents[3] / "docs" / "moving.md").read_text()
    (block,) = re.findall(r"^```toml\n(.*?)^```", page, re.S | re.M)
    assert block == to_toml(FlagshipConfig())
