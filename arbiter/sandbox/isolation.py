"""Running a bot in its own process, so that nothing it does can take the arbiter down.

In-process, the play loop already turns every exception a bot raises into a fault (see
:mod:`blindchess.arbiter.play`). What it cannot survive is a bot that ends the process
(``os._exit``), crashes it (a segfault in an extension) or eats the machine's memory.
`isolated_player` builds the bot inside a child process and returns a stand-in whose seven
callbacks forward each call over a pipe and wait for the answer. Then:

=============================================  ===========================================
What the bot did                               What the arbiter sees
=============================================  ===========================================
raised an exception                            `IsolatedBotError` with the bot's traceback
``os._exit``, a segfault, ``SIGKILL``          `BotProcessDied` naming the exit code/signal
killed its parent process                      `BotProcessDied`: "its parent process was killed"
left a process running after its game          `BotLeftProcesses` from ``handle_game_end``
(a double-forked daemon)                       (killed with its game; the result stands)
allocated past its memory limit                ``MemoryError`` in the bot (`IsolatedBotError`),
                                               or the process dies (`BotProcessDied`)
overran its clock                              `BotDeadlineExceeded` from the watchdog, as
                                               in-process; the process is then killed
answered with an object of the wrong type      `BotAnswerError` quoting a prefix of it
wrote to its pipe what is not a reply          `BotProtocolError`; the process is killed
(over `MAX_REPLY_BYTES`, not JSON, wrong shape)
=============================================  ===========================================

and the play loop records each as that bot's fault, with the history saved; the match goes on.

Nothing the bot's process sends is unpickled here: replies are small JSON arrays, read with a
size bound and checked (:mod:`blindchess.arbiter.sandbox.wire`), so an answer cannot run code in
the arbiter, or fill its memory. The process is confined before the bot is built
(:mod:`blindchess.arbiter.sandbox.confinement`): on Linux, in its own PID and user namespaces, so it
cannot signal or trace the arbiter, and everything it starts ends with its game.

The memory limit is an address-space limit (``RLIMIT_AS``) on the child, set to what the
child maps when it starts plus `memory_limit_bytes` (default `MEMORY_LIMIT_BYTES`, 2 GiB):
the bot may map that much more, its construction included. Address space, not resident
memory: a bot that maps much and touches little hits the limit early, which is the safe side.

The child is forked (``fork`` start method) where the platform has it, so bot classes loaded
from files need no pickling and a game starts in milliseconds; it ignores SIGINT, so a Ctrl-C
reaches the arbiter and not the bots, and (Linux) it is killed when the arbiter's process dies, so
an arbiter killed mid-game (a tournament worker) leaves no bot behind. What isolation costs is one
pipe round trip per callback, six a turn: see ``experiments/bench_isolation.py`` and ``docs/isolation.md`` for the figure.

``ponder=True`` has the child wrap the bot in a `PonderingPlayer`
(:mod:`blindchess.arbiter.sandbox.pondering`): it thinks while the arbiter plays the opponent's turn, in
its own process, so it takes no GIL from the opponent; the parent's clock for each callback
runs while the child stops its ponder thread, so the bot pays for stopping late.

``cpu_clock=True`` puts the child, before it forks anything, in a cgroup of its own
(:mod:`blindchess.arbiter.sandbox.cpu_clock`): `IsolatedPlayer.cpu_seconds` is then the CPU its whole
tree has used (the supervisor, the bot, its threads and every process it started), which a
`LocalGame` given it as a meter charges to the bot's clock under ``--clock cpu``.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import resource
import signal
import traceback
from collections.abc import Callable
from typing import Any, Optional

import chess

from blindchess.errors import BlindchessError

from ..game.history import GameHistory
from ..game.player import Player, stand_in_class
from .confinement import NAMESPACES, PARENT_KILLED_EXIT, STRAYS_EXIT, confine
from .cpu_clock import CgroupCpuMeter
from .pondering import PonderingUnsupportedError, pondering, supports_pondering
from .wire import (
    MAX_REPLY_BYTES,
    REPORTING,
    BotAnswerError,
    BotProtocolError,
    decode_reply,
    encode,
    encode_answer,
    encode_error,
    encode_report,
)
from .wire import IsolatedBotError as IsolatedBotError

logger = logging.getLogger(__name__)

MEMORY_LIMIT_BYTES = 2 * 1024**3
"""How much address space an isolated bot may map beyond what its process starts with."""

_POLL_S = 0.05
"""How long one wait for the bot's answer blocks in C code: the watchdog's exception lands between waits."""

CALLBACKS = (
    "handle_game_start",
    "handle_opponent_move_result",
    "choose_sense",
    "handle_sense_result",
    "choose_move",
    "handle_move_result",
    "handle_game_end",
)


class BotProcessDied(BlindchessError):
    """An isolated bot's process ended without answering (``os._exit``, a signal, the memory limit, its parent killed)."""


