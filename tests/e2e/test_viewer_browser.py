"""The viewer in a real headless Chromium: replay, stepping, a shared ply URL, the heat map, the
teaching-board support, and a whole game against the random bot played by clicks and drags.

One browser launch for everything (a browser start costs seconds), in one test function so
that pytest-xdist cannot split the views over two workers and two browsers. The browser is Debian's
``/usr/bin/chromium`` (``apt-get install -y chromium``; ``run.sh`` installs it), driven by
Playwright's Python API: it needs no separate driver binary (Selenium would need
chromedriver) and waits on page state instead of sleeping. Screenshots of every view go to
``results/viewer-screenshots/`` (kept after the run, for people to look at).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest

from blindchess.arbiter.game.results import describe_result, player_names
from blindchess.beliefs import BoardSet
from blindchess.fixtures.demo_games import random_game, teaching_game
from blindchess.viewer.app import served_viewer
from blindchess.viewer.belief_views import DEFAULT_MAX_BOARDS
from blindchess.viewer.library import GameLibrary
from blindchess.viewer.serving import AppThread
from blindchess.viewer.state import ViewerState

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = Path(os.environ.get("BLINDCHESS_SCREENSHOTS", "results/viewer-screenshots"))

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the test extra)")
if not os.path.exists(CHROMIUM):  # never silently skipped: the suite's setup (run.sh) installs it
    raise RuntimeError(f"{CHROMIUM} is missing: apt-get install -y chromium (bash run.sh does)")


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ViewerState]]:
    folder = tmp_path_factory.mktemp("games")
    random_game(seed=5, full_turns=8).save(str(folder / "random.json"))
    teaching_game(seed=3).save(str(folder / "teaching.json"))
    (folder / "notes.json").write_text('{"not": "a history"}')
    state = ViewerState(GameLibrary.from_path(folder))
    with AppThread(served_viewer(state)) as running:
        yield running.url, state


@pytest.fixture(scope="module")
def page(viewer: tuple[str, ViewerState]) -> Iterator[Any]:
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    SCREENSHOTS.mkdir(parents=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-background-networking", "--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1360, "height": 1000})
        page.console_errors = []
        page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
        page.on("pageerror", lambda error: page.console_errors.append(str(error)))
        yield page
        browser.close()


def rendered(page: Any, ply: int, side: str = "white", heat: int = 0, piece: str = "all") -> None:
    page.wait_for_selector(f'body[data-rendered="{ply}:{side}:{heat}:{piece}"]', timeout=60_000)


def shoot(page: Any, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def observations_up_to(events: list[Any], color: chess.Color, ply: int) -> list[Any]:
    """The events a player had by `ply`, counted here from the turn structure (not the viewer's code)."""
    own_turns_done = (ply + 1) // 2 if color == chess.WHITE else ply // 2
    its_turn_now = (ply % 2 == 0) == (color == chess.WHITE)
    count = 1 + 3 * own_turns_done + (1 if its_turn_now else 0)
    return [event for event in events[:count] if type(event).__name__ != "GameEnded"]


def check_replay_steps_and_shares_a_ply_url(viewer: tuple[str, ViewerState], page: Any) -> None:
    url, state = viewer
    page.goto(f"{url}/")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#games a").count() == 3
    assert "not a GameHistory" in page.inner_text("#games")  # the bad file is listed with why
    history = state.library.history("random")
    result = describe_result(history.get_winner_color(), history.get_win_reason(), *player_names(history))
    assert result in page.inner_text("#games tr:has(a[href='/game/random'])")  # the winner's colour and name, and how
    shoot(page, "index")
    page.click("text=random.json")
    rendered(page, 0)
    plies = state.library.history("random").num_turns()
    assert page.inner_text("#ply-label") == f"ply 0 / {plies}"
    for expected in (1, 2, 3):
        page.click("#next")
        rendered(page, expected)
    page.keyboard.press("ArrowLeft")
    rendered(page, 2)
    page.wait_for_url(re.compile(r"[?&]ply=2\b"))  # the URL follows the page
    page.keyboard.press("End")
    rendered(page, plies)
    page.click("#prev")
    rendered(page, plies - 1)
    shoot(page, "replay")
    # a shared URL opens at its ply and side; the true board shows that ply's position
    history = state.library.history("random")
    page.goto(f"{url}/game/random?ply=5&side=black")
    rendered(page, 5, "black")
    truth = history.truth_board_after_move(list(history.turns())[4]).board_fen()
    assert page.evaluate("document.querySelector('#truth-board .cm-chessboard') !== null")
    facts = page.inner_text("#facts")
    assert "White 3" in facts and "clocks" in facts
    pieces = page.locator("#truth-board .piece").count()
    assert pieces == len(chess.Board(truth + " w - - 0 1").piece_map())
    assert not page.console_errors


def check_heat_map_shows_the_marginals_of_the_rebuilt_belief(viewer: tuple[str, ViewerState], page: Any) -> None:
    url, state = viewer
    history = state.library.history("random")
    for ply, side in ((5, "black"), (8, "white")):
        page.goto(f"{url}/game/random?ply={ply}&side={side}")
        rendered(page, ply, side)
        page.check("#heatmap-toggle")
        rendered(page, ply, side, 1)
        shown = {cell["square"]: float(cell["p"]) for cell in page.eval_on_selector_all(
            "#view-board .cell[data-p]", "cells => cells.map(c => ({square: c.dataset.square, p: c.dataset.p}))")}
        color = side == "white"
        belief = BoardSet(max_boards=DEFAULT_MAX_BOARDS)
        for event in observations_up_to(history.observations(color), color, ply):
            belief.update(event)
        marginals = belief.marginals()
        opponent = marginals[:, 7:13] if color == chess.WHITE else marginals[:, 1:7]
        expected = {chess.square_name(square): float(opponent[square].sum()) for square in chess.SQUARES}
        assert shown.keys() == expected.keys()
        assert np.allclose([shown[name] for name in expected], list(expected.values()), atol=1e-12)
        assert int(page.get_attribute("#belief-stats", "data-size") or -1) == len(belief)
        assert page.locator("#samples .mini").count() == 6
    page.click("#chart-all")  # the support size and entropy over the whole game
    page.wait_for_function(f"document.querySelector('#chart text:last-of-type').textContent === 'ply {history.num_turns()}'")
    shoot(page, "heatmap")
    # one piece type at a time: Black's queen, as White believes it at ply 8 (channel 11)
    page.select_option("#piece-select", "4")
    rendered(page, 8, "white", 1, "4")
    queen = {cell["square"]: float(cell["p"]) for cell in page.eval_on_selector_all(
        "#view-board .cell[data-p]", "cells => cells.map(c => ({square: c.dataset.square, p: c.dataset.p}))")}
    assert np.allclose([queen[chess.square_name(square)] for square in chess.SQUARES], marginals[:, 11], atol=1e-12)
    assert not page.console_errors


def check_teaching_board_shows_the_whole_support_and_bayes_steps(viewer: tuple[str, ViewerState], page: Any) -> None:
    url, state = viewer
    page.goto(f"{url}/game/teaching?ply=2&side=white&heat=1")
    rendered(page, 2, "white", 1)
    page.wait_for_selector("#teaching-panel:not([hidden]) #support .mini")
    support = state.teaching("teaching", chess.WHITE, 2)
    assert page.locator("#support .mini").count() == support["support_size"]
    assert page.locator("#support .mini.truth").count() == 1  # the true board is in the support, marked
    assert page.locator("#steps > div > table").count() == len(support["steps"]) >= 1
    shoot(page, "teaching")
    assert not page.console_errors


def _pick_move(state: ViewerState, session_id: str, rng: np.random.Generator) -> str:
    """A move for the person's side: a king capture if there is one, else one that attacks the king, else any.

    The test reads the true board in-process only to keep the game short; the move is
    still made by dragging it in the browser.
    """
    session = state.session(session_id)
    board = chess.Board(session.game.rules.fen(session.game.board))
    actions = session.game.move_actions() or []
    king = board.king(not session.color)
    assert king is not None
    captures = [move for move in actions if move.to_square == king]
    if captures:
        return captures[0].uci()
    attacking = []
    for move in actions:
        if board.is_pseudo_legal(move):
            after = board.copy(stack=False)
            after.push(move)
            if after.is_attacked_by(session.color, king):
                attacking.append(move)
    pool = attacking or [move for move in actions if board.is_pseudo_legal(move)] or actions
    return pool[int(rng.integers(len(pool)))].uci()


def _drag(page: Any, source: str, target: str) -> None:
    start = page.locator(f'#board .cell[data-square="{source}"]').bounding_box()
    end = page.locator(f'#board .cell[data-square="{target}"]').bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=6)
    page.mouse.up()


