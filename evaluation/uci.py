"""A lean UCI client: one engine process, spoken to over its pipes from the caller's own thread.

Why not python-chess's engine API: it runs every engine on an asyncio event loop in a thread
of its own and parses every line the engine prints. At the shallow searches a bot makes by
the hundred per turn that costs more CPU than everything else the bot does: measured on depth-4
searches, about 1.4 ms of our CPU per search through python-chess against 0.27 ms here, and
2.2 ms of wall time against 1.1 ms (``experiments/bench_engine_protocol.py``). Here a search
is written to the engine's stdin and its answer read from its stdout with ``select`` and
``os.read``; of the info lines only the last one that carries a score is parsed.

The commands are the very ones python-chess sends (``ucinewgame`` and ``isready`` before the
first search, ``UCI_AnalyseMode`` on for analysis and off for play, ``MultiPV`` when it changes,
``position startpos`` for the initial position), so a search sees the same engine state and the
answers are the same as before (the golden flagship replay pins this).

>>> parse_info("info depth 4 seldepth 2 multipv 1 score cp -5 nodes 175 time 3 pv e7e5 g1f3", chess.BLACK)["score"]
PovScore(Cp(-5), BLACK)
"""

from __future__ import annotations

import os
import select
import subprocess
import threading
import time
from collections.abc import Mapping
from typing import Optional, Union

import chess
import chess.engine

OptionValue = Union[str, int, bool]

