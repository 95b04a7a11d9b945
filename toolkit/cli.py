"""The `blindchess` command line.

Each subcommand lives beside the code it drives, in a module with two functions::

    def add_parser(subparsers) -> None      # registers the subcommand and its arguments
    def run(args: argparse.Namespace) -> int

and is listed in `COMMAND_MODULES`. Modules are imported only when the command
line is parsed, so a subcommand's heavy imports never slow down the others.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import Optional

from blindchess import __version__
from blindchess.dependencies import MissingDependencyError

COMMAND_MODULES: tuple[str, ...] = (
    "blindchess.viewer.cli_serve",
    "blindchess.viewer.cli_view",
    "blindchess.server.cli_connect",
    "blindchess.server.cli_invite",
    "blindchess.variants.cli_imcs",
    "blindchess.variants.simulchess.cli_simulchess",
    "blindchess.tournament.cli_match",
    "blindchess.tournament.cli_tournament",
    "blindchess.tournament.cli_sprt",
    "blindchess.arbiter.cli_replay",
    "blindchess.bots.cli_playback",
    "blindchess.learning.cli_posterior",
)


EPILOG = """examples:
  blindchess match trout random --games 2 --seed 1     play two games, save them in ./games
  blindchess replay games/FILE.json --all              print a saved game turn by turn
  blindchess COMMAND --help                            what a command does, with an example
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="blindchess",
        description="Reconnaissance Blind Chess toolkit: play, replay and serve games between bots.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"blindchess {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_parser(subparsers)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run one subcommand; an error it did not expect is one line on stderr (exit 1), its traceback only with ``-v``.

    Each subcommand reports the errors it expects itself; this is the net under them, so no
    documented command ends in a raw traceback. Ctrl-C outside a command's own handling exits 130.
    """
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.run(args) or 0)
    except MissingDependencyError as error:
        print(f"blindchess {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if args.verbose:
            raise
        sys.stderr.write(f"blindchess {args.command}: interrupted\n")
        return 130
    except Exception as error:
        if args.verbose:
            raise
        message = str(error).splitlines()[0] if str(error) else ""
        sys.stderr.write(f"blindchess {args.command}: error: {type(error).__name__}: {message} (-v shows the traceback)\n")
        return 1
