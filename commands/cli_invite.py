"""`blindchess invite OPPONENT`: challenge a connected bot and play the game with one of ours."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from blindchess.arbiter.game.results import describe_result, player_names, save_history
from blindchess.arguments import add_command
from blindchess.command_errors import BadInputError, RunFailedError
from blindchess.commands.cli_connect import add_auth_arguments, bot_factory, open_session
from blindchess.dependencies import require


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
    except ValueError as error:  # the bot, the credentials, or an opponent the server refused
        raise BadInputError(str(error)) from error
    except ServerUnavailable as error:
        raise RunFailedError(str(error)) from error
    print(f"game {game_id}: {_pairing(session.username, args.opponent, args.color)}, {session.username} played by {args.bot}", flush=True)
    try:
        winner, reason, history = play_remote_game(session, game_id, make_bot())
    except (ServerRefused, ServerUnavailable) as error:
        raise RunFailedError(f"game {game_id}: {error}") from error
    path = save_history(history, Path(args.out), f"game{game_id}")
    result = describe_result(winner, reason, *player_names(history))
    print(f"game {game_id}: {result} -> {path}")
    return 0


def _pairing(me: str, opponent: str, color: str) -> str:
    """``me (white) vs bot1 (black)``: the players by the names the server (and so the result line) gives them.

    >>> _pairing("me", "bot1", "black")
    'bot1 (white) vs me (black)'
    """
    white, black = (me, opponent) if color == "white" else (opponent, me)
    return f"{white} (white) vs {black} (black)"
