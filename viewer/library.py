"""The games a viewer can show: history files on disk, games played in the browser, and a server's games.

Every game has a short id used in its URL (``/game/<id>``). Files are found once, when
the library is built (a folder is searched for ``*.json``), and parsed when first
shown; a file that is not a history (corrupt, truncated, some other JSON) stays in the
list with the parser's message, so the page can say what is wrong with it instead of
failing. A game played in the browser is saved into the library's folder as a
reconchess history file (with its clocks beside it) and appears in the list like any
other.

Only what the served folder holds is shown: a file (or a link) whose real path lies outside
it stays in the list with that error and is never read, and so does anything that is not a
regular file (a FIFO named ``x.json`` would block the reader forever) or is over
`MAX_HISTORY_BYTES` (see :func:`blindchess.files.read_regular_file`).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import chess

from blindchess.arbiter.game.history import GameHistory, HistoryFormatError
from blindchess.arbiter.game.results import describe_result
from blindchess.errors import BlindchessError
from blindchess.files import read_regular_file

logger = logging.getLogger(__name__)

CLOCKS_SUFFIX = ".clocks.json"
"""A played game's clocks (seconds left per side at each ply) sit beside its history in ``<name>.clocks.json``."""
MAX_HISTORY_BYTES = 16 * 2**20
"""The most of a history (or clocks) file read: a game of a thousand plies is a few hundred kB."""


class UnknownGameError(BlindchessError, ValueError):
    """No game with this id; the message quotes the id."""


class UnreadableGameError(BlindchessError, ValueError):
    """The game's file is not a readable history; the message names the file and the problem."""


class OutsideFolderError(BlindchessError, ValueError):
    """A file of the served folder is a link to a path outside it; the message names both."""


@dataclass
class GameEntry:
    """One game of the library: where it comes from, and its history once loaded."""

    game_id: str
    label: str
    path: Optional[Path] = None
    loader: Optional[Callable[[], GameHistory]] = None
    history: Optional[GameHistory] = None
    clocks: Optional[list[list[float]]] = None
    error: Optional[str] = None
    live: bool = False
    """A game still being played (a server game in progress): reloaded on every request."""

    def summary(self) -> dict[str, Any]:
        item: dict[str, Any] = {"id": self.game_id, "label": self.label, "error": self.error, "live": self.live}
        if self.history is not None:
            reason, winner = self.history.get_win_reason(), self.history.get_winner_color()
            white, black = self.history.get_white_player_name(), self.history.get_black_player_name()
            item.update(
                white=white,
                black=black,
                plies=self.history.num_turns(),
                winner=None if winner is None else chess.COLOR_NAMES[winner],
                win_reason=None if reason is None else reason.name,
                result="in progress" if self.live else describe_result(winner, reason, white or "?", black or "?"),
            )
        return item


