"""The server's database: users, invitations, games, their actions and ratings, in SQLite.

Every change is committed before the request that made it is answered (write-through),
so a server killed at any moment restarts with every acknowledged action. A game is
stored as its settings, its clocks at the start of the current turn and the ordered list
of its actions (sense, move, end_turn); the arbiter state is rebuilt by replaying them.
WAL journaling with ``synchronous=NORMAL`` survives a killed process (not a power cut),
at a fraction of the cost of a full sync per request.

The connection is shared by the server's threads; callers serialise access with the
service lock (see :mod:`.service`), which is why ``check_same_thread`` is off.

Every write runs in a transaction (`Store.transaction`, re-entrant); a write that fails
(the file locked by another program for longer than `BUSY_TIMEOUT_S`, a full disk, an I/O
error) is rolled back and raised as `StoreUnavailable`, which the service turns into a
retryable 503 after putting its in-memory state back.

One server per database file, whatever the path it is named by: the store holds an exclusive
``flock`` on the database file itself (opened by its real path) while open. A lock belongs to
the file's inode, so a hard link, a symbolic link, a relative path or a deleted side file cannot
open a second server on the same data (each would keep its own ``-wal`` file, and acknowledged
writes would be lost). On Linux ``flock`` and the POSIX locks SQLite takes do not interact, and
the descriptor is closed only after SQLite's connection. A second server is told which process
holds the lock (read from ``/proc/locks``). The database is created with mode 0600, readable by
its owner only (SQLite gives its ``-wal`` and ``-shm`` files the database's mode).

A file that is not the server's is refused before anything is written (`MARKER` in its header;
a `ForeignDatabaseError` naming the file, which stays as it was): another program's database, or
the tournament's results. A server database from before the marker (our tables only, perhaps
without ``login_failures``, which came later) is adopted and marked.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from blindchess.server.errors import DatabaseInUse, StoreUnavailable
from blindchess.sqlite_marker import ForeignDatabaseError, Marker, mark, refuse_unless_ours

BUSY_TIMEOUT_S = 2.0
"""How long a write waits for a lock held by another program before it fails (503, retry)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    email TEXT NOT NULL DEFAULT '',
    affiliation TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL,
    max_games INTEGER NOT NULL DEFAULT 4,
    ranked INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    white_id INTEGER NOT NULL REFERENCES users(id),
    black_id INTEGER NOT NULL REFERENCES users(id),
    ranked INTEGER NOT NULL,
    white_version INTEGER NOT NULL,
    black_version INTEGER NOT NULL,
    seconds_per_player REAL NOT NULL,
    seconds_increment REAL NOT NULL,
    reversible_moves_limit INTEGER,
    full_turn_limit INTEGER,
    white_ready INTEGER NOT NULL DEFAULT 0,
    black_ready INTEGER NOT NULL DEFAULT 0,
    white_seconds REAL NOT NULL,
    black_seconds REAL NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    resigned INTEGER,
    timed_out INTEGER,
    winner_color INTEGER,
    win_reason TEXT,
    history TEXT,
    aborted INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    value TEXT,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS invitations (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    recipient_id INTEGER NOT NULL REFERENCES users(id),
    status TEXT NOT NULL DEFAULT 'pending'
);
CREATE TABLE IF NOT EXISTS ratings (
    user_id INTEGER NOT NULL REFERENCES users(id),
    version INTEGER NOT NULL,
    elo REAL NOT NULL,
    wins INTEGER NOT NULL DEFAULT 0,
    draws INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, version)
);
CREATE TABLE IF NOT EXISTS rated_games (
    seq INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL UNIQUE REFERENCES games(id)
);
CREATE TABLE IF NOT EXISTS login_failures (
    key TEXT PRIMARY KEY,
    count INTEGER NOT NULL,
    last REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS invitations_by_recipient ON invitations(recipient_id, status);
CREATE INDEX IF NOT EXISTS games_open ON games(over);
"""

MARKER = Marker("blindchess server database", 0x42435356, 1, SCHEMA, added_tables=frozenset({"login_failures"}))  # "BCSV"
"""The header marker of the server's database (`blindchess.sqlite_marker`): another program's file is refused unchanged."""


@dataclass(frozen=True, slots=True)
class UserRow:
    id: int
    username: str
    password_hash: str
    max_games: int
    ranked: bool
    version: int


@dataclass(frozen=True, slots=True)
class RatingRow:
    """One bot version's rating and record in ranked games."""

    elo: float
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True, slots=True)
class Action:
    """One stored step of a game: kind is 'sense' (square or None), 'move' (UCI or None) or 'end_turn'."""

    kind: str
    value: Optional[str]


