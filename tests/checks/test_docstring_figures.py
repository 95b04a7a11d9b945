"""Library docstrings state contracts and reasons; commit hashes and match results belong in docs/.

A docstring that quotes "57.5% (50.5-64.5%) over 200 games" or "until 41a7351" is out of date
the day the code changes, and a reader cannot check it from the code. The check reads every
docstring with `ast` (modules, classes, functions and attribute docstrings) of the folders in
`CHECKED` and refuses a commit hash or a match result.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import pytest

from .modules import SourceModule, all_modules

CHECKED = ("moving", "bots")
"""The folders whose docstrings are checked (every library folder, once its figures have moved to docs/)."""

FIGURES = re.compile(
    r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"  # a commit hash: hex with a letter and a digit
    r"|\d+(\.\d+)?% \(\d"  # a score with its interval: 57.5% (50.5-64.5%)
    r"|\b\d+ of \d+ (games|won)\b|\bwon \d+ of \d+\b|\bscored \d"  # a match result
    r"|\bLLR\b|[+-]\d+ Elo\b"
)


def docstrings(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, text) of every string statement: module, class and function docstrings and attribute docstrings."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            yield node.lineno, node.value.value


def figures(module: SourceModule) -> list[str]:
    tree = ast.parse(module.path.read_text())
    return [f"{module.path.name}:{line}: {match.group(0)!r}" for line, text in docstrings(tree) for match in FIGURES.finditer(text)]


@pytest.mark.parametrize("folder", CHECKED)
def test_no_docstring_holds_a_commit_hash_or_a_match_result(folder: str) -> None:
    found = [hit for module in all_modules() if module.folder == folder for hit in figures(module)]
    assert not found, "figures in docstrings (move them to docs/):\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("the rule until 41a7351", True),
        ("scored 57.5% (50.5-64.5%) over 200 games", True),
        ("30 of 30 won against TroutBot", True),
        ("AttackerBot won 2 of 6 games", True),
        ("LLR -1.60", True),
        ("a 3% risk of losing the king", False),
        ("the defaults (30, 12) use about 78% of the clock", False),
        ("a 60,000-board cap; deadbeef is no hash without a digit", False),
    ],
)
def test_the_pattern_tells_figures_from_reasons(text: str, found: bool) -> None:
    assert bool(FIGURES.search(text)) == found
