"""Short names for bots (`random`, `attacker`, `trout`, ...), as the command line uses them.

A name maps to a `BotEntry` (`blindchess.bots.roster.BOTS`: ``"module:Class"``, and a preset's settings),
imported only when asked for, so listing the names
never starts Stockfish or imports heavy modules. Anything that is not a registered name is
handed to `load_player` (a file path or a module name, ours or reconchess's).

Example::

    name, cls = resolve_bot("trout")            # registered
    name, cls = resolve_bot("my_bot.py")        # a file
    bot = make_bot(cls, rng=np.random.default_rng(7))
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import os

import numpy as np

from blindchess.arbiter import Player
from blindchess.arbiter.game.loading import PlayerLoadError, load_player
from blindchess.errors import BlindchessError, did_you_mean
from blindchess.evaluation.stockfish import STOCKFISH_ENV_VAR, EngineNotFoundError, find_stockfish

from .random_bot import SeedLike
from .roster import BOTS as BOTS  # the names it resolves, re-exported: `BOTS` is where users look for them
from .roster import PRESET_TARGET, BotEntry


class DuplicateBotNameError(BlindchessError, ValueError):
    """A short name is already registered to another bot."""


def register_bot(name: str, target: str) -> None:
    """Register `name` for the bot class at `target` (``"package.module:Class"``).

    Raises:
        DuplicateBotNameError: `name` is already registered to a different target.
        ValueError: `target` is not of the form ``"module:Class"``.
    """
    module_name, _, class_name = target.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"bot target must look like 'package.module:Class', got {target!r}")
    if name in BOTS and BOTS[name] != BotEntry(target):
        raise DuplicateBotNameError(f"bot name {name!r} is already registered to {BOTS[name].target!r}")
    BOTS[name] = BotEntry(target)


def resolve_bot(spec: str) -> tuple[str, type[Player]]:
    """``(name, cls)`` for a registered short name, else for a bot file or module (see `load_player`).

    Raises:
        PlayerLoadError: `spec` is no registered name and cannot be loaded; the message suggests the
            closest registered names (``did you mean 'trout'?``) and lists them all.
    """
    entry = BOTS.get(spec)
    if entry is not None:
        if entry.target == PRESET_TARGET:
            from .presets import preset_bot

            return spec, preset_bot(spec)
        module_name, _, class_name = entry.target.partition(":")
        player_class: type[Player] = getattr(importlib.import_module(module_name), class_name)
        return spec, player_class
    try:
        return load_player(spec)
    except PlayerLoadError as error:
        raise PlayerLoadError(f"{error}{did_you_mean(spec, BOTS, n=3)} (registered bot names: {', '.join(sorted(BOTS))})") from error


class BotConstructionError(BlindchessError, ValueError):
    """A bot class could not be instantiated; the message names the class and the cause."""


def make_bot(player_class: type[Player], rng: SeedLike = None) -> Player:
    """An instance of `player_class`, given `rng` if its constructor takes one (ours do; reconchess's do not).

    reconchess's TroutBot insists on `$STOCKFISH_EXECUTABLE`; for wrapped reconchess bots it is
    set to the engine :func:`find_stockfish` finds, when unset.

    Raises:
        BotConstructionError: the constructor raised (e.g. no Stockfish for trout).
    """
    try:
        takes_rng = "rng" in inspect.signature(player_class).parameters
    except (TypeError, ValueError):  # a class without an introspectable signature
        takes_rng = False
    try:
        if hasattr(player_class, "reconchess_class") and STOCKFISH_ENV_VAR not in os.environ:
            with contextlib.suppress(EngineNotFoundError):
                os.environ[STOCKFISH_ENV_VAR] = find_stockfish()
        if takes_rng:
            return player_class(rng=np.random.default_rng(rng))  # type: ignore[call-arg]
        return player_class()
    except Exception as error:
        raise BotConstructionError(f"cannot construct {player_class.__name__}: {type(error).__name__}: {error}") from error
