"""LocalGame details the differential test cannot reach: clocks, copies handed out, extras."""

from __future__ import annotations

import re
import time

import chess
import pytest

from blindchess.arbiter import IllegalActionError, LocalGame, WinReason
from blindchess.arbiter.game.time_control import TimeControl, TimeControlError


def play_one_turn(game: LocalGame[chess.Board], pause: float = 0.0) -> None:
    game.sense(None)
    time.sleep(pause)
    game.move(None)
    game.end_turn()


def test_each_colour_keeps_its_own_clock_and_increment() -> None:
    """Time odds (cutechess's per-engine tc): White 10 + 1, Black 20 + 3; the reconchess attributes read White's."""
    game = LocalGame(time_controls=(TimeControl(10, 1), TimeControl(20, 3)))
    assert game.seconds_left_by_color == {chess.WHITE: 10, chess.BLACK: 20}
    assert (game.seconds_per_player, game.seconds_increment) == (10, 1)
    game.start()
    play_one_turn(game)
    play_one_turn(game)
    # each clock lost what its turn took (a fraction of a second, however loaded the machine) and gained its own increment
    assert 10 < game.seconds_left_by_color[chess.WHITE] <= 11
    assert 20 < game.seconds_left_by_color[chess.BLACK] <= 23


@pytest.mark.parametrize(("text", "expected"), [("60+2", (60, 2)), ("30", (30, 0)), (" 0.5+0 ", (0.5, 0))])
def test_time_controls_parse_cutechess_style(text: str, expected: tuple[float, float]) -> None:
    clock = TimeControl.parse(text)
    assert (clock.seconds, clock.increment) == expected and TimeControl.parse(str(clock)) == clock


@pytest.mark.parametrize("text", ["", "60+", "+2", "1:00", "0+1", "-5+1", "60+-1", "inf+0", "nan", "60+inf"])
def test_a_bad_time_control_is_named(text: str) -> None:
    with pytest.raises(TimeControlError, match=re.escape(repr(text))):
        TimeControl.parse(text)


def test_increment_is_added_before_the_timeout_check() -> None:
    forgiving = LocalGame(seconds_per_player=0.05, seconds_increment=1)
    forgiving.start()
    play_one_turn(forgiving, pause=0.1)  # overran the clock, but by less than the increment
    assert not forgiving.is_over() and forgiving.seconds_left_by_color[chess.WHITE] > 0

    strict = LocalGame(seconds_per_player=0.05, seconds_increment=0)
    strict.start()
    play_one_turn(strict, pause=0.1)
    assert strict.is_over()
    strict.end()
    assert (strict.get_winner_color(), strict.get_win_reason()) == (chess.BLACK, WinReason.TIMEOUT)


def test_lists_handed_out_are_copies() -> None:
    game = LocalGame()
    game.start()
    moves, squares = game.move_actions(), game.sense_actions()
    assert moves is not None and squares is not None
    first = moves[0]
    moves.clear()
    squares.clear()
    assert len(game.move_actions() or []) == 34 and len(game.sense_actions() or []) == 64
    assert game.move(first)[0] == first


def test_a_named_colour_can_resign_out_of_turn() -> None:
    game = LocalGame()
    game.start()
    game.resign(chess.BLACK)  # e.g. Black crashed while White is to move
    game.end()
    assert (game.get_winner_color(), game.get_win_reason()) == (chess.WHITE, WinReason.RESIGN)


def test_garbage_requests_raise_a_value_error_naming_them() -> None:
    game = LocalGame()
    game.start()
    with pytest.raises(IllegalActionError, match=re.escape("'e2e4' is not a chess.Move")):
        game.move("e2e4")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"LocalGame::sense\(64\): 64 is not a valid square"):
        game.sense(64)


def test_black_to_move_start_is_refused() -> None:
    with pytest.raises(IllegalActionError, match="has Black to move"):
        LocalGame(starting_fen="4k3/8/8/8/8/8/8/4K3 b - - 0 1")
