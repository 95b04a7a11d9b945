"""Tournament results in SQLite: one row per game, its history JSON beside the result in the same row.

The game's key (see :mod:`blindchess.tournament.config`) is the primary key, so a game can be
recorded once only; each result is committed as it arrives, so a crash or Ctrl-C loses at most
the games still being played. The spec is stored with the result: resuming with a config that
changed a recorded game (other settings under the same label) is refused, never mixed. So is
the digest of the code that recorded it (`blindchess.code_digest`): code changes between runs
are not refused (a docstring edit changes the digest), but `other_code` says how many games
other code played, and ``sprt`` and ``tournament`` print it when they resume or report a file.

A game that could not be played is recorded with ``status = 'failed'`` and the reason; a later
run skips it unless asked to retry failed games (`pending` with ``retry_failed=True``), which
replaces the row.

A file that is not ours is refused the same way, before anything is written: each results file
carries a marker in its header (`MARKER`: SQLite's ``application_id`` and ``user_version``), and
a file marked by another program, or holding tables that are not ours, is a `ResultStoreError`
naming the file, left byte for byte as it was (a resume used to add our table to it and exit 0).
A file made before the marker (application id 0) holding only our ``games`` table, with our
columns, is adopted and marked.

A damaged file is refused when it is opened, before a game is played into it: SQLite's
``quick_check`` runs before anything is written, then every row is checked (each column's type,
and that its JSON, spec, faults and history, parses). Either failure is a `ResultStoreError`
naming the file, and the game's key where one row is at fault; the file is not repaired or
changed, and no report is rated from a file that lost games.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blindchess.code_digest import other_code_note, source_digest
from blindchess.errors import BlindchessError
from blindchess.sqlite_marker import ForeignDatabaseError, Marker, mark, refuse_unless_ours

from .spec import GameResult, GameSpec

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    key TEXT PRIMARY KEY,
    pairing TEXT NOT NULL,
    pair INTEGER NOT NULL,
    white TEXT NOT NULL,
    black TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    winner INTEGER,              -- 1 White, 0 Black, NULL a draw (or no result)
    reason TEXT,
    turns INTEGER NOT NULL,
    seconds REAL NOT NULL,
    attempts INTEGER NOT NULL,
    faults TEXT NOT NULL,        -- JSON list of fault messages
    error TEXT,
    spec TEXT NOT NULL,          -- GameSpec.to_json()
    history TEXT,                -- reconchess GameHistory JSON
    recorded_at TEXT NOT NULL DEFAULT (datetime('now')),
    white_clock REAL,            -- share of its clock White used (NULL untimed, or recorded before the column)
    black_clock REAL,
    code TEXT                    -- blindchess.code_digest.source_digest() of the process that recorded it (NULL: before the column)
);
"""

COLUMN_TYPES: dict[str, type | tuple[type, ...]] = {
    "key": str, "pairing": str, "pair": int, "white": str, "black": str, "status": str, "winner": (int, type(None)),
    "reason": (str, type(None)), "turns": int, "seconds": (float, int), "error": (str, type(None)),
    "white_clock": (float, int, type(None)), "black_clock": (float, int, type(None)), "code": (str, type(None)),
    "spec": str, "faults": str, "history": (str, type(None)),
}  # fmt: skip
"""The Python type SQLite hands back for each column of a sound row, in `ResultStore.rows`'s order."""

ADDED_COLUMNS = ("white_clock REAL", "black_clock REAL", "code TEXT")
"""Columns added after files were first written: opening an older file adds them, NULL in its rows."""

MARKER = Marker(
    "blindchess results database", 0x42435452, 1, SCHEMA,  # "BCTR" in the header's application_id
    added_columns=frozenset(f"games.{column.split()[0]}" for column in ADDED_COLUMNS),
)  # fmt: skip
"""The header marker of our results files (`blindchess.sqlite_marker`): another program's database is refused."""


class ResultStoreError(BlindchessError, ValueError):
    """The results file cannot be used: not an SQLite database, damaged, or a row that does not parse."""


class StoreConflictError(ResultStoreError):
    """The database holds a game under a key the schedule gives to a different game."""


@dataclass(frozen=True)
class GameRow:
    """A recorded game, as read back for ratings and reports."""

    key: str
    pairing: str
    pair: int
    white: str
    black: str
    ok: bool
    winner: bool | None
    reason: str | None
    turns: int
    seconds: float
    error: str | None
    clock_share: tuple[float | None, float | None] = (None, None)
    code: str | None = None
    """The digest of the code that recorded the game (`blindchess.code_digest`); None for a game recorded before it was kept."""

    def white_score(self) -> float:
        return 0.5 if self.winner is None else 1.0 if self.winner else 0.0


