"""The viewer without a browser: ply bookkeeping, beliefs per ply, histories of both packages, bad
input over real HTTP, and the pages `blindchess serve` adds beside its API."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest
import reconchess
from reconchess.bots.random_bot import RandomBot as ReconchessRandomBot

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.observations import GameEnded
from blindchess.beliefs import BoardSet
from blindchess.bots.random_bot import RandomBot
from blindchess.fixtures.demo_games import random_game, teaching_game
from blindchess.fixtures.servers import ServerProcess, register, trickled_post_answer
from blindchess.server.client import play_remote_game
from blindchess.viewer.app import served_viewer
from blindchess.viewer.belief_views import BELIEFS, DEFAULT_MAX_BOARDS
from blindchess.viewer.library import GameLibrary
from blindchess.viewer.replay import event_plies, observations_at
from blindchess.viewer.serving import AppThread
from blindchess.viewer.state import ViewerState


def fetch(url: str, body: Any = None, timeout: float = 60) -> tuple[int, str]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def counted(events: list[Any], color: chess.Color, ply: int) -> list[Any]:
    """What a player knew at `ply`, counted from the turn structure: GameStarted, 3 events per own
    turn done, and the turn-start event when its turn has begun (never GameEnded)."""
    done = (ply + 1) // 2 if color == chess.WHITE else ply // 2
    started = (ply % 2 == 0) == (color == chess.WHITE)
    return [event for event in events[: 1 + 3 * done + started] if not isinstance(event, GameEnded)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_observations_at_each_ply_match_the_turn_structure(seed: int) -> None:
    history = random_game(seed, full_turns=12)
    for color in chess.COLORS:
        events = history.observations(color)
        assert sorted(event_plies(events)[:-1]) == event_plies(events)[:-1]  # known in order
        for ply in range(history.num_turns() + 1):
            assert observations_at(events, ply) == counted(events, color, ply)


def test_belief_at_any_ply_in_any_order_equals_the_belief_rebuilt_from_scratch() -> None:
    history = random_game(4, full_turns=6)
    state = ViewerState(GameLibrary())
    game_id = state.library.add_history(history, "g")
    plies = history.num_turns()
    order = np.random.default_rng(0).permutation(plies + 1).tolist() + [plies, 0, 1]
    for ply in order:
        for color in chess.COLORS:
            shown = state.belief(game_id, color, ply, "boardset", samples=3)
            fresh = BoardSet(max_boards=DEFAULT_MAX_BOARDS)
            for event in counted(history.observations(color), color, ply):
                fresh.update(event)
            assert shown["size"] == len(fresh)
            assert np.array_equal(np.array(shown["marginals"]), fresh.marginals())
            assert np.allclose(shown["opponent"], fresh.marginals()[:, (7 if color else 1) : (13 if color else 7)].sum(axis=1))
            assert all(chess.Board(fen + " w - - 0 1") for fen in shown["samples"])
            series = shown["series"]
            assert len(series) == ply + 1 and series[ply]["size"] == len(fresh)
    for color in chess.COLORS:
        whole = state.series(game_id, color, "boardset")
        assert len(whole) == plies + 1
        assert [point["size"] for point in whole if point] == [
            state.belief(game_id, color, ply, "boardset", 0)["size"] for ply in range(plies + 1)
        ]


def test_every_named_belief_answers_with_normalised_marginals() -> None:
    history = random_game(6, full_turns=3)
    state = ViewerState(GameLibrary())
    game_id = state.library.add_history(history, "g")
    for name in BELIEFS:
        view = state.belief(game_id, chess.BLACK, 5, name, samples=2)
        assert np.allclose(np.array(view["marginals"]).sum(axis=1), 1.0), name
        assert view["size"] >= 1 and len(view["samples"]) == 2


def test_teaching_support_is_the_enumerated_belief_with_the_truth_in_it() -> None:
    history = teaching_game(seed=1)
    state = ViewerState(GameLibrary())
    game_id = state.library.add_history(history, "t")
    assert state.replay(game_id)["teaching"] == "teaching-4x4"
    for ply in range(history.num_turns() + 1):
        view = state.teaching(game_id, chess.BLACK, ply)
        assert abs(sum(board["probability"] for board in view["support"]) - 1.0) < 1e-9
        assert sum(board["truth"] for board in view["support"]) == 1
        for step in view["steps"]:
            assert abs(sum(row["posterior"] for row in step["rows"]) - 1.0) < 1e-9
            assert all(row["likelihood"] in (0.0, 1.0) for row in step["rows"])
        assert state.belief(game_id, chess.BLACK, ply, "enumerated", 0)["size"] == view["support_size"]


def test_a_reconchess_history_file_replays(tmp_path: Path) -> None:
    _, _, history = reconchess.play_local_game(
        ReconchessRandomBot(), ReconchessRandomBot(), seconds_per_player=60
    )
    history.save(str(tmp_path / "rc.json"))
    ours = GameHistory.from_file(str(tmp_path / "rc.json"))
    state = ViewerState(GameLibrary.from_path(tmp_path / "rc.json"))
    document = state.replay("rc")
    assert document["plies"] == ours.num_turns() == history.num_turns()
    last = list(history.turns())[-1]
    if history.has_move(last):
        assert document["turns"][-1]["fen_after"] == history.truth_fen_after_move(last)


@pytest.fixture(scope="module")
def viewer_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("games")
    random_game(7, full_turns=3).save(str(folder / "good.json"))
    (folder / "truncated.json").write_text(random_game(7, full_turns=3).to_json()[:200])
    (folder / "foreign.json").write_text('[1, 2, 3]')
    (folder / "binary.json").write_bytes(bytes(range(256)))
    state = ViewerState(GameLibrary.from_path(folder, tmp_path_factory.mktemp("played")))
    with AppThread(served_viewer(state, body_seconds=2)) as running:  # what `blindchess view` serves
        yield running.url


def test_a_body_that_trickles_in_gets_408_and_the_viewer_serves_on(viewer_url: str) -> None:
    """Was: `blindchess view` had no body deadline (only `blindchess serve` had one)."""
    answer = trickled_post_answer(viewer_url, "/data/play")  # a byte every 0.25 s: 50 s for the body
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert b"request body not received within 2 s" in answer
    assert fetch(f"{viewer_url}/data/games")[0] == 200


@pytest.mark.parametrize(
    "path, status, words",
    [
        ("/game/good?ply=6", 200, "<!doctype html>"),
        ("/game/good?ply=7", 400, "ply 7 is out of range: this game has plies 0..6"),
        ("/game/good?ply=-1", 400, "ply -1 is out of range"),
        ("/game/good?side=green", 400, "color must be 'white' or 'black', not 'green'"),
        ("/game/nothing", 404, "no game with id 'nothing'"),
        ("/game/truncated", 400, "truncated.json"),
        ("/game/foreign", 400, "foreign.json"),
        ("/game/binary", 400, "binary.json"),
        ("/data/games/good/belief?ply=99", 400, "ply 99 is out of range"),
        ("/data/games/good/belief?ply=2&belief=oracle", 400, "unknown belief 'oracle'"),
        ("/data/games/good/belief?ply=x", 400, "ply"),
        ("/data/games/good/teaching?ply=1", 400, "not on a teaching board"),
        ("/data/games/nothing", 404, "no game with id 'nothing'"),
        ("/data/play/abc", 404, "no game in play with id 'abc'"),
        ("/server", 404, "not attached to a game server"),
        ("/no/such/page", 404, "no page at /no/such/page"),
    ],
)
def test_bad_input_gets_a_clear_4xx(viewer_url: str, path: str, status: int, words: str) -> None:
    got, text = fetch(viewer_url + path)
    assert got == status, text
    assert words in (text if got == 200 else text.replace("&#x27;", "'"))


def test_play_requests_are_checked(viewer_url: str) -> None:
    assert fetch(f"{viewer_url}/data/play", {"bot": "nobody", "color": "white"})[0] == 400
    assert fetch(f"{viewer_url}/data/play", {"bot": "random", "color": "red"})[0] == 400
    status, text = fetch(f"{viewer_url}/data/play", {"bot": "random", "color": "black", "seconds": 60, "seed": 3})
    assert status == 200
    session = json.loads(text)["id"]
    state = json.loads(fetch(f"{viewer_url}/data/play/{session}")[1])
    assert state["phase"] == "sense" and state["color"] == "black"
    assert {piece.color for piece in chess.Board(state["board"] + " w - - 0 1").piece_map().values()} == {chess.BLACK}
    assert fetch(f"{viewer_url}/data/play/{session}/move", {"move": "e7e5"})[0] == 400  # sense first
    assert fetch(f"{viewer_url}/data/play/{session}/sense", {"square": 64})[0] == 400
    assert fetch(f"{viewer_url}/data/play/{session}/sense", {"square": 36})[0] == 200
    status, text = fetch(f"{viewer_url}/data/play/{session}/move", {"move": "e2e4"})  # not Black's piece
    assert status == 400 and "e2e4" in text
    state = json.loads(fetch(f"{viewer_url}/data/play/{session}/move", {"move": "e7e5"})[1])
    assert state["last_move"]["requested"] == "e7e5" and state["phase"] in ("sense", "over")


def test_serve_shows_the_pages_beside_the_api(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "server.sqlite3", extra_args=("--full-turn-limit", "3")) as server:
        sessions = register(server.url, ["alice", "bob"])
        assert fetch(f"{server.url}/api/version") == (200, '{"version":"1.6.9"}')
        game_id = sessions["alice"].invite("bob", chess.WHITE)
        sessions["bob"].accept(sessions["bob"].invitations()[0])
        results: dict[str, Any] = {}
        threads = [
            threading.Thread(target=lambda n=name: results.setdefault(n, play_remote_game(sessions[n], game_id, RandomBot(1), 0.05)))
            for name in ("alice", "bob")
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        status, text = fetch(f"{server.url}/data/server")
        overview = json.loads(text)
        assert status == 200 and [game["id"] for game in overview["recent"]] == [game_id]
        assert overview["in_progress"] == []
        replay = json.loads(fetch(f"{server.url}/data/games/{overview['recent'][0]['replay']}")[1])
        assert replay["plies"] == 6 and replay["white"] == "alice"
        assert fetch(f"{server.url}/server")[0] == 200
        assert fetch(f"{server.url}/data/games/server-999")[0] == 404
    with ServerProcess(tmp_path / "server.sqlite3") as server:  # restarted: a replay URL works before /server is opened
        assert json.loads(fetch(f"{server.url}/data/games/server-{game_id}")[1])["plies"] == 6
        assert fetch(f"{server.url}/game/server-{game_id}?ply=6")[0] == 200
        assert fetch(f"{server.url}/game/server-x")[0] == 400  # not a server game id at all (issue 41: ids are digits)


def test_view_and_serve_bind_to_loopback_unless_told(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from blindchess.cli import build_parser, main

    parser = build_parser()
    assert parser.parse_args(["view"]).host == "127.0.0.1"
    assert parser.parse_args(["serve"]).host == "127.0.0.1"
    bad = tmp_path / "bad.json"
    bad.write_text("{ truncated")
    assert main(["view", str(bad)]) == 2  # a single file that is no history: bad input, said at once, nothing served
    assert "bad.json" in capsys.readouterr().err
    assert main(["view", str(tmp_path / "missing")]) == 2  # bad input too (was 1, with no `error:`)
    assert "blindchess view: error: no such file or folder" in capsys.readouterr().err
