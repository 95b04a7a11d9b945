"""Every test carries its kind as a marker: the folder of tests/ it sits in (``pytest -m unit``, ``-m "not e2e"``).

The kinds are the tiers of the test tree, registered in pyproject.toml's ``markers``: unit tests
sit in ``tests/unit/<package>/``, one folder per package of the code and one file per module,
and the other kinds each have their folder. Why a marker from the path rather than one written
in every file: the folder already says the kind, and a marker that is derived cannot disagree
with it or be forgotten in a new file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest
from hypothesis import settings

# No hypothesis example has a wall-time deadline: the suite runs beside another job on 2 cores (CI), where a
# 200 ms deadline is an assertion on wall time that load breaks (it failed a time-plan property so, 2026-11-27).
settings.register_profile("blindchess", deadline=None)
settings.load_profile("blindchess")

KINDS = ("unit", "property", "golden", "conformance", "compat", "e2e", "docs", "checks", "packaging")
"""The tiers of tests/, each a folder and a marker."""

TESTS = Path(__file__).resolve().parent


def kind_of(path: Path) -> Optional[str]:
    """The kind of the test file at `path`: its first folder under tests/, if that is a kind.

    >>> kind_of(TESTS / "unit" / "sensing" / "test_evoi.py"), kind_of(TESTS / "progress.py")
    ('unit', None)
    """
    try:
        parts = path.resolve().relative_to(TESTS).parts
    except ValueError:
        return None
    return parts[0] if len(parts) > 1 and parts[0] in KINDS else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        kind = kind_of(item.path)
        if kind is not None:
            item.add_marker(kind)
