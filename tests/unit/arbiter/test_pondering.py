"""Pondering: a bot thinks on its opponent's turn, in its own process, and pays for stopping late.

Each game is a real `play_local_game` on a real `LocalGame` with a clock, the pondering bot
isolated (`isolated_player(..., ponder=True)`). The bot runs in a child process, so what it saw
comes back through a JSON log it writes in ``handle_game_end`` (see `pondering_helpers`).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import chess
import pytest

from blindchess.arbiter import LocalGame, WinReason, play_local_game
from blindchess.arbiter.sandbox.isolation import isolated_player
from blindchess.arbiter.sandbox.pondering import (
    Ponderer,
    PonderingNeedsIsolationError,
    PonderingUnsupportedError,
    pondering,
    supports_pondering,
)
from blindchess.bots.random_bot import RandomBot

from .pondering_helpers import LATE_SECONDS, SLOW_SECONDS, CountingPonderer, LatePonderer, RaisingPonderer, SlowBot


def _seconds_used(game: LocalGame[Any], color: chess.Color) -> float:
    return game.seconds_per_player - game.seconds_left_by_color[color]


def _isolated(bot_class: type[CountingPonderer], log: Path) -> Any:
    return isolated_player(bot_class, functools.partial(bot_class, 1, log), ponder=True)


@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK], ids=["white", "black"])
def test_an_isolated_bot_ponders_only_on_the_opponents_turn_and_its_clock_does_not_pay(color: chess.Color, tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    ours, theirs = _isolated(CountingPonderer, log), SlowBot(rng=2)
    game: LocalGame[Any] = LocalGame(seconds_per_player=30, seconds_increment=0, full_turn_limit=3)
    white, black = (ours, theirs) if color == chess.WHITE else (theirs, ours)
    _, _, history = play_local_game(white, black, game=game)
    record = json.loads(log.read_text())
    assert not history.faults
    assert [history.get_white_player_name(), history.get_black_player_name()][color == chess.BLACK] == "CountingPonderer"
    assert record["overlapped"] == []  # every callback found the ponder stopped
    assert record["started_after"] == ["handle_move_result"] * history.num_turns(color)  # after each own move, never before
    assert record["steps"] >= 100  # it thought through the opponent's moves (1 ms steps)
    assert _seconds_used(game, not color) >= SLOW_SECONDS * history.num_turns(not color)
    # Its own time is six pipe round trips a turn (0.05 s in all idle, up to 0.9 s seen under load):
    # had its clock run during even one of the opponent's moves, it would show SLOW_SECONDS more.
    assert _seconds_used(game, color) < SLOW_SECONDS


def test_a_ponder_that_raises_is_logged_and_the_game_goes_on(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    game: LocalGame[Any] = LocalGame(seconds_per_player=30, seconds_increment=0, full_turn_limit=4)
    _, reason, history = play_local_game(_isolated(RaisingPonderer, log), RandomBot(rng=2), game=game)
    record = json.loads(log.read_text())
    assert not history.faults
    assert reason in (WinReason.TURN_LIMIT, WinReason.KING_CAPTURE)
    assert history.num_turns(chess.WHITE) >= 1 and history.has_move(history.last_turn(chess.WHITE))
    assert record["started_after"] == ["handle_move_result"] * history.num_turns(chess.WHITE)  # restarted after each raise


def test_a_ponder_that_stops_late_is_charged_to_its_own_clock(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    game: LocalGame[Any] = LocalGame(seconds_per_player=30, seconds_increment=0, full_turn_limit=3)
    _, reason, history = play_local_game(_isolated(LatePonderer, log), RandomBot(rng=2), game=game)
    assert not history.faults and reason == WinReason.TURN_LIMIT
    late_joins = history.num_turns(chess.WHITE) - 1  # the last ponder is joined by handle_game_end, off the clock
    assert late_joins == 2
    # Each late join costs LATE_SECONDS less the opponent's quick turn (milliseconds idle, 0.1-0.3 s
    # under load); the opponent pays for none of it, only for its own quick turns.
    assert _seconds_used(game, chess.WHITE) >= 0.6 * LATE_SECONDS * late_joins
    assert _seconds_used(game, chess.BLACK) < 0.5 * LATE_SECONDS


def test_the_wrapper_counts_its_sessions_joins_and_errors() -> None:
    bot = pondering(RaisingPonderer(1, Path("unused")))
    assert type(bot).__name__ == "RaisingPonderer" and isinstance(bot.inner, Ponderer)
    bot.handle_move_result(None, None, False, None)
    assert bot.is_pondering
    bot.handle_opponent_move_result(False, None)
    assert not bot.is_pondering
    assert (bot.ponder_sessions, bot.ponder_errors) == (1, 1)

    late = pondering(LatePonderer(1, Path("unused")))
    late.handle_move_result(None, None, False, None)
    late.handle_opponent_move_result(False, None)
    assert late.join_seconds >= 0.9 * LATE_SECONDS and late.ponder_seconds >= late.join_seconds
    assert (late.ponder_sessions, late.ponder_errors) == (1, 0)


def test_pondering_in_the_arbiters_process_is_refused() -> None:
    with pytest.raises(PonderingNeedsIsolationError, match="CountingPonderer would ponder in the arbiter's process"):
        play_local_game(RandomBot(rng=1), pondering(CountingPonderer(1, Path("unused"))))


def test_pondering_is_refused_to_a_bot_without_a_ponder_method() -> None:
    assert supports_pondering(CountingPonderer) and not supports_pondering(RandomBot)
    with pytest.raises(PonderingUnsupportedError, match="RandomBot has no ponder"):
        pondering(RandomBot(rng=1))
    with pytest.raises(PonderingUnsupportedError, match="RandomBot has no ponder"):
        isolated_player(RandomBot, functools.partial(RandomBot, 1), ponder=True)
