"""How every command reports an error: one line on stderr, and an exit status that says whose it is.

The line is ``blindchess COMMAND: error: WHAT; see 'blindchess COMMAND --help'``, whoever found the
problem: argparse (a bad option or value, through `CommandParser`), the command itself (a
`BadInputError` or `RunFailedError` it raises), or the net under every command in
`blindchess.cli.main` (anything unexpected). The exit status follows one rule (docs/cli.md):

- **2, bad input**: the same command fails the same way again until the user changes something
  they control: an argument, the content of a file it names (a history, a config, a database),
  a name nobody knows, credentials the server refuses, a bot that cannot play the chosen variant
  or cannot be built, a package or engine not installed. Nothing was played or written.
- **1, a run-time failure**: what was given may be right, but running it failed on something
  that changes without the user: a port in use, a database another server holds, a server that
  does not answer, a game lost to an error.

Imports only the root package's helpers, so every layer's command may raise these.

>>> error_line("match", "--seconds: must be more than 0 seconds, got '-1'")
"blindchess match: error: --seconds: must be more than 0 seconds, got '-1'; see 'blindchess match --help'"
>>> error_line("replay", "cannot read 'a.json':\\n  line 2")
"blindchess replay: error: cannot read 'a.json': line 2; see 'blindchess replay --help'"
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from blindchess.errors import BlindchessError

BAD_INPUT = 2
"""Exit status of a command refused for what the user gave (argparse's own status for a bad argument)."""

RUN_FAILED = 1
"""Exit status of a command that failed while running."""


def error_line(command: str, message: str) -> str:
    """The one line that reports `message` for ``blindchess COMMAND`` (`command` may be empty: the top level).

    A message of several lines is joined into one, so nothing the error said is lost.
    """
    program = f"blindchess {command}".rstrip()
    text = " ".join(line.strip() for line in message.splitlines() if line.strip())
    return f"{program}: error: {text}; see '{program} --help'"


class CommandError(BlindchessError):
    """An error a command reports as one line (`error_line`) and ends with `exit_status`."""

    exit_status = RUN_FAILED


class BadInputError(CommandError, ValueError):
    """What the user gave cannot be used (exit status 2; see the module docstring)."""

    exit_status = BAD_INPUT


class RunFailedError(CommandError):
    """The command failed while running (exit status 1; see the module docstring)."""

    exit_status = RUN_FAILED


class CommandParser(argparse.ArgumentParser):
    """An `argparse.ArgumentParser` whose errors are one line with a pointer to ``--help`` (no usage block).

    Its subcommands' parsers are of this class too (argparse builds them with the parent's class),
    so ``blindchess match --seconds -1`` and ``blindchess posterior train --epochs x`` answer alike.
    """

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("blindchess").strip()
        sys.stderr.write(error_line(command, message) + "\n")
        sys.exit(BAD_INPUT)

    def parse_args(self, args: Sequence[str] | None = None, namespace: None = None) -> argparse.Namespace:  # type: ignore[override]
        """As argparse's, but an unknown option is reported by the subcommand it was given to.

        argparse leaves what a subcommand's parser did not recognise for the top-level parser
        to refuse, which would name ``blindchess`` and point at the top level's help.
        """
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            _chosen_parser(self, parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed


def _chosen_parser(parser: argparse.ArgumentParser, parsed: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost (sub)command parser that `parsed` went through, starting from `parser`.

    argparse has no public way to walk from a parser to its subcommands' parsers: this reads
    its subparsers action from ``_actions``, as argparse's own help formatter does.
    """
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
            if isinstance(chosen, argparse.ArgumentParser):
                return _chosen_parser(chosen, parsed)
    return parser
