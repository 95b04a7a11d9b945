"""Every example in README.md and docs/*.md runs as shown.

The rules, for whoever writes documentation:

* ```` ```python ```` blocks of one file run **in order, in one namespace**, like a tutorial
  read top to bottom: a later block may use what an earlier one defined. Each file starts from
  a fresh namespace, in an empty temporary working directory (files an example writes land
  there).
* ```` ```python no-run ```` marks a block that cannot run in CI (it needs a remote server, say);
  use it only then. Such a block is still compiled, so it cannot hold a syntax error.
* ```` ```bash ```` and ```` ```sh ```` blocks: every ``blindchess ...`` line must parse with the real command line
  (the subcommand exists and its arguments are valid), every ``python3 experiments/X.py`` names
  a script that exists, and ``bash run.sh`` takes only ``test`` or nothing. Comments after
  ``#`` and a leading ``$`` prompt are ignored.
* Keep examples quick: short games (``full_turn_limit``), small clocks and caps.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from blindchess.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]  # the checkout (a link-tree install resolves to it too)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.S | re.M)


def blocks(page: Path, language: str) -> list[tuple[int, str, str]]:
    """``(line number, info after the language, code)`` of every fenced `language` block of `page`."""
    text = page.read_text()
    return [
        (text.count("\n", 0, match.start()) + 1, match.group(2).strip(), match.group(3))
        for match in FENCE.finditer(text)
        if match.group(1) == language
    ]


def test_the_pages_are_found() -> None:
    names = {page.name for page in PAGES}
    assert {"README.md", "arbiter.md", "beliefs.md", "benchmarks.md"} <= names, names
    assert "bash run.sh test" in (ROOT / "README.md").read_text()  # CI runs exactly this


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_python_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for line, info, code in blocks(page, "python"):
        compiled = compile(code, f"{page.name}:{line}", "exec")
        if info == "no-run":
            continue
        assert info == "", f"{page.name}:{line}: unknown marker {info!r} (only 'no-run' is known)"
        exec(compiled, namespace)


def test_no_run_blocks_stay_rare() -> None:
    skipped = [f"{page.name}:{line}" for page in PAGES for line, info, _ in blocks(page, "python") if info == "no-run"]
    ran = sum(1 for page in PAGES for _, info, _ in blocks(page, "python") if info != "no-run")
    assert len(skipped) <= max(2, ran // 5), f"too many examples that never run: {skipped}"


def _command_lines(page: Path) -> list[tuple[str, str]]:
    lines = []
    for line, _, code in [*blocks(page, "bash"), *blocks(page, "sh")]:
        for offset, text in enumerate(code.splitlines()):
            command = text.split("  #", 1)[0].strip().removeprefix("$ ").strip()
            if command:
                lines.append((f"{page.name}:{line + 1 + offset}", command))
    return lines


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_shell_examples_name_real_commands(page: Path) -> None:
    parser = build_parser()
    for where, command in _command_lines(page):
        words = shlex.split(command)
        if words[0] == "blindchess":
            try:
                parser.parse_args(words[1:])
            except SystemExit as error:  # --version and --help exit 0 after printing
                if error.code not in (0, None):
                    pytest.fail(f"{where}: `{command}` does not parse (exit {error.code})")
        elif words[:2] == ["bash", "run.sh"]:
            assert words[2:] in ([], ["test"]), f"{where}: run.sh takes only 'test': {command}"
        elif words[0] in ("python", "python3") and words[1].startswith("experiments/"):
            assert (ROOT / words[1]).is_file(), f"{where}: no such script {words[1]}"
