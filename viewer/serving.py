"""Running the viewer: uvicorn on a socket bound to loopback unless told otherwise.

`AppThread` runs any ASGI application in a background thread of this process (tests,
the benchmark); `run_foreground` is what `blindchess view` calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional

import uvicorn
from starlette.types import ASGIApp

from blindchess.server.server import UvicornThread, bind


def _server(app: ASGIApp) -> uvicorn.Server:
    return uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", timeout_keep_alive=30))


def run_foreground(app: ASGIApp, host: str, port: int, announce: Optional[Callable[[str], None]] = None) -> None:
    """Serve `app` until interrupted; `announce` gets the URL once the socket is bound."""
    sock = bind(host, port)
    if announce is not None:
        announce(f"http://{host}:{sock.getsockname()[1]}")
    _server(app).run(sockets=[sock])


class AppThread(UvicornThread):
    """`app` served on 127.0.0.1 (a free port) in a background thread: ``with AppThread(app) as running: running.url``."""

    def __init__(self, app: ASGIApp, host: str = "127.0.0.1") -> None:
        super().__init__(_server(app), host)
