"""Throttling without lock-out (issue 33, item 4), against a real ``blindchess serve`` on loopback.

Was: after 10 wrong passwords for a player, from anywhere, that player's right password
answered 429 (the lock-out denial of service OWASP warns about); a restart forgot every count
(they lived in memory); and ``X-Forwarded-For`` from a local client chose the address a
failure counted against. Clients here connect from several loopback addresses (127.0.0.0/8).
"""

from __future__ import annotations

import base64
import http.client
import json
from pathlib import Path
from typing import Optional
from urllib.parse import urlsplit

from blindchess.fixtures.servers import ServerProcess
from blindchess.server.database import Store
from blindchess.server.server import ServerThread
from blindchess.server.service import ServerConfig, Service
from blindchess.server.throttle import Limits


def login(url: str, name: str, password: str, source: str = "127.0.0.1", headers: Optional[dict[str, str]] = None) -> int:
    """The status of one authenticated request sent from the loopback address `source`."""
    where = urlsplit(url)
    assert where.hostname is not None and where.port is not None
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30, source_address=(source, 0))
    token = base64.b64encode(f"{name}:{password}".encode()).decode()
    try:
        connection.request("GET", "/api/users/me/version", headers={"Authorization": f"Basic {token}", **(headers or {})})
        return connection.getresponse().status
    finally:
        connection.close()


def registered_alice(db: Path) -> Path:
    """A database where alice registered before any server started: none has verified her password yet."""
    store = Store(db)
    Service(store).register("alice", "pw-alice")
    store.close()
    return db


def test_wrong_passwords_from_one_address_never_refuse_the_right_one_from_another_even_after_a_restart(tmp_path: Path) -> None:
    db = registered_alice(tmp_path / "server.sqlite3")
    with ServerProcess(db) as server:
        assert [login(server.url, "alice", f"wrong-{index}") for index in range(10)] == [401] * 10
        assert login(server.url, "alice", "wrong-10") == 429  # this address must wait
        assert login(server.url, "alice", "pw-alice", source="127.0.0.2") == 200  # alice elsewhere: never refused
        # X-Forwarded-For is not believed by default: 20 more failures (other names) reach this address's 30.
        spoofed = [
            login(server.url, f"name-{index}", "guess", headers={"X-Forwarded-For": f"203.0.113.{index}"}) for index in range(21)
        ]
        assert spoofed == [401] * 20 + [429], spoofed
    with ServerProcess(db) as server:  # the counts outlive a restart
        assert login(server.url, "alice", "wrong-11") == 429
        assert login(server.url, "alice", "pw-alice", source="127.0.0.3") == 200


def test_a_configured_proxy_names_the_client(tmp_path: Path) -> None:
    """With ``--trusted-proxy 127.0.0.1`` the forwarded address is the client's: alice elsewhere logs in."""
    db = registered_alice(tmp_path / "server.sqlite3")
    with ServerThread(db, ServerConfig(trusted_proxies=("127.0.0.1",))) as server:
        guesser, alice = {"X-Forwarded-For": "198.51.100.1"}, {"X-Forwarded-For": "198.51.100.2"}
        assert [login(server.url, "alice", f"wrong-{index}", headers=guesser) for index in range(10)] == [401] * 10
        assert login(server.url, "alice", "wrong-10", headers=guesser) == 429
        assert login(server.url, "alice", "pw-alice", headers=alice) == 200


def test_a_throttled_address_gets_429_for_the_right_password_too_even_once_it_is_cached(tmp_path: Path) -> None:
    """Issue 41: the right password of an account whose credentials were cached got 200 from a throttled address.

    Wrong guesses got 429 and the right one 200, so the answer told them apart and the throttle
    stopped nothing (400 guesses took 8.4 s). Now the throttle decides before any credential
    check: from the guesser's address everything is 429, while alice's own address logs in.
    """
    db = registered_alice(tmp_path / "server.sqlite3")
    with ServerThread(db) as server:
        assert login(server.url, "alice", "pw-alice") == 200  # alice logs in: her credentials are cached
        guesser = "127.0.0.2"
        assert [login(server.url, "alice", f"wrong-{index}", source=guesser) for index in range(10)] == [401] * 10
        answers = []
        for guess in ("wrong-10", "pw-alice", "wrong-11", "pw-alice"):
            answers.append(login(server.url, "alice", guess, source=guesser))
            assert login(server.url, "alice", "pw-alice") == 200  # alice, meanwhile, from her own address
        assert answers == [429] * 4, answers


def register_from(url: str, name: str, source: str) -> tuple[int, Optional[str], str]:
    """Status, ``Retry-After`` and body of one registration sent from the loopback address `source`."""
    where = urlsplit(url)
    assert where.hostname is not None and where.port is not None
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30, source_address=(source, 0))
    try:
        connection.request("POST", "/api/users/", body=json.dumps({"username": name, "password": f"pw-{name}"}))
        response = connection.getresponse()
        return response.status, response.getheader("Retry-After"), response.read().decode()
    finally:
        connection.close()


def test_new_accounts_per_address_are_limited_and_the_count_outlives_a_restart(tmp_path: Path) -> None:
    """Was: one address could register accounts without end, each costing a slow hash and a row."""
    db, config = tmp_path / "server.sqlite3", ServerConfig(login_limits=Limits(registrations_per_address=2))
    with ServerThread(db, config) as server:
        assert [register_from(server.url, name, "127.0.0.1")[0] for name in ("ann", "bea")] == [200, 200]
        assert register_from(server.url, "bea", "127.0.0.1")[0] == 409  # a taken name is no new account
        status, retry_after, body = register_from(server.url, "cy", "127.0.0.1")
        assert status == 429 and retry_after is not None and int(retry_after) > 0, (status, retry_after, body)
        assert "too many new accounts from this address" in body
        assert register_from(server.url, "dee", "127.0.0.2")[0] == 200  # another address is not held back
        assert login(server.url, "cy", "pw-cy") == 401  # the refused registration made nothing
        assert login(server.url, "ann", "pw-ann", source="127.0.0.3") == 200  # logins are not held back either
    with ServerThread(db, config) as server:
        assert register_from(server.url, "cy", "127.0.0.1")[0] == 429
        assert register_from(server.url, "cy", "127.0.0.4")[0] == 200
