"""`blindchess match-report FOLDER`: the report of a match recorded by ``blindchess match --out FOLDER``.

Reads the folder's ``results.jsonl`` (:mod:`blindchess.tournament.match_record`) and prints, for
each match recorded there: the first-named bot's wins, losses and draws, its score with the
Wilson 95% interval, what the clocks charged (wall or CPU time), each side's clock use (the share
of start plus increments it used: mean, least, most), and every game it lost with its reason,
length, clock use and history file (``blindchess replay FILE`` steps through one). Nothing is
played; a match still running may be reported, and counts the games finished so far.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from blindchess.arguments import add_command
from blindchess.command_errors import BadInputError
from blindchess.tournament.match_record import MatchRecordError, reports


def add_parser(subparsers: Any) -> None:
    parser = add_command(subparsers, "match-report", __doc__, "blindchess match-report data/matches/flagship-vs-attacker")
    parser.add_argument("folder", help="the match's --out folder")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    try:
        found = reports(folder)
    except MatchRecordError as error:
        raise BadInputError(str(error)) from error
    sys.stdout.write("\n\n".join(report.text(folder) for report in found) + "\n")
    return 0
