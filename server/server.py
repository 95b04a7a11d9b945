"""Running the server: uvicorn on a loopback socket, plus the housekeeping thread.

The housekeeping thread calls :meth:`Service.tick` a few times a second: it ends
games whose clock ran out even when nobody asks about them, and runs the ranked
scheduler. :class:`ServerThread` runs the whole server inside the current process
(tests, benchmarks); ``blindchess serve`` runs it in the foreground.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Optional

import uvicorn
from starlette.types import ASGIApp

from blindchess.server.app import build_app
from blindchess.server.database import Store
from blindchess.server.service import ServerConfig, Service

logger = logging.getLogger(__name__)

TICK_SECONDS = 0.25


class Housekeeper(threading.Thread):
    """Calls ``service.tick()`` every `interval` seconds until stopped."""

    def __init__(self, service: Service, interval: float = TICK_SECONDS) -> None:
        super().__init__(name="blindchess-housekeeper", daemon=True)
        self.service = service
        self.interval = interval
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            try:
                self.service.tick()
            except Exception:  # keep the server alive; the next tick retries
                logger.exception("housekeeping failed")

    def stop(self) -> None:
        self._stop_event.set()


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0 picks a free one)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Inherited by accepted connections: without it a response written in two pieces waits
    # for the client's delayed ACK (~40 ms per request on loopback).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    sock.listen(1024)
    return sock


AppBuilder = Callable[[Service], ASGIApp]
"""Builds the application a server runs over its service: `build_app`, or one that adds pages (the viewer's)."""


def make_server(service: Service, access_log: bool = False, build: AppBuilder = build_app) -> uvicorn.Server:
    """uvicorn over `build(service)`; ``X-Forwarded-For`` is believed only from the configured proxies.

    (uvicorn's default believes it from 127.0.0.1, so any local client could pick the address
    the login throttle counts against.)
    """
    proxies = list(service.config.trusted_proxies)
    config = uvicorn.Config(
        build(service),
        log_level="warning",
        access_log=access_log,
        lifespan="off",
        timeout_keep_alive=30,
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies or None,
    )
    return uvicorn.Server(config)


def serve(
    db_path: str | Path,
    host: str,
    port: int,
    config: ServerConfig,
    announce: Optional[Callable[[str], None]] = None,
    build: AppBuilder = build_app,
    store_class: Callable[[str | Path], Store] = Store,
) -> None:
    """Serve until interrupted (Ctrl-C / SIGTERM): the `blindchess serve` command (`store_class`: tests inject faults)."""
    store = store_class(db_path)
    try:
        service = Service(store, config)
        sock = bind(host, port)
    except BaseException:
        store.close()
        raise
    housekeeper = Housekeeper(service)
    housekeeper.start()
    if announce is not None:
        announce(f"http://{host}:{sock.getsockname()[1]}")
    try:
        make_server(service, build=build).run(sockets=[sock])
    finally:
        housekeeper.stop()
        store.close()


class UvicornThread:
    """A uvicorn `server` on a free port of `host` in a background thread: ``with UvicornThread(server) as running: running.url``."""

    def __init__(self, server: uvicorn.Server, host: str = "127.0.0.1") -> None:
        self._sock = bind(host, 0)
        self.url = f"http://{host}:{self._sock.getsockname()[1]}"
        self._server = server
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def __enter__(self) -> UvicornThread:
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"the {type(self).__name__}'s thread died while starting")
            threading.Event().wait(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


class ServerThread(UvicornThread):
    """A real server on 127.0.0.1 in a background thread: ``with ServerThread(db) as server: server.url``."""

    def __init__(
        self, db_path: str | Path, config: ServerConfig = ServerConfig(), host: str = "127.0.0.1", build: AppBuilder = build_app
    ) -> None:
        self.store = Store(db_path)
        self.service = Service(self.store, config)
        super().__init__(make_server(self.service, build=build), host)
        self._housekeeper = Housekeeper(self.service)

    def __enter__(self) -> ServerThread:
        self._housekeeper.start()
        super().__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        super().__exit__()
        self._housekeeper.stop()
        self._housekeeper.join(timeout=5)
        self.store.close()
