"""Every exception class blindchess defines derives from `BlindchessError`, save the stated exceptions.

The test walks every module of the library (all subpackages but the tests and the experiment
scripts, which are not imported by users, and ``__main__``), collects the exception classes each one defines,
and checks that a user's ``except BlindchessError`` catches them. A class that must not be
an ordinary error is listed in `DELIBERATE` with the reason.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import blindchess
from blindchess.errors import BlindchessError

DELIBERATE: dict[str, str] = {
    "blindchess.arbiter.sandbox.watchdog.BotDeadlineExceeded": (
        "the arbiter's interrupt of an overrunning bot: a BaseException so that the bot's own "
        "`except Exception` cannot swallow it; as a BlindchessError it would be an Exception"
    ),
}
"""Qualified class name -> why it does not derive from `BlindchessError`."""

NOT_LIBRARY = ("blindchess.tests", "blindchess.experiments")


def library_exceptions() -> dict[str, type[BaseException]]:
    """Qualified name -> class, for every exception class defined in a library module."""
    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(blindchess.__path__, "blindchess."):
        if module_info.name.startswith(NOT_LIBRARY) or module_info.name.endswith(".__main__"):
            continue  # __main__ runs the command line when imported
        module = importlib.import_module(module_info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == module.__name__:
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def test_every_library_exception_derives_from_the_root() -> None:
    found = library_exceptions()
    assert len(found) >= 30, sorted(found)  # the walk reached the packages (30 classes when the root was added)
    outside = sorted(name for name, cls in found.items() if not issubclass(cls, BlindchessError) and name not in DELIBERATE)
    assert outside == []


def test_the_deliberate_exceptions_exist_and_stay_outside_exception() -> None:
    found = library_exceptions()
    for name in DELIBERATE:
        assert name in found, name
        assert not issubclass(found[name], Exception), name


def test_the_root_keeps_the_old_bases() -> None:
    from blindchess.arbiter.game.history import HistoryFormatError
    from blindchess.evaluation.stockfish import EngineNotFoundError
    from blindchess.server.errors import NotFound

    assert issubclass(HistoryFormatError, ValueError)
    assert issubclass(EngineNotFoundError, FileNotFoundError)
    assert issubclass(NotFound, LookupError)
    assert not issubclass(BlindchessError, ValueError)  # catching ours must not mean catching every ValueError
