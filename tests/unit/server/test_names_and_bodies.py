"""Names spelled another way, and request bodies that never finish (issue 33, lesser items).

Was: an invitation by the NFD spelling of a registered name answered 404; a name made of one
combining mark was accepted; a body sent a byte at a time held its connection open for as long
as the sender liked (60 s and more). Against a real ``blindchess serve`` on loopback, with a
1 s body deadline so that the test is quick.
"""

from __future__ import annotations

import json
from pathlib import Path

import chess
import requests

from blindchess.fixtures.servers import ServerProcess, register, trickled_post_answer


def test_nfd_invitations_single_mark_names_and_slow_bodies(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "server.sqlite3", extra_args=("--body-timeout", "1")) as server:
        sessions = register(server.url, ["Zoë", "bob"])
        assert sessions["bob"].invite("Zoe\u0308", chess.WHITE) >= 1  # the NFD spelling of Zoë
        for mark in ("\u0301", "\u0301abc"):
            refused = requests.post(f"{server.url}/api/users/", data=json.dumps({"username": mark, "password": "x"}), timeout=30)
            assert refused.status_code == 400 and "combining mark" in refused.json()["error"], refused.text

        answer = trickled_post_answer(server.url, "/api/users/")  # a byte every 0.25 s: 50 s for the body
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert b"request body not received within 1 s" in answer
        assert requests.get(f"{server.url}/api/version", timeout=30).ok  # and the server serves on
