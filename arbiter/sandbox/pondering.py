"""Thinking on the opponent's turn ("pondering"), with clocks that stay honest.

A bot that implements `Ponderer` (one method, ``ponder(stop)``) can keep working between
the end of its own turn and the start of its next: refining a belief, searching replies to
the moves the opponent is likely to make. `PonderingPlayer` wraps such a bot and drives it:

* when ``handle_move_result`` returns (the end of the bot's own turn) it starts a daemon
  thread running ``bot.ponder(stop)``;
* at the start of *every* callback (``handle_opponent_move_result``, which opens the bot's
  next turn, first of all; ``handle_game_end`` and ``handle_game_start`` too) it sets
  ``stop`` and joins the thread before forwarding the call.

The clock rule: **pondering counts against nobody's clock only while it is truly the
opponent's turn.** The arbiter starts the bot's clock before it calls
``handle_opponent_move_result``, so the time the thread takes to notice ``stop`` (the join)
is charged to the bot itself; a bot whose ``ponder`` checks ``stop`` rarely pays for it on
its own clock, never on its opponent's.

That holds only where the thread does not run in the opponent's process. A thread in the
arbiter's process would take the GIL from the opponent's callbacks, so the opponent's clock
would pay for our thinking: `blindchess.arbiter.play.play_local_game` therefore refuses a
`PonderingPlayer` (`PonderingNeedsIsolationError`), and a local game ponders only inside an
isolated bot's process (``isolated_player(..., ponder=True)``, see
:mod:`blindchess.arbiter.sandbox.isolation`), where the parent's clock for each callback already runs
while the child joins. On a server (``play_remote_game``) the opponent is elsewhere and the
server keeps the clocks, so the wrapper may run in the client's process.

An exception raised inside ``ponder`` is logged and counted (`PonderingPlayer.ponder_errors`),
never raised: the next callback goes on as if the bot had not pondered. See docs/pondering.md.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Optional, Protocol, cast, runtime_checkable

import chess

from blindchess.errors import BlindchessError

from ..game.player import Player, stand_in_class
from ..types import Color, Square, WinReason

logger = logging.getLogger(__name__)

_JOIN_POLL_S = 0.05
"""How long one wait for the ponder thread blocks in C code: the watchdog's exception lands between waits."""


@runtime_checkable
class Ponderer(Protocol):
    """A bot that can think on its opponent's turn."""

    def ponder(self, stop: threading.Event) -> None:
        """Work until `stop` is set, then return promptly.

        Runs on its own thread while the opponent plays. It must never call the arbiter, and
        must leave the bot's state consistent whenever it returns: the next callback may come
        the moment `stop` is set. Time taken to notice `stop` is charged to the bot's clock.
        """


class PonderingUnsupportedError(BlindchessError, ValueError):
    """Pondering was asked of a bot that has no ``ponder(stop)`` method."""


class PonderingNeedsIsolationError(BlindchessError, ValueError):
    """Pondering was asked of a bot that would share the opponent's process (and GIL) in a local game."""


def supports_pondering(player: object) -> bool:
    """Whether `player` (a bot or a bot class) has a ``ponder`` method.

    >>> class Thinker:
    ...     def ponder(self, stop): stop.wait()
    >>> supports_pondering(Thinker), supports_pondering(Thinker()), supports_pondering(object())
    (True, True, False)
    """
    return callable(getattr(player, "ponder", None))


class PonderingPlayer(Player):
    """Forwards the seven callbacks to `inner` and lets it ponder between its turns (see the module docstring).

    Build it with `pondering`, which names its class after the bot's, so histories and fault
    messages name the bot, not the wrapper.

    Attributes:
        inner: the wrapped bot.
        ponder_sessions: how many times a ponder thread was started.
        ponder_seconds: wall time from each start to the end of its join, summed.
        join_seconds: of that, the time between setting ``stop`` and the thread's end (the
            bot's lateness, charged to its own clock).
        ponder_errors: how many ``ponder`` calls raised (each is logged with its traceback).
    """

    def __init__(self, inner: Player) -> None:
        if not supports_pondering(inner):
            raise PonderingUnsupportedError(f"{type(inner).__name__} has no ponder(stop) method to think on the opponent's turn")
        self.inner = inner
        self._inner_ponder = cast(Ponderer, inner).ponder
        self.ponder_sessions = 0
        self.ponder_seconds = 0.0
        self.join_seconds = 0.0
        self.ponder_errors = 0
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._started = 0.0

    @property
    def is_pondering(self) -> bool:
        """Whether a ponder thread has been started and not yet stopped."""
        return self._thread is not None

    def _start_pondering(self) -> None:
        self._stop = threading.Event()  # a fresh event each time: a late thread never sees a cleared one
        thread = threading.Thread(target=self._ponder, args=(self._stop,), name=f"ponder {type(self).__name__}", daemon=True)
        self._thread = thread
        self.ponder_sessions += 1
        self._started = time.monotonic()
        thread.start()

    def _ponder(self, stop: threading.Event) -> None:
        try:
            self._inner_ponder(stop)
        except Exception:  # a pondering bug must not end the game: the bot plays on as if it had not pondered
            self.ponder_errors += 1
            logger.exception("%s raised while pondering; its game goes on", type(self).__name__)

    def stop_pondering(self) -> None:
        """Set ``stop`` and wait for the ponder thread to end (nothing if none runs).

        The wait is a loop of short joins rather than one: a bot that ignores ``stop`` keeps
        the caller waiting, and the arbiter's watchdog must be able to interrupt that wait.
        """
        thread = self._thread
        if thread is None:
            return
        asked = time.monotonic()
        self._stop.set()
        while thread.is_alive():
            thread.join(_JOIN_POLL_S)
        ended = time.monotonic()
        self._thread = None
        self.join_seconds += ended - asked
        self.ponder_seconds += ended - self._started

    def handle_game_start(self, color: Color, board: chess.Board, opponent_name: str) -> None:
        self.stop_pondering()
        self.inner.handle_game_start(color, board, opponent_name)

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[Square]) -> None:
        self.stop_pondering()
        self.inner.handle_opponent_move_result(captured_my_piece, capture_square)

    def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
        self.stop_pondering()
        return self.inner.choose_sense(sense_actions, move_actions, seconds_left)

    def handle_sense_result(self, sense_result: list[tuple[Square, Optional[chess.Piece]]]) -> None:
        self.stop_pondering()
        self.inner.handle_sense_result(sense_result)

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        self.stop_pondering()
        return self.inner.choose_move(move_actions, seconds_left)

    def handle_move_result(
        self,
        requested_move: Optional[chess.Move],
        taken_move: Optional[chess.Move],
        captured_opponent_piece: bool,
        capture_square: Optional[Square],
    ) -> None:
        """Forward, then start pondering: the bot's own turn is over."""
        self.stop_pondering()
        self.inner.handle_move_result(requested_move, taken_move, captured_opponent_piece, capture_square)
        self._start_pondering()

    def handle_game_end(self, winner_color: Optional[Color], win_reason: Optional[WinReason], game_history: Any) -> None:
        self.stop_pondering()
        self.inner.handle_game_end(winner_color, win_reason, game_history)


def pondering(player: Player) -> PonderingPlayer:
    """`player`, wrapped to ponder on its opponent's turn; the wrapper's class bears the bot's name.

    Raises:
        PonderingUnsupportedError: `player` has no ``ponder`` method.
    """
    wrapper: PonderingPlayer = stand_in_class(type(player).__name__, PonderingPlayer)(player)
    return wrapper
