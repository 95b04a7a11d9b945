"""While a game runs, nothing served reveals what a player could not know (issue 33, item 2).

Was: during a game on ``blindchess serve``, ``GET /data/games/server-1`` answered anyone, with no
credentials, the ``fen_after`` of every move; the game's ``/belief`` was open too, and
``POST /data/play`` started bot games without a login.

The routes are read from the very application ``blindchess serve`` runs (`serving_app`), so a
route added later is checked too; it runs in a real uvicorn server on 127.0.0.1 over a real
SQLite file. Every GET route is asked by an anonymous client, a stranger and each player, in
the middle of a game played with known actions; no answer may hold a true board of the game,
a move of the other side (of either side, for those who play neither), a sense or a belief.
Every POST route but registration answers 401 without credentials.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import chess
import pytest
import requests
from fastapi import FastAPI
from starlette.routing import BaseRoute, Mount, Route

from blindchess.commands.cli_serve import serving_app
from blindchess.server.server import ServerThread
from blindchess.server.service import ServerConfig

PASSWORDS = {"white": "pw-white", "black": "pw-black", "carol": "pw-carol"}
MOVES = {"white": ["d2d4", "c2c4"], "black": ["g8f6", "b8c6"]}
SENSES = {"white": [44, 43], "black": [20, 19]}
SECRET_KEYS = {"fen_before", "fen_after", "turns", "sense", "window", "marginals", "samples", "series", "entropy"}
"""Keys of the replay and belief documents: none may appear in an answer about a running game."""


def fastapi_apps(app: Any) -> list[FastAPI]:
    """The FastAPI applications inside `app` (through the request shield and the path dispatch)."""
    if isinstance(app, FastAPI):
        return [app]
    return [found for name in ("app", "api", "pages") if hasattr(app, name) for found in fastapi_apps(getattr(app, name))]


def call(url: str, user: Optional[str], method: str, path: str, body: Any = None) -> requests.Response:
    auth = None if user is None else (user, PASSWORDS[user])
    data, headers = (None, None) if body is None else (json.dumps(body), {"Content-Type": "application/json"})
    return requests.request(method, url + path, auth=auth, data=data, headers=headers, timeout=30)


@pytest.fixture()
def running(tmp_path: Path) -> Iterator[tuple[ServerThread, dict[str, Any]]]:
    """A server with a game two full turns in (White to sense), and a game of carol's against a bot."""
    with ServerThread(tmp_path / "server.sqlite3", ServerConfig(), build=serving_app) as server:
        for name, password in PASSWORDS.items():
            assert requests.post(f"{server.url}/api/users/", data=json.dumps({"username": name, "password": password})).ok
        game_id = call(server.url, "white", "POST", "/api/invitations/", {"opponent": "black", "color": True}).json()["game_id"]
        invitation_id = call(server.url, "black", "GET", "/api/invitations/").json()["invitations"][0]
        call(server.url, "black", "POST", f"/api/invitations/{invitation_id}")
        for name in ("white", "black"):
            assert call(server.url, name, "POST", f"/api/games/{game_id}/ready").ok
        board = chess.Board()
        truths = []
        for turn in range(2):
            for name in ("white", "black"):
                assert call(server.url, name, "POST", f"/api/games/{game_id}/sense", {"square": SENSES[name][turn]}).ok
                requested = {"requested_move": {"type": "Move", "value": MOVES[name][turn]}}
                assert call(server.url, name, "POST", f"/api/games/{game_id}/move", requested).ok
                assert call(server.url, name, "POST", f"/api/games/{game_id}/end_turn").ok
                board.push_uci(MOVES[name][turn])
                truths.append(board.board_fen())
        session_id = call(server.url, "carol", "POST", "/data/play", {"bot": "random", "color": "white", "seed": 1}).json()["id"]
        ids = {"game_id": game_id, "invitation_id": invitation_id, "session_id": session_id, "truths": truths}
        yield server, ids