def _slug(text: str) -> str:
    """A URL-safe id from a file name.

    >>> _slug("games/Trout vs Random #3.json")
    'games-trout-vs-random-3'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.removesuffix(".json").lower()).strip("-") or "game"


@dataclass
class GameLibrary:
    """The games on show. `folder` is where games played in the browser are saved (None: not saved)."""

    folder: Optional[Path] = None
    served: Optional[Path] = None
    """The folder on show (its real path): files whose real path is outside it are not read."""
    resolver: Optional[Callable[[str], bool]] = None
    """Asked about an id the library does not know (a server game opened by URL); True if it added it."""
    _entries: dict[str, GameEntry] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_path(cls, path: Optional[Path], save_folder: Optional[Path] = None) -> GameLibrary:
        """The games in `path` (a history file, or a folder searched recursively for ``*.json``).

        Raises:
            FileNotFoundError: `path` does not exist.
        """
        if path is None:
            return cls(save_folder)
        if not path.exists():
            raise FileNotFoundError(f"no such file or folder: {str(path)!r}")
        if path.is_file():
            library = cls(save_folder)
            library.add_file(path, path.name)
            return library
        library = cls(save_folder if save_folder is not None else path, served=path.resolve())
        for file in sorted(path.rglob("*.json")):
            if not file.name.endswith(CLOCKS_SUFFIX):
                library.add_file(file, str(file.relative_to(path)))
        return library

    def _unique_id(self, base: str) -> str:
        game_id, n = base, 2
        while game_id in self._entries:
            game_id, n = f"{base}-{n}", n + 1
        return game_id

    def add_file(self, path: Path, label: str) -> str:
        with self._lock:
            game_id = self._unique_id(_slug(label))
            self._entries[game_id] = GameEntry(game_id, label, path=path)
        return game_id

    def add_history(self, history: GameHistory, label: str, clocks: Optional[list[list[float]]] = None) -> str:
        """Add a finished game (saved into `folder` when there is one); returns its id."""
        path = None
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self.folder / f"{label}.json"
            history.save(str(path))
            if clocks is not None:
                (self.folder / f"{label}{CLOCKS_SUFFIX}").write_text(json.dumps({"clocks": clocks}))
            logger.info("saved %s", path)
        with self._lock:
            game_id = self._unique_id(_slug(label))
            self._entries[game_id] = GameEntry(game_id, label, path=path, history=history, clocks=clocks)
        return game_id

    def set_source(self, game_id: str, label: str, loader: Callable[[], GameHistory], live: bool) -> None:
        """Add a game read by `loader` (a server's game; `live` ones are read again on each request).

        A game already known keeps its entry unless it is live (a finished game is read once).
        """
        with self._lock:
            known = self._entries.get(game_id)
            if known is None or known.live:
                self._entries[game_id] = GameEntry(game_id, label, loader=loader, live=live)

    def entries(self) -> list[GameEntry]:
        with self._lock:
            entries = list(self._entries.values())
        for entry in entries:
            if entry.history is None and entry.error is None and not entry.live:
                self._load(entry)
        return entries

    def entry(self, game_id: str) -> GameEntry:
        """The game `game_id`, loaded.

        Raises:
            UnknownGameError: no such id.
            UnreadableGameError: its file is not a history.
        """
        with self._lock:
            entry = self._entries.get(game_id)
        if entry is None and self.resolver is not None and self.resolver(game_id):
            with self._lock:
                entry = self._entries.get(game_id)
        if entry is None:
            raise UnknownGameError(f"no game with id {game_id!r}")
        if entry.live or (entry.history is None and entry.error is None):
            self._load(entry)
        if entry.error is not None:
            raise UnreadableGameError(entry.error)
        return entry

    def history(self, game_id: str) -> GameHistory:
        history = self.entry(game_id).history
        assert history is not None, "entry() returns loaded games"
        return history

    def _load(self, entry: GameEntry) -> None:
        try:
            if entry.loader is not None:
                entry.history = entry.loader()
            elif entry.path is not None:
                text = self._read(entry.path).decode("utf-8")
                entry.history = GameHistory.from_json(text, source=f"history file {str(entry.path)!r}")
                entry.clocks = self._read_clocks(entry.path)
        except UnicodeDecodeError as error:
            entry.error = f"history file {str(entry.path)!r} is not text: {error}"
            logger.warning("cannot show %s: %s", entry.label, entry.error)
        except (HistoryFormatError, OutsideFolderError, OSError) as error:
            entry.error = str(error)
            logger.warning("cannot show %s: %s", entry.label, error)

    def _read(self, path: Path) -> bytes:
        """The bytes of `path`, if its real path is in the served folder and it is a regular file of a bounded size.

        Raises:
            OutsideFolderError: a link out of the served folder.
            UnsafeFileError: not a regular file, or over `MAX_HISTORY_BYTES`.
            OSError: it cannot be read.
        """
        real = path.resolve()
        if self.served is not None and not real.is_relative_to(self.served):
            raise OutsideFolderError(f"{path}: a link to {real}, outside the folder on show ({self.served}); not read")
        return read_regular_file(real, MAX_HISTORY_BYTES)

    def _read_clocks(self, history_path: Path) -> Optional[list[list[float]]]:
        """The clocks saved beside a played game, if any (a bad clocks file is ignored: the game still shows)."""
        if not history_path.name.endswith(".json"):
            return None
        path = history_path.with_name(history_path.name[: -len(".json")] + CLOCKS_SUFFIX)
        try:
            clocks = json.loads(self._read(path))["clocks"]
        except (OSError, ValueError, KeyError, TypeError):  # OutsideFolderError is a ValueError
            return None
        if isinstance(clocks, list) and all(isinstance(pair, list) and len(pair) == 2 for pair in clocks):
            return clocks
        return None
