"""Game (and invitation) ids as text: a positive integer in its canonical digits, or refused.

Python's ``int`` and pydantic read ``" 1"``, ``"+1"``, ``"01"`` and ``"1_0"`` (as 10), pydantic
``"1.0"`` too, and ``str.isdigit`` passes ``"01"`` and the Arabic-Indic digit one (U+0661): each a second spelling of a
game. Every place that reads a game id from text (the server's routes, the viewer's
``server-N`` records, ``imcs --accept`` and the IMCS server's ``accept``) takes only the one
spelling ``str(n)`` gives, so an id in a log, a URL or a file name is the same everywhere.
Imports only `blindchess.errors`, so every layer may use it.

>>> parse_game_id("12")
12
>>> parse_game_id("1.0")
Traceback (most recent call last):
...
blindchess.ids.GameIdError: an id is a positive whole number in digits, like 12 (no sign, spaces, leading zeros or decimals), got '1.0'
"""

from __future__ import annotations

import re

from blindchess.errors import BlindchessError

RULE = "an id is a positive whole number in digits, like 12 (no sign, spaces, leading zeros or decimals)"
"""What a game id must look like, as every refusal says it."""

_CANONICAL = re.compile(r"[1-9][0-9]{0,18}")
"""At most 19 digits: every id below 10**19 (the server's go up to 2**62)."""


class GameIdError(BlindchessError, ValueError):
    """Text that is not a game id in its canonical digits."""


def is_canonical_id(text: str) -> bool:
    """Whether `text` is ``str(n)`` of a positive integer below 10**19 (ASCII digits, no zero in front)."""
    return _CANONICAL.fullmatch(text) is not None


def parse_game_id(text: str) -> int:
    """The game id `text` spells.

    Raises:
        GameIdError: `text` is anything but the canonical digits (see the module docstring).
    """
    if not is_canonical_id(text):
        raise GameIdError(f"{RULE}, got {text!r}")
    return int(text)