def check_a_whole_game_against_the_random_bot_by_clicks_and_drags(viewer: tuple[str, ViewerState], page: Any) -> None:
    url, state = viewer
    rng = np.random.default_rng(11)
    page.goto(f"{url}/play")
    page.wait_for_selector("body[data-phase='form']")
    assert not page.is_visible("#skip-sense") and not page.is_visible("#board")  # no game controls before a game
    page.select_option("#bot", "random")
    page.select_option("#color", "white")
    shoot(page, "play-form")
    page.click("#start")
    page.wait_for_url(re.compile(r"/play/[0-9a-f]+$"))
    session_id = page.url.rsplit("/", 1)[1]
    turns = 0
    while True:
        page.wait_for_selector("body[data-phase='sense'], body[data-phase='over']")
        if page.get_attribute("body", "data-phase") == "over":
            break
        version = page.get_attribute("body", "data-version")
        centre = int(rng.choice([18, 19, 20, 21, 26, 27, 28, 29, 34, 35, 36, 37, 42, 43, 44, 45]))
        page.click(f'#board .cell[data-square="{chess.square_name(centre)}"]')
        page.wait_for_selector(f"body[data-phase='move']:not([data-version='{version}'])")
        if turns == 1:
            shoot(page, "play-sensed")
        version = page.get_attribute("body", "data-version")
        move = _pick_move(state, session_id, rng)
        _drag(page, move[:2], move[2:4])
        page.wait_for_selector(f"body:not([data-version='{version}'])", timeout=60_000)
        assert page.inner_text("#error") == "", page.inner_text("#error")
        turns += 1
        assert turns < 150, "the game should have ended"
    session = state.session(session_id)
    assert session.game.get_win_reason() is not None
    history = session.game.get_game_history()
    assert history is not None and history.num_turns() >= 2 * turns - 1
    assert page.is_visible("#replay-link")
    shoot(page, "play-over")
    page.click("#replay-link")
    rendered(page, 0)
    assert state.library.history(session.replay_id or "").num_turns() == history.num_turns()  # recorded like any game
    assert not page.console_errors


