"""`blindchess view [FILE|FOLDER]`: replays, belief overlays and play against a bot, in the browser."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any
from urllib.parse import quote

from blindchess.arguments import add_command, listen_port, positive_int, positive_seconds
from blindchess.command_errors import BadInputError, RunFailedError
from blindchess.dependencies import require


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "view",
        (
            "Serve the game viewer on this machine: step through saved games (a history file or a"
            " folder of them) with the true board, each side's sense windows and belief overlays, or"
            " play against a bot in the browser. Open the printed URL: for a history file it is that"
            " game's replay, for a folder the list of its games."
        ),
        "blindchess view games/ --port 8080",
    )
    parser.add_argument("path", nargs="?", type=Path, help="a history file (ours or reconchess's) or a folder of them")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only)")
    parser.add_argument("--port", type=listen_port, default=8080, help="TCP port; 0 picks a free one (the URL is printed)")
    parser.add_argument(
        "--games-dir", type=Path, default=None,
        help="where games played in the browser are saved (default: FOLDER, else ./blindchess-games)",
    )
    parser.add_argument("--max-boards", type=positive_int, default=None, help="cap of the board-set belief (default 200000)")
    parser.add_argument(
        "--body-timeout", type=positive_seconds, default=None,
        help="seconds a request body may take to arrive after its headers (then 408, connection closed; default 10)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require("fastapi", "uvicorn", extra="server")  # the viewer is a web application: say so before anything starts
    from blindchess.arbiter.game.history import GameHistory, HistoryFormatError
    from blindchess.viewer.app import served_viewer
    from blindchess.viewer.belief_views import DEFAULT_MAX_BOARDS
    from blindchess.viewer.library import GameLibrary
    from blindchess.viewer.serving import run_foreground
    from blindchess.viewer.state import ViewerState

    path: Path | None = args.path
    if path is not None and path.is_file():
        try:
            GameHistory.from_file(str(path))  # a single file that is no history: say so now, not in the browser
        except (HistoryFormatError, OSError) as error:
            raise BadInputError(str(error)) from error
    default_dir = path if path is not None and path.is_dir() else Path("blindchess-games")
    try:
        library = GameLibrary.from_path(path, args.games_dir or default_dir)
    except FileNotFoundError as error:  # no such file or folder
        raise BadInputError(str(error)) from error
    state = ViewerState(library, max_boards=args.max_boards or DEFAULT_MAX_BOARDS)

    # A file opens at its own replay (the library holds just that game); a folder at the list of its games.
    page = f"/game/{quote(library.entries()[0].game_id)}" if path is not None and path.is_file() else "/"

    def announce(url: str) -> None:
        games = f"{len(library.entries())} games; played games are saved to {library.folder}"
        print(f"viewer on {url}{page} ({games})", flush=True)

    try:
        run_foreground(served_viewer(state, args.body_timeout), args.host, args.port, announce)
    except OSError as error:
        raise RunFailedError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from error
    return 0
