"""Stockfish for RBC bots: finding the executable, and an engine that survives RBC positions.

A bot's private board in RBC is a guess, and guesses can be impossible chess positions: no
opponent king (it was seen "missing" by a sense), two kings of one colour, pawns on a back
rank. Stockfish 15.1 does not validate its input and dies with a segmentation fault on some
of them (a board without a king crashes it at once). `Engine` therefore

* refuses positions that Stockfish cannot search (:func:`is_searchable`, a cheap
  `chess.Board.status()` check) and answers None instead of raising;
* answers a position where the side to move can capture the opponent's king itself
  (:func:`king_capture`): in RBC that capture wins at once, so ``play`` returns it and
  ``analyse`` scores it as a mate in 1 for the side to move. Stockfish 15.1 crashes on such
  positions (they are illegal in chess), and they are common on RBC guesses: an opponent
  that left its king en prise;
* restarts the process when it dies or hangs anyway, retries once, and answers None if the
  retry fails too, so a game goes on;
* sends only the position (never the move stack: RBC boards carry null moves that UCI engines
  misread; nor an en-passant square no legal capture uses, see `UNSEARCHABLE_STATUS`), and
  never mutates the caller's board;
* remembers recent answers keyed by position and limit (a bot often asks twice about the
  same board in one turn).

Example::

    with Engine() as engine:
        move = engine.play(chess.Board(), chess.engine.Limit(time=0.1))

`EnginePool` hands out a few engines to concurrent users (threads or a match runner).
"""

from __future__ import annotations

import logging
import os
import queue
import shutil
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Optional, Union

import chess
import chess.engine

from blindchess.errors import BlindchessError
from blindchess.evaluation.uci import UciProcess, parse_info

logger = logging.getLogger(__name__)

STOCKFISH_ENV_VAR = "STOCKFISH_EXECUTABLE"
"""Environment variable naming the Stockfish executable (reconchess's name for it)."""

FALLBACK_STOCKFISH_PATH = "/usr/games/stockfish"
"""Where Debian and Ubuntu's `stockfish` package installs the engine."""

UNSEARCHABLE_STATUS = (
    chess.STATUS_EMPTY
    | chess.STATUS_NO_WHITE_KING
    | chess.STATUS_NO_BLACK_KING
    | chess.STATUS_TOO_MANY_KINGS
    | chess.STATUS_PAWNS_ON_BACKRANK
    | chess.STATUS_TOO_MANY_CHECKERS
)
"""`chess.Board.status()` flags of positions Stockfish must not see.

A missing or extra king crashes Stockfish 15.1 outright; back-rank pawns and more than two
checkers break assumptions of its move generator. The side not to move in check crashes it
too, but `Engine` answers those itself (`king_capture`), and so does an en-passant square while the
side to move is in check from another piece (a pawn pushed two squares beside a king already in
check, which RBC allows): its move generator assumes the pushed pawn is the checker, so `Engine`
sends the square only when an en-passant capture is legal. Other invalid statuses (too many
pieces) are common on RBC guesses and Stockfish searches them fine.
"""

ENGINE_FAILURES = (chess.engine.EngineError, TimeoutError, OSError)
"""What a dead or hung engine raises (`UciProcess`): a crash is an `EngineTerminatedError` (an
`EngineError`) or a broken pipe (an `OSError`), a hang a `TimeoutError`."""

EngineAnswer = Union[chess.engine.InfoDict, list[chess.engine.InfoDict]]


class EngineNotFoundError(BlindchessError, FileNotFoundError):
    """No Stockfish executable was found; the message lists every place that was tried."""


