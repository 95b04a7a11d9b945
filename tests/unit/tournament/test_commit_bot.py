"""A bot at a commit (``random@HEAD``): exported from this checkout, built by that commit in a child Python, played here.

The commit is ``HEAD``: any checkout has it, and its ``random`` must play exactly as the installed
one with the same seed (the differential test below). Exports go to a temporary cache folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import chess
import pytest

from blindchess.arbiter.game.loading import PlayerLoadError
from blindchess.bots.random_bot import RandomBot
from blindchess.cli import main
from blindchess.tournament.commit_bot import CommitBot, CommitBotError
from blindchess.tournament.spec import BotSpec, GameSpec
from blindchess.tournament.task import BotSettingError, check_bot, play_game, resolve_player_class


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test exports into its own cache, so none reads another's (or the user's) export."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def _actions(history: str | None) -> dict[str, object]:
    assert history is not None
    return {key: value for key, value in json.loads(history).items() if key in ("senses", "requested_moves", "taken_moves", "winner_color")}


def test_random_at_head_plays_the_same_game_as_the_installed_random_with_the_same_seeds(_cache: Path) -> None:
    """The commit's bot gets the seed as it is and every callback's arguments intact: the two games cannot differ."""
    games = [
        play_game(GameSpec("g", BotSpec("r", bot), BotSpec("b", "random"), white_seed=11, black_seed=12, full_turn_limit=30))
        for bot in ("random@HEAD", "random")
    ]
    at_head, installed = games
    assert at_head.error is None and not at_head.faults, (at_head.error, at_head.faults)
    assert at_head.turns == installed.turns >= 10
    assert _actions(at_head.history) == _actions(installed.history)
    (commit,) = [path for path in (_cache / "blindchess" / "commits").iterdir() if path.is_dir()]
    assert {path.name for path in commit.iterdir()} == {"site", "src", "warm-random"}


def test_a_setting_the_commit_refuses_is_refused_before_any_game_with_its_own_message() -> None:
    with pytest.raises(BotSettingError, match=r"bot 'random@HEAD': the commit cannot build the bot: .*nope"):
        check_bot(BotSpec("r", "random@HEAD", {"nope": 1}))
    check_bot(BotSpec("r", "random@HEAD"))  # and none is fine


def test_a_revision_that_names_no_commit_or_a_bot_it_does_not_know_is_a_one_line_error_naming_it() -> None:
    with pytest.raises(PlayerLoadError, match="'no-such-rev' names no commit of the checkout"):
        resolve_player_class("random@no-such-rev")
    with pytest.raises(PlayerLoadError) as refused:
        resolve_player_class("no-such-bot@HEAD")  # the commit's own registry refuses it
    assert "the commit cannot build the bot: " in str(refused.value) and "'no-such-bot' is neither a bot file" in str(refused.value)
    assert "Traceback" not in str(refused.value)


def test_a_child_that_died_is_an_error_that_says_so_and_a_failed_callback_carries_its_traceback() -> None:
    bot_class = resolve_player_class("random@HEAD")
    assert issubclass(bot_class, CommitBot) and bot_class.__name__ == "random@HEAD"
    bot = bot_class(3)
    try:
        bot.handle_game_start(chess.WHITE, chess.Board(), "someone")
        with pytest.raises(CommitBotError, match=r"(?s)random@HEAD \(choose_move\) raised:.*Traceback"):
            bot._answer("choose_move", ["not a move"], 10.0)
        same = RandomBot(3)  # the commit's random with the same seed: the bad call drew nothing
        moves = list(chess.Board().generate_legal_moves())
        assert [bot.choose_move(moves, 10.0) for _ in range(5)] == [same.choose_move(moves, 10.0) for _ in range(5)]
        bot._process.kill()
        with pytest.raises(CommitBotError, match=r"random@HEAD \(choose_move\): its process ended \(exit code -9\)"):
            bot.choose_move([chess.Move.from_uci("e2e4")], 10.0)
    finally:
        bot.close()


def test_match_plays_a_bot_at_a_commit_and_names_it_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "games"
    assert main(["match", "random@HEAD", "attacker", "--games", "2", "--full-turn-limit", "20", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "random@HEAD" in table
    assert len(list(out.glob("*random_HEAD*.json"))) == 2  # file names keep letters, digits and "-_."
