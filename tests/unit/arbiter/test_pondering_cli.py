"""Switching pondering on: ``blindchess match --ponder``, the tournament's ``ponder`` key, and a server game.

Each is the real path: the real command line on a real bot file, the real config parser, and
a real server on loopback with both players connected through `play_remote_game`.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import chess
import pytest

from blindchess.arbiter import GameHistory
from blindchess.arbiter.sandbox.pondering import (
    PonderingNeedsIsolationError,
    PonderingPlayer,
    PonderingUnsupportedError,
    pondering,
)
from blindchess.bots.random_bot import RandomBot
from blindchess.cli import main
from blindchess.commands.cli_connect import bot_factory
from blindchess.fixtures.servers import register
from blindchess.server.client import play_remote_game
from blindchess.server.server import ServerThread
from blindchess.server.service import ServerConfig
from blindchess.tournament.config import ConfigError, parse_config
from blindchess.tournament.spec import BotSpec, GameSpec
from blindchess.tournament.task import isolated

from .pondering_helpers import PONDERING_BOT_FILE, CountingPonderer


def _error_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_match_ponder_plays_the_bot_isolated_and_it_ponders(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bot_file = tmp_path / "thinker.py"
    bot_file.write_text(PONDERING_BOT_FILE)
    out = tmp_path / "games"
    argv = ["match", str(bot_file), "random", "--ponder", "first", "--games", "2", "--seconds", "30", "--full-turn-limit", "3"]
    assert main([*argv, "--seed", "1", "--out", str(out)]) == 0, capsys.readouterr().err
    histories = [GameHistory.from_file(str(path)) for path in sorted(out.glob("*.json"))]
    assert len(histories) == 2 and not any(history.faults for history in histories)
    assert [histories[0].get_white_player_name(), histories[1].get_black_player_name()] == ["FileThinker", "FileThinker"]
    steps = [int(line) for line in bot_file.with_suffix(".log").read_text().split()]
    assert len(steps) == 2 and min(steps) > 0  # each game's bot thought on its opponent's turns


def test_match_ponder_refuses_no_isolate_and_a_bot_that_cannot_ponder(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bot_file = tmp_path / "thinker.py"
    bot_file.write_text(PONDERING_BOT_FILE)
    line = _error_line(capsys, "match", str(bot_file), "random", "--ponder", "first", "--no-isolate", "--out", str(tmp_path))
    assert "--ponder" in line and "--no-isolate" in line
    line = _error_line(capsys, "match", str(bot_file), "random", "--ponder", "both", "--out", str(tmp_path))
    assert "bot 'random' cannot ponder (it has no ponder(stop) method)" in line
    assert not list(tmp_path.glob("*.json"))  # nothing was played


def test_sprt_ponder_a_plays_a_bot_against_its_pondering_self(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bot_file = tmp_path / "thinker.py"
    bot_file.write_text(PONDERING_BOT_FILE)
    line = _error_line(capsys, "sprt", str(bot_file), str(bot_file), "--max-pairs", "1")
    assert "same bot" in line  # without pondering the two are one player
    argv = ["sprt", str(bot_file), str(bot_file), "--ponder", "a", "--max-pairs", "1", "--seconds", "30", "--full-turn-limit", "3"]
    assert main([*argv, "--workers", "1"]) == 3  # undecided after its one pair
    assert "after 1 pairs (2 games)" in capsys.readouterr().out
    steps = sorted(int(line) for line in bot_file.with_suffix(".log").read_text().split())
    assert len(steps) == 4 and steps[:2] == [0, 0] and min(steps[2:]) > 0  # B never pondered, A did in both games
    line = _error_line(capsys, "sprt", "random", str(bot_file), "--ponder", "both")
    assert "bot 'random' cannot ponder (it has no ponder(stop) method)" in line


def test_tournament_config_ponder_implies_isolation_and_refuses_isolate_false() -> None:
    players: dict[str, dict[str, object]] = {"a": {"bot": "random"}, "t": {"bot": "tests/thinker.py", "ponder": True}}
    config = parse_config({"players": players})
    thinker = next(player for player in config.players if player.label == "t")
    assert thinker.ponder and isolated(thinker)
    with pytest.raises(ConfigError, match=r"\[players.t\] ponder = true needs the bot in its own process"):
        parse_config({"players": {**players, "t": {**players["t"], "isolate": False}}})
    with pytest.raises(PonderingNeedsIsolationError, match="'t'"):
        BotSpec("t", "random", ponder=True, isolate=False)


def test_a_spec_records_ponder_only_when_on_so_older_databases_still_resume() -> None:
    plain, thinking = BotSpec("a", "random"), BotSpec("a", "random", ponder=True)
    assert not plain.same_player(thinking)  # a bot against its pondering self is a fair experiment
    assert '"ponder"' not in GameSpec("1", plain, BotSpec("b", "attacker"), 1, 2).to_json()
    assert '"ponder": true' in GameSpec("1", thinking, BotSpec("b", "attacker"), 1, 2).to_json()


def test_a_pondering_bot_plays_a_server_game_and_thinks_between_its_turns(tmp_path: Path) -> None:
    """Both clients and the server share this process here: the test checks the mechanics, not the clocks."""
    with ServerThread(tmp_path / "server.sqlite3", ServerConfig(full_turn_limit=4)) as server:
        sessions = register(server.url, ["white", "black"])
        game_id = sessions["white"].invite("black", chess.WHITE)
        ours = pondering(CountingPonderer(1, tmp_path / "log.json"))
        results: dict[str, Any] = {}
        opponent = threading.Thread(
            target=lambda: results.__setitem__("black", play_remote_game(sessions["black"], game_id, RandomBot(rng=2), 0.02))
        )
        opponent.start()
        results["white"] = play_remote_game(sessions["white"], game_id, ours, 0.02)
        opponent.join(timeout=60)
    history = results["white"][2]
    bot = ours.inner
    assert isinstance(bot, CountingPonderer)
    assert results["black"][1] == results["white"][1]
    assert bot.overlapped == [] and bot.steps > 0
    assert bot.started_after == ["handle_move_result"] * history.num_turns(chess.WHITE)
    assert ours.ponder_sessions == history.num_turns(chess.WHITE) and not ours.is_pondering


def test_connect_ponder_wraps_each_bot_and_refuses_a_bot_that_cannot_ponder(tmp_path: Path) -> None:
    bot_file = tmp_path / "thinker.py"
    bot_file.write_text(PONDERING_BOT_FILE)
    bot = bot_factory(str(bot_file), 1, ponder=True)()
    assert isinstance(bot, PonderingPlayer) and type(bot).__name__ == "FileThinker"
    assert not isinstance(bot_factory(str(bot_file), 1)(), PonderingPlayer)
    with pytest.raises(PonderingUnsupportedError, match="bot 'random' cannot ponder"):
        bot_factory("random", 1, ponder=True)
