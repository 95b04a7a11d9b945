"""`server/client.py`: a POST whose connection broke may have reached the server; its retry's refusal says so.

A real HTTP server on loopback that drops the first connection of each request without an answer (as a server
killed after it stored the request does) and refuses the retry as the game server refuses an action out of turn.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from blindchess.server.client import RefusedAfterOutage, RemoteGame, RetryPolicy, ServerRefused, ServerSession


class DropsThenRefuses(BaseHTTPRequestHandler):
    """Drops the first try of each path (no answer at all), then answers 400 with the path's refusal."""

    seen: ClassVar[set[str]] = set()
    refusal: ClassVar[str] = "game 1 expects sense from you now, not end_turn"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path.endswith("/fresh") or self.path in self.seen:
            body = json.dumps({"error": self.refusal if self.path.endswith("end_turn") else "game 1 is over"}).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.seen.add(self.path)
        self.close_connection = True  # the answer never comes: the client sees the connection break

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    DropsThenRefuses.seen = set()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), DropsThenRefuses)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_an_end_turn_the_server_took_before_the_outage_is_not_an_error(server: str) -> None:
    session = ServerSession(server, "white", "pw", RetryPolicy(patience=5.0, first_delay=0.01, max_delay=0.05))
    RemoteGame(session, 1).end_turn()  # the retry is refused as out of turn: the first try ended it
    assert "/api/games/1/end_turn" in DropsThenRefuses.seen


def test_other_refusals_after_an_outage_and_any_refusal_without_one_still_raise(server: str) -> None:
    session = ServerSession(server, "white", "pw", RetryPolicy(patience=5.0, first_delay=0.01, max_delay=0.05))
    with pytest.raises(RefusedAfterOutage, match="game 1 is over"):
        RemoteGame(session, 1).resign()  # broke, then refused for another reason: the caller must hear it
    with pytest.raises(ServerRefused) as refused:
        session.post("/api/games/1/fresh")  # refused at the first try: nothing was lost, an ordinary refusal
    assert type(refused.value) is ServerRefused
