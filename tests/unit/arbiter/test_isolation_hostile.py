"""A hostile isolated bot stays in its box: the attacks of issue 33 through the real command line.

The first test writes a bot file that attacks differently in each game and runs
``python -m blindchess match <bot> random --isolate`` as its own process (in a session of its
own, so that nothing it does reaches the test runner). Before the change it failed on each
attack: the pickled answer ran its code in the match process, the 200 MB answer became a 200 MB
line on stderr, ``kill(0)`` and ``kill(getppid())`` ended the match with -9 and no history, and
the double-forked child kept the caller waiting for stderr to close for as long as it slept.
Each attack now ends as that bot's named fault, in the output and in its game's history.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from blindchess.arbiter import GameHistory, LocalGame, WinReason, play_local_game
from blindchess.arbiter.sandbox.confinement import NAMESPACES, confine
from blindchess.arbiter.sandbox.isolation import isolated_player
from blindchess.arbiter.sandbox.wire import MAX_REPLY_BYTES
from blindchess.bots.random_bot import RandomBot

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="confinement is Linux's (namespaces, prctl)")

BOT = '''
import os
import signal
import time

from blindchess.bots.random_bot import RandomBot

MARKER = {marker!r}
COUNTER = {counter!r}


class Payload:
    def __reduce__(self):
        return (exec, (f"open({{MARKER!r}}, 'w').write(str(__import__('os').getpid()))",))


def pickle_payload(answer):
    return Payload()


def answer_200_mb(answer):
    return b"A" * (200 << 20)


def kill_own_group(answer):
    os.kill(0, signal.SIGKILL)
    return answer


def kill_parent(answer):
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(5)  # killed meanwhile: the fault lands in this callback, not in a later one (on a loaded machine)
    return answer


def double_fork(answer):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(MARKER + ".daemon", "w") as file:
                file.write(os.readlink("/proc/self"))  # its pid outside any namespace
            time.sleep(120)
        os._exit(0)
    os.wait()
    return answer


ATTACKS = [
    ("choose_sense", pickle_payload),
    ("choose_sense", answer_200_mb),
    ("choose_move", kill_own_group),
    ("choose_move", kill_parent),
    ("choose_move", double_fork),
]


class EvilBot(RandomBot):
    """Plays randomly, but attacks in its first choose_sense or choose_move: game n, attack n."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        game = int(open(COUNTER).read()) if os.path.exists(COUNTER) else 0
        open(COUNTER, "w").write(str(game + 1))
        self.callback, self.attack = ATTACKS[game]

    def choose_sense(self, *args):
        return self._maybe_attack("choose_sense", super().choose_sense(*args))

    def choose_move(self, *args):
        return self._maybe_attack("choose_move", super().choose_move(*args))

    def _maybe_attack(self, callback, answer):
        if callback != self.callback:
            return answer
        self.callback = None
        return self.attack(answer)
'''

FAULTS = [
    "raised BotAnswerError: choose_sense answered <",
    "raised BotAnswerError: choose_sense answered b'AAAA",
    "raised BotProcessDied: its process was killed by SIGKILL",
    "raised BotProcessDied: its process ended: its parent process was killed (SIGKILL)",
    "raised BotLeftProcesses: it left 1 process running after its game (killed) in handle_game_end",
]
"""The fault each attack of `BOT` ends in, game by game (the last in ``handle_game_end``: the result stands)."""


def test_a_hostile_isolated_bot_leaves_the_match_standing(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    bot = tmp_path / "evil.py"
    bot.write_text(BOT.format(marker=str(marker), counter=str(tmp_path / "counter")))
    command = [sys.executable, "-m", "blindchess", "match", str(bot), "random", "--isolate", "--games", str(len(FAULTS))]
    command += ["--seconds", "60", "--seed", "3", "--full-turn-limit", "3", "--memory-limit", "1024"]
    # stderr is a pipe: run() waits for every holder of it to close it, the daemon of game 5 included
    done = subprocess.run(
        [*command, "--out", str(tmp_path / "games")], capture_output=True, text=True, timeout=90, start_new_session=True
    )
    assert done.returncode == 0, done.stderr[-2000:]  # the match survived every attack (kill_parent: -9 before)
    assert not marker.exists()  # the pickle payload never ran, in the match process or anywhere
    assert len(done.stderr) < 20_000 and max(map(len, done.stderr.splitlines())) < 2_000  # the 200 MB answer quoted short
    daemon = int((tmp_path / "marker.daemon").read_text())
    assert not Path(f"/proc/{daemon}").exists() or _is_zombie(daemon)  # gone with its game
    files = sorted((tmp_path / "games").glob("*.json"))
    assert len(files) == len(FAULTS)
    faults = [line for line in done.stderr.splitlines() if "bot fault: " in line]
    assert len(faults) == len(FAULTS), faults
    for index, (path, fault) in enumerate(zip(files, FAULTS, strict=True)):
        history = GameHistory.from_file(str(path))  # loadable
        evil = chess.WHITE if index % 2 == 0 else chess.BLACK
        color = chess.COLOR_NAMES[evil]
        assert any(f"EvilBot ({color}) {fault}" in line and len(line) < 500 for line in faults), (fault, faults)
        if "handle_game_end" in fault:  # the game was over: its result stands
            assert history.get_win_reason() != WinReason.RESIGN
        else:
            assert (history.get_winner_color(), history.get_win_reason()) == (not evil, WinReason.RESIGN)


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


class FloodingBot(RandomBot):
    """Writes a frame header announcing a 1 GiB reply into its own pipe, then answers."""

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> int | None:
        for fd in range(3, 64):
            try:
                if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                    os.write(fd, (2**30).to_bytes(4, "big"))
            except OSError:
                continue
        return super().choose_sense(sense_actions, move_actions, seconds_left)


def test_a_reply_over_the_bound_is_refused_unread() -> None:
    bot = isolated_player(FloodingBot, lambda: FloodingBot(rng=1))
    winner, reason, history = play_local_game(bot, RandomBot(rng=2), game=LocalGame(seconds_per_player=30))
    (fault,) = history.faults
    assert (winner, reason) == (chess.BLACK, WinReason.RESIGN)
    assert f"BotProtocolError: its process sent a reply of more than {MAX_REPLY_BYTES} bytes" in fault.message
    assert not bot._process.is_alive()


def test_the_bot_holds_no_descriptor_of_the_arbiter_and_sees_only_its_namespace() -> None:
    """A bot forked after another must not hold the other's pipe (it could answer for it), nor any other descriptor."""
    other = os.open(os.devnull, os.O_RDONLY)  # stands for the opponent's pipe, a results database, ...
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # stands for the arbiter's forked bot process
        level = confine(os.getppid(), keep={write})
        fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
        os.write(write, json.dumps([level, os.getpid(), os.getppid(), fds]).encode())
        os._exit(0)
    os.close(write)
    level, pid, parent, fds = json.loads(os.read(read, 1000))
    os.close(read)
    os.close(other)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert other not in fds and len(set(fds) - {0, 1, 2, write}) == 1  # the one left: listdir's own
    if level != NAMESPACES:
        pytest.skip(f"this platform refuses namespaces: confinement is {level!r}")
    assert (pid, parent) == (3, 2)  # PID 3 of its own namespace, under its parent (PID 2), under its init
