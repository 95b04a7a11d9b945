"""load_player, the bot registry and the reconchess class adapters (no games here)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import chess
import numpy as np
import pytest
import reconchess
import reconchess.bots.random_bot

from blindchess.arbiter import Player, PlayerLoadError, load_player
from blindchess.arbiter.game.reconchess_adapter import (
    ReconchessPlayerAdapter,
    from_reconchess_class,
    to_reconchess_class,
)
from blindchess.arbiter.rules.reference import move_actions
from blindchess.bots.random_bot import RandomBot
from blindchess.bots.registry import BOTS, DuplicateBotNameError, make_bot, register_bot, resolve_bot

_BOT_BODY = """
    def handle_game_start(self, color, board, opponent_name): pass
    def handle_opponent_move_result(self, captured_my_piece, capture_square): pass
    def choose_sense(self, sense_actions, move_actions, seconds_left): return sense_actions[0]
    def handle_sense_result(self, sense_result): pass
    def choose_move(self, move_actions, seconds_left): return None
    def handle_move_result(self, requested_move, taken_move, captured_opponent_piece, capture_square): pass
    def handle_game_end(self, winner_color, win_reason, game_history): pass
"""


def _write_bot_file(folder: Path, name: str, source: str) -> str:
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    return str(path)


def test_a_file_with_one_player(tmp_path: Path) -> None:
    path = _write_bot_file(tmp_path, "one_bot_file", "from blindchess.arbiter import Player\nclass OnlyBot(Player):" + _BOT_BODY)
    name, cls = load_player(path)
    assert name == "OnlyBot" and issubclass(cls, Player)
    assert cls().choose_sense([chess.E4], [], 1.0) == chess.E4


def test_several_players_need_get_player_unless_one_is_defined_here(tmp_path: Path) -> None:
    two = "from blindchess.arbiter import Player\nclass FirstBot(Player):" + _BOT_BODY + "class SecondBot(Player):" + _BOT_BODY
    with pytest.raises(PlayerLoadError, match=r"FirstBot, SecondBot.*get_player"):
        load_player(_write_bot_file(tmp_path, "two_bots_file", two))
    chosen = two + "\ndef get_player():\n    return SecondBot\n"
    assert load_player(_write_bot_file(tmp_path, "two_bots_chosen", chosen))[0] == "SecondBot"
    # Importing another bot to reuse it does not make the file ambiguous.
    reuse = "from blindchess.bots.random_bot import RandomBot\nclass MyBot(RandomBot):\n    pass\n"
    assert load_player(_write_bot_file(tmp_path, "reusing_bot_file", reuse))[0] == "MyBot"


def test_abstract_helper_bases_are_not_candidates(tmp_path: Path) -> None:
    source = "from blindchess.arbiter import Player\nclass HelperBase(Player):\n    pass\nclass RealBot(HelperBase):" + _BOT_BODY
    assert load_player(_write_bot_file(tmp_path, "abstract_helper_file", source))[0] == "RealBot"


@pytest.mark.parametrize(
    "source, message",
    [
        ("no_such_bot_file.py", "does not exist"),
        ("no_such_module_anywhere", "neither a bot file nor an importable module"),
        ("json", "no \\(concrete\\) Player subclass"),
    ],
)
def test_clear_errors_name_the_source(source: str, message: str) -> None:
    with pytest.raises(PlayerLoadError, match=message) as raised:
        load_player(source)
    assert source in str(raised.value)


def test_a_file_that_fails_to_import_is_named(tmp_path: Path) -> None:
    path = _write_bot_file(tmp_path, "broken_bot_file", "raise RuntimeError('boom at import')\n")
    with pytest.raises(PlayerLoadError, match=r"broken_bot_file\.py.*RuntimeError: boom at import"):
        load_player(path)


def test_a_reconchess_bot_module_is_wrapped_into_our_player() -> None:
    name, cls = load_player("reconchess.bots.random_bot")
    assert name == "RandomBot" and issubclass(cls, ReconchessPlayerAdapter) and issubclass(cls, Player)
    bot = cls()  # type: ignore[call-arg]  # the wrapper class builds the reconchess bot itself
    assert isinstance(bot.player, reconchess.bots.random_bot.RandomBot)
    actions = move_actions(chess.Board())
    assert bot.choose_move(actions, 900.0) in actions + [None]


def test_our_bots_wrapped_for_reconchess_load_back_as_themselves() -> None:
    rc_name, rc_class = reconchess.load_player("blindchess.bots.rc.random_bot")
    assert rc_name == "RandomBot" and issubclass(rc_class, reconchess.Player)
    wrapped = rc_class(rng=1)  # type: ignore[call-arg]  # the wrapper takes our bot's arguments
    assert isinstance(wrapped.player, RandomBot)  # type: ignore[attr-defined]  # the wrapper's own attribute
    assert load_player("blindchess.bots.rc.random_bot") == ("RandomBot", RandomBot)
    assert from_reconchess_class(to_reconchess_class(RandomBot)) is RandomBot
    rc_random = reconchess.bots.random_bot.RandomBot
    assert to_reconchess_class(from_reconchess_class(rc_random)) is rc_random


def test_registry_resolves_short_names_then_sources() -> None:
    assert set(BOTS) >= {"random", "attacker", "trout"}
    assert resolve_bot("random") == ("random", RandomBot)
    assert resolve_bot("blindchess.bots.random_bot") == ("RandomBot", RandomBot)
    with pytest.raises(PlayerLoadError, match=r"registered bot names: .*attacker.*random.*trout"):
        resolve_bot("nonexistent_bot_name")


def test_register_bot_refuses_to_rebind_a_name() -> None:
    register_bot("random", BOTS["random"].target)  # the same target again is fine
    with pytest.raises(DuplicateBotNameError, match="random"):
        register_bot("random", "blindchess.bots.attacker_bot:AttackerBot")
    with pytest.raises(ValueError, match="no-colon"):
        register_bot("other", "no-colon")


def test_make_bot_seeds_our_bots_and_builds_reconchess_ones_plainly() -> None:
    first, second = make_bot(RandomBot, 5), make_bot(RandomBot, 5)
    assert isinstance(first, RandomBot) and isinstance(second, RandomBot)
    assert first.rng.integers(1 << 30) == second.rng.integers(1 << 30)
    wrapped = make_bot(load_player("reconchess.bots.random_bot")[1], 5)
    assert isinstance(wrapped, ReconchessPlayerAdapter) and isinstance(wrapped.player, reconchess.Player)
    generator = np.random.default_rng(3)
    seeded = make_bot(RandomBot, generator)
    assert isinstance(seeded, RandomBot) and seeded.rng is generator