def check_bad_input_gets_a_clear_page(viewer: tuple[str, ViewerState], page: Any) -> None:
    url, _ = viewer
    before = len(page.console_errors)
    for path, status, words in (
        ("/game/no-such-game", 404, "no game with id 'no-such-game'"),
        ("/game/random?ply=999", 400, "ply 999 is out of range"),
        ("/game/notes", 400, "not a GameHistory"),
        ("/game/random?ply=abc", 400, "ply"),
        ("/play/0123456789ab", 404, "no game in play"),
    ):
        response = page.goto(f"{url}{path}")
        assert response.status == status, path
        assert words in page.inner_text("#error-message"), path
    shoot(page, "error-page")
    # the browser logs each 4xx navigation as a failed resource; nothing else may have gone wrong
    expected = page.console_errors[before:]
    assert len(expected) == 5 and all(text.startswith("Failed to load resource") for text in expected), expected
    del page.console_errors[before:]


def check_server_pages_list_a_game_in_progress_and_show_its_replay_once_it_ends(page: Any, folder: Path) -> None:
    from blindchess.commands.cli_serve import serving_app
    from blindchess.server.server import ServerThread

    with ServerThread(folder / "db.sqlite3", build=serving_app) as server:
        service = server.service
        for name in ("alice", "bob"):
            service.register(name, f"pw-{name}")
        alice, bob = (service.authenticate(name, f"pw-{name}") for name in ("alice", "bob"))
        assert alice is not None and bob is not None
        game_id = service.invite(alice, "bob", chess.WHITE)
        service.accept_invitation(bob, service.invitations(bob)[0])
        service.ready(alice, game_id)
        service.ready(bob, game_id)

        def turn(user: Any, move: str) -> None:
            service.sense(user, game_id, 27)
            service.move(user, game_id, chess.Move.from_uci(move))
            service.end_turn(user, game_id)

        turn(alice, "e2e4")
        page.goto(f"{server.url}/server")
        page.wait_for_selector("body[data-ready='1']")
        assert "alice" in page.inner_text("#in-progress") and "bob" in page.inner_text("#in-progress")
        shoot(page, "server")
        before = len(page.console_errors)
        page.click("#in-progress a")  # while the game runs, its record is the arbiter's alone
        page.wait_for_selector("#error-message")
        assert "not over yet" in page.inner_text("#error-message")
        del page.console_errors[before:]  # the browser logs the 403 navigation as a failed resource
        turn(bob, "e7e5")
        service.resign(alice, game_id)
        plies = service.spectator_history(game_id).num_turns()
        page.reload()  # over: the whole record is public
        rendered(page, 0)
        page.keyboard.press("End")
        rendered(page, plies)
        assert page.inner_text("#ply-label") == f"ply {plies} / {plies}"
    assert not page.console_errors


