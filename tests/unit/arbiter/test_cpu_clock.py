"""``--clock cpu``: each bot is charged the CPU its own process tree used on its turn (issue 39).

Real processes in real cgroups: bots from `cpu_clock_bots` whose CPU use is known play through
the tournament's task (`play_game`), isolated, and the charge is read back from the clock they
were left (`GameResult.clock_share`). The bounds are on CPU time, with generous tolerances for
the per-callback overhead; no assertion depends on how long anything took in wall time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from blindchess.arbiter import LocalGame, WinReason, play_local_game
from blindchess.arbiter.game.time_control import TimeControl
from blindchess.arbiter.sandbox.cpu_clock import (
    CgroupCpuMeter,
    CpuClockUnavailableError,
    own_cgroup,
    remove_stale_groups,
)
from blindchess.arbiter.sandbox.isolation import isolated_player
from blindchess.bots.random_bot import RandomBot
from blindchess.tournament.spec import BotSpec, GameResult, GameSpec
from blindchess.tournament.task import play_game

from .cpu_clock_bots import WORK, Hanger, needs_cgroups

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CPU clocks are Linux cgroups")

SECONDS = 60.0
TURNS = 6  # full turns: each bot makes 6 moves
OVERHEAD = 0.05
"""CPU seconds per own turn allowed beyond the work: six callbacks over a pipe, reading the reply, Python's own."""


def _bot_file(tmp_path: Path, name: str) -> str:
    """A bot file whose `get_player` returns `cpu_clock_bots`'s class `name` (one class per file, as users write them)."""
    path = tmp_path / f"{name.lower()}_bot.py"
    path.write_text(f"from blindchess.tests.unit.arbiter.cpu_clock_bots import {name}\n\n\ndef get_player():\n    return {name}\n")
    return str(path)


def _charged(result: GameResult, white: bool) -> float:
    """CPU seconds `result`'s White (or Black) was charged: its share of start plus increments, back in seconds."""
    share = result.clock_share[0 if white else 1]
    assert share is not None
    return share * SECONDS


def _play(white: BotSpec, black: BotSpec, clock_mode: str = "cpu") -> GameResult:
    spec = GameSpec("1", white, black, 1, 2, seconds=SECONDS, full_turn_limit=TURNS, clock_mode=clock_mode)
    result = play_game(spec)
    assert result.ok, result.error
    assert result.faults == ()
    assert result.reason == WinReason.TURN_LIMIT.name or result.reason == WinReason.KING_CAPTURE.name
    return result


def _own_turns(result: GameResult, white: bool) -> int:
    return (result.turns + 1) // 2 if white else result.turns // 2


@needs_cgroups
def test_a_busy_bot_is_charged_its_cpu_and_a_sleeping_one_almost_nothing(tmp_path: Path) -> None:
    result = _play(BotSpec("busy", _bot_file(tmp_path, "Busy")), BotSpec("sleeper", _bot_file(tmp_path, "Sleeper")))
    busy_turns, sleeper_turns = _own_turns(result, True), _own_turns(result, False)
    assert busy_turns >= 3 and sleeper_turns >= 3
    assert WORK * busy_turns <= _charged(result, True) <= (WORK + OVERHEAD) * busy_turns + 0.2
    assert _charged(result, False) <= OVERHEAD * sleeper_turns + 0.2 < WORK * sleeper_turns


@needs_cgroups
def test_the_cpu_of_a_child_process_is_charged_to_the_bot_that_started_it(tmp_path: Path) -> None:
    result = _play(BotSpec("burner", _bot_file(tmp_path, "ChildBurner")), BotSpec("random", "random"))
    turns = _own_turns(result, True)
    # the child's interpreter starting and ending adds its own CPU to the work: up to 0.15 s a move
    assert WORK * turns <= _charged(result, True) <= (WORK + 0.15 + OVERHEAD) * turns + 0.2


@needs_cgroups
def test_pondering_on_the_opponents_turn_is_charged_to_nobody(tmp_path: Path) -> None:
    report = tmp_path / "ponder-cpu.txt"
    ponderer = BotSpec("ponderer", _bot_file(tmp_path, "Ponderer"), {"report": str(report)}, ponder=True)
    result = _play(ponderer, BotSpec("sleeper", _bot_file(tmp_path, "Sleeper"), {"seconds": 1.0}))
    burned = float(report.read_text())  # the ponderer's process CPU over the game: nearly all of it pondering
    assert burned >= 0.5  # it did think on the opponent's turns (6 s of them, while the sleeper slept)
    assert _charged(result, True) <= 0.3  # not on its own clock (0.07 s measured, for its 6 turns' own work)...
    assert _charged(result, False) <= OVERHEAD * _own_turns(result, False) + 0.2  # ...nor on its opponent's


@needs_cgroups
def test_a_bot_that_stops_answering_loses_on_time_at_the_wall_time_hang_limit() -> None:
    clocks = (TimeControl(SECONDS), TimeControl(SECONDS))
    hanger = isolated_player(Hanger, lambda: Hanger(1), cpu_clock=True)
    other = isolated_player(RandomBot, lambda: RandomBot(2), cpu_clock=True)
    try:
        game: LocalGame[chess.Board] = LocalGame(time_controls=clocks, meters=(hanger.cpu_seconds, other.cpu_seconds))
        winner, reason, history = play_local_game(hanger, other, game=game, hang_limit=1.0)
    finally:
        hanger.close()
        other.close()
    assert (winner, reason) == (chess.BLACK, WinReason.TIMEOUT)
    assert [fault.callback for fault in history.faults] == ["choose_move"]
    assert "stopped answering" in history.faults[0].problem and history.faults[0].timed_out
    assert game.seconds_left_by_color[chess.WHITE] <= 0 < game.seconds_left_by_color[chess.BLACK]


@needs_cgroups
def test_a_bot_past_its_cpu_clock_is_stopped_inside_its_turn(tmp_path: Path) -> None:
    spec = GameSpec("1", BotSpec("busy", _bot_file(tmp_path, "Busy")), BotSpec("r", "random"), 1, 2, seconds=0.5, clock_mode="cpu")
    result = play_game(spec)
    assert (result.winner, result.reason) == (chess.BLACK, WinReason.TIMEOUT.name)
    assert any("ran out of clock" in fault for fault in result.faults)


def test_a_cpu_clock_where_no_cgroup_can_be_made_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(CpuClockUnavailableError, match="not a cgroup v2 group") as caught:
        CgroupCpuMeter(tmp_path)  # a plain folder: the group is made, but it has no cpu.stat
    assert "\n" not in str(caught.value) and list(tmp_path.iterdir()) == []
    (tmp_path / "mountinfo").write_text("22 1 0:21 / /proc rw - proc proc rw\n")
    (tmp_path / "cgroup").write_text("0::/\n")
    with pytest.raises(CpuClockUnavailableError, match="needs a cgroup v2 file system"):
        own_cgroup(str(tmp_path / "mountinfo"), str(tmp_path / "cgroup"))


def test_groups_left_by_a_killed_run_are_removed_and_live_or_busy_ones_stay(tmp_path: Path) -> None:
    """A run killed by SIGKILL left its empty groups behind for good; the next run's check removes them."""
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # its pid names no live process now
    stale, busy = tmp_path / f"blindchess-clock-{ended.pid}-0", tmp_path / f"blindchess-clock-{ended.pid}-1"
    live, other = tmp_path / f"blindchess-clock-{os.getpid()}-7", tmp_path / "not-ours-1-2"
    for path in (stale, busy, live, other):
        path.mkdir()
    (busy / "cgroup.procs").write_text("")  # a group that still holds something cannot be removed
    assert remove_stale_groups(tmp_path) == [stale]
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(path.name for path in (busy, live, other))


def test_the_clock_mode_is_recorded_only_when_it_is_not_wall_time() -> None:
    plain = GameSpec("1", BotSpec("a", "random"), BotSpec("b", "random"), 1, 2)
    assert '"clock_mode"' not in plain.to_json()  # a database written before the mode existed still resumes
    assert '"clock_mode": "cpu"' in GameSpec("1", BotSpec("a", "random"), BotSpec("b", "random"), 1, 2, clock_mode="cpu").to_json()