def find_stockfish(environ: Optional[Mapping[str, str]] = None, fallback: Optional[str] = None) -> str:
    """The path of the Stockfish executable.

    Tried in order: `$STOCKFISH_EXECUTABLE`, `stockfish` on `PATH`, `fallback` (`/usr/games/stockfish`).

    Args:
        environ: the environment to read (default `os.environ`).
        fallback: the last place to look (default `FALLBACK_STOCKFISH_PATH`).

    Raises:
        EngineNotFoundError: none of them is an executable file.
    """
    environ = os.environ if environ is None else environ
    fallback = FALLBACK_STOCKFISH_PATH if fallback is None else fallback
    tried: list[str] = []
    configured = environ.get(STOCKFISH_ENV_VAR)
    if configured:
        if os.path.isfile(configured) and os.access(configured, os.X_OK):
            return configured
        tried.append(f"${STOCKFISH_ENV_VAR}={configured!r} (not an executable file)")
    else:
        tried.append(f"${STOCKFISH_ENV_VAR} (not set)")
    on_path = shutil.which("stockfish", path=environ.get("PATH", os.defpath))
    if on_path is not None:
        return on_path
    tried.append("'stockfish' on PATH (not found)")
    if os.path.isfile(fallback) and os.access(fallback, os.X_OK):
        return fallback
    tried.append(f"{fallback} (not found)")
    raise EngineNotFoundError(
        "no Stockfish executable found; tried " + "; ".join(tried)
        + ". Install it (apt-get install stockfish) or set STOCKFISH_EXECUTABLE."
    )


def king_capture(board: chess.Board) -> Optional[chess.Move]:
    """A move of the side to move that captures the opponent's king, if one exists (the capturer on the lowest square).

    >>> king_capture(chess.Board("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1"))
    Move.from_uci('e2e8')
    >>> king_capture(chess.Board("4k3/3P4/8/8/8/8/8/4K3 w - - 0 1"))  # a pawn takes it promoting
    Move.from_uci('d7e8q')
    >>> king_capture(chess.Board()) is None
    True
    """
    king = board.king(not board.turn)
    if king is None:
        return None
    attackers = board.attackers(board.turn, king)
    if not attackers:
        return None
    src = next(iter(attackers))
    last_rank = chess.square_rank(king) in (0, 7)
    promotion = chess.QUEEN if board.piece_type_at(src) == chess.PAWN and last_rank else None
    return chess.Move(src, king, promotion)


def is_searchable(board: chess.Board) -> bool:
    """Whether Stockfish can safely search `board` (see `UNSEARCHABLE_STATUS`)."""
    return not board.status() & UNSEARCHABLE_STATUS


