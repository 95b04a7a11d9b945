"""`ScoreCache`: position values searched while the opponent thinks, for the selector's next turn.

Why: the flagship scores a position (one sampled board after one candidate move) with a
Stockfish search, hundreds a turn, and the boards of the next turn are mostly boards it
could already see coming: the opponent's quiet replies to positions it holds now. Pondering
(`StockfishMoveSelector.ponder`) searches the likeliest of them on the opponent's time and
stores the values here; the next turn's scoring takes a stored value instead of searching
again when the stored search was at least as strong as the one it would run. Pondering and the
fixed-depth coverage loop (`StockfishMoveSelector.cover`, whose values serve every later turn at its
depth) store; a timed turn's searches do not, so a bot that neither ponders nor covers scores every
position afresh, exactly as before the cache.

"At least as strong" compares limits of one kind: a depth-``d`` value answers a request for
depth ``d' <= d``, a ``t``-second value a request for ``t' <= t`` seconds. Other limits (nodes,
mixed) must match exactly. A longer search is not always a better estimate, but it is the one
the selector would have trusted had it had the time, which is all the cache promises.

Bounded: least recently used entries go first past `capacity`. Thread-safe, as the selector
scores on several engines at once (one thread each) and ponders on another thread.

>>> import chess, chess.engine
>>> cache = ScoreCache(capacity=2)
>>> board = chess.Board()
>>> cache.store(board, chess.WHITE, chess.engine.Limit(time=0.2), 0.1)
>>> cache.get(board, chess.WHITE, chess.engine.Limit(time=0.1)), cache.get(board, chess.WHITE, chess.engine.Limit(time=0.5))
(0.1, None)
>>> cache.lookups, cache.hits
(2, 1)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional, Union

import chess
import chess.engine

from blindchess.arbiter.types import Color

Strength = tuple[str, Union[float, str]]
"""A search limit's kind and size: ``("depth", 12)``, ``("time", 0.05)``, or ``("exact", repr(limit))``."""


def strength_of(limit: chess.engine.Limit) -> Strength:
    """The comparable part of `limit` (see the module docstring)."""
    if limit.depth is not None and limit.time is None and limit.nodes is None:
        return ("depth", float(limit.depth))
    if limit.time is not None and limit.depth is None and limit.nodes is None:
        return ("time", float(limit.time))
    return ("exact", repr(limit))


def covers(stored: Strength, requested: Strength) -> bool:
    """Whether a value searched at `stored` answers a request for `requested`."""
    if stored[0] != requested[0]:
        return False
    if stored[0] == "exact":
        return stored[1] == requested[1]
    return float(stored[1]) >= float(requested[1])


@dataclass(frozen=True, slots=True)
class _Entry:
    value: float
    strength: Strength


class ScoreCache:
    """Position values by position and side (see the module docstring).

    Args:
        capacity: the most positions kept (0: keep nothing).
    """

    def __init__(self, capacity: int = 65_536) -> None:
        if capacity < 0:
            raise ValueError(f"a score cache's capacity must be >= 0, got {capacity!r}")
        self.capacity = capacity
        self._entries: OrderedDict[tuple[str, Color], _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self.lookups = 0
        """Counted requests since the cache was made or last cleared with its counts."""
        self.hits = 0
        """Requests a stored value answered."""

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, board: chess.Board, color: Color, limit: chess.engine.Limit, *, counted: bool = True) -> Optional[float]:
        """The stored value of `board` for `color` if it was searched at least as strongly as `limit`, else None.

        `counted` False leaves the counts alone (pondering asking whether a search is needed).
        """
        if not self._entries:  # nothing kept (a selector that does not ponder): no key to build
            with self._lock:
                self.lookups += counted
            return None
        key = (board.epd(), color)
        with self._lock:
            entry = self._entries.get(key)
            found = entry is not None and covers(entry.strength, strength_of(limit))
            if counted:
                self.lookups += 1
                self.hits += found
            if not found or entry is None:
                return None
            self._entries.move_to_end(key)
            return entry.value

    def store(self, board: chess.Board, color: Color, limit: chess.engine.Limit, value: float) -> None:
        """Keep `value` (the search of `board` at `limit`) unless a stronger search of it is kept already."""
        if not self.capacity:
            return
        key, strength = (board.epd(), color), strength_of(limit)
        with self._lock:
            kept = self._entries.get(key)
            if kept is not None and covers(kept.strength, strength) and kept.strength != strength:
                return
            self._entries[key] = _Entry(value, strength)
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def clear(self, *, counts: bool = True) -> None:
        """Forget every position (a game ended), and the counts unless `counts` is False."""
        with self._lock:
            self._entries.clear()
            if counts:
                self.lookups = self.hits = 0