def check_view_command_draws_the_files_replay_at_page_load(page: Any, folder: Path) -> None:
    """``blindchess view FILE`` prints that game's replay URL, whose boards are drawn when the page has loaded.

    No wait beyond ``goto`` (which returns at the load event): a screenshot taken then shows the position.
    """
    path = folder / "game.json"
    random_game(seed=7, full_turns=3).save(str(path))
    command = [sys.executable, "-m", "blindchess", "view", str(path), "--port", "0", "--games-dir", str(folder / "played")]
    viewer = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert viewer.stdout is not None
        line = viewer.stdout.readline()
        found = re.search(r"viewer on (http://127\.0\.0\.1:\d+/game/game) ", line)
        assert found, line
        page.goto(found.group(1))
        pieces = page.locator("#truth-board .piece").count(), page.locator("#view-board .piece").count()
        title = page.inner_text("#title")
        shoot(page, "view-command")
    finally:
        viewer.terminate()
        viewer.wait(timeout=30)
    assert pieces == (32, 16)  # ply 0: every piece on the true board, White's own on its view
    assert title.startswith("RandomBot (White) vs RandomBot (Black)"), title
    assert not page.console_errors


def test_the_viewer_in_a_real_browser(viewer: tuple[str, ViewerState], page: Any, tmp_path: Path) -> None:
    """Every view, in order, in one browser (one test, so that pytest-xdist never starts a second browser)."""
    check_view_command_draws_the_files_replay_at_page_load(page, tmp_path)
    check_replay_steps_and_shares_a_ply_url(viewer, page)
    check_heat_map_shows_the_marginals_of_the_rebuilt_belief(viewer, page)
    check_teaching_board_shows_the_whole_support_and_bayes_steps(viewer, page)
    check_a_whole_game_against_the_random_bot_by_clicks_and_drags(viewer, page)
    check_bad_input_gets_a_clear_page(viewer, page)
    check_server_pages_list_a_game_in_progress_and_show_its_replay_once_it_ends(page, tmp_path)
