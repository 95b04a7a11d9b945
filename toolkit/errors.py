"""The root of every exception blindchess raises on purpose (`blindchess.errors`).

It lives in the root package, below every layer, so that the arbiter and everything above it
can derive from it without importing anything else.

Every error class of every blindchess package derives from `BlindchessError`, so a caller
can catch ours without catching everything (``except BlindchessError``). Where the input
was bad the class is also a `ValueError` (python-chess's habit), and classes that already
were an `OSError`, `LookupError` or `PermissionError` keep that base too, so existing
``except ValueError`` callers keep working.

One deliberate exception: `blindchess.arbiter.watchdog.BotDeadlineExceeded` is a
`BaseException`, not an `Exception`, so that a bot's own ``except Exception`` cannot swallow
the arbiter's interrupt; it is not a `BlindchessError` (that would make it an `Exception`).

>>> from blindchess.errors import BlindchessError
>>> from blindchess.arbiter.history import HistoryFormatError
>>> issubclass(HistoryFormatError, BlindchessError) and issubclass(HistoryFormatError, ValueError)
True
"""

from __future__ import annotations


class BlindchessError(Exception):
    """Base class of blindchess's own exceptions."""
