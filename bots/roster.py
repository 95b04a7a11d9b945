"""Every registered bot, declared once (`BOTS`): its class by name, and for a `BeliefBot` preset its settings.

The registry (`blindchess.bots.registry`: short names on the command line), the preset configs
(`blindchess.bots.flagship_config.CONFIGS`) and the preset classes (`blindchess.bots.presets.preset_bot`)
all read this table; it imports nothing of theirs, so any of them can.

>>> BOTS["flagship-hybrid"].preset
{'belief': {'kind': 'hybrid'}}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional


@dataclass(frozen=True, slots=True)
class BotEntry:
    """One registered bot, declared once: the registry, the command line's lists and, for a preset, its config
    (`blindchess.bots.flagship_config.CONFIGS`) come from here.

    Attributes:
        target: ``"module:Class"`` of the bot's class, imported only when the bot is asked for.
        preset: for a `BeliefBot` preset, its settings over `FlagshipConfig`'s defaults (None: no preset).
            Every preset but the flagship gets its class from `blindchess.bots.presets.preset_bot`.
    """

    target: str
    preset: Optional[Mapping[str, Any]] = None


PRESET_TARGET = "blindchess.bots.presets:PlannerPresetBot"
ABLATION_PLANNERS = ("random", "trout", "eig", "size", "marginal", "evoi", "engine-values")
"""The sense planners of the sensing ablation, each with a ``belief-<planner>`` preset (names of `blindchess.sensing.PLANNERS`)."""

BOTS: dict[str, BotEntry] = {
    "random": BotEntry("blindchess.bots.random_bot:RandomBot"),
    "attacker": BotEntry("blindchess.bots.attacker_bot:AttackerBot"),
    "trout": BotEntry("blindchess.bots.trout_bot:TroutBot"),
    "flagship": BotEntry("blindchess.bots.flagship:FlagshipBot", preset={}),
    "flagship-hybrid": BotEntry(PRESET_TARGET, preset={"belief": {"kind": "hybrid"}}),
    "flagship-learned": BotEntry(PRESET_TARGET, preset={"belief": {"kind": "learned"}}),
    # The sensing ablation's players: the flagship's selector and board set with each planner, no clock plan.
    **{f"belief-{name}": BotEntry(PRESET_TARGET, preset={"time_managed": False, "planner": {"name": name}}) for name in ABLATION_PLANNERS},
    # Bots of upper layers, named by string so nothing here imports them: the recon boards' bot, and the
    # policy trained in the learning environment and shipped for its variant (env/models/<variant>.pt).
    "recon": BotEntry("blindchess.variants.recon_bot:ReconMiniChessBot"),
    "policy": BotEntry("blindchess.env.policy_bot:PolicyBot"),
}
"""Registered short name -> its declaration. Add bots with `blindchess.bots.registry.register_bot`."""
