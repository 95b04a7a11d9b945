"""Errors of the remote-play server, each mapped to one HTTP status by the web layer.

They subclass the built-in exception that says what went wrong (bad input is a
`ValueError`), so library callers can catch them without knowing HTTP.
"""

from __future__ import annotations

from blindchess.errors import BlindchessError


class RemotePlayError(BlindchessError):
    """Base class; `status` is the HTTP status the web layer answers with."""

    status = 500


class InvalidRequest(RemotePlayError, ValueError):
    """The request names a bad value or comes at the wrong time (HTTP 400)."""

    status = 400


class NotAuthenticated(RemotePlayError, PermissionError):
    """No credentials, or wrong ones (HTTP 401)."""

    status = 401


class NotAPlayer(RemotePlayError, PermissionError):
    """The user asked about a game or invitation that is not theirs (HTTP 403)."""

    status = 403


class NotFound(RemotePlayError, LookupError):
    """No game, invitation or user with that id or name (HTTP 404)."""

    status = 404


class GameInProgress(RemotePlayError):
    """A spectator asked for a game's record while it runs: it is public once the game ends (HTTP 403).

    Not a `PermissionError`: that is an `OSError`, which readers of history files take for an unreadable file.
    """

    status = 403


class UsernameTaken(RemotePlayError, ValueError):
    """Registration under a name that is already in use (HTTP 409)."""

    status = 409


class TooManyAttempts(RemotePlayError, PermissionError):
    """Too many failed logins for this user or from this address lately (HTTP 429, with Retry-After)."""

    status = 429

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class StoreUnavailable(RemotePlayError, OSError):
    """The database refused a write (locked, full, failing): nothing changed; retry (HTTP 503, with Retry-After)."""

    status = 503
    retry_after = 1.0


class DatabaseInUse(BlindchessError, OSError):
    """Another server already serves this database file (one server per database)."""
