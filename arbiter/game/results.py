"""Game results in words, and history files that never overwrite each other.

Every command that finishes a game (``blindchess match``, ``connect``, ``invite``, ``replay``)
reports it the same way and saves it the same way, so this lives once, in the arbiter.

>>> describe_result(True, WinReason.KING_CAPTURE, "flagship", "trout")
'white (flagship) won by king capture'
>>> describe_result(None, WinReason.TURN_LIMIT, "flagship", "trout")
'draw by the full-turn limit'
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Optional

import chess

from ..types import Color, WinReason
from .history import GameHistory

REASON_WORDS: dict[WinReason, str] = {
    WinReason.KING_CAPTURE: "king capture",
    WinReason.TIMEOUT: "timeout",
    WinReason.RESIGN: "resignation",
    WinReason.TURN_LIMIT: "the full-turn limit",
    WinReason.MOVE_LIMIT: "the reversible-move limit",
}
"""How each end reason reads in a sentence (``won by ...``, ``draw by ...``)."""


def describe_result(winner: Optional[Color], reason: Optional[WinReason], white_name: str, black_name: str) -> str:
    """``white (NAME) won by king capture``, ``draw by the full-turn limit``, or ``no result`` (a withdrawn game)."""
    if reason is None:
        return "no result" if winner is None else f"{chess.COLOR_NAMES[winner]} ({white_name if winner else black_name}) won"
    words = REASON_WORDS[reason]
    if winner is None:
        return f"draw by {words}"
    return f"{chess.COLOR_NAMES[winner]} ({white_name if winner else black_name}) won by {words}"


def safe_file_name(text: str) -> str:
    """`text` with every character but letters, digits, ``-`` and ``_`` replaced by ``_``, at most 40 long."""
    return "".join(character if character.isalnum() or character in "-_" else "_" for character in text)[:40]


def run_stamp() -> str:
    """``<UTC time to the microsecond>Z-<pid>``: the prefix of a run's history files, unique per process."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ") + f"-{os.getpid()}"


def unique_history_path(folder: Path, stem: str) -> Path:
    """A new, exclusively created file ``<stem>.json`` in `folder` (``<stem>-1.json``, ... if taken)."""
    folder.mkdir(parents=True, exist_ok=True)
    for attempt in range(1000):
        path = folder / (f"{stem}.json" if attempt == 0 else f"{stem}-{attempt}.json")
        try:
            with open(path, "x"):
                return path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free file name for {stem!r} in {folder}")


def player_names(history: GameHistory) -> tuple[str, str]:
    """The white and black players' names in `history` (``"white"``/``"black"`` where it has none)."""
    return history.get_white_player_name() or "white", history.get_black_player_name() or "black"


def save_history(history: GameHistory, folder: Path, label: str) -> Path:
    """Save `history` in `folder` as ``<run stamp>-<label>-<white>-vs-<black>.json`` (a new file); its path."""
    white, black = (safe_file_name(name) for name in player_names(history))
    path = unique_history_path(folder, f"{run_stamp()}-{label}-{white}-vs-{black}")
    history.save(str(path))
    return path
