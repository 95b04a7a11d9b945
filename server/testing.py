"""Real servers for tests and benchmarks: a server in a subprocess, and account helpers.

:class:`ServerProcess` runs ``python -m blindchess serve`` on 127.0.0.1 as a separate
process (so a test can kill it with SIGKILL and start it again on the same database
and port); :class:`~.server.ServerThread` runs one inside the current process.

Fault injection: ``ServerProcess(..., fail_commits=0.1)`` runs the same server through
``python -m blindchess.server.testing``, whose `FlakyStore` rolls back about that share of
its commits and reports them as failed writes, as a full or failing disk would. It is a
test tool only: ``blindchess serve`` never loads it.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Optional
from urllib.parse import urlsplit

from blindchess.server.client import ServerSession
from blindchess.server.database import Store


class FlakyStore(Store):
    """A store whose commits fail at random (rolled back, then raised as the database would)."""

    def __init__(self, path: str | Path, fail_share: float, seed: Optional[int] = None) -> None:
        super().__init__(path)
        self.fail_share = fail_share
        self._rng = random.Random(seed)
        self.failures = 0

    def _commit(self) -> None:
        if self._rng.random() < self.fail_share:
            self.failures += 1
            raise sqlite3.OperationalError("injected commit failure")
        super()._commit()


def main(argv: Optional[list[str]] = None) -> None:
    """``python -m blindchess.server.testing --fail-commits P [--seed S] SERVE-ARGUMENTS``: a flaky server."""
    from blindchess.cli import build_parser
    from blindchess.server.server import serve
    from blindchess.server.service import ServerConfig

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--fail-commits", type=float, required=True)
    parser.add_argument("--seed", type=int, default=None)
    own, rest = parser.parse_known_args(argv)
    args = build_parser().parse_args(["serve", *rest])
    config = ServerConfig.from_arguments(args)

    def flaky(path: str | Path) -> Store:
        return FlakyStore(path, own.fail_commits, own.seed)

    serve(
        args.db,
        args.host,
        args.port,
        config,
        lambda url: print(f"serving on {url} (database {args.db})", flush=True),
        store_class=flaky,
    )


def register(url: str, names: list[str], password_prefix: str = "pw-") -> dict[str, ServerSession]:
    """Register each name (password = prefix + name) and return a session per name."""
    sessions = {}
    for name in names:
        session = ServerSession(url, name, password_prefix + name)
        session.register()
        sessions[name] = session
    return sessions


def trickled_post_answer(url: str, path: str, length: int = 200, every: float = 0.25, wait: float = 15.0) -> bytes:
    """POST `length` body bytes to `url` + `path` one every `every` s; return what the server answers before it hangs up.

    A slow sender, as a hostile client would be: a server with a body deadline answers 408
    and closes long before the body is done. Raises ``socket.timeout`` if the server sends
    nothing for `wait` s. A reset after the answer counts as the end: the server closes with
    the trickled bytes unread, so its kernel ends the connection with a reset, not a FIN
    (Linux keeps the answer readable before it reports the reset).
    """
    where = urlsplit(url)
    assert where.hostname is not None and where.port is not None
    connection = socket.create_connection((where.hostname, where.port), timeout=wait)
    stop = threading.Event()

    def trickle() -> None:
        try:
            for _ in range(length):
                if stop.wait(every):
                    return
                connection.sendall(b" ")
        except OSError:
            return

    sender = threading.Thread(target=trickle)
    answer = b""
    try:
        connection.sendall(f"POST {path} HTTP/1.1\r\nHost: {where.hostname}\r\nContent-Length: {length}\r\n\r\n".encode())
        sender.start()
        while chunk := connection.recv(4096):
            answer += chunk
    except ConnectionResetError:
        pass
    finally:
        stop.set()
        if sender.is_alive():
            sender.join()
        connection.close()
    return answer


class ServerProcess:
    """``blindchess serve`` in a child process on 127.0.0.1; `output` collects what it printed."""

    def __init__(
        self, db_path: str | Path, port: int = 0, extra_args: tuple[str, ...] = (), fail_commits: float = 0.0
    ) -> None:
        self.db_path = str(db_path)
        self.fail_commits = fail_commits
        self.port = port
        self.extra_args = extra_args
        self.output: list[str] = []
        self.url = ""
        self._process: Optional[subprocess.Popen[str]] = None

    def start(self, timeout: float = 60.0) -> ServerProcess:
        entry = (
            ["blindchess.server.testing", "--fail-commits", str(self.fail_commits)]
            if self.fail_commits
            else ["blindchess", "-v", "serve"]
        )
        command = [
            sys.executable,
            "-m",
            *entry,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--db",
            self.db_path,
            *self.extra_args,
        ]
        self._process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        started = threading.Event()
        threading.Thread(target=self._read_output, args=(self._process, started), daemon=True).start()
        if not started.wait(timeout):
            self.kill()
            raise RuntimeError("server did not start:\n" + "".join(self.output))
        if not self.url:
            raise RuntimeError("server exited while starting:\n" + "".join(self.output))
        self.port = int(self.url.rsplit(":", 1)[1])
        return self

    def _read_output(self, process: subprocess.Popen[str], started: threading.Event) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self.output.append(line)
            if line.startswith("serving on "):
                self.url = line.split()[2]
                started.set()
        started.set()

    @property
    def pid(self) -> int:
        """The server process's id (it names it when it refuses a second server on its database)."""
        assert self._process is not None
        return self._process.pid

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server process has used so far; Linux only (reads /proc)."""
        assert self._process is not None
        fields = Path(f"/proc/{self._process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill(self) -> None:
        """SIGKILL: the server gets no chance to clean up (a crash)."""
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=30)

    def crash_when(self, ready: Callable[[], bool], timeout: float, outage: float) -> None:
        """Wait (at most `timeout` s) until `ready()`, then SIGKILL the server and restart it `outage` s later.

        Raises:
            TimeoutError: `ready()` never held, so the crash would have tested nothing.
        """
        deadline = time.monotonic() + timeout
        while not ready():
            if time.monotonic() > deadline:
                raise TimeoutError(f"the condition for crashing the server did not hold within {timeout} s")
            time.sleep(0.05)
        self.kill()
        time.sleep(outage)
        self.start()

    def stop(self) -> None:
        """SIGTERM, as an operator would; waits for the process to exit."""
        if self._process is not None and self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=30)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


if __name__ == "__main__":
    main()
