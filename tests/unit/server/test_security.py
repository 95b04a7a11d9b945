"""Security of the game server over real HTTP: authentication, access to games, bad input, fuzzing.

One real server (uvicorn on 127.0.0.1, ephemeral port) for the whole module.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import requests

from blindchess.fixtures.servers import register
from blindchess.server.server import ServerThread
from blindchess.server.service import ServerConfig
from blindchess.server.throttle import Limits

PASSWORDS = {"alice": "Alice-Pass-4711", "bob": "Bob-Pass-0815", "eve": "Eve-Pass-1234"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    # Login throttling is off here (limits far above these tests' wrong guesses); test_hardening and test_throttle test it.
    config = ServerConfig(login_limits=Limits(per_pair=10**6, per_address=10**6))
    with ServerThread(tmp_path_factory.mktemp("security") / "server.sqlite3", config) as running:
        for name, password in PASSWORDS.items():
            response = requests.post(f"{running.url}/api/users/", data=json.dumps({"username": name, "password": password}))
            assert response.status_code == 200, response.text
        yield running


@pytest.fixture(scope="module")
def game(server: ServerThread) -> dict[str, int]:
    """A started game, alice (White) against bob, and bob's invitation to it."""
    game_id = call(server, "alice", "POST", "/api/invitations/", {"opponent": "bob", "color": True}).json()["game_id"]
    invitation_id = call(server, "bob", "GET", "/api/invitations/").json()["invitations"][-1]
    assert call(server, "bob", "POST", f"/api/invitations/{invitation_id}").json() == {"game_id": game_id}
    for player in ("alice", "bob"):
        assert call(server, player, "POST", f"/api/games/{game_id}/ready").status_code == 200
    return {"game_id": game_id, "invitation_id": invitation_id}


def call(
    server: ServerThread, user: str | None, method: str, path: str,
    body: Any = None, raw: bytes | None = None, headers: dict[str, str] | None = None,
) -> requests.Response:
    """A request as RemoteGame makes it: JSON text without a Content-Type header."""
    auth = None if user is None else (user, PASSWORDS.get(user, "x"))
    data = raw if raw is not None else (None if body is None else json.dumps(body))
    return requests.request(method, f"{server.url}{path}", auth=auth, data=data, headers=headers, timeout=30)


def authenticated_operations(server: ServerThread, ids: dict[str, int]) -> list[tuple[str, str]]:
    schema = requests.get(f"{server.url}/openapi.json", timeout=30).json()
    operations = []
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            if operation.get("security"):
                operations.append((method.upper(), path.format(**ids)))
    return operations


def assert_error(response: requests.Response, status: int) -> str:
    assert response.status_code == status, (response.status_code, response.text)
    message = response.json()["error"]
    assert isinstance(message, str) and message
    return message


def test_every_authenticated_endpoint_rejects_missing_or_wrong_credentials(server: ServerThread, game: dict[str, int]) -> None:
    operations = authenticated_operations(server, game)
    assert len(operations) >= 28  # users, invitations, games: the whole documented API
    for method, path in operations:
        for attempt in (
            requests.request(method, server.url + path, timeout=30),
            requests.request(method, server.url + path, auth=("alice", "wrong"), timeout=30),
            requests.request(method, server.url + path, auth=("nobody", "Alice-Pass-4711"), timeout=30),
            requests.request(method, server.url + path, headers={"Authorization": "Basic !!!not-base64"}, timeout=30),
            requests.request(method, server.url + path, headers={"Authorization": "Bearer abc"}, timeout=30),
        ):
            assert_error(attempt, 401)
            assert attempt.headers["WWW-Authenticate"].startswith("Basic")


def test_a_stranger_can_neither_read_nor_act_in_a_game(server: ServerThread, game: dict[str, int]) -> None:
    game_paths = [(m, p) for m, p in authenticated_operations(server, game) if p.startswith(f"/api/games/{game['game_id']}/")]
    assert len(game_paths) == 19
    for method, path in game_paths:
        body = {"square": 0} if path.endswith("/sense") else {"requested_move": None} if path.endswith("/move") else None
        assert_error(call(server, "eve", method, path, body), 403)
    assert_error(call(server, "eve", "POST", f"/api/invitations/{game['invitation_id']}"), 403)
    assert_error(call(server, "eve", "POST", f"/api/invitations/{game['invitation_id']}/finish"), 403)
    assert_error(call(server, "alice", "GET", "/api/games/999999/color"), 404)
    # the game is untouched: still White's turn, nothing sensed
    assert call(server, "alice", "GET", f"/api/games/{game['game_id']}/game_status").json() == {"is_my_turn": True, "is_over": False}
    # and the opponent may not peek at the mover's options or clock-independent state
    assert "not your turn" in assert_error(call(server, "bob", "GET", f"/api/games/{game['game_id']}/move_actions"), 400)


