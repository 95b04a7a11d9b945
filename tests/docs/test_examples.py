"""Every example in README.md and docs/*.md runs as shown.

The rules, for whoever writes documentation:

* ```` ```python ```` blocks of one file run **in order, in one namespace**, like a tutorial
  read top to bottom: a later block may use what an earlier one defined. Each file starts from
  a fresh namespace, in an empty temporary working directory (files an example writes land
  there).
* A ``print(...)`` line may state what it prints in a trailing comment, after an arrow:
  ``print(x)  # what x is -> 3.0``. The test checks it (``...`` stands for any text, as in
  doctest). A comment on a ``print`` line that states no output with ``->`` is an error, so a
  stated output is never left unchecked.
* ```` ```python file=NAME ```` runs too, and is saved as NAME in that directory: a block that
  says "save the block above as my_bot.py" imports it from there, so it also runs pasted alone.
* ```` ```python no-run ```` marks a block that cannot run in CI (it needs a remote server, say);
  use it only then. Such a block is still compiled, so it cannot hold a syntax error.
* ```` ```bash ```` and ```` ```sh ```` blocks: every ``blindchess ...`` line must parse with the real command line
  (the subcommand exists and its arguments are valid), every ``python3 experiments/X.py`` names
  a script that exists, and ``bash run.sh`` takes only ``test`` or nothing. Comments after
  ``#`` and a leading ``$`` prompt are ignored.
* A command must not write into the files the package ships (its source folders): an
  ``--out`` or ``--db`` there is an error unless the command says so on purpose
  with ``--replace-shipped``.
* ```` ```console ```` blocks show a ``$ blindchess ...`` line and what it answers on the lines
  below it; the test checks those lines. They show argument errors only (the test parses the
  command and never runs it), so a command that parses is an error there.
* ```` ```text output-of="python3 experiments/X.py ARGS" ```` is what that script prints, exactly;
  the test runs it and compares. Use it for quick, seeded scripts only.
* Keep examples quick: short games (``full_turn_limit``), small clocks and caps.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import io
import re
import runpy
import shlex
import sys
from pathlib import Path

import pytest

from blindchess.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]  # the checkout (a link-tree install resolves to it too)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.S | re.M)
STATED = re.compile(r"#[^#]*?->\s*(.*?)\s*$")  # `# what it is -> OUTPUT` at the end of a print line
SHIPPED = [folder for folder in ROOT.iterdir() if (folder / "py.typed").is_file()]  # every package folder has one


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
    monkeypatch.syspath_prepend(str(tmp_path))
    for line, info, code in blocks(page, "python"):
        compile(code, f"{page.name}:{line}", "exec")
        if info == "no-run":
            continue
        if info.startswith("file="):
            (tmp_path / info.removeprefix("file=")).write_text(code)
        else:
            assert info == "", f"{page.name}:{line}: unknown marker {info!r} (only 'no-run' and 'file=NAME' are known)"
        _run_checking_stated_output(code, page.name, line, namespace)


def _stated_output(source_line: str) -> str | None:
    """What a ``print`` line says it prints (its comment after ``->``); None for a line that is no print."""
    if not source_line.lstrip().startswith("print(") or "#" not in source_line:
        return None
    stated = STATED.search(source_line)
    assert stated is not None, f"a comment on a print line states its output after '->': {source_line.strip()}"
    return stated.group(1)


def _run_checking_stated_output(code: str, page: str, first_line: int, namespace: dict[str, object]) -> None:
    """Run `code` statement by statement in `namespace`; a print that states its output must print that."""
    source_lines = code.splitlines()
    checker = doctest.OutputChecker()
    for statement in ast.parse(code).body:
        where = f"{page}:{first_line + statement.lineno}"
        compiled = compile(ast.Module(body=[statement], type_ignores=[]), f"{page}:{first_line}", "exec")
        expected = _stated_output(source_lines[statement.end_lineno - 1]) if statement.end_lineno else None
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compiled, namespace)
        print(printed.getvalue(), end="")  # shown as the example shows it, should the test fail
        if expected is not None:
            assert checker.check_output(expected + "\n", printed.getvalue(), doctest.ELLIPSIS), (
                f"{where}: printed {printed.getvalue().strip()!r}, the page says {expected!r}"
            )


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
                args = parser.parse_args(words[1:])
            except SystemExit as error:  # --version and --help exit 0 after printing
                if error.code not in (0, None):
                    pytest.fail(f"{where}: `{command}` does not parse (exit {error.code})")
                continue
            for name in ("out", "db"):
                written = getattr(args, name, None)
                if isinstance(written, str) and "--replace-shipped" not in words:
                    assert not _inside_shipped(ROOT / written), f"{where}: --{name} {written} writes into the shipped package"
        elif words[:2] == ["bash", "run.sh"]:
            assert words[2:] in ([], ["test"]), f"{where}: run.sh takes only 'test': {command}"
        elif words[0] in ("python", "python3") and words[1].startswith("experiments/"):
            assert (ROOT / words[1]).is_file(), f"{where}: no such script {words[1]}"


def _inside_shipped(path: Path) -> bool:
    """Whether `path` lies in one of the package's source folders (what an install ships)."""
    return any(path.resolve().is_relative_to(folder.resolve()) for folder in SHIPPED)


