"""How fast does the viewer answer? A 200-turn replay, stepping, and a belief view on 100,000 boards.

Question: does a long replay open in well under a second, and does a belief overlay on a set of
about 100,000 boards come back in under two seconds? Everything goes through a real viewer on
127.0.0.1 (uvicorn, JSON over HTTP), as the browser asks for it; each figure is the best of
``--repeats`` runs, set against a baseline measured in the same run:

* replay: ``GET /data/games/<id>`` of a 200-ply game on a fresh viewer (the file read, parsed
  and turned into the replay document), against ``GameHistory.from_file`` alone. Stepping
  asks the server nothing: every ply is in that one document.
* stepping in the browser (when Debian's ``/usr/bin/chromium`` and Playwright are installed):
  the mean time from a → key press to the next ply drawn, over the whole 200-ply game,
  heat map off (the replay page's own work: two boards, markers, facts, the URL), timed
  inside the page.
* belief: ``GET /data/games/<id>/belief`` at a ply where the board set holds >= 100,000 boards,
  cold (rebuilt from the start of the game) and warm (from the previous ply's checkpoint: one
  step forward, as stepping does), against ``BoardSet.marginals()`` alone on the same set.

The big set comes from a game in which White never senses (so its belief only grows).

    python3 experiments/bench_viewer.py [--boards 100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import chess

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.local_game import LocalGame
from blindchess.arbiter.play import play_local_game
from blindchess.arbiter.types import Square
from blindchess.bots.random_bot import RandomBot
from blindchess.viewer.app import served_viewer
from blindchess.viewer.belief_views import BeliefTrack, belief_factory
from blindchess.viewer.library import GameLibrary
from blindchess.viewer.serving import AppThread
from blindchess.viewer.state import ViewerState


class BlindRandomBot(RandomBot):
    """A random mover that never senses: its board set only grows."""

    def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
        return None


def long_game(plies: int) -> GameHistory:
    """A random game of exactly `plies` turns (the first seed whose game lasts that long, cut by the turn limit)."""
    for seed in range(200):
        game: LocalGame[Any] = LocalGame(seconds_per_player=None, full_turn_limit=plies // 2, reversible_moves_limit=None)
        _, _, history = play_local_game(RandomBot(seed), RandomBot(seed + 1000), game, enforce_deadlines=False)
        if history.num_turns() == plies:
            return history
    raise RuntimeError(f"no seed below 200 gave a {plies}-turn game")


def blind_game(full_turns: int) -> GameHistory:
    game: LocalGame[Any] = LocalGame(seconds_per_player=None, full_turn_limit=full_turns, reversible_moves_limit=None)
    _, _, history = play_local_game(BlindRandomBot(1), RandomBot(2), game, enforce_deadlines=False)
    return history


def best_of(repeats: int, run: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=300) as response:
        return json.loads(response.read())


def browser_stepping(folder: Path, cap: int) -> Optional[float]:
    """Mean seconds per ply stepping the 200-ply replay with the → key in headless Chromium, or None without one."""
    chromium = Path("/usr/bin/chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("(no playwright: browser stepping not measured)")
        return None
    if not chromium.exists():
        print("(no /usr/bin/chromium: browser stepping not measured)")
        return None
    with AppThread(served_viewer(ViewerState(GameLibrary.from_path(folder), max_boards=cap))) as viewer, sync_playwright() as playwright:
        flags = ["--headless", "--no-sandbox", "--disable-background-networking"]
        browser = playwright.chromium.launch(executable_path=str(chromium), args=flags)
        page = browser.new_page(viewport={"width": 1360, "height": 1000})
        page.goto(f"{viewer.url}/game/long")
        page.wait_for_selector('body[data-rendered="0:white:0:all"]')
        # timed inside the page (no round trip to Playwright per step): a key press, then wait for the ply drawn
        per_ply: float = page.evaluate(STEP_THROUGH, 200) / 1000
        browser.close()
    return per_ply


STEP_THROUGH = """async (n) => {
    const start = performance.now()
    for (let ply = 1; ply <= n; ply++) {
        const drawn = new Promise(resolve => {
            const observer = new MutationObserver(() => {
                if (document.body.dataset.rendered.startsWith(ply + ":")) { observer.disconnect(); resolve() }
            })
            observer.observe(document.body, {attributes: true})
        })
        document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight"}))
        await drawn
    }
    return (performance.now() - start) / n
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=100_000, help="belief size to reach (default 100,000)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-viewer-"))
    long_game(200).save(str(folder / "long.json"))
    blind = blind_game(12)
    blind.save(str(folder / "blind.json"))
    cap = 20 * args.boards
    track = BeliefTrack(blind.observations(chess.WHITE), blind.num_turns(), belief_factory("boardset", cap))
    ply = next((p for p in range(1, blind.num_turns() + 1) if len(track.at(p)) >= args.boards), None)
    if ply is None:
        raise RuntimeError(f"White's belief never reached {args.boards} boards")
    size = len(track.at(ply))

    def timed_get(path: str, state: Optional[ViewerState] = None) -> float:
        """Seconds of one GET on a fresh viewer (its library not loaded yet: the file is read on that request)."""
        state = state or ViewerState(GameLibrary.from_path(folder), max_boards=cap)
        with AppThread(served_viewer(state)) as viewer:
            start = time.perf_counter()
            get(viewer.url + path)
            return time.perf_counter() - start

    replay = min(timed_get("/data/games/long") for _ in range(args.repeats))
    parse = best_of(args.repeats, lambda: GameHistory.from_file(str(folder / "long.json")))
    cold = min(timed_get(f"/data/games/blind/belief?ply={ply}&side=white") for _ in range(args.repeats))
    state = ViewerState(GameLibrary.from_path(folder), max_boards=cap)
    with AppThread(served_viewer(state)) as viewer:
        get(f"{viewer.url}/data/games/blind/belief?ply={ply - 1}&side=white")

        def belief_warm() -> None:
            state.track("blind", chess.WHITE, "boardset")._checkpoints.pop(ply, None)  # a step again, not a cache hit
            assert get(f"{viewer.url}/data/games/blind/belief?ply={ply}&side=white")["size"] == size

        warm = best_of(args.repeats, belief_warm)
    stepping = browser_stepping(folder, cap)
    marginals = best_of(args.repeats, track.at(ply).marginals)
    print(f"replay of a 200-ply game, GET /data/games/<id> on a fresh viewer: {replay * 1000:7.1f} ms "
          f"(GameHistory.from_file alone {parse * 1000:.1f} ms, ratio {replay / parse:.1f}x); stepping: no request")
    if stepping is not None:
        print(f"stepping through the 200-ply replay in Chromium: {stepping * 1000:7.1f} ms per ply (mean)")
    print(f"belief view at ply {ply} ({size:,} boards), cold from the start: {cold * 1000:7.1f} ms")
    print(f"belief view at ply {ply} ({size:,} boards), one step from ply {ply - 1}: {warm * 1000:7.1f} ms "
          f"(BoardSet.marginals alone {marginals * 1000:.1f} ms, ratio {warm / marginals:.1f}x)")


if __name__ == "__main__":
    main()
