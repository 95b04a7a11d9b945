"""Every docstring example of the library runs and prints what it shows (the house rule: doctests that run).

One test per module, over the installed package (``blindchess.<folder>.<module>``), so an example
sees the same classes as the library's own code. Why not pytest's ``--doctest-modules`` on the
folders: the folders are not importable by their own names (``arbiter/rules/reference.py`` is
``blindchess.arbiter.rules``), and importing them as ``arbiter.rules`` would load a second copy of
each module whose classes are not the package's. Tests are not documentation and are left out;
experiments are worked examples and are in.
"""

from __future__ import annotations

import doctest
import importlib
import io

import pytest

from .modules import all_modules

DOCUMENTED = [m.name for m in all_modules() if m.folder != "tests" and not m.name.endswith(".__main__")]


def _run_examples(name: str) -> tuple[int, int, str]:
    """(failed examples, examples tried, the failure report) for the docstrings of module `name`."""
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report = io.StringIO()
    for test in doctest.DocTestFinder().find(module, name):
        runner.run(test, out=report.write)
    return runner.failures, runner.tries, report.getvalue()


@pytest.mark.parametrize("name", DOCUMENTED)
def test_docstring_examples_run(name: str) -> None:
    failed, tried, report = _run_examples(name)
    assert failed == 0, f"{failed} of {tried} examples of {name} failed:\n{report}"


def test_the_discovery_finds_examples() -> None:
    """The parametrised test above is not vacuous: the library's modules are found, with their examples."""
    assert {"blindchess.arbiter.rules", "blindchess.beliefs.board_set", "blindchess.cli"} <= set(DOCUMENTED)
    assert _run_examples("blindchess.arbiter.rules.reference")[1] >= 2