@pytest.mark.parametrize(
    ("endpoint", "payload", "fragment"),
    [
        ("sense", b"{not json", "JSON"),
        ("sense", b"\xff\xfe\x00garbage", ""),
        ("sense", b"[1, 2]", ""),
        ("sense", b'"square"', ""),
        ("sense", b"", "body"),
        ("sense", {"square": "a1"}, "square"),
        ("sense", {"square": 1.5}, "square"),
        ("sense", {"square": True}, "square"),
        ("sense", {"square": 64}, "square"),
        ("sense", {"square": -1}, "square"),
        ("sense", {"square": 10**30}, "square"),
        ("sense", {"spuare": 3}, "square"),
        ("move", {"requested_move": {"type": "Move", "value": "e2e9"}}, "e2e9"),
        ("move", {"requested_move": {"type": "Move", "value": "zz"}}, "zz"),
        ("move", {"requested_move": {"type": "Move", "value": "e2e4x"}}, "e2e4x"),
        ("move", {"requested_move": {"type": "Move", "value": "0000"}}, "0000"),
        ("move", {"requested_move": {"type": "Move", "value": ""}}, "requested_move"),
        ("move", {"requested_move": {"type": "Move", "value": 1234}}, "requested_move"),
        ("move", {"requested_move": {"type": "Piece", "value": "e2e4"}}, "requested_move"),
        ("move", {"requested_move": "e2e4"}, "requested_move"),
    ],
)
def test_malformed_actions_get_400_with_a_message(
    server: ServerThread, game: dict[str, int], endpoint: str, payload: Any, fragment: str
) -> None:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    message = assert_error(call(server, "alice", "POST", f"/api/games/{game['game_id']}/{endpoint}", raw=raw), 400)
    assert fragment in message


def test_well_formed_but_wrong_moves_and_settings_get_400(server: ServerThread, game: dict[str, int]) -> None:
    path = f"/api/games/{game['game_id']}"
    assert "move_actions" not in assert_error(call(server, "alice", "POST", f"{path}/move", {"requested_move": None}), 400)
    # any Content-Type (or none) is read as JSON
    sensed = call(server, "alice", "POST", f"{path}/sense", raw=b'{"square": 9}', headers={"Content-Type": "text/plain"})
    assert sensed.status_code == 200 and len(sensed.json()["sense_result"]) == 9
    assert "e2e5" in assert_error(call(server, "alice", "POST", f"{path}/move", {"requested_move": {"type": "Move", "value": "e2e5"}}), 400)
    bad: Mapping[str, object]
    for bad in ({"max_games": "5"}, {"max_games": -1}, {"max_games": True}, {}):
        assert_error(call(server, "alice", "POST", "/api/users/me/max_games", bad), 400)
    for bad in ({"ranked": "yes"}, {"ranked": 1}, {"ranked": None}):
        assert_error(call(server, "alice", "POST", "/api/users/me/ranked", bad), 400)
    for bad in ({"opponent": "bob", "color": "white"}, {"opponent": 5, "color": True}, {"opponent": "alice", "color": True}):
        assert_error(call(server, "alice", "POST", "/api/invitations/", bad), 400)
    assert "nobody" in assert_error(call(server, "alice", "POST", "/api/invitations/", {"opponent": "nobody", "color": True}), 404)
    for bad_id in ("abc", "0", "-3", str(2**70), "1.5"):
        assert_error(call(server, "alice", "GET", f"/api/games/{bad_id}/color"), 400)
    assert_error(call(server, "alice", "POST", "/api/invitations/424242"), 404)
    assert_error(call(server, None, "POST", "/api/users/", {"username": "alice", "password": "again"}), 409)
    assert_error(call(server, None, "POST", "/api/users/", {"username": "", "password": "x"}), 400)
    assert_error(call(server, None, "POST", "/api/users/", {"username": "carol", "password": 5}), 400)


SCHEMATHESIS_CONFIG = """
# Whether a schema-valid action is accepted depends on the game's state (not your turn, game not
# started, no such invitation), which no schema can say: 400/403/404/409 are valid refusals here.
[checks.positive_data_acceptance]
expected-statuses = ["2XX", "400", "401", "403", "404", "409", "429"]
"""


def test_openapi_fuzzing_with_all_checks_finds_no_server_error_and_only_documented_statuses(
    server: ServerThread, game: dict[str, int], tmp_path: Path
) -> None:
    """All of Schemathesis's checks: no 5xx, every status and header as documented (issue 12).

    They found, before: 405 answers without a correct Allow header, 61.0 refused as a square,
    unknown users and invitations answered 400 instead of 404, and bodies over any size.
    """
    config = tmp_path / "schemathesis.toml"
    config.write_text(SCHEMATHESIS_CONFIG)
    run = subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run", f"{server.url}/openapi.json",
         "--auth", "alice:" + PASSWORDS["alice"], "--checks", "all", "--max-examples", "8", "--seed", "20261123",
         "--workers", "1", "--request-timeout", "30", "--report-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=400, cwd=tmp_path,  # its crash cache goes there, not in the checkout
    )
    summary = run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 0, summary
    assert "generated" in run.stdout and "passed" in run.stdout, summary


def test_passwords_are_never_stored_or_logged_in_clear(
    server: ServerThread, game: dict[str, int], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        register(server.url, ["dave"], password_prefix="Dave-Secret-")
        call(server, "alice", "GET", "/api/users/")
        call(server, "alice", "POST", "/api/users/me/max_games", {"max_games": 3})
    secrets = [*PASSWORDS.values(), "Dave-Secret-dave"]
    database = Path(server.store.path)
    stored = b"".join(path.read_bytes() for path in database.parent.glob(database.name + "*"))
    assert b"scrypt$" in stored  # the hashes are there...
    for secret in secrets:
        assert secret.encode() not in stored  # ...the passwords are not
        assert secret not in caplog.text