class Engine:
    """A Stockfish process that restarts itself and answers None on unplayable positions.

    The process starts on first use; it is spoken to through `UciProcess` (python-chess's
    engine API cost several times more CPU per search), and the answers are python-chess's
    types: a `chess.Move`, an `InfoDict` with a `PovScore`. Not thread-safe: give each thread its own engine
    (see `EnginePool`).

    Args:
        path: the executable; default :func:`find_stockfish`.
        options: UCI options to configure after every (re)start, e.g. ``{"Hash": 16}``.
        cache_size: how many answers to remember (0 turns the cache off).
        timeout: seconds to wait for the engine to start or answer beyond the search limit.
    """

    def __init__(
        self,
        path: Optional[str] = None,
        *,
        options: Optional[Mapping[str, Union[str, int, bool]]] = None,
        cache_size: int = 1024,
        timeout: float = 10.0,
    ) -> None:
        if cache_size < 0:
            raise ValueError(f"cache_size must be >= 0, got {cache_size!r}")
        self.path = path if path is not None else find_stockfish()
        self.options = dict(options or {})
        self.cache_size = cache_size
        self.timeout = timeout
        self.restarts = 0
        """How many times the process died or hung and was replaced."""
        self._process: Optional[UciProcess] = None
        self._cache: OrderedDict[tuple[object, ...], object] = OrderedDict()

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def pid(self) -> Optional[int]:
        """The process id of the running engine, or None before the first start."""
        return None if self._process is None else self._process.pid

    def _running(self) -> UciProcess:
        if self._process is None:
            self._process = UciProcess(self.path, self.options, self.timeout)
        return self._process

    def _discard_process(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()

    def close(self) -> None:
        """Stop the process (it starts again if the engine is used again)."""
        process, self._process = self._process, None
        if process is not None:
            process.quit()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- queries -----------------------------------------------------------------------------

    def play(self, board: chess.Board, limit: chess.engine.Limit) -> Optional[chess.Move]:
        """Stockfish's move for the side to move in `board`, or None.

        None means: the position is unsearchable, the side to move has no legal move, or the
        engine died twice on it. The caller's board is not modified.
        """
        answer = self._ask("play", board, limit, None)
        return answer if isinstance(answer, chess.Move) else None

    def analyse(
        self, board: chess.Board, limit: chess.engine.Limit, multipv: Optional[int] = None,
        info: chess.engine.Info = chess.engine.INFO_ALL, *, stop: Optional[threading.Event] = None,
    ) -> Optional[EngineAnswer]:
        """Stockfish's analysis of `board` (a list of `multipv` infos if given), or None if unsearchable.

        The answer holds the fields of the search's last info line that has a score (per PV
        line with `multipv`); `info` selects which are parsed (``INFO_SCORE``: the score, without
        the principal variation's moves). With `stop`, the search is abandoned (None, nothing
        cached) within a few milliseconds of `stop` being set: what pondering needs, whose next
        turn must not wait for a long search.
        """
        answer = self._ask("analyse", board, limit, multipv, info, stop)
        return answer  # type: ignore[return-value]

    def _ask(
        self, kind: str, board: chess.Board, limit: chess.engine.Limit, multipv: Optional[int],
        info: chess.engine.Info = chess.engine.INFO_ALL, stop: Optional[threading.Event] = None,
    ) -> Optional[object]:
        capture = king_capture(board)
        if capture is not None:  # Stockfish would crash; the answer is known
            if kind == "play":
                return capture
            known: chess.engine.InfoDict = {"score": chess.engine.PovScore(chess.engine.Mate(1), board.turn), "pv": [capture], "depth": 0}
            return [known] if multipv is not None else known
        if not is_searchable(board):
            logger.debug("not searching an impossible position %s", board.fen())
            return None
        position = board.copy(stack=False)
        if position.ep_square is not None and not position.has_legal_en_passant():
            position.ep_square = None  # no capture is lost; an en-passant square beside a check crashes Stockfish
        # With the en-passant square kept only where a capture is legal, fen() is the FEN python-chess sent
        # (fen(en_passant="fen")): one string is both the cache key's and the engine's.
        fen = position.fen()
        key = (kind, fen, repr(limit), multipv, int(info))
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        for attempt in (1, 2):
            try:
                found = self._running().search(fen, limit, analysis=kind == "analyse", multipv=multipv or 1, stop=stop)
                if found is None:
                    return None  # abandoned: nothing to keep
                best, scored = found
                if kind == "play":
                    answer: Optional[object] = None if best in ("(none)", "0000") else chess.Move.from_uci(best)
                else:
                    infos = [parse_info(scored[index], position.turn, info) for index in sorted(scored)]
                    answer = infos if multipv is not None else (infos[0] if infos else {})
                break
            except ENGINE_FAILURES as error:
                self.restarts += 1
                logger.warning(
                    "Stockfish failed (%s: %s) on %s, attempt %d; restarting it",
                    type(error).__name__, error, fen, attempt,
                )
                self._discard_process()
        else:
            return None
        if answer is not None and self.cache_size:
            self._cache[key] = answer
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return answer


class EnginePool:
    """A fixed number of `Engine`\\ s shared by concurrent users.

    Example::

        pool = EnginePool(2)
        with pool.engine() as engine:
            engine.play(board, chess.engine.Limit(depth=10))
        pool.close()

    Args:
        size: how many engines (processes) at most.
        **engine_kwargs: passed to every `Engine`.
    """

    def __init__(self, size: int, **engine_kwargs: object) -> None:
        if size < 1:
            raise ValueError(f"an engine pool needs size >= 1, got {size!r}")
        self._engines = [Engine(**engine_kwargs) for _ in range(size)]  # type: ignore[arg-type]
        self._idle: queue.SimpleQueue[Engine] = queue.SimpleQueue()
        for engine in self._engines:
            self._idle.put(engine)

    @contextmanager
    def engine(self, timeout: Optional[float] = None) -> Iterator[Engine]:
        """Borrow an engine for the `with` block, waiting up to `timeout` seconds for one."""
        engine = self._idle.get(timeout=timeout)
        try:
            yield engine
        finally:
            self._idle.put(engine)

    def pids(self) -> list[int]:
        """The process ids of the engines running now (a CPU clock reads their times)."""
        return [pid for pid in (engine.pid for engine in self._engines) if pid is not None]

    def close(self) -> None:
        """Stop every engine's process."""
        for engine in self._engines:
            engine.close()

    def __enter__(self) -> EnginePool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
