"""Game and invitation ids in URLs are canonical digits (issue 41), through a real ``blindchess serve`` app on loopback.

Was: the API read ``/api/games/1.0/...``, ``/api/games/%201/...`` (`` 1``), ``+1``, ``01`` as
game 1 and ``1_0`` as game 10 (pydantic's lax integers), and the viewer's ``server-01`` as
server game 1 (``str.isdigit``). Now each is a 400 saying what an id looks like.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests

from blindchess.commands.cli_serve import serving_app
from blindchess.server.server import ServerThread
from blindchess.server.service import ServerConfig

SECOND_SPELLINGS = ("1.0", "%201", "+1", "01", "1_0", "%EF%BC%91")
"""URL-encoded second spellings of 1 (``%EF%BC%91`` is the fullwidth digit one)."""

RULE = "an id is a positive whole number in digits, like 12"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server with game 1 between alice (White) and bob, both ready, resigned by alice: a finished, public game."""
    db = tmp_path_factory.mktemp("ids") / "server.sqlite3"
    with ServerThread(db, ServerConfig(), build=serving_app) as running:
        for name in ("alice", "bob"):
            account = json.dumps({"username": name, "password": f"pw-{name}"})
            assert requests.post(f"{running.url}/api/users/", data=account, timeout=30).ok
        alice = ("alice", "pw-alice")
        invitation = json.dumps({"opponent": "bob", "color": True})
        answer = requests.post(f"{running.url}/api/invitations/", auth=alice, data=invitation, timeout=30)
        assert answer.json() == {"game_id": 1}
        for name in ("alice", "bob"):
            assert requests.post(f"{running.url}/api/games/1/ready", auth=(name, f"pw-{name}"), timeout=30).ok
        assert requests.post(f"{running.url}/api/games/1/resign", auth=alice, timeout=30).ok
        yield running.url


@pytest.mark.parametrize("spelling", SECOND_SPELLINGS)
def test_the_api_refuses_a_second_spelling_of_a_game_id(server: str, spelling: str) -> None:
    assert requests.get(f"{server}/api/games/1/color", auth=("alice", "pw-alice"), timeout=30).json() == {"color": True}
    answer = requests.get(f"{server}/api/games/{spelling}/color", auth=("alice", "pw-alice"), timeout=30)
    assert answer.status_code == 400 and RULE in answer.json()["error"], (answer.status_code, answer.text)
    finish = requests.post(f"{server}/api/invitations/{spelling}/finish", auth=("bob", "pw-bob"), timeout=30)
    assert finish.status_code == 400 and RULE in finish.json()["error"], (finish.status_code, finish.text)


@pytest.mark.parametrize("spelling", ["01", "+1", "1.0", "%201"])
def test_the_viewer_refuses_a_second_spelling_of_a_server_game(server: str, spelling: str) -> None:
    assert requests.get(f"{server}/data/games/server-1", timeout=30).ok  # over: its record is public
    answer = requests.get(f"{server}/data/games/server-{spelling}", timeout=30)
    assert answer.status_code == 400 and RULE in answer.json()["error"], (answer.status_code, answer.text)
