"""`load_player`: find the bot class in a Python file or module, as reconchess's `load_player` does.

Differences from reconchess 1.6.9, all in the direction of fewer surprises:

* abstract classes are never candidates (a helper base class does not force a `get_player`);
* a `get_player()` function, when the module defines one, always decides;
* with several candidates and no `get_player`, the one class defined in the module itself wins
  (a bot that imports another bot to reuse it needs no `get_player`);
* a `reconchess.Player` subclass is accepted and wrapped (see `reconchess_adapter`);
* every failure is a `PlayerLoadError` (a `ValueError`) naming the source and the problem.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from types import ModuleType
from typing import Any

from blindchess.errors import BlindchessError

from .player import Player


class PlayerLoadError(BlindchessError, ValueError):
    """A bot source could not be loaded; the message names the source and why."""


def _import_source(source: str) -> ModuleType:
    if source.endswith(".py") or os.sep in source or os.path.exists(source):
        path = os.path.abspath(source)
        if not os.path.isfile(path):
            raise PlayerLoadError(f"bot file {source!r} does not exist")
        directory, file_name = os.path.split(path)
        # Like reconchess: the bot's folder goes first on sys.path, so its helper modules import.
        if directory not in sys.path:
            sys.path.insert(0, directory)
        module_name = os.path.splitext(file_name)[0]
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise PlayerLoadError(f"bot file {source!r} is not a Python source file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as error:
            del sys.modules[module_name]
            raise PlayerLoadError(f"importing bot file {source!r} failed: {type(error).__name__}: {error}") from error
        return module
    try:
        return importlib.import_module(source)
    except ModuleNotFoundError as error:
        if error.name is not None and source.startswith(error.name):
            raise PlayerLoadError(f"{source!r} is neither a bot file nor an importable module") from error
        raise PlayerLoadError(f"importing bot module {source!r} failed: {error}") from error
    except Exception as error:
        raise PlayerLoadError(f"importing bot module {source!r} failed: {type(error).__name__}: {error}") from error


def _player_bases() -> tuple[type, ...]:
    """Our `Player`, plus `reconchess.Player` if reconchess is already imported (a bot built on it imported it)."""
    reconchess = sys.modules.get("reconchess")
    return (Player,) if reconchess is None else (Player, reconchess.Player)


def _is_player_class(candidate: Any) -> bool:
    bases = _player_bases()
    return (
        inspect.isclass(candidate)
        and issubclass(candidate, bases)
        and candidate not in bases
        and not inspect.isabstract(candidate)
    )


def _as_our_player(source: str, player_class: Any) -> type[Player]:
    if not _is_player_class(player_class):
        raise PlayerLoadError(f"{source!r}: get_player() returned {player_class!r}, not a Player subclass")
    if issubclass(player_class, Player):
        return player_class  # type: ignore[no-any-return]
    from .reconchess_adapter import from_reconchess_class

    return from_reconchess_class(player_class)


def load_player(source: str) -> tuple[str, type[Player]]:
    """The bot class in `source`, a path to a Python file or an importable module name.

    Args:
        source: e.g. ``"my_bot.py"``, ``"my_package.my_bot"`` or ``"reconchess.bots.trout_bot"``.

    Returns:
        ``(name, cls)``: the class's name and a class of our `Player` (reconchess players wrapped).

    Raises:
        PlayerLoadError: the source does not exist, fails to import, holds no player, or holds
            several and no `get_player()` to choose.
    """
    module = _import_source(source)
    get_player = getattr(module, "get_player", None)
    if inspect.isfunction(get_player):
        try:
            chosen = get_player()
        except Exception as error:
            raise PlayerLoadError(f"{source!r}: get_player() raised {type(error).__name__}: {error}") from error
    else:
        # A reconchess wrapper of one of our bots counts as that bot (see to_reconchess_class).
        found = [getattr(member, "blindchess_class", member) for _, member in inspect.getmembers(module, _is_player_class)]
        candidates = list(dict.fromkeys(found))
        own = [member for member in candidates if member.__module__ == module.__name__]
        if len(candidates) == 1:
            chosen = candidates[0]
        elif len(own) == 1:
            chosen = own[0]
        elif not candidates:
            raise PlayerLoadError(f"{source!r} contains no (concrete) Player subclass")
        else:
            names = ", ".join(sorted(member.__name__ for member in candidates))
            raise PlayerLoadError(
                f"{source!r} contains several Player subclasses ({names}); define get_player() to choose one"
            )
    player_class = _as_our_player(source, chosen)
    return player_class.__name__, player_class
