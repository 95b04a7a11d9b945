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

from blindchess.arguments import COMMANDS
from blindchess.cli import main


def blindchess(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blindchess", *argv], capture_output=True, text=True, timeout=timeout)


def one_line_error(run: subprocess.CompletedProcess[str], fragment: str, status: int = 2) -> None:
    """`run` failed with exit `status` and said so in one line, as docs/cli.md states:
    ``blindchess COMMAND: error: ...; see 'blindchess COMMAND --help'``, containing `fragment`."""
    argv = run.args[run.args.index("blindchess") + 1 :]
    command = argv[0] if argv and argv[0] in COMMANDS else ""
    if command == "posterior" and len(argv) > 1 and not argv[1].startswith("-"):
        command = f"posterior {argv[1]}"
    program = f"blindchess {command}".rstrip()
    assert run.returncode == status, run
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"{program}: error: ") and lines[0].endswith(f"; see '{program} --help'"), lines[0]
    assert fragment in lines[0], lines[0]


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
        one_line_error(blindchess("imcs-serve", "--port", str(port)), f"cannot listen on 127.0.0.1:{port}", status=1)


def test_serve_on_a_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        one_line_error(
            blindchess("serve", "--port", str(port), "--db", str(tmp_path / "s.sqlite3")), f"cannot listen on 127.0.0.1:{port}", status=1
        )


def test_an_unexpected_error_is_one_line_and_its_traceback_is_behind_v(tmp_path: Path) -> None:
    """A history whose bot cannot be found is an expected error; an unreadable --out is not."""
    out = tmp_path / "games"
    out.write_text("a file where the folder should be")
    one_line_error(blindchess("match", "random", "random", "--out", str(out)), "is a file, not a folder")


BAD_ARGUMENTS: dict[str, tuple[tuple[str, ...], str]] = {
    "serve": (("--port", "99999"), "argument --port: must be a port number 0..65535"),
    "view": (("/no/such/folder",), "no such file or folder: '/no/such/folder'"),
    "connect": (("random", "--max-games", "0"), "argument --max-games: must be a whole number >= 1, got '0'"),
    "invite": (("bot1", "--color", "green"), "argument --color: invalid choice: 'green'"),
    "imcs": (("random", "--server", "localhost:70000", "--user", "u", "--password", "p", "--offer"), "must be a port number"),
    "imcs-serve": (("--port", "70000"), "argument --port: must be a port number 0..65535"),
    "simulchess": (("random", "random", "--games", "0"), "argument --games: must be a whole number >= 1"),
    "match": (("random", "random", "--seconds", "-1"), "argument --seconds: must be more than 0 seconds, got '-1'"),
    "tournament": (("config.toml", "--workers", "0"), "argument --workers: must be a whole number >= 1"),
    "sprt": (("attacker", "random", "--max-pairs", "0"), "argument --max-pairs: must be a whole number >= 1"),
    "replay": (("game.json", "--color", "green"), "argument --color: invalid choice: 'green'"),
    "playback": (("game.json", "random", "green"), "argument color: invalid choice: 'green'"),
    "posterior": (("data", "--out", "shards", "--games", "0"), "argument --games: must be a whole number >= 1"),
    "match-report": (("/no/such/folder",), "/no/such/folder holds no results.jsonl"),
}
"""One bad argument per command, and what its error line must say."""


def test_every_command_has_a_bad_argument_case() -> None:
    assert set(BAD_ARGUMENTS) == set(COMMANDS)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_answers_a_bad_argument_with_one_line_through_the_real_cli(command: str) -> None:
    """Was: argparse's usage block, then the error (13 lines for ``match --seconds -1``); `view`
    of a missing folder exited 1 with no ``error:``; `sprt` and `tournament` said ``blindchess:``."""
    argv, fragment = BAD_ARGUMENTS[command]
    one_line_error(blindchess(command, *argv), fragment)


REQUIRED_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "connect": ("random",), "invite": ("bot1",), "imcs": ("random", "--server", "localhost:1", "--user", "u", "--password", "p", "--offer"),
    "simulchess": ("random", "random"), "match": ("random", "random"), "tournament": ("config.toml",), "sprt": ("attacker", "random"),
    "replay": ("game.json",), "playback": ("game.json", "random", "white"), "posterior": ("data", "--out", "shards"),
    "match-report": ("folder",),
}  # fmt: skip
"""What each command needs besides its options, so that an unknown option is the only thing wrong."""


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_unknown_option_is_refused_by_the_command_it_was_given_to(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: the top-level parser's usage and ``blindchess: error: unrecognized arguments`` (serve, view, imcs-serve)."""
    argv = (command, *REQUIRED_ARGUMENTS.get(command, ()), "--no-such-option")
    one_line_error(in_process(argv, capsys), "unrecognized arguments: --no-such-option")


def test_the_top_level_errors_are_one_line_too(capsys: pytest.CaptureFixture[str]) -> None:
    one_line_error(in_process(("nosuchcommand",), capsys), "argument command: invalid choice: 'nosuchcommand'")
    one_line_error(in_process((), capsys), "the following arguments are required: command")
    one_line_error(in_process(("posterior", "train", "s.npz", "--out", "m", "--epochs", "x"), capsys), "argument --epochs")


def test_a_malformed_history_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The content of a file the user named is part of what they gave: exit 2, as for a bad argument (docs/cli.md)."""
    bad = tmp_path / "bad.json"
    bad.write_text("{ truncated")
    one_line_error(in_process(("replay", str(bad)), capsys), f"cannot read '{bad}'")
    one_line_error(in_process(("playback", str(bad), "random", "white"), capsys), f"cannot read '{bad}'")


def test_the_viewer_on_a_port_in_use_is_a_run_time_failure(tmp_path: Path) -> None:
    """Nothing wrong with what was given, but running failed: exit 1, one line (was: no ``error:``)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        run = blindchess("view", str(tmp_path), "--port", str(port))
    one_line_error(run, f"cannot listen on 127.0.0.1:{port}", status=1)


def test_a_reader_that_stops_reading_ends_the_command_quietly() -> None:
    """Was: ``blindchess replay FILE --all | head`` ended with ``error: BrokenPipeError`` on stderr."""
    game = Path(__file__).resolve().parents[2] / "fixtures" / "flagship_fast_game.json"
    command = [sys.executable, "-m", "blindchess", "replay", str(game), "--all"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # as `head` does once it has its lines: every write from now on finds no reader
        stderr = process.stderr.read()
        assert process.wait(timeout=60) == 141 and stderr == "", stderr


@pytest.mark.parametrize("settings", ["selector.boards=abc", "selector.engine.path=/usr/bin/stockfish", "a = 1, b = [1,", "a=1, a=2"])
def test_a_settings_error_names_the_setting_not_a_toml_column(settings: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 41: ``selector.boards=abc`` answered "Invalid value (at line 1, column 29)" for a 19-character input."""
    run = in_process(("match", "flagship", "random", "--settings", settings), capsys)
    assert run.returncode == 2 and "column" not in run.stderr and "line 1" not in run.stderr, run.stderr
    assert settings.split("=")[0].split(",")[0].strip() in run.stderr