def concrete_paths(route: BaseRoute, ids: dict[str, Any]) -> list[str]:
    """`route`'s path with each parameter filled in from the running game (game data routes get a ply)."""
    if isinstance(route, Mount):
        return [route.path + "/viewer.css"]
    assert isinstance(route, Route), route
    game = str(ids["game_id"]) if route.path.startswith("/api/") else f"server-{ids['game_id']}"
    values = {"game_id": game, "invitation_id": str(ids["invitation_id"]), "session_id": ids["session_id"]}
    names = set(re.findall(r"{(\w+)}", route.path))
    assert names <= set(values), f"test does not know how to fill {route.path}"
    path = route.path.format(**values)
    return [path + "?ply=2", path + "?ply=2&side=black"] if path.endswith(("/belief", "/teaching")) else [path]


def keys_in(document: Any) -> set[str]:
    if isinstance(document, dict):
        return set(document) | {key for value in document.values() for key in keys_in(value)}
    if isinstance(document, list):
        return {key for value in document for key in keys_in(value)}
    return set()


def test_no_route_reveals_a_running_games_secrets_and_starting_work_needs_a_login(
    running: tuple[ServerThread, dict[str, Any]],
) -> None:
    server, ids = running
    apps = fastapi_apps(serving_app(server.service))
    assert len(apps) == 2  # the API and the viewer's pages: both are walked
    routes = [route for app in apps for route in app.routes]
    others = {"white": "black", "black": "white"}
    checked = 0
    for route in routes:
        methods = route.methods if isinstance(route, Route) and route.methods else {"GET"}
        for path in concrete_paths(route, ids):
            if "POST" in methods and path != "/api/users/":
                assert call(server.url, None, "POST", path, {}).status_code == 401, path
            if "GET" not in methods:
                continue
            for user in (None, "carol", "white", "black"):
                response = call(server.url, user, "GET", path)
                checked += 1
                text = response.text
                where = f"GET {path} as {user}: {response.status_code} {text[:300]}"
                assert not any(truth in text for truth in ids["truths"]), where
                hidden = MOVES[others[user]] if user in others else MOVES["white"] + MOVES["black"]
                assert not any(move in text for move in hidden), where
                if response.headers.get("content-type", "").startswith("application/json"):
                    own_play = path.startswith("/data/play/") and user == "carol"
                    assert not keys_in(response.json()) & (SECRET_KEYS - ({"window"} if own_play else set())), where
                if "{game_id}" in getattr(route, "path", "") and not path.startswith("/api/"):
                    assert response.status_code == 403, where  # the viewer's record of the game, and its page
    assert checked > 4 * 30
    # carol's game against a bot is hers alone
    assert call(server.url, "carol", "GET", f"/data/play/{ids['session_id']}").status_code == 200
    assert call(server.url, "white", "GET", f"/data/play/{ids['session_id']}").status_code == 404
    # once the game is over its whole record is public, as on reconchess's server
    assert call(server.url, "white", "POST", f"/api/games/{ids['game_id']}/resign").ok
    record = call(server.url, None, "GET", f"/data/games/server-{ids['game_id']}")
    assert record.status_code == 200
    assert [turn["fen_after"].split()[0] for turn in record.json()["turns"]][:4] == ids["truths"]


def test_live_games_are_listed_to_strangers_with_exactly_the_documented_fields(
    running: tuple[ServerThread, dict[str, Any]],
) -> None:
    """Issue 41: what a stranger sees of live games was stated nowhere; docs/server.md now decides it (public), and this pins it."""
    server, ids = running
    docs = (Path(__file__).resolve().parents[3] / "docs" / "server.md").read_text()
    sentence = re.search(r"For a game in progress it shows exactly (.*?):", docs, re.DOTALL)
    assert sentence is not None, "docs/server.md no longer says what a live game's listing shows"
    documented = set(re.findall(r"`(\w+)`", sentence.group(1)))
    overview = call(server.url, None, "GET", "/data/server")
    assert overview.status_code == 200  # public: no login asked
    [live] = overview.json()["in_progress"]
    assert set(live) == documented, (set(live), documented)
    assert (live["id"], live["white"], live["black"], live["turn"]) == (ids["game_id"], "white", "black", "white")
    assert set(live["seconds_left"]) == {"white", "black"}
    assert call(server.url, None, "GET", f"/data/games/{live['replay']}").status_code == 403  # its record: not yet
