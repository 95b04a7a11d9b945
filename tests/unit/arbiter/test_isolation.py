"""`--isolate`: a bot that ends, crashes or overfills its process loses that game; the match goes on.

Without isolation each of these took the whole `blindchess match` down with it (``os._exit``
ended the process with the bot's exit code, the segfault killed it, and the allocation was
limited only by the machine). Each case is a real bot file run through the real command line
in a real child process; the test checks the fault, the result, that the history saved for
the crashed game loads, and that the second game (colours swapped) was played too.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path
from typing import Any, Optional

import chess
import pytest

from blindchess.arbiter import GameHistory, LocalGame, WinReason, play_local_game
from blindchess.arbiter.sandbox.isolation import BotProcessDied, IsolatedBotError, isolated_player
from blindchess.arbiter.sandbox.wire import MAX_REPORT_LINES, QUOTE_CHARS, BotProtocolError, decode_reply, encode_report
from blindchess.bots.random_bot import RandomBot
from blindchess.cli import main
from blindchess.tournament.task import failures

CRASHING_BOT = """
import ctypes
import faulthandler
import os

from blindchess.bots.random_bot import RandomBot


class {name}(RandomBot):
    '''Plays randomly, then crashes in its second choose_move.'''

    moves_chosen = 0

    def choose_move(self, move_actions, seconds_left):
        self.moves_chosen += 1
        if self.moves_chosen == 2:
            {crash}
        return super().choose_move(move_actions, seconds_left)
"""

CRASHES = {
    "ExitBot": ("os._exit(3)", "raised BotProcessDied: its process exited with code 3"),
    # The bot's process is forked from pytest's, whose faulthandler would print a dump of every
    # thread and module while the test passes: the crash is the point here, not its dump.
    "SegfaultBot": ("faulthandler.disable(); ctypes.string_at(0)", "raised BotProcessDied: its process was killed by SIGSEGV"),
    "HogBot": ("self.hog = bytearray(1536 * 2**20)", "raised MemoryError: an allocation failed"),
}


@pytest.mark.parametrize("name", sorted(CRASHES))
def test_match_isolate_survives_a_bot_that_kills_its_process(name: str, capsys: Any, caplog: Any, tmp_path: Path) -> None:
    crash, problem = CRASHES[name]
    bot_file = tmp_path / f"{name.lower()}.py"
    bot_file.write_text(textwrap.dedent(CRASHING_BOT.format(name=name, crash=crash)))
    out = tmp_path / "games"
    argv = ["match", str(bot_file), "random", "--games", "2", "--isolate", "--memory-limit", "512", "--seconds", "30"]
    code = main([*argv, "--out", str(out), "--seed", "5"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    files = sorted(out.glob("*.json"))
    assert len(files) == 2  # the match went on after the first crash
    for index, path in enumerate(files):
        history = GameHistory.from_file(str(path))  # loadable
        crashed = chess.WHITE if index == 0 else chess.BLACK
        assert (history.get_winner_color(), history.get_win_reason()) == (not crashed, WinReason.RESIGN)
        assert history.num_turns(crashed) == 2 and not history.has_move(history.last_turn(crashed))
        assert [history.get_white_player_name(), history.get_black_player_name()][index] == name
    faults = [record.getMessage() for record in caplog.records if record.getMessage().startswith("bot fault: ")]
    assert len(faults) == 2  # one per game; none for handle_game_end of a process already gone
    assert f"{name} (white) {problem}" in faults[0] and f"{name} (black) {problem}" in faults[1]


class RaisingBot(RandomBot):
    """Raises a ValueError in its first choose_sense."""

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> Optional[int]:
        raise ValueError("no sense today")


class StuckBot(RandomBot):
    """Never answers its first choose_sense (a pure-Python loop in its own process)."""

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> Optional[int]:
        while True:
            pass


def test_an_isolated_bot_exception_is_its_fault_with_its_own_traceback() -> None:
    bot = isolated_player(RaisingBot, lambda: RaisingBot(rng=1))
    winner, reason, history = play_local_game(RandomBot(rng=2), bot, game=LocalGame(seconds_per_player=30))
    (fault,) = history.faults
    assert (winner, reason) == (chess.WHITE, WinReason.RESIGN)
    assert fault.message == "RaisingBot (black) raised ValueError: no sense today in choose_sense on Turn(black, 0)"
    assert fault.traceback is not None and "no sense today" in fault.traceback and "choose_sense" in fault.traceback
    assert not bot._process.is_alive()  # handle_game_end closed it


def test_an_isolated_bot_that_never_answers_loses_on_time_and_is_stopped() -> None:
    bot = isolated_player(StuckBot, lambda: StuckBot(rng=1))
    started = time.monotonic()
    winner, reason, history = play_local_game(bot, RandomBot(rng=2), game=LocalGame(seconds_per_player=0.5, seconds_increment=0))
    assert time.monotonic() - started < 60  # ~1 s idle: only tells a stop at the 0.5 s clock from a hang, under any load
    (fault,) = history.faults
    assert (winner, reason) == (chess.BLACK, WinReason.TIMEOUT) and fault.timed_out
    assert not bot._process.is_alive()


def test_a_bot_that_cannot_be_built_in_its_process_says_why() -> None:
    def build() -> RandomBot:
        raise RuntimeError("no model file")

    with pytest.raises(IsolatedBotError, match="RuntimeError: no model file"):
        isolated_player(RandomBot, build)

    def die() -> RandomBot:
        import os

        os._exit(4)

    with pytest.raises(BotProcessDied, match="exited with code 4"):
        isolated_player(RandomBot, die)


class ReportingBot(RandomBot):
    """Plays randomly; its failure report is whatever the test gives it."""

    report: Any = ("choose_move raised on 2 turns (first: RuntimeError: broken on purpose)",)

    def failure_report(self) -> Any:
        return self.report


def test_an_isolated_bot_sends_its_failure_report_with_its_game_end() -> None:
    """Before, an isolated belief bot's planner and selector failures stayed in its process: its log showed them, the
    match's faults did not (`blindchess.tournament.task.failures`)."""
    bot = isolated_player(ReportingBot, lambda: ReportingBot(rng=1))
    assert bot.failure_report() == ()  # nothing before the game ends
    _, _, history = play_local_game(RandomBot(rng=2), bot, game=LocalGame(seconds_per_player=30, full_turn_limit=2))
    assert history.faults == []
    assert failures(bot, chess.BLACK) == ("ReportingBot (black) choose_move raised on 2 turns (first: RuntimeError: broken on purpose)",)
    assert failures(isolated_player(RandomBot, lambda: RandomBot(rng=3)), chess.WHITE) == ()


