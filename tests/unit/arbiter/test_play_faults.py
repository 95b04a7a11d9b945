"""Acceptance 3: a bad bot never kills the arbiter or loses the record.

One test per bad input: raising in each callback (both colours), a sense square or a
move outside the action lists, garbage types, running out of clock (a slow turn, and a
bot stuck in a loop that the watchdog interrupts). Each checks the winner, the reason,
that the history is complete (saved, reloaded, same observations as the live events)
and that the fault message names the bot and the problem.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from typing import Any, Optional

import chess
import pytest

from blindchess.arbiter import GameHistory, LocalGame, Observation, Player, Turn, WinReason, play_local_game, play_turn
from blindchess.arbiter.sandbox.isolation import CALLBACKS
from blindchess.arbiter.sandbox.watchdog import BotDeadlineExceeded


class SteadyBot(Player):
    """Seeded random sensing and moving; the base of the faulty bots."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        pass

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[int]) -> None:
        pass

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> Any:
        return self.rng.choice(sense_actions)

    def handle_sense_result(self, sense_result: list[Any]) -> None:
        pass

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Any:
        return self.rng.choice(move_actions + [None])

    def handle_move_result(self, *args: Any) -> None:
        pass

    def handle_game_end(self, *args: Any) -> None:
        pass


class CrashingBot(SteadyBot):
    """Raises in one callback on its third turn (at once, for the game start and end)."""

    def __init__(self, callback: str) -> None:
        super().__init__(1)
        self.callback = callback
        self.turns = 0

    def _maybe_explode(self, name: str) -> None:
        if name == self.callback and (name in ("handle_game_start", "handle_game_end") or self.turns >= 3):
            raise RuntimeError("boom in " + name)

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        self._maybe_explode("handle_game_start")

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[int]) -> None:
        self.turns += 1
        self._maybe_explode("handle_opponent_move_result")

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> Any:
        self._maybe_explode("choose_sense")
        return super().choose_sense(sense_actions, move_actions, seconds_left)

    def handle_sense_result(self, sense_result: list[Any]) -> None:
        self._maybe_explode("handle_sense_result")

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Any:
        self._maybe_explode("choose_move")
        return super().choose_move(move_actions, seconds_left)

    def handle_move_result(self, *args: Any) -> None:
        self._maybe_explode("handle_move_result")

    def handle_game_end(self, *args: Any) -> None:
        self._maybe_explode("handle_game_end")


class ExitingBot(SteadyBot):
    """Calls sys.exit() in choose_move: a crash, which must not end the arbiter's process."""

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Any:
        sys.exit("bot gave up")


class AnswerBot(SteadyBot):
    """Gives one fixed bad answer to choose_sense or choose_move on its second turn."""

    def __init__(self, callback: str, answer: Any) -> None:
        super().__init__(2)
        self.callback, self.answer, self.turns = callback, answer, 0

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[int]) -> None:
        self.turns += 1

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> Any:
        if self.callback == "choose_sense" and self.turns == 2:
            return self.answer
        return super().choose_sense(sense_actions, move_actions, seconds_left)

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Any:
        if self.callback == "choose_move" and self.turns == 2:
            return self.answer
        return super().choose_move(move_actions, seconds_left)


class SlowBot(SteadyBot):
    """Sleeps (inside C code) longer than its whole clock on its second move."""

    def __init__(self) -> None:
        super().__init__(3)
        self.moves = 0

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Any:
        self.moves += 1
        if self.moves == 2:
            time.sleep(seconds_left + 0.3)
        return super().choose_move(move_actions, seconds_left)


class StuckBot(SteadyBot):
    """Loops forever in pure Python on its second sense; only the watchdog can stop it."""

    def __init__(self) -> None:
        super().__init__(4)
        self.senses = 0

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> Any:
        self.senses += 1
        while self.senses == 2:
            try:  # noqa: SIM105 - the bot under test is written as a plain try/except on purpose
                pass
            except Exception:  # the watchdog's exception is not an Exception: this must not swallow it
                pass
        return super().choose_sense(sense_actions, move_actions, seconds_left)


def play(white: Player, black: Player, tmp_path: Path, **game_options: Any) -> tuple[Any, Any, GameHistory]:
    """Play with an observer; check the history is complete, saved, and replays the live events."""
    events: dict[bool, list[Observation]] = {chess.WHITE: [], chess.BLACK: []}
    options = {"seconds_per_player": 60, "full_turn_limit": 8, **game_options}
    game = LocalGame(**options, observer=lambda color, event: events[color].append(event))
    winner, reason, history = play_local_game(white, black, game=game)
    path = tmp_path / "game.json"
    history.save(str(path))
    loaded = GameHistory.from_file(str(path))
    assert loaded == history and loaded.get_win_reason() == reason and loaded.get_winner_color() == winner
    for color in (chess.WHITE, chess.BLACK):
        assert history.observations(color) == events[color]
        assert loaded.observations(color) == events[color]
    return winner, reason, history