class Store:
    """Thin typed access to the SQLite file; one method per query the service needs."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock_file = _lock(self.path)  # the database file itself, created owner-only before SQLite opens it
        try:
            # isolation_level=None: autocommit, with explicit BEGIN/COMMIT in transaction().
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_S)
            self._db.row_factory = sqlite3.Row
            refuse_unless_ours(self._db, self.path, MARKER)  # reads only: before the first write
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            mark(self._db, MARKER)
        except ForeignDatabaseError:
            self._db.close()
            os.close(self._lock_file)
            raise
        except (sqlite3.Error, OSError) as error:
            os.close(self._lock_file)
            raise StoreUnavailable(f"cannot open database {self.path!r}: {' '.join(str(error).split())}") from error
        self._depth = 0  # transaction() nesting

    def close(self) -> None:
        self._db.close()
        os.close(self._lock_file)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """``with store.transaction():`` commits the statements inside as one unit (or none of them).

        Nested uses join the outermost transaction. Raises `StoreUnavailable` (after rolling
        back) when a statement or the commit fails in the database.
        """
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._depth = 1
        try:
            self._db.execute("BEGIN IMMEDIATE")  # take the write lock now: a busy database fails here, cleanly
            yield
            self._commit()
        except BaseException as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            if isinstance(error, sqlite3.Error):
                raise StoreUnavailable(f"the database refused a write ({error}); nothing was changed, retry") from error
            raise
        finally:
            self._depth = 0

    def _commit(self) -> None:
        """End the current transaction (the one place writes become durable; tests inject failures here)."""
        self._db.execute("COMMIT")

    def _one(self, sql: str, params: Iterable[Any] = ()) -> Optional[sqlite3.Row]:
        row: Optional[sqlite3.Row] = self._db.execute(sql, tuple(params)).fetchone()
        return row

    def _all(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        return list(self._db.execute(sql, tuple(params)).fetchall())

    def _write(self, sql: str, params: Iterable[Any] = ()) -> int:
        with self.transaction():  # its own, unless inside a caller's
            cursor = self._db.execute(sql, tuple(params))
        return int(cursor.lastrowid or 0)

    def _execute(self, sql: str, params: Iterable[Any] = ()) -> None:
        with self.transaction():
            self._db.execute(sql, tuple(params))

    # users
    def add_user(self, username: str, email: str, affiliation: str, password_hash: str) -> int:
        return self._write(
            "INSERT INTO users (username, email, affiliation, password_hash) VALUES (?, ?, ?, ?)",
            (username, email, affiliation, password_hash),
        )

    def user_by_name(self, username: str) -> Optional[UserRow]:
        return _user(self._one("SELECT * FROM users WHERE username = ?", (username,)))

    def user_by_id(self, user_id: int) -> Optional[UserRow]:
        return _user(self._one("SELECT * FROM users WHERE id = ?", (user_id,)))

    def set_user_field(self, user_id: int, field: str, value: int) -> None:
        if field not in ("max_games", "ranked", "version"):
            raise ValueError(f"not a settable user field: {field!r}")
        self._write(f"UPDATE users SET {field} = ? WHERE id = ?", (value, user_id))

    def users(self) -> list[UserRow]:
        return [_user_checked(row) for row in self._all("SELECT * FROM users ORDER BY id")]

    # games
    def add_game(self, fields: dict[str, Any]) -> int:
        names = ", ".join(fields)
        marks = ", ".join("?" for _ in fields)
        return self._write(f"INSERT INTO games ({names}) VALUES ({marks})", fields.values())

    def game(self, game_id: int) -> Optional[sqlite3.Row]:
        return self._one("SELECT * FROM games WHERE id = ?", (game_id,))

    def open_game_ids(self) -> list[int]:
        return [int(row["id"]) for row in self._all("SELECT id FROM games WHERE over = 0 ORDER BY id")]

    def update_game(self, game_id: int, fields: dict[str, Any]) -> None:
        """Set columns of one game (inside a caller's transaction if there is one)."""
        assignments = ", ".join(f"{name} = ?" for name in fields)
        self._execute(f"UPDATE games SET {assignments} WHERE id = ?", (*fields.values(), game_id))

    def add_action(self, game_id: int, seq: int, action: Action) -> None:
        """Append one action (inside a caller's transaction if there is one)."""
        self._execute(
            "INSERT INTO actions (game_id, seq, kind, value) VALUES (?, ?, ?, ?)", (game_id, seq, action.kind, action.value)
        )

    def actions(self, game_id: int) -> list[Action]:
        rows = self._all("SELECT kind, value FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))
        return [Action(row["kind"], row["value"]) for row in rows]

    def ranked_pair_counts(self) -> dict[tuple[int, int], int]:
        """How many ranked games each ordered (white, black) pair of users has played or is playing."""
        rows = self._all("SELECT white_id, black_id, COUNT(*) AS n FROM games WHERE ranked = 1 GROUP BY white_id, black_id")
        return {(int(row["white_id"]), int(row["black_id"])): int(row["n"]) for row in rows}

    # invitations
    def add_invitation(self, game_id: int, recipient_id: int) -> int:
        return self._write("INSERT INTO invitations (game_id, recipient_id) VALUES (?, ?)", (game_id, recipient_id))

    def invitation(self, invitation_id: int) -> Optional[sqlite3.Row]:
        return self._one("SELECT * FROM invitations WHERE id = ?", (invitation_id,))

    def invitations_of_game(self, game_id: int) -> list[sqlite3.Row]:
        return self._all("SELECT * FROM invitations WHERE game_id = ? ORDER BY id", (game_id,))

    def pending_invitation_ids(self, recipient_id: int) -> list[int]:
        rows = self._all(
            "SELECT id FROM invitations WHERE recipient_id = ? AND status = 'pending' ORDER BY id", (recipient_id,)
        )
        return [int(row["id"]) for row in rows]

    def set_invitation_status(self, invitation_id: int, status: str) -> None:
        self._write("UPDATE invitations SET status = ? WHERE id = ?", (status, invitation_id))

    def cancel_unstarted_ranked_invitations(self, user_id: int) -> list[int]:
        """Abort the ranked games offered to `user_id` that neither player has accepted; returns their ids."""
        rows = self._all(
            "SELECT g.id FROM invitations i JOIN games g ON g.id = i.game_id WHERE i.recipient_id = ? "
            "AND i.status = 'pending' AND g.ranked = 1 AND g.over = 0 AND g.white_ready = 0 AND g.black_ready = 0 "
            "AND NOT EXISTS (SELECT 1 FROM invitations j WHERE j.game_id = g.id AND j.status != 'pending')",
            (user_id,),
        )
        game_ids = [int(row["id"]) for row in rows]
        for game_id in game_ids:
            self.abort_game(game_id)
        return game_ids

    def abort_game(self, game_id: int) -> None:
        """End a game that never started: no result, no rating; its open invitations are withdrawn."""
        with self.transaction():
            self._db.execute("UPDATE invitations SET status = 'cancelled' WHERE game_id = ? AND status = 'pending'", (game_id,))
            self._db.execute("UPDATE games SET over = 1, aborted = 1 WHERE id = ?", (game_id,))

    def busy_slots(self) -> dict[int, int]:
        """Per user, invitations not yet finished whose game is still open: the games that fill `max_games`."""
        rows = self._all(
            "SELECT i.recipient_id AS user_id, COUNT(*) AS n FROM invitations i JOIN games g ON g.id = i.game_id "
            "WHERE i.status != 'finished' AND g.over = 0 GROUP BY i.recipient_id"
        )
        return {int(row["user_id"]): int(row["n"]) for row in rows}

    # ratings
    def rating(self, user_id: int, version: int) -> Optional[RatingRow]:
        row = self._one("SELECT * FROM ratings WHERE user_id = ? AND version = ?", (user_id, version))
        if row is None:
            return None
        return RatingRow(float(row["elo"]), int(row["wins"]), int(row["draws"]), int(row["losses"]))

    def put_rating(self, user_id: int, version: int, rating: RatingRow) -> None:
        self._execute(
            "INSERT OR REPLACE INTO ratings (user_id, version, elo, wins, draws, losses) VALUES (?, ?, ?, ?, ?, ?)",
            (user_id, version, rating.elo, rating.wins, rating.draws, rating.losses),
        )

    def add_rated_game(self, game_id: int) -> None:
        """Remember the order in which ranked results entered the ratings (Elo depends on it)."""
        self._execute("INSERT INTO rated_games (game_id) VALUES (?)", (game_id,))

    # login throttling (see throttle.py): counts that outlive a restart
    def login_failures(self) -> dict[str, tuple[int, float]]:
        return {str(row["key"]): (int(row["count"]), float(row["last"])) for row in self._all("SELECT * FROM login_failures")}

    def put_login_failures(self, key: str, count: int, last: float) -> None:
        self._execute("INSERT OR REPLACE INTO login_failures (key, count, last) VALUES (?, ?, ?)", (key, count, last))

    def delete_login_failures(self, key: str) -> None:
        self._execute("DELETE FROM login_failures WHERE key = ?", (key,))

    def recent_games(self, limit: int) -> list[sqlite3.Row]:
        """The last `limit` finished games (withdrawn ones left out), newest first, with both usernames."""
        return self._all(
            "SELECT g.id, w.username AS white, b.username AS black, g.ranked, g.winner_color, g.win_reason FROM games g "
            "JOIN users w ON w.id = g.white_id JOIN users b ON b.id = g.black_id "
            "WHERE g.over = 1 AND g.aborted = 0 ORDER BY g.id DESC LIMIT ?",
            (limit,),
        )

    def rating_table(self) -> list[sqlite3.Row]:
        return self._all(
            "SELECT u.username, r.version, r.elo, r.wins, r.draws, r.losses FROM ratings r "
            "JOIN users u ON u.id = r.user_id ORDER BY r.elo DESC, u.username"
        )


def _lock(path: str) -> int:
    """Open the database file (created 0600) by its real path and ``flock`` it; `DatabaseInUse` if another process has it.

    The open descriptor holds the lock until it is closed (after SQLite's connection, see
    `Store.close`: closing any descriptor of the file would drop SQLite's own POSIX locks).
    """
    real = os.path.realpath(path)
    try:
        descriptor = os.open(real, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise StoreUnavailable(f"cannot open database {path!r}: {error.strerror}") from error
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _lock_holder(os.fstat(descriptor))
        os.close(descriptor)
        shown = repr(path) if real == os.path.abspath(path) else f"{path!r} (that is {real!r})"
        raise DatabaseInUse(
            f"database {shown} is in use by another blindchess server (process {holder}); one server per database"
        ) from None
    return descriptor


def _lock_holder(file: os.stat_result) -> str:
    """The pid holding a ``flock`` on `file`, from ``/proc/locks`` (Linux), else ``"unknown"``.

    A line reads ``1: FLOCK  ADVISORY  WRITE 1234 fe:00:2148767 0 EOF``: the pid, then the
    device (major and minor in hex) and the inode.
    """
    inode = f"{os.major(file.st_dev):02x}:{os.minor(file.st_dev):02x}:{file.st_ino}"
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return "unknown"
    for line in lines:
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == inode:
            return fields[4]
    return "unknown"


def _user(row: Optional[sqlite3.Row]) -> Optional[UserRow]:
    return None if row is None else _user_checked(row)


def _user_checked(row: sqlite3.Row) -> UserRow:
    return UserRow(
        id=int(row["id"]),
        username=str(row["username"]),
        password_hash=str(row["password_hash"]),
        max_games=int(row["max_games"]),
        ranked=bool(row["ranked"]),
        version=int(row["version"]),
    )