class BotLeftProcesses(BlindchessError):
    """An isolated bot left processes running after its game (a double-forked daemon); they were killed with it."""


def _describe_exit(code: Optional[int]) -> str:
    if code is None:
        return "its process stopped answering"
    if code < 0:
        return f"its process was killed by {_signal_name(-code)}"
    if code > PARENT_KILLED_EXIT:  # a bot may exit with such a code itself: its fault either way
        return f"its process ended: its parent process was killed ({_signal_name(code - PARENT_KILLED_EXIT)})"
    return f"its process exited with code {code}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _describe(error: BaseException) -> str:
    """``Type: message``; a `MemoryError` (which has no message) says what limit it hit."""
    if isinstance(error, MemoryError) and not str(error):
        return "MemoryError: an allocation failed (the bot process's memory limit)"
    return f"{type(error).__name__}: {error}"


def _mapped_bytes() -> int:
    """This process's address-space size now (Linux ``/proc``; 0 where unknown)."""
    try:
        with open("/proc/self/statm") as file:
            return int(file.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def _serve(
    connection: multiprocessing.connection.Connection,
    parent_pid: int,
    factory: Callable[[], Any],
    memory_limit_bytes: int,
    ponder: bool,
    meter: Optional[CgroupCpuMeter] = None,
) -> None:
    """The child's loop: join its CPU meter's group, confine, build the bot (wrapped to ponder if asked), then answer
    requests until the pipe closes.

    Requests (``(callback, args)``) come pickled from the arbiter; replies go back as `wire` JSON, never pickled.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if meter is not None:
        try:
            meter.join()  # first: everything the bot's process forks from now on is counted
        except OSError as error:
            connection.send_bytes(encode_error(f"cannot join its CPU clock's cgroup {meter.path}: {error}", ""))
            return
    level = confine(parent_pid, keep={connection.fileno()})  # returns in the bot's own, confined process
    if level != NAMESPACES:
        logger.warning("the bot's process is confined by its %s only (the kernel refused namespaces): see docs/isolation.md", level)
    limit = _mapped_bytes() + memory_limit_bytes
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        bot = factory()
        if ponder:
            bot = pondering(bot)
        connection.send_bytes(encode(["ok"]))
    except BaseException as error:
        connection.send_bytes(encode_error(_describe(error), traceback.format_exc()))
        return
    while True:
        try:
            callback, args = connection.recv()
        except (EOFError, OSError):
            return
        try:
            if callback == "handle_game_end":
                winner, reason, history_json = args
                args = (winner, reason, GameHistory.from_json(history_json, source="the arbiter's history"))
            answer = getattr(bot, callback)(*args)
            reply = encode_report(_failure_lines(bot)) if callback == REPORTING else encode_answer(callback, answer)
        except BaseException as error:  # everything the bot raises goes back to the arbiter
            reply = encode_error(_describe(error), traceback.format_exc())
        connection.send_bytes(reply)


def _failure_lines(bot: Any) -> Any:
    """What the bot's ``failure_report()`` says about the game that ended (a pondering wrapper's inner bot's); () without one."""
    report = getattr(getattr(bot, "inner", bot), "failure_report", None)
    return () if report is None else report()


class IsolatedPlayer(Player):
    """Stands in for a bot running in its own process; see the module docstring.

    Build it with `isolated_player`, which names its class after the bot's, so histories and
    fault messages name the bot, not the stand-in.
    """

    def __init__(
        self, factory: Callable[[], Any], memory_limit_bytes: int = MEMORY_LIMIT_BYTES, *, ponder: bool = False, cpu_clock: bool = False
    ) -> None:
        self._meter = CgroupCpuMeter() if cpu_clock else None  # made here, joined by the child: the arbiter reads it
        methods = multiprocessing.get_all_start_methods()
        context: Any = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self._connection, child_end = context.Pipe()
        self._process = context.Process(
            target=_serve,
            args=(child_end, os.getpid(), factory, memory_limit_bytes, ponder, self._meter),
            name=f"bot {type(self).__name__}",
            daemon=True,
        )
        self._process.start()
        child_end.close()
        self._stopped = False  # died, or killed by us after an overrun: its game is over
        self._failures: tuple[str, ...] = ()  # the bot's failure report, sent with its game's end
        try:
            self._call("__init__", ())
        except BaseException:
            self.close()  # its process and its CPU meter's group go with the failed build
            raise

    def failure_report(self) -> tuple[str, ...]:
        """The planner and selector failures the bot counted in its game, as its own ``failure_report()`` words
        them (sent back with ``handle_game_end``; empty before, or for a bot without one)."""
        return self._failures

    def cpu_seconds(self) -> float:
        """CPU seconds the bot's process tree has used so far (built with ``cpu_clock=True``; else 0)."""
        return 0.0 if self._meter is None else self._meter.seconds()

    def _call(self, callback: str, args: tuple[Any, ...]) -> Any:
        if self._stopped:
            raise BotProcessDied("its process is gone (it died or overran its deadline earlier)")
        try:
            if callback != "__init__":
                self._connection.send((callback, args))
            while not self._connection.poll(_POLL_S):  # short waits: the watchdog's exception lands between them
                if not self._process.is_alive():
                    break
            data = self._connection.recv_bytes(MAX_REPLY_BYTES)
        except (EOFError, OSError) as error:
            if not self._connection.readable:  # recv_bytes refused a reply over the bound, unread
                self._stop()
                raise BotProtocolError(f"its process sent a reply of more than {MAX_REPLY_BYTES} bytes") from None
            self._process.join(1.0)
            self._stopped = True
            raise BotProcessDied(_describe_exit(self._process.exitcode)) from error
        except BaseException:  # the watchdog interrupted the wait: the bot is still busy; stop it
            self._stop()
            raise
        try:
            return decode_reply(callback, data)
        except (BotProtocolError, BotAnswerError):
            self._stop()  # whatever it sends next would be out of step: its game is over
            raise

    def _stop(self) -> None:
        # Stopped first: the watchdog interrupts again every REPEAT_S until the call returns, so on
        # a busy machine a second interruption can cut close() short (handle_game_end closes again).
        self._stopped = True
        self.close()

    def close(self) -> None:
        """Stop the bot's process and every process it started (idempotent).

        SIGTERM asks the bot's supervisor to kill the bot's namespace (see
        :mod:`blindchess.arbiter.sandbox.confinement`); SIGKILL follows if it has not ended in a second.
        The supervisor's exit code then tells how many processes the bot left running.
        """
        if self._process.is_alive() and self._process.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._process.pid, signal.SIGTERM)
            self._process.join(1.0)
            if self._process.is_alive():
                self._process.kill()
        self._process.join(5.0)
        self._connection.close()
        if self._meter is not None:
            self._meter.close()

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        self._call("handle_game_start", (color, board, opponent_name))

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[int]) -> None:
        self._call("handle_opponent_move_result", (captured_my_piece, capture_square))

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> Any:
        return self._call("choose_sense", (sense_actions, move_actions, seconds_left))

    def handle_sense_result(self, sense_result: list[Any]) -> None:
        self._call("handle_sense_result", (sense_result,))

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Any:
        return self._call("choose_move", (move_actions, seconds_left))

    def handle_move_result(self, *args: Any) -> None:
        self._call("handle_move_result", args)

    def handle_game_end(self, winner_color: Any, win_reason: Any, game_history: Any) -> None:
        """Sends the history as its JSON (the bot gets a loaded copy): truth snapshots do not pickle."""
        if self._stopped:
            self.close()  # in case an interruption cut the first close short
            return  # the fault that stopped it is recorded already; there is nobody to tell
        try:
            self._failures = self._call(REPORTING, (winner_color, win_reason, game_history.to_json()))
        finally:
            self.close()
        code = self._process.exitcode
        if code is not None and STRAYS_EXIT < code < STRAYS_EXIT + 64:  # the supervisor counted them (see `close`)
            count = code - STRAYS_EXIT
            raise BotLeftProcesses(f"it left {count} process{'es' * (count > 1)} running after its game (killed)")


