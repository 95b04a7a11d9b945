"""Names spelled another way, and request bodies that never finish (issue 33, lesser items).

Was: an invitation by the NFD spelling of a registered name answered 404; a name made of one
combining mark was accepted; a body sent a byte at a time held its connection open for as long
as the sender liked (60 s and more). Against a real ``blindchess serve`` on loopback, with a
1 s body deadline so that the test is quick.
"""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from urllib.parse import urlsplit

import chess
import requests

from blindchess.server.testing import ServerProcess, register


def trickle(connection: socket.socket, stop: threading.Event) -> None:
    """Send the body a byte every 0.25 s (200 bytes: 50 s) until the server hangs up."""
    try:
        for _ in range(200):
            if stop.wait(0.25):
                return
            connection.sendall(b" ")
    except OSError:
        return


def test_nfd_invitations_single_mark_names_and_slow_bodies(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "server.sqlite3", extra_args=("--body-timeout", "1")) as server:
        sessions = register(server.url, ["Zoë", "bob"])
        assert sessions["bob"].invite("Zoe\u0308", chess.WHITE) >= 1  # the NFD spelling of Zoë
        for mark in ("\u0301", "\u0301abc"):
            refused = requests.post(f"{server.url}/api/users/", data=json.dumps({"username": mark, "password": "x"}), timeout=30)
            assert refused.status_code == 400 and "combining mark" in refused.json()["error"], refused.text

        where = urlsplit(server.url)
        assert where.hostname is not None and where.port is not None
        connection = socket.create_connection((where.hostname, where.port), timeout=15)
        stop = threading.Event()
        sender = threading.Thread(target=trickle, args=(connection, stop))
        try:
            connection.sendall(b"POST /api/users/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 200\r\n\r\n")
            sender.start()
            answer = b""
            try:
                while chunk := connection.recv(4096):  # a socket.timeout here: the server held on for 15 s
                    answer += chunk
            except ConnectionResetError:
                # The server closed with trickled bytes unread, so its kernel ended the connection
                # with a reset after the answer, not a FIN: the answer is still read above (Linux
                # keeps received data readable before it reports the reset), and the asserts
                # below fail if it was not. Seen once in CI, under load.
                pass
        finally:
            stop.set()
            if sender.is_alive():
                sender.join()
            connection.close()
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert b"request body not received within 1 s" in answer
        assert requests.get(f"{server.url}/api/version", timeout=30).ok  # and the server serves on
