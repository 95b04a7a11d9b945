"""Every documented ``blindchess match`` and ``sprt`` names bots that exist, can play its variant and take its settings.

`test_examples.test_shell_examples_name_real_commands` parses each documented command line, which
checks the options and their values but not what they name: a misspelt bot, a setting its
constructor does not take, or a bot that cannot play the ``--variant`` would parse, and fail
only when a reader ran it. This runs the checks `match` and `sprt` run before their first game
(`blindchess.tournament.task.check_bot`), without playing. A ``.py`` file the reader writes
(``my_bot.py``, ``thinker.py``) is not in the repository and is skipped.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from blindchess.cli import build_parser
from blindchess.tournament.config import parse_settings
from blindchess.tournament.spec import BotSpec
from blindchess.tournament.task import check_bot

from .test_examples import PAGES, ROOT, _command_lines

PLAYERS = {"match": (("white", "settings"), ("black", "second_settings")), "sprt": (("a", "a_settings"), ("b", "b_settings"))}
"""Each playing command's two bot arguments, with the option that gives each its settings."""


def documented_players(pages: list[Path]) -> list[tuple[str, str, BotSpec, str]]:
    """``(where, command, player, variant)`` for each bot of each documented ``match`` or ``sprt``."""
    parser = build_parser()
    players = []
    for page in pages:
        for where, command in _command_lines(page):
            words = shlex.split(command)
            if words[0] != "blindchess" or len(words) < 2 or words[1] not in PLAYERS:
                continue
            args = parser.parse_args(words[1:])
            for bot_argument, settings_argument in PLAYERS[words[1]]:
                bot = getattr(args, bot_argument)
                if bot.endswith(".py"):
                    if not (ROOT / bot).is_file():
                        continue  # the reader's own file
                    bot = str(ROOT / bot)
                settings = parse_settings(getattr(args, settings_argument), f"--{settings_argument.replace('_', '-')}")
                ponder = args.ponder in ({"white": "first", "black": "second", "a": "a", "b": "b"}[bot_argument], "both")
                players.append((where, command, BotSpec(bot_argument, bot, settings, ponder=ponder), args.variant))
    return players


def test_the_documented_commands_are_found() -> None:
    found = {(spec.bot, variant) for _, _, spec, variant in documented_players(PAGES)}
    assert {("trout", "rbc"), ("policy", "teaching-4x4"), ("reconchess.bots.trout_bot", "rbc")} <= found


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_documented_player_can_play_what_its_command_asks(page: Path) -> None:
    for where, command, spec, variant in documented_players([page]):
        try:
            check_bot(spec, variant)
        except ValueError as error:
            pytest.fail(f"{where}: `{command}` would be refused: {error}")


def test_a_command_the_checks_would_refuse_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\nblindchess match trout random --variant teaching-4x4\n"
        "blindchess sprt flagship random --a-settings 'selector.bords = 2'\n```\n"
    )
    refused = []
    for where, _, spec, variant in documented_players([page]):
        try:
            check_bot(spec, variant)
        except ValueError as error:
            refused.append((where, str(error).split(":")[1].strip()))
    assert refused == [("page.md:2", "bot 'trout' cannot play teaching-4x4 (it plays rbc); bots that can"), ("page.md:3", "bot 'flagship'")]
