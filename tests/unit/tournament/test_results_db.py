"""A damaged results database through the real `blindchess tournament` command: refused by name, left as it was.

One real tournament writes a sound SQLite file; each case damages a copy of it the way a disk,
a crash or a hand edit would, and runs the command, resuming or with ``--report-only``: the
reported failures in a subprocess, every damage in both modes in this process (the same
``main``). Each must exit 2 with one line naming the file (and the game, where one row is at
fault), print no standings, and leave the file byte for byte as it was; ``sprt --db`` too.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from blindchess.cli import main
from blindchess.server.database import Store
from blindchess.tournament.results_db import MARKER

from .tournament_helpers import write_config

PLAYERS = '[players.random]\nbot = "random"\n[players.attacker]\nbot = "attacker"\n'
FIRST_GAME = "attacker vs random#0.0"


def _garbage(db: Path) -> None:
    db.write_bytes(b"these are not the results you are looking for\n" * 100)


def _zeroed_page(db: Path) -> None:
    data = db.read_bytes()
    page = 4096  # SQLite's default page size: page 2 holds the games table's root
    db.write_bytes(data[:page] + bytes(page) + data[2 * page :])


def _scrambled_cell_pointers(db: Path) -> None:
    data = bytearray(db.read_bytes())
    start = 2 * 4096 + 8  # page 3 holds the key index: its first cell pointers now point off the page
    data[start : start + 4] = bytes(byte ^ 0xFF for byte in data[start : start + 4])
    db.write_bytes(bytes(data))


def _edit(statement: str) -> Callable[[Path], None]:
    def edit(db: Path) -> None:
        with sqlite3.connect(db) as connection:
            connection.execute(statement, (FIRST_GAME,))
        connection.close()

    return edit


DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "not a database": (_garbage, "file is not a database"),
    "a zeroed page": (_zeroed_page, "database disk image is malformed"),
    "scrambled cell pointers": (_scrambled_cell_pointers, "On tree page 3 cell 1: Offset"),  # quick_check: lines
    "a spec that is not JSON": (
        _edit("UPDATE games SET spec = '{not json' WHERE key = ?"), f"game {FIRST_GAME!r}: column spec is not JSON"
    ),
    "a history with a NUL": (
        _edit("UPDATE games SET history = '{\"a\": \"' || char(0) || '\"}' WHERE key = ?"), "column history is not JSON"
    ),
    "a count of turns as text": (_edit("UPDATE games SET turns = 'many' WHERE key = ?"), "column turns holds 'many'"),
}
"""Damage name -> (what it does to the file, what the one line of error must say besides the file name)."""


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A tournament's config and the results file of its two games."""
    folder = tmp_path_factory.mktemp("results")
    config = write_config(folder, PLAYERS, games=2, turn_limit=10)
    db = folder / "sound.sqlite"
    assert main(["tournament", str(config), "--db", str(db), "--workers", "1", "--no-progress"]) == 0
    return config, db


def _damaged(db: Path, folder: Path, name: str) -> Path:
    copy = folder / f"{name.replace(' ', '_')}.sqlite"
    shutil.copyfile(db, copy)
    DAMAGES[name][0](copy)
    return copy


def _check_refusal(name: str, copy: Path, before: bytes, returncode: int, stdout: str, stderr: str) -> None:
    assert returncode == 2, (name, stderr)
    assert stderr.splitlines() == [stderr.strip()], (name, stderr)  # one line, no traceback
    assert str(copy) in stderr and DAMAGES[name][1] in stderr, (name, stderr)
    assert stdout == "", name  # no standings from a damaged file
    assert copy.read_bytes() == before, name  # nothing repaired, nothing lost


SUBPROCESS_CASES = [("not a database", False), ("a spec that is not JSON", False), ("a zeroed page", True)]
"""(damage, --report-only) run as a separate command: the failures as first reported (a resume, a report)."""


def test_the_command_refuses_a_damaged_results_file_by_name_and_leaves_it_as_it_was(sound: tuple[Path, Path], tmp_path: Path) -> None:
    config, db = sound
    runs = []
    for name, report_only in SUBPROCESS_CASES:
        copy = _damaged(db, tmp_path, name)
        command = [sys.executable, "-m", "blindchess", "tournament", str(config), "--db", str(copy), "--workers", "1", "--no-progress"]
        command += ["--report-only"] if report_only else []
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        runs.append((name, copy, copy.read_bytes(), process))  # the commands run side by side
    for name, copy, before, process in runs:
        stdout, stderr = process.communicate(timeout=120)
        _check_refusal(name, copy, before, process.returncode, stdout, stderr)


