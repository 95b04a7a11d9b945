"""Every repository path that README.md and docs/*.md name exists.

What counts as a path (the rule, for whoever writes documentation):

* a link target, ``[pondering](pondering.md)`` or ``![plot](images/x.png)``, relative to the page
  (web addresses and ``#anchors`` aside);
* a word inside inline code or a fenced block whose first part is an entry at the top of the
  repository: a package folder or ``docs`` (``bots/registry.py``, ``experiments/configs/``,
  ``tests/docs/``) or a file (``run.sh``, ``pyproject.toml``), relative to the repository's root
  (so ``games/`` and ``results/``, which commands write, are not ours). A ``:line``,
  ``::test_name`` or ``#anchor`` after it is not part of the path.

A part in capitals (``experiments/NAME.py``, ``games/FILE.json``) is a placeholder, and a word
with a glob (``*``) is checked up to the glob. A file the reader makes, such as ``my_bot.py``,
is written without a repository folder in front, so it is not taken for one of ours.
Was: docs/bots.md named ``bots/cli_match.py``, which lives in ``tournament/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .test_examples import PAGES, ROOT

LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE = re.compile(r"^```[^\n]*\n(.*?)^```|`([^`\n]+)`", re.S | re.M)
WORD = re.compile(r"[A-Za-z0-9_.\-/]+")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*(\.\w+)?$")


def named_paths(text: str, page_folder: Path, root: Path) -> list[tuple[int, str, Path]]:
    """``(line, as written, where it must be)`` for every repository path `text` names (see the module docstring)."""
    top = {entry.name for entry in root.iterdir() if entry.is_file() or (entry / "py.typed").is_file() or entry.name == "docs"}
    found: list[tuple[int, str, Path]] = []
    for match in LINK.finditer(text):
        target = match.group(1).split("#")[0]
        if target and "://" not in target and not target.startswith("mailto:"):
            found.append((text.count("\n", 0, match.start()) + 1, target, page_folder / target))
    for match in CODE.finditer(text):
        code = match.group(1) if match.group(1) is not None else match.group(2)
        line = text.count("\n", 0, match.start()) + 1
        for word in WORD.findall(code):
            path = word.split("::")[0].rstrip(".,:;")
            parts = path.split("/")
            if parts[0] not in top or (path == parts[0] and "." not in path):
                continue  # not one of ours (a bare folder name reads as a word: `tests`, `bots`)
            if any(PLACEHOLDER.match(part) for part in parts[1:]):
                continue
            found.append((line + code.count("\n", 0, code.find(word)), path, root / path))
    return found


def test_the_rule_finds_paths_and_placeholders_alike() -> None:
    text = (
        "See `bots/cli_match.py` and [tournaments](tournaments.md#resuming), run `bash run.sh test`,\n"
        "```bash\npython3 experiments/NAME.py   # a placeholder\nblindchess view games/FILE.json\n```\n"
        "a reader's `my_bot.py`, the `tests` folder, `experiments/configs/*.toml`, https://example.org/x.md\n"
    )
    found = [(line, written) for line, written, _ in named_paths(text, ROOT / "docs", ROOT)]
    assert found == [(1, "tournaments.md"), (1, "bots/cli_match.py"), (1, "run.sh"), (6, "experiments/configs/")]
    missing = [written for _, written, path in named_paths(text, ROOT / "docs", ROOT) if not path.exists()]
    assert missing == ["bots/cli_match.py"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_path_the_docs_name_exists(page: Path) -> None:
    paths = named_paths(page.read_text(), page.parent, ROOT)
    missing = [f"{page.name}:{line}: {written}" for line, written, path in paths if not path.exists()]
    assert not missing, "the docs name files that do not exist:\n" + "\n".join(missing)


def test_the_pages_name_paths() -> None:
    """The rule finds what the pages name (so an empty scan cannot pass for a clean one)."""
    named = {written for page in PAGES for _, written, _ in named_paths(page.read_text(), page.parent, ROOT)}
    assert {"commands/cli_replay.py", "bots/registry.py", "run.sh", "cli.md"} <= named
