"""What pyproject.toml states, held to the code: one version everywhere, and every package folder listed.

The version is written once, in ``[project] version``; ``blindchess.__version__`` (and so
``blindchess --version``) reads the installed metadata, and CHANGELOG.md's newest release must
be that version. A sub-package (a folder with ``__init__.py``) that pyproject's ``packages`` does
not list is left out of the wheel and of the strict editable install's link tree, so it is
checked here, where it is cheap, as well as in the built wheel (test_wheel.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import blindchess
from blindchess.cli import main
from blindchess.tournament.config import tomllib

CHECKOUT = Path(__file__).resolve().parents[2]  # the checkout (a link-tree install resolves to it too)
PYPROJECT = CHECKOUT / "pyproject.toml"

if not PYPROJECT.is_file():  # an installed copy of the tests has no checkout to compare with
    pytest.skip("no checkout (pyproject.toml) beside these tests", allow_module_level=True)

SETTINGS = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d\d-\d\d$", re.MULTILINE)
"""A release's heading in CHANGELOG.md (Keep a Changelog: ``## [1.2.3] - 2026-11-27``; ``[Unreleased]`` is none)."""


def newest_release(changelog: str) -> str:
    """The version of the first release heading.

    >>> newest_release("# Changelog\\n## [Unreleased]\\n## [0.3.0] - 2026-12-01\\n## [0.2.0] - 2026-11-27\\n")
    '0.3.0'
    """
    found = RELEASE.search(changelog)
    assert found, "CHANGELOG.md has no release heading like '## [0.2.0] - 2026-11-27'"
    return found.group(1)


def test_the_version_is_stated_once_and_read_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    version = SETTINGS["project"]["version"]
    assert blindchess.__version__ == version, "the installed metadata is stale: reinstall (bash run.sh does)"
    assert newest_release((CHECKOUT / "CHANGELOG.md").read_text(encoding="utf-8")) == version
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"blindchess {version}"


def package_folders() -> dict[str, Path]:
    """Every package of the checkout by its import name: the folders pyproject maps, and each folder with __init__.py below."""
    roots: dict[str, str] = SETTINGS["tool"]["setuptools"]["package-dir"]
    packages = {}
    for name, folder in roots.items():
        for init in (CHECKOUT / folder).rglob("__init__.py"):
            inner = init.parent.relative_to(CHECKOUT / folder).parts
            if name == "blindchess" and inner:
                continue  # the root's folder (toolkit/) holds no sub-packages; the others are mapped one by one
            packages[".".join((name, *inner))] = init.parent
    return packages


def test_every_package_folder_is_listed_in_pyproject() -> None:
    found = package_folders()
    assert {"blindchess", "blindchess.arbiter", "blindchess.bots.rc", "blindchess.tests.unit.toolkit"} <= set(found)
    listed = set(SETTINGS["tool"]["setuptools"]["packages"])
    missing = sorted(set(found) - listed)
    assert not missing, f"folders with __init__.py that pyproject.toml's [tool.setuptools] packages leaves out: {missing}"
    assert not listed - set(found), f"listed packages without a folder: {sorted(listed - set(found))}"
