"""Which SQLite files are ours: a marker in the file's header, checked before anything is written.

SQLite keeps two numbers in a database's header for the program that made it: ``PRAGMA
application_id`` (what kind of file it is) and ``PRAGMA user_version`` (which version of its
tables). Each of our databases (the tournament's results, the game server's) writes its own
`Marker` when it creates the file, and refuses a file marked by another program, or whose
tables are not its own, with a `ForeignDatabaseError` naming the file: without this a resume
pointed at another program's database added our tables to it and went on.

The check only reads (the header and ``sqlite_master``), so a refused file is left byte for byte
as it was; the caller runs it before anything that writes (``journal_mode=WAL`` rewrites two
header bytes).

A file made before the markers (application id 0) is adopted, and marked, when it holds only our
tables with our columns (`Marker.added_tables` and `Marker.added_columns` may be missing: they
came later, and the caller adds them). An empty file (no tables) is new, and ours.

>>> import sqlite3
>>> marker = Marker("example database", 0x42430000, 1, "CREATE TABLE IF NOT EXISTS t (a INTEGER);")
>>> connection = sqlite3.connect(":memory:")
>>> connection.execute("CREATE TABLE other (b TEXT)") and None
>>> refuse_unless_ours(connection, "notes.sqlite", marker)
Traceback (most recent call last):
...
blindchess.sqlite_marker.ForeignDatabaseError: notes.sqlite: not an example database: it holds tables that are not ours (other); ...
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from blindchess.errors import BlindchessError


class ForeignDatabaseError(BlindchessError, ValueError):
    """An SQLite file that is not the kind of database asked for (another program's, or a newer version's)."""


@dataclass(frozen=True)
class Marker:
    """One kind of database of ours: what it is called, its header marker and its tables.

    `schema` is the ``CREATE TABLE IF NOT EXISTS`` script the database runs; the tables and
    columns an older file may hold are read from it (run on an empty in-memory database), so
    they are never written twice.
    """

    what: str
    application_id: int
    version: int
    schema: str
    added_tables: frozenset[str] = frozenset()
    added_columns: frozenset[str] = frozenset()
    """``table.column`` names added after files were first written."""

    def tables(self) -> dict[str, frozenset[str]]:
        """Our tables and their columns, as `schema` makes them."""
        memory = sqlite3.connect(":memory:")
        try:
            memory.executescript(self.schema)
            return _tables(memory)
        finally:
            memory.close()


def _tables(connection: sqlite3.Connection) -> dict[str, frozenset[str]]:
    names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    quoted = {name: '"' + name.replace('"', '""') + '"' for name in names}  # another program's names may hold anything
    return {name: frozenset(row[1] for row in connection.execute(f"PRAGMA table_info({quoted[name]})")) for name in names}


def _listed(names: set[str]) -> str:
    """Up to five names, each on the same line (another program's names may hold line breaks)."""
    shown = sorted(" ".join(name.split()) for name in names)
    return ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")


def refuse_unless_ours(connection: sqlite3.Connection, path: Union[str, Path], marker: Marker) -> None:
    """Raise `ForeignDatabaseError` (one line, naming `path`) unless the open file is ours, new, or ours from before markers.

    Reads only. The caller then creates its tables and calls `mark`.
    """
    application_id = int(connection.execute("PRAGMA application_id").fetchone()[0])
    version = int(connection.execute("PRAGMA user_version").fetchone()[0])
    start = f"{path}: not {_article(marker.what)} {marker.what}"
    end = "; the file is left as it was"
    if application_id == marker.application_id:
        if version > marker.version:
            newer = f"{marker.what} version {version}, this one reads up to {marker.version}"
            raise ForeignDatabaseError(f"{path}: made by a newer blindchess ({newer}){end}")
        return
    if application_id != 0:
        raise ForeignDatabaseError(f"{start}: its header marks another kind of file (SQLite application id {application_id:#010x}){end}")
    present, ours = _tables(connection), marker.tables()
    strangers = set(present) - set(ours)
    if strangers:
        raise ForeignDatabaseError(f"{start}: it holds tables that are not ours ({_listed(strangers)}){end}")
    missing = set(ours) - set(present) - marker.added_tables
    if present and missing:
        raise ForeignDatabaseError(f"{start}: it lacks our tables {_listed(missing)}{end}")
    for table, columns in sorted(present.items()):
        optional = {entry.partition(".")[2] for entry in marker.added_columns if entry.partition(".")[0] == table}
        foreign, lacking = set(columns - ours[table]), set(ours[table] - optional - columns)
        if foreign:
            raise ForeignDatabaseError(f"{start}: its table {table} has columns that are not ours ({_listed(foreign)}){end}")
        if lacking:
            raise ForeignDatabaseError(f"{start}: its table {table} lacks our columns {_listed(lacking)}{end}")


def mark(connection: sqlite3.Connection, marker: Marker) -> None:
    """Write `marker` into the file's header (nothing when it is there already)."""
    if int(connection.execute("PRAGMA application_id").fetchone()[0]) != marker.application_id:
        connection.execute(f"PRAGMA application_id = {int(marker.application_id)}")
    if int(connection.execute("PRAGMA user_version").fetchone()[0]) < marker.version:
        connection.execute(f"PRAGMA user_version = {int(marker.version)}")


def _article(noun: str) -> str:
    return "an" if noun[:1] in "aeiou" else "a"