class LongReportBot(ReportingBot):
    report = tuple(f"line {k} " + "x" * 500 for k in range(100))


class BytesReportBot(ReportingBot):
    report = (b"not text",)


def test_a_report_is_cut_to_its_bounds_and_a_report_of_another_type_is_the_bots_fault() -> None:
    long = isolated_player(LongReportBot, lambda: LongReportBot(rng=1))
    play_local_game(RandomBot(rng=2), long, game=LocalGame(seconds_per_player=30, full_turn_limit=1))
    lines = long.failure_report()
    assert len(lines) == MAX_REPORT_LINES and lines[0].startswith("line 0 ") and all(len(line) == QUOTE_CHARS for line in lines)
    bad = isolated_player(BytesReportBot, lambda: BytesReportBot(rng=1))
    _, _, history = play_local_game(RandomBot(rng=2), bad, game=LocalGame(seconds_per_player=30, full_turn_limit=1))
    (fault,) = history.faults
    assert "handle_game_end answered" in fault.message and "not report lines (strings)" in fault.message
    assert bad.failure_report() == ()


def test_the_report_reply_takes_strings_only() -> None:
    assert decode_reply("handle_game_end", encode_report(["a", "b"])) == ("a", "b")
    assert decode_reply("handle_game_end", b'["ok"]') == ()
    for reply in (b'["ok", 1]', b'["ok", null]', b'["ok", "a", ["b"]]'):
        with pytest.raises(BotProtocolError):
            decode_reply("handle_game_end", reply)
    with pytest.raises(BotProtocolError):
        decode_reply("handle_move_result", b'["ok", "a"]')  # other callbacks send nothing back
