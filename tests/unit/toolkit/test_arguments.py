"""Every documented command checks its arguments at the edge: one line, no traceback (issue 12).

Each case was a raw traceback (or, for a negative clock, a game lost on time at once) before.
The argument checks run in this process (`blindchess.cli.main`, as the console script calls it);
the errors met while running run as real processes, as a user runs them (each costs an
interpreter start, about 3 s of CPU).
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from blindchess.cli import main


def blindchess(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blindchess", *argv], capture_output=True, text=True, timeout=timeout)


def one_line_error(run: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert run.returncode != 0, run
    assert "Traceback" not in run.stderr, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert any(fragment in line for line in lines), run.stderr
    assert len([line for line in lines if "error" in line]) == 1, run.stderr


def in_process(argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> subprocess.CompletedProcess[str]:
    """`main(argv)` here, its exit status and output as a process's."""
    try:
        code = main(list(argv))
    except SystemExit as error:
        code = error.code if isinstance(error.code, int) else 1
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(["blindchess", *argv], code, captured.out, captured.err)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (
            ("serve", "--port", "99999"),
            "argument --port: must be a port number 0..65535 (0: any free port), got '99999'",
        ),
        (("serve", "--port", "-1"), "got '-1'"),
        (
            ("serve", "--db", "/no/such/folder/server.sqlite3"),
            "folder '/no/such/folder' of '/no/such/folder/server.sqlite3' does not exist",
        ),
        (("serve", "--seconds-per-player", "0"), "argument --seconds-per-player: must be more than 0 seconds, got '0'"),
        (("serve", "--increment", "-5"), "argument --increment: must be 0 seconds or more, got '-5'"),
        (("match", "random", "random", "--seconds", "-1"), "argument --seconds: must be more than 0 seconds, got '-1'"),
        (("match", "random", "random", "--seconds", "nan"), "must be a finite number of seconds, got 'nan'"),
        (("match", "random", "random", "--increment", "-0.5"), "argument --increment: must be 0 seconds or more"),
        (("match", "random", "random", "--games", "0"), "argument --games: must be a whole number >= 1, got '0'"),
        (("match", "flagship", "random", "--settings", "selector.bords = 2"), "'selector.bords' (did you mean 'selector.boards'"),
        (("match", "flagship", "random", "--settings", "selector.boards ="), "--settings selector.boards =: no value after '='"),
        (
            ("match", "flagship", "random", "--settings", "selector.boards=abc"),
            "--settings selector.boards=abc: 'abc' is no number, true/false or table; quote a string: selector.boards=\"abc\"",
        ),
        (("match", "flagship", "random", "--settings", "preset=fast, selector.boards=4"), 'quote a string: preset="fast"'),
        (("match", "flagship", "random", "--settings", "selector.boards"), "--settings 'selector.boards' is not NAME=VALUE"),
        (("imcs-serve", "--port", "70000"), "argument --port: must be a port number"),
        (
            ("imcs", "random", "--server", "localhost:0", "--user", "u", "--password", "p", "--offer"),
            "must be a port number 1..65535",
        ),
        (("connect", "random", "--max-games", "-3"), "argument --max-games: must be a whole number >= 1"),
        (("replay", "/no/such/game.json"), "cannot read '/no/such/game.json'"),
    ],
)
def test_bad_arguments_get_one_line(argv: tuple[str, ...], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    one_line_error(in_process(argv, capsys), fragment)


def test_serve_on_a_file_that_is_not_a_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database at all, just some text that is long enough\n")
    one_line_error(in_process(("serve", "--db", str(notes)), capsys), f"'{notes}' is not an SQLite database")
    one_line_error(in_process(("serve", "--db", str(tmp_path)), capsys), "is a folder, not a database file")


def test_imcs_serve_on_a_port_in_use() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        one_line_error(blindchess("imcs-serve", "--port", str(port)), f"cannot listen on 127.0.0.1:{port}")


def test_serve_on_a_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        one_line_error(
            blindchess("serve", "--port", str(port), "--db", str(tmp_path / "s.sqlite3")), "blindchess serve:"
        )


def test_an_unexpected_error_is_one_line_and_its_traceback_is_behind_v(tmp_path: Path) -> None:
    """A history whose bot cannot be found is an expected error; an unreadable --out is not."""
    out = tmp_path / "games"
    out.write_text("a file where the folder should be")
    one_line_error(blindchess("match", "random", "random", "--out", str(out)), "is a file, not a folder")


@pytest.mark.parametrize("settings", ["selector.boards=abc", "selector.engine.path=/usr/bin/stockfish", "a = 1, b = [1,", "a=1, a=2"])
def test_a_settings_error_names_the_setting_not_a_toml_column(settings: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 41: ``selector.boards=abc`` answered "Invalid value (at line 1, column 29)" for a 19-character input."""
    run = in_process(("match", "flagship", "random", "--settings", settings), capsys)
    assert run.returncode == 2 and "column" not in run.stderr and "line 1" not in run.stderr, run.stderr
    assert settings.split("=")[0].split(",")[0].strip() in run.stderr
