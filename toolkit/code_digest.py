"""The code that played a game: a short digest of blindchess's own source, kept with each game of a results file.

An SPRT or a tournament of hours is resumed across sessions, and the same command run from a
checkout whose bots have changed counts games of two versions in one statistic, with nothing to
show it: the games' settings are checked on resume, the code was not. So each recorded game
carries `source_digest()`, and a run that resumes a file says how many of its games other code
played (`other_code_note`: ``sprt`` and ``tournament`` on their results files, ``match --resume``,
``match-report`` and the sparring script on a match's folder).

The digest is SHA-256 over the package's Python source, every ``.py`` file under the installed
``blindchess`` package (its path and bytes, in path order) less those of `NOT_PLAYING`, which play
no game. Documents and data do not change it; any edit to a module a game may run does, a
docstring's too (the digest cannot tell a docstring from code). Imports only the standard library,
so every layer may use it.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     root = Path(folder)
...     (root / "bots").mkdir(); (root / "tests").mkdir()
...     _ = (root / "bots" / "bot.py").write_text("x = 1")
...     before = source_digest(root)
...     _ = (root / "tests" / "test_bot.py").write_text("assert True")
...     same = source_digest(root) == before
...     _ = (root / "bots" / "bot.py").write_text("x = 2")
...     same, source_digest(root) == before, len(before)
(True, False, 12)
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Optional

NOT_PLAYING = frozenset({"tests", "experiments", "fixtures"})
"""Top-level folders of the package that no game runs: the tests, the experiments' scripts and the tests' fixtures."""


def source_digest(root: Optional[Path] = None) -> str:
    """The first 12 hex digits of the digest of the source under `root` (the installed package by default)."""
    return _installed() if root is None else _digest(root)


@functools.cache
def _installed() -> str:
    """The installed package's digest, read once a process (a few hundred files, some milliseconds)."""
    return _digest(Path(__file__).parent)


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    files = []
    for folder, subfolders, names in os.walk(root, followlinks=True):  # an editable install links its folders
        here = Path(folder).relative_to(root)
        subfolders[:] = [name for name in subfolders if name != "__pycache__" and not (here == Path(".") and name in NOT_PLAYING)]
        files += [here / name for name in names if name.endswith(".py")]
    for path in sorted(files):
        digest.update(str(path).encode() + b"\0" + (root / path).read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def other_code_note(where: str, codes: Iterable[Optional[str]]) -> Optional[str]:
    """A line on the games of `where` that code other than this process's played, from each game's digest
    (None: recorded before digests were kept); None when this code played them all.

    >>> other_code_note("m", [source_digest(), "older", None, "older"]).split(": ")[-1]
    '2 by older, 1 before the code was recorded'
    >>> other_code_note("m", [source_digest()]) is None
    True
    """
    counts = Counter(codes)
    others = sorted(((code, count) for code, count in counts.items() if code != source_digest()), key=lambda item: item[0] is None)
    if not others:
        return None
    said = ", ".join(f"{count} by {code}" if code else f"{count} before the code was recorded" for code, count in others)
    other = sum(count for _, count in others)
    return f"{where}: {other} of the {sum(counts.values())} games were played by other code than this run's: {said}"
