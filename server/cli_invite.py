"""`blindchess invite OPPONENT`: challenge a connected bot and play the game with one of ours."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from blindchess.arbiter.results import describe_result, player_names, save_history
from blindchess.arguments import add_command
from blindchess.dependencies import require
from blindchess.server.cli_connect import MissingCredentialsError, add_auth_arguments, bot_factory, open_session


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "invite",
        (
            "Invite a player connected to a reconchess-compatible server to one game and play our"
            " side with a bot; the result is printed and the history saved in --out."
        ),
        "blindchess invite bot1 --bot attacker --color black --server http://127.0.0.1:8000 --username me --register",
    )
    parser.add_argument("opponent", help="username of the player to challenge")
    parser.add_argument("--bot", default="random", help="the bot that plays our side (default: random)")
    parser.add_argument("--color", choices=("white", "black"), default="white", help="our colour")
    add_auth_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require("fastapi", "uvicorn", extra="server")
    from blindchess.server.client import ServerRefused, ServerUnavailable, play_remote_game

    try:
        make_bot = bot_factory(args.bot, args.seed)
        session = open_session(args)
        game_id = session.invite(args.opponent, args.color == "white")
        print(f"game {game_id}: {args.bot} ({args.color}) vs {args.opponent}", flush=True)
        winner, reason, history = play_remote_game(session, game_id, make_bot())
    except (ValueError, ServerUnavailable) as error:
        print(f"blindchess invite: {error}", file=sys.stderr)
        return 2 if isinstance(error, (ServerRefused, MissingCredentialsError)) else 1
    path = save_history(history, Path(args.out), f"game{game_id}")
    result = describe_result(winner, reason, *player_names(history))
    print(f"game {game_id}: {result} -> {path}")
    return 0
