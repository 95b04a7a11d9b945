"""`blindchess invite OPPONENT`: challenge a connected bot and play the game with one of ours."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import chess

from blindchess.server.cli_connect import add_auth_arguments, bot_factory, open_session


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("invite", help="challenge a connected player and play the game with a bot")
    parser.add_argument("opponent", help="username of the player to challenge")
    parser.add_argument("--bot", default="random", help="the bot that plays our side (default: random)")
    parser.add_argument("--color", choices=("white", "black"), default="white", help="our colour")
    add_auth_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from blindchess.server.client import ServerRefused, ServerUnavailable, play_remote_game

    try:
        make_bot = bot_factory(args.bot, args.seed)
        session = open_session(args)
        game_id = session.invite(args.opponent, args.color == "white")
        print(f"game {game_id}: {args.bot} ({args.color}) vs {args.opponent}", flush=True)
        winner, reason, _ = play_remote_game(session, game_id, make_bot())
    except (ValueError, ServerUnavailable) as error:
        print(f"blindchess invite: {error}", file=sys.stderr)
        return 2 if isinstance(error, ServerRefused) else 1
    result = "draw" if winner is None else f"{chess.COLOR_NAMES[winner]} wins"
    print(f"game {game_id}: {result} ({reason.name if reason is not None else 'no reason'})")
    return 0
