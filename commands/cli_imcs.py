"""`blindchess imcs` (play one game on an IMCS server) and `blindchess imcs-serve` (run an IMCS server)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

import numpy as np

from blindchess.arguments import add_command, host_port, listen_port, positive_int, positive_seconds
from blindchess.command_errors import RunFailedError
from blindchess.ids import GameIdError, parse_game_id

logger = logging.getLogger(__name__)

MINICHESS_BOTS = ("alphabeta", "greedy", "random")
"""Mini-Chess players by name; `alphabeta` is the default engine."""


def make_minichess_player(name: str, depth: int, seconds: float, seed: int) -> Any:
    """A Mini-Chess player by name (see `MINICHESS_BOTS`)."""
    from blindchess.variants.minichess_engine import AlphaBetaPlayer, GreedyMiniChessPlayer, RandomMiniChessPlayer

    if name == "alphabeta":
        return AlphaBetaPlayer(max_depth=depth, time_limit=seconds)
    rng = np.random.default_rng(seed)
    return GreedyMiniChessPlayer(rng) if name == "greedy" else RandomMiniChessPlayer(rng)


def _game_id(text: str) -> int:
    """``--accept``'s id in its canonical digits (`blindchess.ids`): ``int`` read ``+1``, `` 1`` and ``1_0`` too."""
    try:
        return parse_game_id(text)
    except GameIdError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_parser(subparsers: Any) -> None:
    play = add_command(
        subparsers,
        "imcs",
        (
            "Play one game of Mini-Chess (5x6, perfect information) on an Internet MiniChess Server"
            " (IMCS 2.5 protocol): offer a game or accept an offered one, then play it with a"
            " Mini-Chess engine."
        ),
        "blindchess imcs alphabeta --server 127.0.0.1:3589 --user me --password secret --offer W",
    )
    play.add_argument("bot", choices=MINICHESS_BOTS, help="the Mini-Chess player")
    play.add_argument("--server", type=host_port, required=True, metavar="HOST:PORT")
    play.add_argument("--user", required=True)
    play.add_argument("--password", required=True)
    side = play.add_mutually_exclusive_group(required=True)
    side.add_argument("--offer", nargs="?", const="?", choices=("W", "B", "?"), help="offer a game (our colour; ? = either)")
    side.add_argument("--accept", type=_game_id, metavar="ID", help="accept the offered game ID")
    play.add_argument("--depth", type=positive_int, default=30, help="alphabeta: deepest iteration")
    play.add_argument("--seconds", type=positive_seconds, default=2.0, help="alphabeta: seconds per move")
    play.add_argument("--seed", type=int, default=0, help="greedy/random: seed")
    play.add_argument("--seed-rules", action="store_true", help="play the seed's Mini-Chess rules, not IMCS's")
    play.set_defaults(run=run)

    serve = add_command(
        subparsers,
        "imcs-serve",
        (
            "Run a Mini-Chess game server speaking the IMCS 2.5 protocol (telnet-style lines),"
            " for `blindchess imcs` or any IMCS client; Elo ratings, users kept in --users."
        ),
        "blindchess imcs-serve --port 3589 --users imcs-users.json",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=listen_port, default=3589, help="TCP port; 0 picks a free one")
    serve.add_argument("--users", type=Path, default=None, help="JSON file keeping registered users")
    serve.add_argument("--seed", type=int, default=0, help="colour choice for ? vs ? games")
    serve.set_defaults(run=run_serve)


def run(args: argparse.Namespace) -> int:
    from blindchess.variants.imcs_client import play_imcs_game
    from blindchess.variants.imcs_protocol import ImcsProtocolError
    from blindchess.variants.minichess import IMCS, MINICHESS

    player = make_minichess_player(args.bot, args.depth, args.seconds, args.seed)
    try:
        result = play_imcs_game(
            player, args.server, args.user, args.password, offer=args.offer, accept=args.accept,
            rules=MINICHESS if args.seed_rules else IMCS,
        )
    except (ImcsProtocolError, OSError) as error:
        raise RunFailedError(str(error)) from error
    side = "White" if result.color else "Black"
    print(f"{result.code} {result.text} (we played {side}, {result.moves_sent} moves sent)")
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from blindchess.variants.imcs_server import ImcsServer

    try:
        server = ImcsServer((args.host, args.port), users_path=args.users, seed=args.seed)
    except OSError as error:
        raise RunFailedError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from error
    host, port = server.server_address[:2]
    print(f"imcs 2.5 server on {host!s}:{port} (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
