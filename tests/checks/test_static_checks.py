"""mypy --strict and ruff pass over the whole package, so the one test command (``run.sh test``) runs them.

Both run as the developer runs them, in the source checkout, with the configuration in
pyproject.toml (``[tool.mypy]``, ``[tool.ruff]``); their caches (``.mypy_cache``, ``.ruff_cache``)
live there too, so a rerun checks only what changed. mypy checks the installed package
(``-p blindchess``), which the strict editable install links back to these sources.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
"""The source checkout: tests/checks/ is two folders below it."""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    if not (CHECKOUT / "pyproject.toml").is_file():
        pytest.skip(f"the static checks need a source checkout; {CHECKOUT} has no pyproject.toml")
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=CHECKOUT, capture_output=True, text=True, timeout=600, check=False
    )


def test_mypy_strict_passes() -> None:
    result = _run("mypy", "--strict", "-p", "blindchess")
    assert result.returncode == 0, f"mypy --strict -p blindchess failed:\n{result.stdout}{result.stderr}"
    assert "Success" in result.stdout


def test_ruff_check_passes() -> None:
    result = _run("ruff", "check", "--no-fix", ".")
    assert result.returncode == 0, f"ruff check failed:\n{result.stdout}{result.stderr}"
