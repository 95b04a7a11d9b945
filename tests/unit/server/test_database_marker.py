"""``blindchess serve`` refuses a database that is not a server's, by name, leaving it as it was (issue 41).

Was: the server ran ``CREATE TABLE IF NOT EXISTS`` over whatever SQLite file ``--db`` named,
adding its tables to another program's database (or failing later on the tournament's
``games`` table). Now the file's header marker (`blindchess.server.database.MARKER`) decides
before anything is written; a server database from before the marker is adopted.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from blindchess.server.database import MARKER, SCHEMA, Store
from blindchess.server.service import Service
from blindchess.tournament.results_db import ResultStore


def _notes_app(db: Path) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        connection.execute("INSERT INTO notes (text) VALUES ('buy milk')")
    connection.close()


def _tournament_results(db: Path) -> None:
    ResultStore(db).close()


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (_notes_app, "not a blindchess server database: it holds tables that are not ours (notes)"),
        (_tournament_results, "not a blindchess server database: its header marks another kind of file (SQLite application id 0x42435452)"),
    ],
    ids=["another program's", "the tournament's results"],
)
def test_serve_refuses_a_database_that_is_not_a_servers_in_one_line(tmp_path: Path, make: Callable[[Path], None], fragment: str) -> None:
    db = tmp_path / "other.sqlite"
    make(db)
    before = db.read_bytes()
    command = [sys.executable, "-m", "blindchess", "serve", "--port", "0", "--db", str(db)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run
    assert run.stderr.splitlines() == [
        f"blindchess serve: error: {db}: {fragment}; the file is left as it was; see 'blindchess serve --help'"
    ], run.stderr
    assert db.read_bytes() == before and run.stdout == ""


def test_a_server_database_from_before_the_marker_is_adopted_and_marked(tmp_path: Path) -> None:
    """The previous version's file (no marker, no ``login_failures`` yet) opens with its accounts, and is marked."""
    db = tmp_path / "server.sqlite3"
    older = SCHEMA.split("CREATE TABLE IF NOT EXISTS login_failures")[0]  # the tables it had
    with sqlite3.connect(db) as connection:
        connection.executescript(older)
    connection.close()
    store = Store(db)
    Service(store).register("alice", "pw-alice")
    store.close()
    store = Store(db)
    assert Service(store).authenticate("alice", "pw-alice") is not None
    store.close()
    connection = sqlite3.connect(db)
    assert connection.execute("PRAGMA application_id").fetchone()[0] == MARKER.application_id
    assert connection.execute("PRAGMA user_version").fetchone()[0] == MARKER.version
    connection.close()
