"""Running the viewer: uvicorn on a socket bound to loopback unless told otherwise.

`AppThread` runs any ASGI application in a background thread of this process (tests,
the benchmark); `run_foreground` is what `blindchess view` calls.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Optional

import uvicorn
from starlette.types import ASGIApp

from blindchess.server.server import bind


def _server(app: ASGIApp) -> uvicorn.Server:
    return uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", timeout_keep_alive=30))


def run_foreground(app: ASGIApp, host: str, port: int, announce: Optional[Callable[[str], None]] = None) -> None:
    """Serve `app` until interrupted; `announce` gets the URL once the socket is bound."""
    sock = bind(host, port)
    if announce is not None:
        announce(f"http://{host}:{sock.getsockname()[1]}")
    _server(app).run(sockets=[sock])


class AppThread:
    """`app` served on 127.0.0.1 (a free port) in a background thread: ``with AppThread(app) as running: running.url``."""

    def __init__(self, app: ASGIApp, host: str = "127.0.0.1") -> None:
        self._sock = bind(host, 0)
        self.url = f"http://{host}:{self._sock.getsockname()[1]}"
        self._server = _server(app)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def __enter__(self) -> AppThread:
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the viewer thread died while starting")
            threading.Event().wait(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
