"""The modules of the installed `blindchess` package, by top-level folder, for the checks of the code itself.

The strict editable install (``run.sh``) and a regular install both expose every folder as
``blindchess.<folder>``; the root package (``toolkit/``) is ``blindchess`` itself.
"""

from __future__ import annotations

import functools
import importlib.util
import pkgutil
from dataclasses import dataclass
from pathlib import Path

import blindchess

ROOT_FOLDER = "toolkit"
"""The folder that installs as the root package `blindchess` (the CLI)."""


@dataclass(frozen=True)
class SourceModule:
    """One module: its import name, its top-level folder, its source file, and whether it is a package."""

    name: str
    folder: str
    path: Path
    is_package: bool


def folder_of(name: str) -> str:
    """The top-level folder of module `name`: ``blindchess.beliefs.board_set`` -> ``beliefs``, ``blindchess.cli`` -> ``toolkit``.

    >>> folder_of("blindchess.beliefs.board_set"), folder_of("blindchess.cli"), folder_of("blindchess")
    ('beliefs', 'toolkit', 'toolkit')
    """
    parts = name.split(".")
    if len(parts) == 1 or _is_root_module(parts[1]):
        return ROOT_FOLDER
    return parts[1]


@functools.cache
def _is_root_module(child: str) -> bool:
    """Is ``blindchess.<child>`` a module of the root package rather than a top-level folder?"""
    return not any(info.ispkg and info.name == child for info in pkgutil.iter_modules(blindchess.__path__))


def all_modules() -> list[SourceModule]:
    """Every module of the package, tests and experiments included, packages first within a folder."""
    modules = [_source("blindchess", True)]
    for info in pkgutil.walk_packages(blindchess.__path__, "blindchess."):
        modules.append(_source(info.name, info.ispkg))
    return modules


def _source(name: str, is_package: bool) -> SourceModule:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, f"{name} has no source file"
    return SourceModule(name, folder_of(name), Path(spec.origin), is_package)
