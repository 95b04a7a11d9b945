"""The root of every exception blindchess raises on purpose (`blindchess.errors`).

It lives in the root package, below every layer, so that the arbiter and everything above it
can derive from it without importing anything else.

Every error class of every blindchess package derives from `BlindchessError`, so a caller
can catch ours without catching everything (``except BlindchessError``). Where the input
was bad the class is also a `ValueError` (python-chess's habit), and classes that already
were an `OSError`, `LookupError` or `PermissionError` keep that base too, so existing
``except ValueError`` callers keep working.

One deliberate exception: `blindchess.arbiter.sandbox.watchdog.BotDeadlineExceeded` is a
`BaseException`, not an `Exception`, so that a bot's own ``except Exception`` cannot swallow
the arbiter's interrupt; it is not a `BlindchessError` (that would make it an `Exception`).

>>> from blindchess.errors import BlindchessError
>>> from blindchess.arbiter.game.history import HistoryFormatError
>>> issubclass(HistoryFormatError, BlindchessError) and issubclass(HistoryFormatError, ValueError)
True
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class BlindchessError(Exception):
    """Base class of blindchess's own exceptions."""


def did_you_mean(word: str, choices: Iterable[str], n: int = 1, prefix: str = "") -> str:
    """`` (did you mean 'x'?)`` for the `n` closest of `choices` to a misspelt `word`, or nothing.

    Every "unknown name" message of blindchess ends with this hint, so a user meets one wording.
    `prefix` is put before each suggestion but left out of the comparison (a table's dotted name:
    a shared prefix would make every name look close).

    >>> did_you_mean("trot", ["trout", "random"])
    " (did you mean 'trout'?)"
    >>> did_you_mean("selector.bords", ["selector.boards", "selector.max_boards"], n=2)
    " (did you mean 'selector.boards' or 'selector.max_boards'?)"
    >>> did_you_mean("bords", ["boards", "hunt.boards"], prefix="selector.")
    " (did you mean 'selector.boards'?)"
    >>> did_you_mean("xyz", ["trout"])
    ''
    """
    close = difflib.get_close_matches(word, list(choices), n=n)
    return f" (did you mean {' or '.join(repr(prefix + name) for name in close)}?)" if close else ""
