"""Command-line argument types shared by every subcommand: each checks its value at the edge.

An argparse ``type=`` that raises `argparse.ArgumentTypeError` makes the command print one line
(`blindchess.command_errors.CommandParser`), ``blindchess serve: error: argument --port: must be
a port number 0..65535 (0: any free port), got '99999'; see 'blindchess serve --help'``, and exit
with status 2, before any work starts. Imports nothing of ours, so every layer may use it.

>>> positive_seconds("2.5")
2.5
>>> port("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be a port number 1..65535, got '0'
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any, NamedTuple


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if math.isnan(value) or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds, got {text!r}")
    return value


def positive_seconds(text: str) -> float:
    """A clock: a finite number of seconds above zero (a zero or negative clock loses at once)."""
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {text!r}")
    return value


def non_negative_seconds(text: str) -> float:
    """An increment or a delay: a finite number of seconds, zero or more."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 seconds or more, got {text!r}")
    return value


def _integer(text: str, low: int, high: float, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """A count: 1 or more."""
    return _integer(text, 1, math.inf, "a whole number >= 1")


def port(text: str) -> int:
    """A TCP port to connect to: 1..65535."""
    return _integer(text, 1, 65535, "a port number 1..65535")


def listen_port(text: str) -> int:
    """A TCP port to listen on: 1..65535, or 0 for any free one."""
    return _integer(text, 0, 65535, "a port number 0..65535 (0: any free port)")


def host_port(text: str) -> tuple[str, int]:
    """A server address ``HOST:PORT``."""
    host, _, number = text.rpartition(":")
    if not host:
        raise argparse.ArgumentTypeError(f"server {text!r} is not HOST:PORT")
    return host, port(number)


def database_path(text: str) -> str:
    """An SQLite database file: its folder must exist; if the file exists it must be an SQLite database.

    The check reads the file's 16-byte header (``SQLite format 3``) rather than opening it,
    so a wrong path never creates or changes anything.
    """
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a database file")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"folder {str(path.parent)!r} of {text!r} does not exist")
    if path.exists():
        try:
            with open(path, "rb") as file:
                header = file.read(16)
        except OSError as error:
            raise argparse.ArgumentTypeError(f"cannot read {text!r}: {error.strerror}") from None
        if header and header != b"SQLite format 3\x00":
            raise argparse.ArgumentTypeError(f"{text!r} is not an SQLite database")
    return text


def output_folder(text: str) -> str:
    """A folder to write into: created if missing, but it may not be a file."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file, not a folder")
    return text


__all__ = [
    "database_path", "host_port", "listen_port", "non_negative_seconds", "output_folder", "port",
    "positive_int", "positive_seconds",
]  # fmt: skip


class Command(NamedTuple):
    """A subcommand: the module whose ``add_parser`` builds its parser, and its one-line summary."""

    module: str
    summary: str


COMMANDS: dict[str, Command] = {
    "serve": Command("blindchess.commands.cli_serve", "run a reconchess-compatible RBC game server"),
    "view": Command("blindchess.commands.cli_view", "open replays, beliefs and play against a bot in the browser"),
    "connect": Command("blindchess.commands.cli_connect", "connect a bot to a server and play the games it is invited to"),
    "invite": Command("blindchess.commands.cli_invite", "challenge a connected player and play the game with a bot"),
    "imcs": Command("blindchess.commands.cli_imcs", "play one Mini-Chess game on an IMCS 2.5 server"),
    "imcs-serve": Command("blindchess.commands.cli_imcs", "run an IMCS 2.5 protocol server for Mini-Chess"),
    "simulchess": Command("blindchess.commands.cli_simulchess", "play simultaneous-move chess between two bots"),
    "match": Command("blindchess.commands.cli_match", "play games between two bots and summarise them"),
    "match-report": Command("blindchess.commands.cli_match_report", "a recorded match's score, interval, clock use and losses"),
    "tournament": Command("blindchess.commands.cli_tournament", "play a tournament from a TOML config and rate the players"),
    "sprt": Command("blindchess.commands.cli_sprt", "sequential test: play pairs until A is shown better than B or not"),
    "replay": Command("blindchess.commands.cli_replay", "step through a saved game history (JSON)"),
    "playback": Command("blindchess.commands.cli_playback", "re-feed a bot its recorded game (reproduce a crash)"),
    "posterior": Command("blindchess.commands.cli_posterior", "training data, training and scoring of the neural posterior"),
}
"""Every subcommand, in the order ``blindchess --help`` lists them.

The summaries live here, not in the modules, so that ``blindchess --help`` lists every command
without importing one (`blindchess.cli` imports only the module of the command being run)."""


def add_command(subparsers: Any, name: str, description: str, example: str) -> argparse.ArgumentParser:
    """The parser of subcommand `name`, laid out as every subcommand is: its summary from `COMMANDS`
    for ``blindchess --help``, the `description` on top of its own help, and one `example` command
    line at the bottom, printed as written."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, help=COMMANDS[name].summary, description=description, epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser

