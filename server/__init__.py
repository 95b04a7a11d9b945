"""Remote play: a reconchess-compatible game server and a client for it.

The server (:mod:`.server`, ``blindchess serve``) speaks reconchess's HTTP API, so
the official ``rc-connect`` and ``RemoteGame`` play on it unchanged; games are
adjudicated by the arbiter, with server-side clocks, and stored in SQLite as they
happen. The client (:mod:`.client`, ``blindchess connect`` / ``blindchess invite``)
plugs any of our bots, or any reconchess bot, into such a server.

Layers, each usable alone: :mod:`.store` (SQLite) -> :mod:`.match` (one game) ->
:mod:`.service` (accounts, invitations, ranked scheduler, Elo) -> :mod:`.app` (HTTP).
"""

from __future__ import annotations

from blindchess.server.database import Store
from blindchess.server.errors import (
    InvalidRequest,
    NotAPlayer,
    NotAuthenticated,
    NotFound,
    RemotePlayError,
    UsernameTaken,
)
from blindchess.server.service import ServerConfig, Service

__all__ = [
    "InvalidRequest",
    "NotAPlayer",
    "NotAuthenticated",
    "NotFound",
    "RemotePlayError",
    "ServerConfig",
    "Service",
    "Store",
    "UsernameTaken",
]