def test_the_shipped_folders_are_known_and_the_stated_output_rule_reads_arrows() -> None:
    assert {"arbiter", "beliefs", "tests"} <= {folder.name for folder in SHIPPED}
    assert _inside_shipped(ROOT / "beliefs/models/default") and not _inside_shipped(ROOT / "my-model")
    assert _stated_output("print(x)       # pentanomial counts -> 0.0451...") == "0.0451..."
    assert _stated_output("x = 1  # -> 2") is None
    with pytest.raises(AssertionError, match="states its output"):
        _stated_output("print(x)  # a number")


def _console_examples(page: Path) -> list[tuple[str, str, list[str]]]:
    """``(where, command, the lines it answers)`` of each ``$ blindchess ...`` line in `page`'s console blocks."""
    examples: list[tuple[str, str, list[str]]] = []
    for line, _, code in blocks(page, "console"):
        for offset, text in enumerate(code.splitlines()):
            if text.startswith("$ "):
                examples.append((f"{page.name}:{line + 1 + offset}", text.removeprefix("$ "), []))
            else:
                assert examples, f"{page.name}:{line + 1 + offset}: output before any '$ ' command"
                examples[-1][2].append(text)
    return examples


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_console_examples_answer_as_shown(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    for where, command, answer in _console_examples(page):
        words = shlex.split(command)
        assert words[0] == "blindchess", f"{where}: console blocks show blindchess commands: {command}"
        with pytest.raises(SystemExit) as exit_info:
            parser.parse_args(words[1:])
        assert exit_info.value.code == 2, f"{where}: `{command}` is not an argument error"
        printed = capsys.readouterr()
        for expected in answer:
            assert expected in (printed.out + printed.err).splitlines(), f"{where}: `{command}` did not print {expected!r}"


def _script_outputs() -> list[tuple[str, list[str], str]]:
    """``(where, the script's command line, what the page says it prints)`` of every ``output-of`` text block."""
    outputs = []
    for page in PAGES:
        for line, info, code in blocks(page, "text"):
            if info.startswith("output-of="):
                (command,) = (word.removeprefix("output-of=") for word in shlex.split(info))
                outputs.append((f"{page.name}:{line}", shlex.split(command), code))
    return outputs


@pytest.mark.parametrize(("where", "command", "stated"), _script_outputs(), ids=lambda value: str(value)[:40])
def test_script_outputs_are_as_shown(
    where: str, command: list[str], stated: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert command[0] in ("python", "python3") and command[1].startswith("experiments/"), f"{where}: {command}"
    monkeypatch.setattr(sys, "argv", command[1:])
    runpy.run_path(str(ROOT / command[1]), run_name="__main__")
    assert capsys.readouterr().out == stated, f"{where}: `{' '.join(command)}` printed something else"


def test_script_outputs_are_found() -> None:
    assert any("boardset_walkthrough.py" in command[1] for _, command, _ in _script_outputs())
