"""The command line explains itself: version, help with an example per subcommand, and clear
messages for the bad inputs a newcomer meets (a misspelled bot, a wrong password, a missing
optional package)."""

from __future__ import annotations

import argparse
import importlib
import logging
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import blindchess
from blindchess.arguments import COMMANDS
from blindchess.cli import COMMAND_MODULES, build_parser, main
from blindchess.dependencies import MissingDependencyError, require


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser, by name, as each module in COMMAND_MODULES registers it."""
    parsers: dict[str, argparse.ArgumentParser] = {}
    for module in COMMAND_MODULES:
        subparsers = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module).add_parser(subparsers)
        parsers.update(subparsers.choices)
    return parsers


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"blindchess {blindchess.__version__}"


def test_every_subcommand_has_a_description_and_an_example_that_parses() -> None:
    parsers = _subcommands()
    assert set(parsers) >= {"match", "replay", "playback", "serve", "connect", "invite", "imcs", "imcs-serve", "simulchess"}
    top = build_parser()
    for name, parser in parsers.items():
        assert parser.description and len(parser.description) > 40, f"{name}: no description"
        assert parser.epilog and parser.epilog.startswith("example:"), f"{name}: no example"
        example = parser.epilog.splitlines()[1].strip()
        assert example.startswith(f"blindchess {name} "), f"{name}: the example runs another command: {example!r}"
        top.parse_args(shlex.split(example)[1:])  # the example's arguments are valid (SystemExit otherwise)
        assert "example:" in parser.format_help()


HEAVY_MODULES = ("torch", "numba", "ray", "scipy", "fastapi", "uvicorn", "matplotlib", "requests", "tqdm")
"""Packages that take a second or more to import between them: no parser may need one (they load when a command runs)."""


def test_help_imports_no_heavy_module() -> None:
    """Was: ``blindchess --help`` took 3-5 s, importing scipy and numba to build the parsers.

    Checked by what is imported, not by wall time (which load breaks): a fresh interpreter builds
    every subcommand's parser, and none of the heavy packages may be in ``sys.modules`` after.
    """
    check = (
        "import sys; from blindchess.cli import build_parser; build_parser();"
        f" print(sorted(name for name in {HEAVY_MODULES!r} if name in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]", done.stdout


def test_the_top_level_help_imports_no_command_and_running_one_imports_only_its_own() -> None:
    """``blindchess --help`` lists every command from `COMMANDS` without importing a command module;
    ``blindchess match ...`` imports the match's module (and what it imports: the tournament's
    executor options), not the server's, the viewer's or the posterior's."""
    check = (
        "import sys; from blindchess.cli import COMMAND_MODULES, build_parser;"
        " top = build_parser(''); loaded = [m for m in COMMAND_MODULES if m in sys.modules];"
        " build_parser('match'); print(loaded, [m for m in COMMAND_MODULES if m in sys.modules]);"
        " print(top.format_help())"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120, check=True)
    first, help_text = done.stdout.split("\n", 1)
    assert first == "[] ['blindchess.commands.cli_match', 'blindchess.commands.cli_tournament']", first
    for name, command in COMMANDS.items():
        assert name in help_text and command.summary.split()[0] in help_text, name


def test_verbose_logs_our_debug_messages_and_keeps_numba_at_warnings(tmp_path: Path) -> None:
    """``-v`` at DEBUG for every logger made numba dump the bytecode of each kernel it compiled, which
    slowed a flagship's first turns past a short clock; only our loggers go to DEBUG.

    pytest's capture handlers sit on the root logger, and ``logging.basicConfig`` does nothing to a root
    that has handlers; they are taken off for the call, so the root is configured as in a fresh process."""
    root, ours = logging.getLogger(), logging.getLogger("blindchess")
    handlers, level = root.handlers[:], root.level
    root.handlers.clear()
    try:
        assert main(["-v", "match", "trot", "random", "--out", str(tmp_path)]) == 2  # any command: the levels are set first
        assert root.handlers, "main configured no root handler"
        assert ours.getEffectiveLevel() == logging.DEBUG
        assert logging.getLogger("blindchess.bots.belief_bot").isEnabledFor(logging.DEBUG)
        assert not logging.getLogger("numba.core.byteflow").isEnabledFor(logging.INFO)
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        ours.setLevel(logging.NOTSET)


def test_a_misspelled_bot_name_gets_a_suggestion(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["match", "trot", "random", "--out", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "'trot'" in error and "did you mean 'trout'?" in error and "registered bot names:" in error
    listed = error.split("registered bot names: ")[1].split(")")[0].split(", ")
    assert {"policy", "recon", "flagship", "belief-evoi"} <= set(listed)  # issue 41: every registered bot, from one declaration
    assert main(["match", "zzzzzz", "random", "--out", str(tmp_path)]) == 2
    assert "did you mean" not in capsys.readouterr().err  # nothing close: no guess
    assert not list(tmp_path.iterdir())


def test_connect_reports_a_wrong_password_as_such(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from blindchess.fixtures.servers import register
    from blindchess.server.server import ServerThread

    with ServerThread(tmp_path / "server.sqlite3") as server:
        register(server.url, ["alice"])  # password pw-alice
        code = main(["connect", "random", "--server", server.url, "--username", "alice", "--password", "wrong", "--out", str(tmp_path)])
        captured = capsys.readouterr()
        assert code == 2  # refused credentials are bad input, as in `invite` (was 1 here, 2 there)
        assert "authentication failed for user 'alice'" in captured.err
        assert "connected" not in captured.out  # said only after the server accepted the credentials
        code = main(["invite", "alice", "--server", server.url, "--username", "nobody", "--password", "x", "--out", str(tmp_path)])
        assert code == 2 and "authentication failed for user 'nobody'" in capsys.readouterr().err


def test_a_missing_optional_package_is_reported_before_any_work(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from blindchess.experiments import sensing_ablation

    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("the experiment started before checking its dependencies")

    monkeypatch.setattr(sensing_ablation, "record_states", no_work)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    with pytest.raises(SystemExit) as exit_info:
        sensing_ablation.main([])
    message = str(exit_info.value.code)
    assert "matplotlib is not installed" in message and "pip install 'blindchess[experiments]'" in message

    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["serve", "--port", "0", "--db", "unused.sqlite3"]) == 2
    assert "uvicorn is not installed; install it with: pip install 'blindchess[server]'" in capsys.readouterr().err
    assert main(["view", "--port", "0"]) == 2  # the viewer serves through uvicorn too: said before anything starts
    assert "blindchess view: error: uvicorn is not installed" in capsys.readouterr().err
    with pytest.raises(MissingDependencyError):
        require("uvicorn", extra="server")
