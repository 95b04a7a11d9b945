"""The flagship survives a killed Stockfish and never loses on time (issue 4, acceptance 4); a belief bot survives bad events.

Real parts only: the real Stockfish processes are killed with SIGKILL from outside the
engine wrapper (the bot's engine pool's processes, by pid), and the games run on the real
arbiter with real clocks.
"""

from __future__ import annotations

import os
import signal
from typing import Optional

import chess
import pytest

from blindchess.arbiter import LocalGame, WinReason, play_local_game
from blindchess.arbiter.game.observations import OpponentMoved, SenseResult
from blindchess.beliefs import BoardSet
from blindchess.bots.belief_bot import BeliefBot
from blindchess.bots.flagship import FlagshipBot
from blindchess.bots.flagship_config import FAST_FLAGSHIP
from blindchess.bots.random_bot import RandomBot
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.sensing.random_planner import RandomSensePlanner

pytestmark = pytest.mark.slow


class StockfishKillingFlagship(FlagshipBot):
    """The flagship at the ``fast`` preset (what is killed and restarted is the same engine pool; a timed search
    would only make the game longer), except that before some of its moves every Stockfish it runs is SIGKILLed."""

    def __init__(self, rng: int, kill_before_turns: tuple[int, ...]) -> None:
        super().__init__(rng=rng, config=FAST_FLAGSHIP)
        self.kill_before_turns = kill_before_turns
        self.turn = 0
        self.killed: list[set[int]] = []
        """Per kill, the pids it killed."""
        self.pids_after_kill: list[set[int]] = []
        """Per kill, the pool's pids after each move from that kill's to the next kill's (a move that needs no
        engine restarts none: so each kill is checked against the moves it is followed by, not a later kill's)."""

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        self.turn += 1
        assert isinstance(self.move_selector, StockfishMoveSelector)
        pool = self.move_selector.pool  # its own engines: another test's leftover Stockfish is not this bot's
        if self.turn in self.kill_before_turns:
            self.killed.append(set(pool.pids()))
            self.pids_after_kill.append(set())
            for pid in self.killed[-1]:
                os.kill(pid, signal.SIGKILL)
        move = super().choose_move(move_actions, seconds_left)
        if self.killed:
            self.pids_after_kill[-1].update(pool.pids())
        return move


@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK])
def test_a_killed_stockfish_does_not_lose_the_game(color: chess.Color) -> None:
    bot = StockfishKillingFlagship(rng=11, kill_before_turns=(2, 5))
    opponent = RandomBot(rng=12)
    white, black = (bot, opponent) if color == chess.WHITE else (opponent, bot)
    game = LocalGame(seconds_per_player=60, seconds_increment=0, full_turn_limit=10)
    winner, reason, history = play_local_game(white, black, game=game)
    assert bot.killed and bot.killed[0], "the game ended before Stockfish could be killed"
    assert bot.pids_after_kill[0] - bot.killed[0], "no new Stockfish process was started after the first kill"
    assert [fault for fault in history.faults if fault.color == color] == []
    assert reason in (WinReason.KING_CAPTURE, WinReason.TURN_LIMIT)
    assert winner in (color, None)


def test_thirty_seconds_no_increment_never_loses_on_time() -> None:
    """2 games (1 a colour) at 30 s + 0 s against random, cut at 20 full turns (a draw by turn limit).

    The bot spends most of its clock by design, so each game costs up to 30 s of CPU: ten games, then
    four, made this the suite's slowest test without checking anything two do not.
    """
    reasons = []
    for index in range(2):
        color = chess.WHITE if index % 2 == 0 else chess.BLACK
        bot, opponent = FlagshipBot(rng=100 + index), RandomBot(rng=200 + index)
        white, black = (bot, opponent) if color == chess.WHITE else (opponent, bot)
        game = LocalGame(seconds_per_player=30, seconds_increment=0, full_turn_limit=20)
        winner, reason, history = play_local_game(white, black, game=game)
        reasons.append(reason)
        assert not (reason == WinReason.TIMEOUT and winner != color), f"game {index}: lost on time"
        assert [fault for fault in history.faults if fault.color == color] == [], f"game {index}: {history.faults}"
        assert game.seconds_left_by_color[color] > 0
    assert WinReason.TIMEOUT not in reasons


class CountingBoardSet(BoardSet):
    """A real board set that counts its copies (the bot must not make any)."""

    copies = 0

    def copy(self) -> BoardSet:
        CountingBoardSet.copies += 1
        return super().copy()


class BadEventBeliefBot(BeliefBot):
    """A `BeliefBot` that is handed bad events before the true ones: malformed, then impossible."""

    def __init__(self, rng: int) -> None:
        selector = StockfishMoveSelector(FAST_FLAGSHIP.selector)
        super().__init__(lambda: CountingBoardSet(max_boards=20_000), RandomSensePlanner(), selector, rng)
        self.turns = 0

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[int]) -> None:
        self.turns += 1
        if self.turns == 2:
            self.observe(OpponentMoved(-1))  # read as a capture on h8 before the belief checked its input
            self.observe(OpponentMoved("e4"))  # type: ignore[arg-type]
        super().handle_opponent_move_result(captured_my_piece, capture_square)

    def handle_sense_result(self, sense_result: list[tuple[int, Optional[chess.Piece]]]) -> None:
        if self.turns == 3 and self._sense_square is not None:
            king = chess.Piece(chess.KING, not self.color)
            window = [(square, king if index < 2 else piece) for index, (square, piece) in enumerate(sense_result)]
            self.observe(SenseResult(self._sense_square, tuple(window)))  # two kings: impossible
        super().handle_sense_result(sense_result)


@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK])
def test_bad_events_leave_the_belief_as_if_they_never_came_and_nothing_is_copied(color: chess.Color) -> None:
    CountingBoardSet.copies = 0
    bot, opponent = BadEventBeliefBot(rng=5), RandomBot(rng=6)
    white, black = (bot, opponent) if color == chess.WHITE else (opponent, bot)
    _, _, history = play_local_game(white, black, game=LocalGame(seconds_per_player=None, full_turn_limit=6))
    assert [fault for fault in history.faults if fault.color == color] == []
    assert bot.turns >= 3 and bot.game.rebuilds == 1 and not bot.game.belief_stale  # the impossible sense forced one rebuild
    assert bot.game.events == history.observations(color)  # the malformed events dropped, the impossible sense skipped by the rebuild
    clean = BoardSet(max_boards=20_000)
    for event in history.observations(color):
        clean.update(event)
    assert isinstance(bot.belief, BoardSet) and bot.belief.keys() == clean.keys()
    assert CountingBoardSet.copies == 0  # on c05014a: three copies a turn
