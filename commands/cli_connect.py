"""`blindchess connect BOT`: keep a bot connected to a server, playing the games it is invited to."""

from __future__ import annotations

import argparse
import getpass
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, Optional

from blindchess.arguments import add_command, positive_int, positive_seconds
from blindchess.command_errors import BadInputError, RunFailedError
from blindchess.dependencies import require
from blindchess.errors import BlindchessError
from blindchess.text_tables import counted


class MissingCredentialsError(BlindchessError, ValueError):
    """A username or password is needed but none was given and there is no terminal to prompt on."""


def add_auth_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", default="http://127.0.0.1:8000", help="server URL")
    parser.add_argument("--username", default=None, help="account name (prompted if missing)")
    parser.add_argument(
        "--password", default=None, help="password (else $BLINDCHESS_PASSWORD, else prompted; avoid it on shared machines)"
    )
    parser.add_argument("--register", action="store_true", help="create the account first if it does not exist")
    parser.add_argument("--seed", type=int, default=None, help="seed for the bots' random choices")
    parser.add_argument("--out", default="games", help="folder for the game histories (default ./games)")


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "connect",
        (
            "Log in to a reconchess-compatible server and play every game the account is invited to"
            " (up to --max-games at once), each with a fresh bot. Each result is printed as it"
            " comes and each history saved in --out, as `blindchess match` does. Ctrl-C stops"
            " taking games and finishes the ones in progress."
        ),
        "blindchess connect random --server http://127.0.0.1:8000 --username bot1 --register",
    )
    parser.add_argument("bot", help="registered bot name (random, attacker, trout), bot file or module")
    add_auth_arguments(parser)
    parser.add_argument("--ranked", action="store_true", help="take part in ranked games")
    parser.add_argument("--new-version", action="store_true", help="with --ranked: rate this run as a new bot version")
    parser.add_argument("--max-games", type=positive_int, default=4, help="most games played at the same time")
    parser.add_argument("--poll-seconds", type=positive_seconds, default=5.0, help="how often to look for invitations")
    parser.add_argument(
        "--ponder",
        action="store_true",
        help="let the bot think on the opponent's turn (it needs a ponder(stop) method; see docs/pondering.md)",
    )
    parser.set_defaults(run=run)


def open_session(args: argparse.Namespace) -> Any:
    """A session whose credentials the server has accepted (registering the account first if asked).

    A missing username or password is prompted for on a terminal; without one (a service, a
    pipe, CI) the prompt would read end-of-file, so it is an error that says what to set instead.

    Raises:
        MissingCredentialsError: no username or password, and stdin is not a terminal.
        AuthenticationFailed: the server refused the username or password.
        ServerUnavailable: the server could not be reached.
    """
    from blindchess.server.client import ServerRefused, ServerSession

    username = args.username or _prompt("--username", "Username: ", input)
    password = args.password or os.environ.get("BLINDCHESS_PASSWORD") or _prompt(
        "--password or set the BLINDCHESS_PASSWORD environment variable", "Password: ", getpass.getpass
    )
    session = ServerSession(args.server, username, password)
    if args.register:
        try:
            session.register()
        except ServerRefused as error:
            if error.status != 409:
                raise
    session.authenticate()
    return session


def _prompt(source: str, prompt: str, read: Callable[[str], str]) -> str:
    """Ask on the terminal; with no terminal, raise an error naming `source` (where the value can come from)."""
    if sys.stdin is None or not sys.stdin.isatty():
        raise MissingCredentialsError(f"no terminal for the {prompt.strip()!r} prompt: give {source}")
    return read(prompt)


def bot_factory(spec: str, seed: Optional[int], ponder: bool = False) -> Any:
    """A function making a fresh bot per game; seeds differ per game but derive from `seed`.

    With `ponder` each bot is wrapped in a `PonderingPlayer`: the opponent plays on the server,
    in another process, so the bot's thinking takes no time from it (the server keeps the clocks).

    Raises:
        PonderingUnsupportedError: `ponder` is asked of a bot with no ``ponder`` method.
    """
    import numpy as np

    from blindchess.arbiter.sandbox.pondering import PonderingUnsupportedError, pondering, supports_pondering
    from blindchess.bots.registry import make_bot, resolve_bot

    _, player_class = resolve_bot(spec)
    if ponder and not supports_pondering(player_class):
        raise PonderingUnsupportedError(f"bot {spec!r} cannot ponder: {player_class.__name__} has no ponder(stop) method")
    seeds = np.random.SeedSequence(seed)

    def build() -> Any:
        bot = make_bot(player_class, rng=np.random.default_rng(seeds.spawn(1)[0]))
        return pondering(bot) if ponder else bot

    return build


def run(args: argparse.Namespace) -> int:
    require("fastapi", "uvicorn", extra="server")
    from blindchess.server.client import ServerRefused, ServerUnavailable
    from blindchess.server.connect import Connector

    try:
        factory = bot_factory(args.bot, args.seed, args.ponder)
        session = open_session(args)
        connector = Connector(
            session, factory, max_games=args.max_games, ranked=args.ranked, new_version=args.new_version,
            poll_seconds=args.poll_seconds, out=Path(args.out), on_result=lambda record: print(record.describe(), flush=True),
        )
    except ValueError as error:  # the bot, the credentials or the account the server refused
        raise BadInputError(str(error)) from error
    except ServerUnavailable as error:
        raise RunFailedError(str(error)) from error

    def on_interrupt(signum: int, frame: Optional[FrameType]) -> None:
        if connector.stopping:  # second Ctrl-C: give up on the games in progress
            raise KeyboardInterrupt
        print("stopping: no new games; finishing the games in progress (Ctrl-C again to quit now)", flush=True)
        connector.stop()

    signal.signal(signal.SIGINT, on_interrupt)
    signal.signal(signal.SIGTERM, on_interrupt)
    print(f"connected to {session.url} as {session.username}; waiting for invitations", flush=True)
    try:
        records = connector.run()
    except (ServerRefused, ServerUnavailable) as error:
        raise RunFailedError(str(error)) from error
    print(f"{counted(len(records), 'game')} played", flush=True)
    return 0