def isolated_player(
    bot_class: type,
    factory: Callable[[], Any],
    memory_limit_bytes: int = MEMORY_LIMIT_BYTES,
    *,
    ponder: bool = False,
    cpu_clock: bool = False,
) -> IsolatedPlayer:
    """A bot of `bot_class`, built by `factory` inside its own process; the stand-in's class bears the bot's name.

    With `ponder`, the child wraps the bot in `PonderingPlayer`: it thinks in its own process
    while the arbiter plays the opponent's turn (see :mod:`blindchess.arbiter.sandbox.pondering`). With
    `cpu_clock`, its process tree runs in a cgroup of its own, read by `IsolatedPlayer.cpu_seconds`.

    Raises:
        IsolatedBotError, BotProcessDied: the bot cannot be built.
        PonderingUnsupportedError: `ponder` is asked of a class with no ``ponder`` method.
        CpuClockUnavailableError: `cpu_clock`, where no cgroup can be made (see :mod:`blindchess.arbiter.sandbox.cpu_clock`).
    """
    if ponder and not supports_pondering(bot_class):
        raise PonderingUnsupportedError(f"{bot_class.__name__} has no ponder(stop) method to think on the opponent's turn")
    stand_in = stand_in_class(bot_class.__name__, IsolatedPlayer)
    player: IsolatedPlayer = stand_in(factory, memory_limit_bytes, ponder=ponder, cpu_clock=cpu_clock)
    return player
