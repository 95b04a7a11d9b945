"""LocalGame details the differential test cannot reach: clocks, copies handed out, extras."""

from __future__ import annotations

import re
import time

import chess
import pytest

from blindchess.arbiter import IllegalActionError, LocalGame, WinReason


def play_one_turn(game: LocalGame[chess.Board], pause: float = 0.0) -> None:
    game.sense(None)
    time.sleep(pause)
    game.move(None)
    game.end_turn()


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