_INT_FIELDS = {"depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "tbhits", "cpuload", "currmovenumber"}
_REST_OF_LINE = {"string", "refutation", "currline"}


def parse_info(line: str, turn: chess.Color, info: chess.engine.Info = chess.engine.INFO_ALL) -> chess.engine.InfoDict:
    """The fields of one ``info`` line as python-chess's `InfoDict` (the score from `turn`'s side).

    The score is read when `info` asks for it (``INFO_SCORE``), the principal variation when it
    asks for ``INFO_PV``; time is in seconds. Fields this toolkit never reads (``string``,
    ``refutation``, ``currline``, ``wdl``) are skipped.
    """
    tokens = line.split()
    parsed: chess.engine.InfoDict = {}
    index = 1
    while index < len(tokens):
        key = tokens[index]
        if key in _INT_FIELDS and index + 1 < len(tokens):
            parsed[key] = int(tokens[index + 1])  # type: ignore[literal-required]
            index += 2
        elif key == "time" and index + 1 < len(tokens):
            parsed["time"] = int(tokens[index + 1]) / 1000.0
            index += 2
        elif key == "score" and index + 2 < len(tokens):
            kind, value = tokens[index + 1], int(tokens[index + 2])
            if info & chess.engine.INFO_SCORE:
                score: chess.engine.Score = chess.engine.Cp(value) if kind == "cp" else chess.engine.Mate(value)
                parsed["score"] = chess.engine.PovScore(score, turn)
            index += 3
            if index < len(tokens) and tokens[index] in ("lowerbound", "upperbound"):
                if info & chess.engine.INFO_SCORE:
                    parsed[tokens[index]] = True  # type: ignore[literal-required]
                index += 1
        elif key == "currmove" and index + 1 < len(tokens):
            parsed["currmove"] = chess.Move.from_uci(tokens[index + 1])
            index += 2
        elif key == "wdl":
            index += 4
        elif key == "pv":
            if info & chess.engine.INFO_PV:
                parsed["pv"] = [chess.Move.from_uci(move) for move in tokens[index + 1 :]]
            break
        elif key in _REST_OF_LINE:
            break
        else:
            index += 1
    return parsed


def go_command(limit: chess.engine.Limit) -> str:
    """The ``go`` line for `limit`, as python-chess writes it (clock fields in milliseconds)."""
    words = ["go"]
    for name, value in (("wtime", limit.white_clock), ("btime", limit.black_clock)):
        if value is not None:
            words += [name, str(max(1, round(value * 1000)))]
    for name, value in (("winc", limit.white_inc), ("binc", limit.black_inc)):
        if value is not None:
            words += [name, str(round(value * 1000))]
    if limit.remaining_moves is not None and int(limit.remaining_moves) > 0:
        words += ["movestogo", str(int(limit.remaining_moves))]
    for name, count in (("depth", limit.depth), ("nodes", limit.nodes), ("mate", limit.mate)):
        if count is not None:
            words += [name, str(max(1, int(count)))]
    if limit.time is not None:
        words += ["movetime", str(max(1, round(limit.time * 1000)))]
    return " ".join(words)


def position_command(fen: str) -> str:
    """The ``position`` line for the position `fen` (no moves: RBC boards carry null moves that engines misread)."""
    return "position startpos" if fen == chess.STARTING_FEN else f"position fen {fen}"


class UciProcess:
    """One UCI engine process (Stockfish), started and handshaken on construction.

    Not thread-safe: one caller at a time. A process that dies raises
    `chess.engine.EngineTerminatedError`; one that stays silent past a deadline raises
    `TimeoutError`. Either way the caller discards it (`kill`) and starts another.

    Args:
        path: the executable.
        options: UCI options to set after the handshake (``{"Hash": 16}``).
        timeout: seconds to wait for the handshake, for a stopped search to end, and beyond a
            timed search's own time. A search by depth or nodes has no deadline (as in python-chess).
    """

    def __init__(self, path: str, options: Mapping[str, OptionValue], timeout: float) -> None:
        # A session of its own: a Ctrl-C in the terminal reaches the bot, not the engine mid-search.
        self._popen = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True, bufsize=0
        )
        assert self._popen.stdin is not None and self._popen.stdout is not None
        self._stdin, self._stdout = self._popen.stdin, self._popen.stdout.fileno()
        self._pending = b""
        self.timeout = timeout
        self._config: dict[str, str] = {"UCI_AnalyseMode": "false", "MultiPV": "1"}
        self._new_game = True
        try:
            self._send("uci")
            self._read_until("uciok", time.monotonic() + timeout)
            self._send(*(self._option_line(name, value) for name, value in options.items()))
        except BaseException:
            self.kill()
            raise

    @property
    def pid(self) -> int:
        """The engine's process id."""
        return self._popen.pid

    def search(
        self, fen: str, limit: chess.engine.Limit, *, analysis: bool, multipv: int = 1,
        stop: Optional[threading.Event] = None,
    ) -> Optional[tuple[str, dict[int, str]]]:
        """Search the position `fen` within `limit`: the ``bestmove`` word and, per PV index, the last info line with a score.

        `fen` is what python-chess would send: ``board.fen(en_passant="fen")``. `analysis` sets
        ``UCI_AnalyseMode`` as python-chess does (on for analysis, off for play). None if
        `stop` was set before the search ended (the engine is stopped and drained, ready for
        the next search). The commands of a search go in one write (one system call).
        """
        lines = [self._option_line("UCI_AnalyseMode", analysis), self._option_line("MultiPV", multipv)]  # play sets 1 too
        if self._new_game:
            self._send(*lines, "ucinewgame", "isready")
            self._read_until("readyok", time.monotonic() + self.timeout)
            self._new_game, lines = False, []
        self._send(*lines, position_command(fen), go_command(limit))
        deadline = None if limit.time is None else time.monotonic() + self.timeout + limit.time
        scored: dict[int, str] = {}
        poll, longest = _STOP_POLL_SECONDS
        while True:
            wait = poll if stop is not None else None
            line = self._next_line(deadline, wait)
            if line is None:  # nothing within the poll interval: the engine is thinking
                poll = min(2 * poll, longest)
            elif line.startswith("bestmove"):
                words = line.split()
                return (words[1] if len(words) > 1 else "(none)"), scored
            elif line.startswith("info") and " score " in line:
                index = 1
                if multipv > 1 and " multipv " in line:
                    words = line.split()
                    index = int(words[words.index("multipv") + 1])
                scored[index] = line
            if stop is not None and stop.is_set():
                self._stopped()
                return None

    def _stopped(self) -> None:
        """Stop the search and read to its ``bestmove``, so that the next search starts clean."""
        self._send("stop")
        self._read_until("bestmove", time.monotonic() + self.timeout)

    def quit(self) -> None:
        """Ask the engine to exit and wait for it (killed if it does not within the timeout)."""
        try:
            self._send("quit")
            self._popen.wait(self.timeout)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def kill(self) -> None:
        """Kill the process (if still running) and release its pipes."""
        if self._popen.poll() is None:
            self._popen.kill()
            self._popen.wait()
        self._stdin.close()
        if self._popen.stdout is not None:
            self._popen.stdout.close()

    # -- the pipes ------------------------------------------------------------------------------

    def _option_line(self, name: str, value: OptionValue) -> Optional[str]:
        """The ``setoption`` line that gives option `name` `value`, None if it has it already (taken as sent)."""
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        if self._config.get(name) == text:
            return None
        self._config[name] = text
        return f"setoption name {name} value {text}"

    def _send(self, *lines: Optional[str]) -> None:
        """Write `lines` (None: skipped) in one system call."""
        data = "".join(f"{line}\n" for line in lines if line is not None)
        if data:
            self._stdin.write(data.encode())

    def _read_until(self, prefix: str, deadline: float) -> None:
        while True:
            line = self._next_line(deadline, None)
            if line is not None and line.startswith(prefix):
                return

    def _next_line(self, deadline: Optional[float], wait: Optional[float]) -> Optional[str]:
        """The engine's next line; None if none came within `wait` seconds (None: wait as long as the deadline allows)."""
        while b"\n" not in self._pending:
            timeout = wait
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"the engine (pid {self.pid}) did not answer in time")
                timeout = left if timeout is None else min(timeout, left)
            readable, _, _ = select.select([self._stdout], [], [], timeout)
            if not readable:
                if wait is not None:
                    return None
                continue
            chunk = os.read(self._stdout, 65536)
            if not chunk:
                raise chess.engine.EngineTerminatedError(f"engine process died unexpectedly (exit code: {self._popen.poll()})")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode(errors="replace").rstrip("\r")


_STOP_POLL_SECONDS = (0.0002, 0.005)
"""How often a stoppable search looks at its stop event while the engine is silent: first after the shorter
wait, doubling up to the longer (a shallow search ends within a fraction of a millisecond; a long one is
stopped within 5 ms)."""
