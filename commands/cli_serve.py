"""`blindchess serve`: run a reconchess-compatible game server, with the viewer's pages for its games.

The command lives with the viewer because it serves both: the reconchess HTTP API under
``/api/`` and the viewer's pages (leaderboard, games in progress, recent games and
their replays) everywhere else, on one port.
"""

from __future__ import annotations

import argparse
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from blindchess.server.service import Service

from blindchess.arguments import (
    add_command,
    database_path,
    listen_port,
    non_negative_seconds,
    positive_int,
    positive_seconds,
)
from blindchess.command_errors import BadInputError, RunFailedError
from blindchess.dependencies import require


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "serve",
        (
            "Run an RBC game server that speaks reconchess's HTTP API, so reconchess's own rc-connect,"
            " rc-register and RemoteGame play on it unchanged. Accounts, games and ratings live in one"
            " SQLite file; an unfinished game goes on after a restart. The viewer's pages for its games"
            " (leaderboard, games in progress, replays) are served on the same port."
        ),
        "blindchess serve --port 8000 --db games.sqlite3",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only)")
    parser.add_argument("--port", type=listen_port, default=8000, help="TCP port; 0 picks a free one (printed on start)")
    parser.add_argument(
        "--db", type=database_path, default="blindchess-server.sqlite3", help="SQLite database file (created if missing, mode 0600)"
    )
    parser.add_argument("--seconds-per-player", type=positive_seconds, default=900.0, help="clock of each player in a new game")
    parser.add_argument("--increment", type=non_negative_seconds, default=5.0, help="seconds added to a clock after each turn")
    parser.add_argument("--full-turn-limit", type=positive_int, default=None, help="draw after this many full turns")
    parser.add_argument(
        "--reversible-moves-limit", type=positive_int, default=100, help="draw after this many reversible half-moves"
    )
    parser.add_argument(
        "--start-timeout",
        type=positive_seconds,
        default=300.0,
        help="withdraw a game whose players are not both ready after this many seconds",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the ranked scheduler's random choices")
    parser.add_argument(
        "--body-timeout",
        type=positive_seconds,
        default=10.0,
        help="seconds a request body may take to arrive after its headers (then 408, connection closed)",
    )
    parser.add_argument(
        "--registrations-per-address",
        type=positive_int,
        default=100,
        help="new accounts one client address makes freely; past them each waits (60 s, doubling; forgotten after a day)",
    )
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy whose X-Forwarded-For header names the client (repeatable; default: none is believed)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require("fastapi", "uvicorn", extra="server")
    from blindchess.server.errors import DatabaseInUse, StoreUnavailable
    from blindchess.server.server import serve
    from blindchess.server.service import ServerConfig
    from blindchess.sqlite_marker import ForeignDatabaseError

    logging.getLogger("blindchess").setLevel(logging.DEBUG if args.verbose else logging.INFO)
    config = ServerConfig.from_arguments(args)

    def announce(url: str) -> None:
        print(f"serving on {url} (database {args.db}; pages at {url}/server)", flush=True)

    try:
        serve(args.db, args.host, args.port, config, announce, serving_app)
    except (DatabaseInUse, StoreUnavailable) as error:
        raise RunFailedError(str(error)) from error
    except ForeignDatabaseError as error:  # bad input: --db names a file that is not a server's database
        raise BadInputError(str(error)) from error
    except OSError as error:
        raise RunFailedError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from error
    return 0


def serving_app(service: Service) -> ASGIApp:
    """What `blindchess serve` serves over `service`: the game API and the viewer's pages, behind one set of request limits."""
    from blindchess.server.app import build_api, shielded
    from blindchess.viewer.app import PathDispatch, build_viewer
    from blindchess.viewer.library import GameLibrary
    from blindchess.viewer.state import ViewerState

    pages = build_viewer(ViewerState(GameLibrary(), service=service))
    return shielded(PathDispatch(build_api(service), pages), service.config.body_seconds)
