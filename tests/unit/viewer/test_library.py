"""The viewer shows the folder it serves and nothing else, over real HTTP on 127.0.0.1.

The folder holds a game, a link to a game inside it, and four traps: a link to a game outside
the folder, a FIFO named ``x.json`` (an ``open`` that waits for a writer forever), a link
to ``/dev/zero`` (a read that never ends) and a file over the size bound; the game's clocks
file is a FIFO too. The listing
must answer at once, the traps must answer 400 naming the file and the reason, and nothing of
the outside game may be served.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from blindchess.fixtures.demo_games import random_game
from blindchess.viewer.app import served_viewer
from blindchess.viewer.library import MAX_HISTORY_BYTES, GameLibrary
from blindchess.viewer.serving import AppThread
from blindchess.viewer.state import ViewerState

from .test_viewer import fetch

TRAPS = {
    "outside": "outside the folder on show",
    "x": "not a regular file (a FIFO)",
    "zero": "a link to /dev/zero, outside the folder on show",
    "huge": f"more than {MAX_HISTORY_BYTES} bytes",
}
"""Game id -> what its 400 must say."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The viewer's URL, and the truth FEN of the outside game's first move (which must never be served)."""
    folder = tmp_path_factory.mktemp("shown")
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    random_game(7, full_turns=2).save(str(folder / "good.json"))
    os.mkfifo(folder / "good.clocks.json")
    (folder / "inside.json").symlink_to(folder / "good.json")
    secret = random_game(11, full_turns=2)
    secret.save(str(elsewhere / "secret.json"))
    (folder / "outside.json").symlink_to(elsewhere / "secret.json")
    os.mkfifo(folder / "x.json")
    (folder / "zero.json").symlink_to("/dev/zero")
    with open(folder / "huge.json", "wb") as huge:
        huge.truncate(MAX_HISTORY_BYTES + 1)  # sparse: no disk, and never read
    library = GameLibrary.from_path(folder, tmp_path_factory.mktemp("played"))
    with AppThread(served_viewer(ViewerState(library))) as running:
        yield running.url, secret.truth_fen_after_move(next(iter(secret.turns())))


def test_the_listing_answers_at_once_and_names_each_trap(served: tuple[str, str]) -> None:
    url, secret_fen = served
    status, text = fetch(url + "/data/games", timeout=20)
    assert status == 200, text
    games = {game["id"]: game for game in json.loads(text)["games"]}
    assert sorted(games) == ["good", "huge", "inside", "outside", "x", "zero"]
    assert games["good"]["error"] is None and games["inside"]["error"] is None  # a FIFO for clocks: shown without them
    for game_id, words in TRAPS.items():
        assert words in games[game_id]["error"], games[game_id]
    assert secret_fen not in text


@pytest.mark.parametrize("game_id", list(TRAPS))
@pytest.mark.parametrize("route", ["/data/games/{}", "/game/{}", "/data/games/{}/series"])
def test_a_trap_answers_400_with_the_reason(served: tuple[str, str], game_id: str, route: str) -> None:
    url, secret_fen = served
    status, text = fetch(url + route.format(game_id), timeout=20)
    assert status == 400, text
    assert f"{game_id}.json" in text and TRAPS[game_id] in text, text
    assert secret_fen not in text


def test_the_games_inside_replay(served: tuple[str, str]) -> None:
    url, _ = served
    for game_id in ("good", "inside"):
        status, text = fetch(url + f"/data/games/{game_id}", timeout=20)
        assert status == 200, text
        assert json.loads(text)["plies"] > 0