def only_fault(history: GameHistory, color: chess.Color, callback: str) -> str:
    assert len(history.faults) == 1, history.faults
    fault = history.faults[0]
    assert (fault.color, fault.callback) == (color, callback)
    return fault.message


@pytest.mark.parametrize("callback", CALLBACKS)
@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK])
def test_raising_in_a_callback_resigns_the_bot(callback: str, color: chess.Color, tmp_path: Path) -> None:
    bad, good = CrashingBot(callback), SteadyBot(9)
    white, black = (bad, good) if color == chess.WHITE else (good, bad)
    winner, reason, history = play(white, black, tmp_path)
    message = only_fault(history, color, callback)
    assert "CrashingBot" in message and "RuntimeError: boom in " + callback in message
    if callback == "handle_game_end":  # the game was over already: the result stands
        assert reason == WinReason.TURN_LIMIT and winner is None
        return
    assert (winner, reason) == (not color, WinReason.RESIGN)
    if callback == "handle_game_start":
        assert history.is_empty()
        return
    # it crashed on its third turn: two complete turns, then what the third got through
    assert history.has_move(Turn(color, 1))
    assert history.has_sense(Turn(color, 2)) == (callback in ("handle_sense_result", "choose_move", "handle_move_result"))
    assert history.has_move(Turn(color, 2)) == (callback == "handle_move_result")


def test_sys_exit_in_a_bot_resigns_it(tmp_path: Path) -> None:
    winner, reason, history = play(ExitingBot(), SteadyBot(8), tmp_path)
    assert (winner, reason) == (chess.BLACK, WinReason.RESIGN)
    expected = "ExitingBot (white) raised SystemExit: bot gave up in choose_move on Turn(white, 0)"
    assert only_fault(history, chess.WHITE, "choose_move") == expected


@pytest.mark.parametrize(
    ("callback", "answer", "problem"),
    [
        ("choose_sense", 64, "returned 64, not one of the sense actions"),
        ("choose_move", chess.Move(chess.E2, chess.E5), "returned e2e5, not one of the move actions"),
        ("choose_sense", "e4", "returned 'e4' (str), not a square or None"),
        ("choose_move", "e2e4", "returned 'e2e4' (str), not a chess.Move or None"),
        ("choose_move", chess.Move(70, 80), "returned a chess.Move from 70 to 80, not one of the move actions"),
        ("choose_sense", b"A" * (20 << 20), f"returned b'{'A' * 198}… ({20 << 20} long) (bytes), not a square or None"),
        ("choose_sense", 10**5000, "returned <int whose repr raised ValueError>, not one of the sense actions"),
    ],
    ids=[
        "sense outside the actions",
        "move outside the actions",
        "garbage sense",
        "garbage move",
        "move off the board",
        "huge sense",
        "huge int sense",
    ],
)
def test_bad_answers_resign_the_bot(callback: str, answer: Any, problem: str, tmp_path: Path) -> None:
    winner, reason, history = play(SteadyBot(5), AnswerBot(callback, answer), tmp_path)
    assert (winner, reason) == (chess.WHITE, WinReason.RESIGN)
    message = only_fault(history, chess.BLACK, callback)
    assert message == f"AnswerBot (black) {problem} in {callback} on Turn(black, 1)"
    assert history.num_turns(chess.BLACK) == 1 + (callback == "choose_move")  # a bad move comes after a recorded sense


def test_slow_turn_loses_on_time(tmp_path: Path) -> None:
    winner, reason, history = play(SlowBot(), SteadyBot(6), tmp_path, seconds_per_player=0.5, seconds_increment=0)
    assert (winner, reason) == (chess.BLACK, WinReason.TIMEOUT)
    (fault,) = history.faults
    assert fault.color == chess.WHITE and fault.timed_out and "SlowBot (white) ran out of clock" in fault.message
    assert history.num_turns(chess.WHITE) == 2 and history.has_sense(history.last_turn(chess.WHITE))


