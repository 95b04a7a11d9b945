"""`blindchess.sqlite_marker` over real SQLite files: any other program's tables are refused in one line, the file unchanged."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from blindchess.sqlite_marker import ForeignDatabaseError, Marker, mark, refuse_unless_ours

MARKER = Marker("test database", 0x54455354, 2, "CREATE TABLE IF NOT EXISTS games (key TEXT PRIMARY KEY, winner INTEGER);")

names = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=12)  # no surrogates, no NUL


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@settings(max_examples=60, deadline=None)
@example({"games": ["key", "winner"]})  # ours, from before the marker: adopted
@example({"games": ["key", "winner", "notes"]})
@example({"games": ["key"]})
@example({"games": ["key", "winner"], "notes\nmore": ["a"]})
@given(st.dictionaries(names, st.lists(names, min_size=1, max_size=3, unique_by=str.casefold), min_size=1, max_size=3))
def test_any_tables_but_ours_are_refused_in_one_line_and_the_file_is_left_as_it_was(tables: dict[str, list[str]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "other.sqlite"
        connection = sqlite3.connect(path)
        try:
            for table, columns in tables.items():
                connection.execute(f"CREATE TABLE {_quoted(table)} ({', '.join(_quoted(column) for column in columns)})")
            connection.commit()
        except sqlite3.Error:  # names SQLite itself refuses (sqlite_..., two tables differing in case)
            connection.close()
            return
        before = path.read_bytes()
        ours = {"games": sorted(MARKER.tables()["games"])}
        try:
            refuse_unless_ours(connection, path, MARKER)
            accepted = True
        except ForeignDatabaseError as error:
            accepted = False
            assert "\n" not in str(error) and str(error).startswith(f"{path}: not a test database: "), str(error)
        finally:
            connection.close()
        assert accepted == ({table: sorted(columns) for table, columns in tables.items()} == ours)
        assert path.read_bytes() == before


def test_a_new_file_is_marked_and_then_known_and_a_newer_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ours.sqlite"
    connection = sqlite3.connect(path)
    refuse_unless_ours(connection, path, MARKER)  # new: no tables
    connection.executescript(MARKER.schema)
    mark(connection, MARKER)
    assert connection.execute("PRAGMA application_id").fetchone()[0] == MARKER.application_id
    connection.execute("CREATE TABLE extra (a)")  # ours by its marker: what it holds is the caller's business
    refuse_unless_ours(connection, path, MARKER)
    connection.execute("PRAGMA user_version = 3")
    with pytest.raises(ForeignDatabaseError, match="made by a newer blindchess \\(test database version 3, this one reads up to 2\\)"):
        refuse_unless_ours(connection, path, MARKER)
    connection.close()
