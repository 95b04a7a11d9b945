"""The `blindchess` command line.

Each subcommand lives beside the code it drives, in a module with two functions::

    def add_parser(subparsers) -> None      # registers the subcommand and its arguments
    def run(args: argparse.Namespace) -> int

and is listed, with its one-line summary, in `blindchess.arguments.COMMANDS`. `main` imports
only the module of the command it runs (``blindchess --help`` imports none), so a subcommand's
imports never slow down the others.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import Optional

from blindchess import __version__
from blindchess.arguments import COMMANDS
from blindchess.command_errors import BAD_INPUT, RUN_FAILED, CommandError, CommandParser, error_line
from blindchess.dependencies import MissingDependencyError

COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(command.module for command in COMMANDS.values()))
"""The modules that define the subcommands (`blindchess.arguments.COMMANDS`), each once."""


EPILOG = """examples:
  blindchess match trout random --games 2 --seed 1     play two games, save them in ./games
  blindchess replay games/FILE.json --all              print a saved game turn by turn
  blindchess COMMAND --help                            what a command does, with an example
"""


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The command line's parser: every subcommand's whole parser, or with `only` just that one's.

    With `only` the other subcommands are listed by name and summary alone, so that running one
    command (or ``blindchess --help``, with an `only` that names none) imports no other
    command's module.
    """
    parser = CommandParser(
        prog="blindchess",
        description="Reconnaissance Blind Chess toolkit: play, replay and serve games between bots.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"blindchess {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log our debug messages (other libraries' stay at warnings)")
    subparsers = parser.add_subparsers(dest="command", required=True)
    modules = COMMAND_MODULES if only is None else [COMMANDS[only].module] if only in COMMANDS else []
    for module in modules:
        importlib.import_module(module).add_parser(subparsers)
    for name, command in COMMANDS.items():
        if name not in subparsers.choices:
            subparsers.add_parser(name, help=command.summary)
    return parser


def _command_named(argv: Sequence[str]) -> str:
    """The subcommand `argv` asks for: its first word that is not an option (the top level's options take no value)."""
    return next((word for word in argv if not word.startswith("-")), "")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run one subcommand; every error is one line on stderr (`blindchess.command_errors.error_line`).

    A bad argument exits 2 (argparse, through `CommandParser`); an error the command raises says
    its own status (`CommandError`: 2 for bad input, 1 for a run-time failure); anything else is
    unexpected: exit 1, its traceback only with ``-v``. So no documented command ends in a raw
    traceback. Ctrl-C outside a command's own handling exits 130; a reader that stops reading
    the output (``blindchess replay FILE --all | head``) ends the command silently with 141, as
    the SIGPIPE that ends other Unix tools there would.
    """
    words = sys.argv[1:] if argv is None else argv
    args = build_parser(_command_named(words)).parse_args(words)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.verbose:  # ours only: numba at DEBUG dumps the bytecode of every kernel it compiles
        logging.getLogger("blindchess").setLevel(logging.DEBUG)
    try:
        status = int(args.run(args) or 0)
        sys.stdout.flush()  # here, where a reader gone away is caught, not at the interpreter's exit
        return status
    except CommandError as error:
        sys.stderr.write(error_line(args.command, str(error)) + "\n")
        return error.exit_status
    except MissingDependencyError as error:  # fails alike until the user installs it: as bad input (docs/cli.md)
        sys.stderr.write(error_line(args.command, str(error)) + "\n")
        return BAD_INPUT
    except BrokenPipeError:  # Python's documented recipe: no more output, and none at exit's flush either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE (13), what a shell reports for a tool that SIGPIPE ended
    except KeyboardInterrupt:
        if args.verbose:
            raise
        sys.stderr.write(f"blindchess {args.command}: interrupted\n")
        return 130
    except Exception as error:
        if args.verbose:
            raise
        sys.stderr.write(error_line(args.command, f"{type(error).__name__}: {error} (-v shows the traceback)") + "\n")
        return RUN_FAILED