@pytest.mark.parametrize("report_only", [True, False], ids=["report-only", "resume"])
@pytest.mark.parametrize("name", list(DAMAGES))
def test_every_damage_is_refused_in_either_mode(
    sound: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, report_only: bool
) -> None:
    config, db = sound
    copy = _damaged(db, tmp_path, name)
    before = copy.read_bytes()
    capsys.readouterr()
    argv = ["tournament", str(config), "--db", str(copy), "--workers", "1", "--no-progress"] + (["--report-only"] if report_only else [])
    returncode = main(argv)
    captured = capsys.readouterr()
    _check_refusal(name, copy, before, returncode, captured.out, captured.err)


def test_sprt_refuses_a_damaged_results_file_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "sprt.sqlite"
    _garbage(copy)
    before = copy.read_bytes()
    assert main(["sprt", "random", "attacker", "--db", str(copy), "--workers", "1", "--max-pairs", "1"]) == 2
    error = capsys.readouterr().err
    assert str(copy) in error and "file is not a database" in error, error
    assert copy.read_bytes() == before


def _notes_app(db: Path) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        connection.execute("INSERT INTO notes (text) VALUES ('buy milk')")
    connection.close()


def _pragma(*statements: str) -> Callable[[Path], None]:
    def edit(db: Path) -> None:
        connection = sqlite3.connect(db)
        for statement in statements:
            connection.execute(statement)
        connection.close()

    return edit


def _server_database(db: Path) -> None:
    Store(db).close()


def _other_games_table(db: Path) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT)")
    connection.close()


FOREIGN: dict[str, tuple[Callable[[Path], None], bool, str]] = {
    "another program's database": (_notes_app, False, "it holds tables that are not ours (notes)"),
    "our table under another program's marker": (
        _pragma("PRAGMA application_id = 1234"), True, "its header marks another kind of file (SQLite application id 0x000004d2)"
    ),
    "a blindchess server database": (_server_database, False, "its header marks another kind of file (SQLite application id 0x42435356)"),
    "a games table of another shape": (_other_games_table, False, "its table games has columns that are not ours (id, name)"),
    "a newer version's": (_pragma("PRAGMA user_version = 99"), True, "made by a newer blindchess"),
}
"""Case -> (what makes the file, whether it starts as a copy of the sound results, what the one line says)."""


@pytest.mark.parametrize("name", list(FOREIGN))
def test_a_database_that_is_not_ours_is_refused_by_name_and_left_as_it_was(
    sound: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Issue 41: a resume pointed at another program's SQLite database added our table to it and exited 0."""
    config, db = sound
    make, from_sound, fragment = FOREIGN[name]
    copy = tmp_path / "other.sqlite"
    if from_sound:
        shutil.copyfile(db, copy)
    make(copy)
    before = copy.read_bytes()
    capsys.readouterr()
    for argv in (["tournament", str(config), "--db", str(copy), "--workers", "1", "--no-progress"],
                 ["sprt", "random", "attacker", "--db", str(copy), "--workers", "1", "--max-pairs", "1"]):  # fmt: skip
        returncode = main(argv)
        captured = capsys.readouterr()
        assert returncode == 2, (argv[0], captured.err)
        errors = [line for line in captured.err.splitlines() if "error" in line]  # (sprt names its test first)
        assert len(errors) == 1 and "Traceback" not in captured.err, captured.err  # one line
        assert errors[0].count(str(copy)) == 1 and fragment in captured.err, captured.err  # named once (sprt named it twice)
        assert copy.read_bytes() == before, argv[0]


def test_a_results_file_from_before_the_marker_is_adopted_and_marked(sound: tuple[Path, Path], tmp_path: Path) -> None:
    """Files the previous version wrote (no marker, our one table) still resume and report; they are marked on the way."""
    config, db = sound
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA application_id").fetchone()[0] == MARKER.application_id  # a new file is marked
    connection.close()
    older = tmp_path / "older.sqlite"
    shutil.copyfile(db, older)
    _pragma("PRAGMA application_id = 0", "PRAGMA user_version = 0")(older)
    assert main(["tournament", str(config), "--db", str(older), "--workers", "1", "--no-progress"]) == 0
    connection = sqlite3.connect(older)
    assert connection.execute("PRAGMA application_id").fetchone()[0] == MARKER.application_id
    assert connection.execute("PRAGMA user_version").fetchone()[0] == MARKER.version
    assert connection.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2  # its games, kept
    connection.close()
