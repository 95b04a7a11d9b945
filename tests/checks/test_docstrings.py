"""Library docstrings state contracts, not lab results: no commit hash and no match result in any of them.

Library means every top-level folder but ``tests/`` and ``experiments/`` (`LIBRARY_FOLDERS`, read
from the one statement of layers): experiments are scripts that measure, and their docstrings may
name the commit a frozen copy of old code reproduces. Figures, commit hashes and match results
belong in docs/, where the docstrings link to them; a result goes stale with the next change to
the code, and a docstring is not where anyone looks to update it. Every string statement counts
(module, class, function and attribute docstrings), read with `ast`.
"""

from __future__ import annotations

import ast
import re

import pytest

from .modules import ROOT_FOLDER, SourceModule
from .test_layout import LAYERS, MODULES

LIBRARY_FOLDERS = tuple(folder for layer in LAYERS for folder in layer if folder not in ("experiments", "tests")) + (ROOT_FOLDER,)

LAB_RESULTS = {
    "commit hash": re.compile(r"(?<![\w.:/#-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w-])"),
    "games won or lost": re.compile(r"\b(won|lost|drew|scored)\s+\d+(\.\d+)?\s*(of|/|out of)\s*\d+", re.IGNORECASE),
    "a count of games": re.compile(r"\b\d+ of (the )?\d+ (games|pairs|matches)\b"),
    "a score with its interval": re.compile(r"\d+(\.\d+)?\s*%\s*\(\s*[-+]?\d+(\.\d+)?\s*(-|\u2013|to|,)\s*[-+]?\d+(\.\d+)?\s*%?\s*\)"),
    "an SPRT's LLR": re.compile(r"\bLLR\s*(of|=|:|was|is)?\s*[+\u2212-]?\d"),
    "an Elo gain": re.compile(r"(?<![\w.])[+\u2212-]\d+(\.\d+)?\s*Elo\b"),
}
"""What a lab result looks like: a 7-40 digit hex token with letters and digits (an all-digit hash slips
through: telling it from a number is guesswork), ``won 3 of 6``,
``57.5% (50.5-64.5%)``, ``LLR of +2.1``, ``+35 Elo``."""


def lab_results(text: str) -> list[tuple[int, str, str]]:
    """(line offset, kind, matched text) of every lab result in `text`.

    >>> [kind for _, kind, _ in lab_results("Measured at 4bc6f1e: it won 2 of 6 games, 57.5% (50.5-64.5%).")]
    ['a count of games', 'a score with its interval', 'commit hash', 'games won or lost']
    >>> lab_results("Deadline 0x1f; 1e-3 Elo per step; the LLR leaves (-2.944, 2.944); see docs/clock.md.")
    []
    """
    found = []
    for kind, pattern in LAB_RESULTS.items():
        for match in pattern.finditer(text):
            found.append((text.count("\n", 0, match.start()), kind, match.group(0)))
    return sorted(found)


def docstring_findings(module: SourceModule) -> list[str]:
    tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
    findings = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for offset, kind, text in lab_results(node.value.value):
                findings.append(f"{module.name}:{node.lineno + offset}: {kind}: {text!r}")
    return findings


@pytest.mark.parametrize("folder", LIBRARY_FOLDERS)
def test_no_library_docstring_holds_a_commit_hash_or_a_match_result(folder: str) -> None:
    findings = [finding for module in MODULES if module.folder == folder for finding in docstring_findings(module)]
    assert not findings, "move these figures to docs/ and link to them:\n" + "\n".join(findings)


def test_the_library_is_every_folder_but_tests_and_experiments() -> None:
    folders = {module.folder for module in MODULES}
    assert set(LIBRARY_FOLDERS) == folders - {"tests", "experiments"}