def test_stuck_bot_is_interrupted_and_loses_on_time(tmp_path: Path) -> None:
    started = time.monotonic()
    winner, reason, history = play(SteadyBot(7), StuckBot(), tmp_path, seconds_per_player=0.5, seconds_increment=0.1)
    assert time.monotonic() - started < 60  # ~1 s idle: only tells a stop at the deadline from a hang, under any load
    assert (winner, reason) == (chess.WHITE, WinReason.TIMEOUT)
    message = only_fault(history, chess.BLACK, "choose_sense")
    assert message == "StuckBot (black) ran out of clock in choose_sense on Turn(black, 1)"
    assert history.num_turns(chess.BLACK) == 1  # the stuck turn never sensed


class CustomStop(BaseException):
    """A bot's own BaseException subclass: not an Exception, still the bot's crash."""


class BaseExceptionBot(SteadyBot):
    """Raises a BaseException (not an Exception) in choose_move on its second turn."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(11)
        self.error, self.moves = error, 0

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Any:
        self.moves += 1
        if self.moves == 2:
            raise self.error
        return super().choose_move(move_actions, seconds_left)


@pytest.mark.parametrize(
    "error",
    [KeyboardInterrupt("ctrl-c"), GeneratorExit("closed"), CustomStop("stop"), BotDeadlineExceeded("not really")],
    ids=["KeyboardInterrupt", "GeneratorExit", "own BaseException", "BotDeadlineExceeded"],
)
def test_a_base_exception_from_a_bot_resigns_it(error: BaseException, tmp_path: Path) -> None:
    """Each of these escaped play_local_game with no result (BotDeadlineExceeded: played forever)."""
    bot = BaseExceptionBot(error)
    winner, reason, history = play(SteadyBot(12), bot, tmp_path)
    assert (winner, reason) == (chess.WHITE, WinReason.RESIGN)
    assert bot.moves == 2  # asked once more than it answered: no retry loop
    message = only_fault(history, chess.BLACK, "choose_move")
    assert message == f"BaseExceptionBot (black) raised {type(error).__name__}: {error} in choose_move on Turn(black, 1)"
    assert not history.faults[0].timed_out


class LoopingBot(SteadyBot):
    """Loops forever in pure Python in one of the off-clock callbacks."""

    def __init__(self, callback: str) -> None:
        super().__init__(13)
        self.callback = callback

    def _loop(self, name: str) -> None:
        while name == self.callback:
            pass

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        self._loop("handle_game_start")

    def handle_game_end(self, *args: Any) -> None:
        self._loop("handle_game_end")


@pytest.mark.parametrize("callback", ["handle_game_start", "handle_game_end"])
def test_a_bot_looping_off_the_clock_is_stopped_at_its_deadline(callback: str, tmp_path: Path) -> None:
    """An endless loop in handle_game_start/handle_game_end hung the match (no deadline there)."""
    events: dict[bool, list[Observation]] = {chess.WHITE: [], chess.BLACK: []}
    game = LocalGame(seconds_per_player=60, full_turn_limit=4, observer=lambda color, event: events[color].append(event))
    started = time.monotonic()
    winner, reason, history = play_local_game(LoopingBot(callback), SteadyBot(14), game=game, off_clock_seconds=0.3)
    assert time.monotonic() - started < 60  # ~1 s idle: only tells a stop at the deadline from a hang, under any load
    message = only_fault(history, chess.WHITE, callback)
    assert message == f"LoopingBot (white) ran out of clock in {callback}"
    if callback == "handle_game_start":
        assert (winner, reason) == (chess.BLACK, WinReason.RESIGN) and history.is_empty()
    else:  # the game was over: its result stands
        assert (winner, reason) == (None, WinReason.TURN_LIMIT)
    path = tmp_path / "game.json"
    history.save(str(path))
    assert GameHistory.from_file(str(path)).observations(chess.WHITE) == events[chess.WHITE]


@pytest.mark.parametrize(
    ("bot", "error"),
    [
        (CrashingBot("choose_sense"), RuntimeError),
        (AnswerBot("choose_sense", 99), ValueError),  # a sense outside the actions: Game.sense refuses it
        (AnswerBot("choose_move", chess.Move.from_uci("e2e5")), ValueError),  # a move outside the actions
    ],
)
def test_without_a_referee_the_same_turn_lets_every_failure_propagate(bot: CrashingBot | AnswerBot, error: type[Exception]) -> None:
    """reconchess's `play_turn`: no fault is recorded, nobody resigns, the bot's or the game's exception propagates."""
    game = LocalGame(seconds_per_player=60)
    game.start()
    bot.turns = 2 if isinstance(bot, CrashingBot) else 1  # this turn is the one it fails in
    with pytest.raises(error):
        play_turn(game, bot)
    assert not game.is_over()