class ResultStore:
    """The SQLite file at `path` (created if missing).

    Raises:
        ResultStoreError: the file cannot be opened, is not a database, fails ``quick_check``, or
            holds a row that `rows` refuses.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._database("cannot open the results database"):
            self._connection = sqlite3.connect(str(self.path))
        try:
            with self._database("the results database is damaged"):
                problems = [row[0] for row in self._connection.execute("PRAGMA quick_check(5)")]
                if problems != ["ok"]:
                    raise sqlite3.DatabaseError("; ".join(problems))
                try:
                    refuse_unless_ours(self._connection, self.path, MARKER)  # reads only: before the first write
                except ForeignDatabaseError as error:
                    raise ResultStoreError(str(error)) from error
                self._connection.execute("PRAGMA journal_mode=WAL")
                self._connection.executescript(SCHEMA)
                present = {row[1] for row in self._connection.execute("PRAGMA table_info(games)")}
                with self._connection:
                    for column in ADDED_COLUMNS:
                        if column.split()[0] not in present:
                            self._connection.execute(f"ALTER TABLE games ADD COLUMN {column}")
                mark(self._connection, MARKER)
            self.rows()
        except ResultStoreError:
            self._connection.close()
            raise

    @contextmanager
    def _database(self, doing: str) -> Iterator[None]:
        """SQLite's errors (not a database, malformed, disk full, locked) as a one-line `ResultStoreError` naming the file.

        One line: ``quick_check`` reports a damaged b-tree over several (``*** in database main
        ***`` and a line per problem), and a message over lines read as two errors.
        """
        try:
            yield
        except sqlite3.Error as error:
            said = " ".join(str(error).split())
            raise ResultStoreError(f"{self.path}: {doing}: {said}; the file is left as it was") from error

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def pending(self, schedule: Iterable[GameSpec], retry_failed: bool = False) -> list[GameSpec]:
        """The scheduled games not recorded yet (and the failed ones with `retry_failed`).

        Raises:
            StoreConflictError: a recorded game's spec differs from the scheduled one with its key.
        """
        with self._database("cannot read the recorded games"):
            recorded = {key: (spec, status) for key, spec, status in self._connection.execute("SELECT key, spec, status FROM games")}
        missing = []
        for game in schedule:
            row = recorded.get(game.key)
            if row is None or (retry_failed and row[1] == "failed"):
                missing.append(game)
            elif self._json(game.key, "spec", row[0]) != json.loads(game.to_json()):
                raise StoreConflictError(
                    f"{self.path} already holds game {game.key!r} with other settings; use a new database or restore the config"
                )
        return missing

    def record(self, spec: GameSpec, result: GameResult) -> None:
        """Commit one game's result (a failed game replaces nothing but an earlier failure)."""
        with self._database(f"cannot record game {spec.key!r}"), self._connection:
            self._connection.execute("DELETE FROM games WHERE key = ? AND status = 'failed'", (spec.key,))
            self._connection.execute(
                "INSERT INTO games (key, pairing, pair, white, black, status, winner, reason, turns, seconds, attempts,"
                " faults, error, spec, history, white_clock, black_clock, code)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    spec.key, spec.pairing, spec.pair, spec.white.label, spec.black.label,
                    "ok" if result.ok else "failed",
                    None if result.winner is None else int(result.winner),
                    result.reason, result.turns, result.seconds, result.attempts,
                    json.dumps(list(result.faults)), result.error, spec.to_json(), result.history, *result.clock_share,
                    source_digest(),
                ),
            )  # fmt: skip

    def rows(self) -> list[GameRow]:
        """Every recorded game, in key order, each row checked (see the module docstring).

        Raises:
            ResultStoreError: a row with a column of the wrong type or JSON that does not parse.
        """
        query = (
            "SELECT key, pairing, pair, white, black, status, winner, reason, turns, seconds, error, white_clock, black_clock, code,"
            " spec, faults, history FROM games ORDER BY key"
        )
        rows = []
        with self._database("cannot read the recorded games"):  # row by row: histories are never all in memory
            for values in self._connection.execute(query):
                rows.append(self._checked_row(values))
        return rows

    def _checked_row(self, values: tuple[Any, ...]) -> GameRow:
        """A row of `rows`'s query (of any types, as SQLite returns them) as a `GameRow`, once checked.

        Raises:
            ResultStoreError: naming the file, the game and the column at fault.
        """
        key = values[0]
        for (column, kind), value in zip(COLUMN_TYPES.items(), values, strict=True):
            if not isinstance(value, kind):
                raise ResultStoreError(f"{self.path}: game {key!r}: column {column} holds {value!r:.60}, not {kind}")
            if column in ("spec", "faults", "history") and value is not None:
                self._json(key, column, value)
        key, pairing, pair, white, black, status, winner, reason, turns, seconds, error, white_clock, black_clock, code = values[:14]
        if winner not in (None, 0, 1):
            raise ResultStoreError(f"{self.path}: game {key!r}: column winner holds {winner!r}, not 0, 1 or NULL")
        return GameRow(
            key, pairing, pair, white, black, status == "ok", None if winner is None else bool(winner), reason, turns, seconds,
            error, (white_clock, black_clock), code,
        )  # fmt: skip

    def _json(self, key: str, column: str, text: object) -> object:
        """Column `column` of game `key` parsed, or a `ResultStoreError` naming the file, the game and the column."""
        try:
            if not isinstance(text, str):
                raise ValueError(f"{type(text).__name__} {text!r:.60}, not text")
            return json.loads(text)
        except ValueError as error:  # json.JSONDecodeError is a ValueError
            raise ResultStoreError(
                f"{self.path}: game {key!r}: column {column} is not JSON ({error}); the file is left as it was"
            ) from error

    def other_code(self) -> str | None:
        """A line saying how many recorded games code other than this process's played, and which; None if none did.

        The line names the file, the count and each other digest with its games (or the games recorded
        before the digest was kept); ``sprt`` and ``tournament`` print it as a note when they open the file.
        """
        with self._database("cannot read the recorded games"):
            return other_code_note(str(self.path), [code for (code,) in self._connection.execute("SELECT code FROM games")])

    def history(self, key: str) -> str | None:
        """The history JSON of game `key` (None if not recorded or not played)."""
        with self._database(f"cannot read game {key!r}"):
            row = self._connection.execute("SELECT history FROM games WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def count(self) -> int:
        with self._database("cannot count the recorded games"):
            return int(self._connection.execute("SELECT COUNT(*) FROM games").fetchone()[0])
