"""One server per database file, whatever path names it (issue 33, item 3).

Was: the lock was taken on ``<path>.lock``, so a hard link, a symbolic link or a deleted lock
file let a second server start on the same data; with a hard link each server kept its own
WAL and 15 of 30 acknowledged registrations were lost. Every case here runs the real
``blindchess serve`` CLI on loopback over a real SQLite file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from blindchess.fixtures.servers import ServerProcess, register
from blindchess.server.database import Store
from blindchess.server.errors import DatabaseInUse


def hard_link(db: Path) -> str:
    link = db.with_name("hard-link.sqlite3")
    os.link(db, link)
    return str(link)


def symbolic_link(db: Path) -> str:
    link = db.parent / "elsewhere" / "symbolic-link.sqlite3"
    link.parent.mkdir()
    link.symlink_to(db)
    return str(link)


def relative_path(db: Path) -> str:
    return os.path.relpath(db)


def deleted_lock_file(db: Path) -> str:
    Path(str(db) + ".lock").unlink(missing_ok=True)  # what the old lock lived in; now there is none
    return str(db)


def test_a_second_server_refuses_by_any_path_and_nothing_acknowledged_is_lost(tmp_path: Path) -> None:
    """The hard link (the case that lost data) through the CLI; the other paths through the store that ``serve`` opens."""
    db = tmp_path / "server.sqlite3"
    first = ServerProcess(db).start()
    names = ["before"]
    try:
        register(first.url, names)
        second = ServerProcess(hard_link(db))
        try:
            with pytest.raises(RuntimeError) as refused:
                second.start()
        finally:
            second.stop()  # (the old code let it start)
        output = refused.value.args[0]
        assert f"is in use by another blindchess server (process {first.pid})" in output, output
        assert "Traceback" not in output
        for other_path in (symbolic_link, relative_path, deleted_lock_file):
            with pytest.raises(DatabaseInUse, match=rf"in use by another blindchess server \(process {first.pid}\)"):
                Store(other_path(db))
        register(first.url, ["after"])  # the first server still serves, and writes where it did
        names.append("after")
    finally:
        first.stop()
    store = Store(db)
    try:
        assert [user.username for user in store.users()] == names
    finally:
        store.close()
