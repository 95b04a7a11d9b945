"""The play loop: `play_local_game` and `play_turn`, with reconchess's signatures and call order.

Order per turn, as in reconchess: `handle_opponent_move_result`, `choose_sense`,
`Game.sense`, `handle_sense_result`, `choose_move`, `Game.move`, then (local games,
``end_turn_last=True``) `handle_move_result` before `Game.end_turn`, so the mover's
clock pays for it.

Bad bots never kill the arbiter or lose the record. `play_local_game` (and
`play_turn`, given a `Referee`) turn every bot failure into a game result:

=====================================================  ===========================
What the bot did                                       Result
=====================================================  ===========================
raised anything (``BaseException`` too: ``sys.exit``,  it loses, ``RESIGN``
``KeyboardInterrupt``, ``GeneratorExit``, its own
``BotDeadlineExceeded``) in any callback
(``handle_game_start`` too)
a sense that is not None or one of `sense_actions`     it loses, ``RESIGN``
a move that is not None or in `move_actions`           it loses, ``RESIGN``
an answer of the wrong type (``"e2e4"``, ``3.5``)      it loses, ``RESIGN``
overran its clock (turn time beyond clock+increment)   it loses, ``TIMEOUT``
ran past `OFF_CLOCK_SECONDS` in ``handle_game_start``  it loses, ``RESIGN``
raised in ``handle_game_end``, or ran past             result stands; fault logged
`OFF_CLOCK_SECONDS` there
its process died (``--isolate``, see `isolation`)      it loses, ``RESIGN``
=====================================================  ===========================

`RESIGN` is reused rather than a new `WinReason` member: reconchess tools and files
know only its five reasons, and a crash is a forced resignation. Each fault is a
`BotFault` (bot name, colour, callback, turn, problem, traceback) logged as a warning
and appended to ``history.faults``; the history itself is complete up to the fault and
saves like any other.

Clock overruns: with a finite clock, each in-turn callback runs under a `Watchdog`
deadline of the mover's clock plus the increment (the time reconchess lets a turn
take). A bot stuck in Python code is interrupted at that deadline and loses on time;
one blocked in C code loses on time when the call returns (see
:mod:`blindchess.arbiter.sandbox.watchdog`). `handle_game_start` and `handle_game_end` run
off the clock, as in reconchess, but (unlike reconchess) each under a deadline of
`OFF_CLOCK_SECONDS` (a minute), so a bot looping there cannot hang a match.

Under a CPU clock (a `LocalGame` given `meters`, see :mod:`blindchess.arbiter.sandbox.cpu_clock`) the
deadline is the mover's CPU meter reaching its clock plus the increment, and each callback
also has a wall-time hang limit (`hang_seconds`): a bot that stops answering is stopped there
and loses on time (its clock is flagged), since a bot that only waits uses no CPU.

A Ctrl-C that lands while a bot is running is indistinguishable from a bot raising
`KeyboardInterrupt`: it ends that bot's game as a fault. `blindchess match` notices the
signal itself and stops after that game.

Called without a referee, `play_turn` behaves exactly like reconchess's: a bot's
exception propagates, and `Game.sense`/`Game.move` raise ValueError for actions outside
the lists. It is the same function: the plain turn plays through `NoReferee`, which
re-raises where `Referee` records a fault.
"""

from __future__ import annotations

import logging
import math
import numbers
import time
import traceback
from collections.abc import Callable
from typing import Any, NoReturn, Optional, Union

import chess

from .game.faults import BotFault, BotFaultError
from .game.history import GameHistory
from .game.local_game import Game, IllegalActionError, LocalGame
from .game.player import Player
from .game.turns import Turn
from .sandbox.cpu_clock import hang_seconds
from .sandbox.isolation import IsolatedBotError
from .sandbox.pondering import PonderingNeedsIsolationError, PonderingPlayer
from .sandbox.watchdog import BotDeadlineExceeded, Watchdog, shared_watchdog
from .sandbox.wire import quote
from .types import Color, Square, WinReason

logger = logging.getLogger(__name__)


class Referee:
    """Makes one game's bot calls: checks their answers and, with a watchdog, their time.

    Args:
        game: The local game being played (for clocks, turn numbers, the mover and resigning a faulty bot).
        names: Each colour's player name, used in fault messages.
        watchdog: Interrupts a callback that overruns the mover's clock; None for no deadline.
        off_clock_seconds: The deadline of ``handle_game_start`` and ``handle_game_end`` (with a watchdog).
        hang_limit: Under a CPU clock, a callback's wall-time limit; None: `hang_seconds` of the CPU time left.
    """

    def __init__(
        self,
        game: LocalGame[Any],
        names: dict[Color, str],
        watchdog: Optional[Watchdog] = None,
        off_clock_seconds: float = math.inf,
        hang_limit: Optional[float] = None,
    ) -> None:
        self.game = game
        self.off_clock_seconds = off_clock_seconds
        self.names = names
        self.watchdog = watchdog
        self.hang_limit = hang_limit
        self._turn_numbers = {chess.WHITE: -1, chess.BLACK: -1}
        self._deadline = math.inf
        self._cpu_deadline = math.inf  # the mover's meter reading its turn must not reach (CPU clocks)
        self._meter: Optional[Callable[[], float]] = None
        self._hang = math.inf  # the wall-time hang limit of the turn's callbacks (CPU clocks)
        self._slot = None if watchdog is None else watchdog.slot()

    def begin_turn(self) -> Color:
        """A turn of the mover starts: its callbacks must be done within its clock plus the increment; returns the mover."""
        color = self.game.turn
        self._turn_numbers[color] += 1
        game = self.game
        budget = game.get_seconds_left() + game.time_controls[color].increment
        if game.meters is None:
            self._deadline = time.monotonic() + budget
        else:
            self._meter = game.meters[color]
            self._cpu_deadline = self._meter() + budget
            self._hang = hang_seconds(budget) if self.hang_limit is None else self.hang_limit
            self._deadline = time.monotonic() + self._hang
        if self.watchdog is not None:
            self._slot = self.watchdog.slot()  # the thread that plays this turn
        return color

    def current_turn(self, color: Color) -> Optional[Turn]:
        number = self._turn_numbers[color]
        return None if number < 0 else Turn(color, number)

    def fault(self, color: Color, callback: str, problem: str, trace: Optional[str] = None, timed_out: bool = False) -> BotFault:
        turn = None if callback in _OFF_TURN_CALLBACKS else self.current_turn(color)
        return BotFault(self.names[color], color, callback, problem, turn, trace, timed_out)

    def checked_sense(self, color: Color, sense: Any) -> Optional[Square]:
        """A sense answer that is not None or a plain int, as a plain int square; anything else is a fault."""
        if isinstance(sense, numbers.Integral) and not isinstance(sense, bool):
            return int(sense)
        raise BotFaultError(self.fault(color, "choose_sense", f"returned {quote(sense)} ({type(sense).__name__}), not a square or None"))

    def check_move(self, color: Color, move: Any) -> NoReturn:
        """`move` is neither None nor a `chess.Move`: a fault."""
        raise BotFaultError(self.fault(color, "choose_move", f"returned {quote(move)} ({type(move).__name__}), not a chess.Move or None"))

    def refuse(self, error: ValueError, color: Color, callback: str, problem: str) -> NoReturn:
        """The game refused the answer of `callback`: a fault."""
        raise BotFaultError(self.fault(color, callback, problem)) from error

    def settle_after_move(self, error: BotFaultError, game: Game, end_turn_last: bool) -> NoReturn:
        """A fault in ``handle_move_result``; with `end_turn_last` the bot resigns before the turn ends.

        Resigning first means the opponent is never told a turn began.
        """
        if end_turn_last and not error.fault.timed_out:
            self.game.resign(error.fault.color)
            game.end_turn()
        raise error

    def settle(self, error: BotFaultError, color: Color) -> BotFault:
        """A fault in `color`'s turn ends the game: the bot resigns (a timeout has ended it already)."""
        if not error.fault.timed_out:
            self.game.resign(color)
        return error.fault

    def call(self, player: Any, color: Color, callback: str, *args: Any, timed: bool = True) -> Any:
        """Call ``player.<callback>(*args)`` (`player` plays `color`); any exception or overrun becomes `BotFaultError`.

        `timed` callbacks run under the turn's deadline; the others (game start and end) under
        their own, `off_clock_seconds` from now.
        """
        method: Callable[..., Any] = getattr(player, callback)
        slot = self._slot
        cpu_deadline = math.inf
        if slot is None:
            deadline = math.inf
        elif timed:
            deadline, cpu_deadline = self._deadline, self._cpu_deadline
        else:
            deadline = time.monotonic() + self.off_clock_seconds
        try:
            if slot is None:
                return method(*args)
            if cpu_deadline < math.inf:
                slot.meter, slot.cpu_deadline = self._meter, cpu_deadline
            slot.deadline = deadline  # enter the bot call (one store: this runs six times a turn)
            try:
                result = method(*args)
            finally:
                slot.deadline = math.inf  # slot.leave()'s lock-free path, inlined; leave() when it needs the lock
                slot.cpu_deadline = math.inf
                timed_out = (slot.watchdog.scanning or slot.fired) and slot.leave()
            if timed_out:
                raise BotDeadlineExceeded()
            return result
        except BotDeadlineExceeded as error:
            # The watchdog fires only past the deadline; before it, the bot raised this itself: a crash
            # (treating it as a timeout would leave a game whose clock has not run out, played forever).
            if self._meter is not None and timed and self._meter() >= cpu_deadline:
                raise BotFaultError(self.fault(color, callback, _OUT_OF_CLOCK + " (CPU time)", timed_out=True)) from None
            if time.monotonic() >= deadline:
                if cpu_deadline < math.inf:  # a CPU clock that has not run out: the bot stopped answering
                    self.game.flag(color)
                    problem = f"stopped answering: no reply within the wall-time hang limit ({self._hang:g} s)"
                    raise BotFaultError(self.fault(color, callback, problem, timed_out=True)) from None
                raise BotFaultError(self.fault(color, callback, _OUT_OF_CLOCK, timed_out=True)) from None
            raise BotFaultError(self.fault(color, callback, _raised(error), traceback.format_exc())) from error
        except BaseException as error:  # sys.exit(), KeyboardInterrupt, GeneratorExit, ...: the bot crashed, not the arbiter
            raise BotFaultError(self.fault(color, callback, _raised(error), _remote_traceback(error))) from error


def _raised(error: BaseException) -> str:
    if isinstance(error, IsolatedBotError):
        return f"raised {error}"  # the bot's own exception type and message, from its process
    return f"raised {type(error).__name__}: {error}"


def _remote_traceback(error: BaseException) -> str:
    """The traceback to record: the bot process's own for an isolated bot (see `isolation`), else this one."""
    remote = getattr(error, "remote_traceback", None)
    return remote if isinstance(remote, str) else traceback.format_exc()


_OFF_TURN_CALLBACKS = ("handle_game_start", "handle_game_end")

OFF_CLOCK_SECONDS = 60.0
"""How long ``handle_game_start`` and ``handle_game_end`` may each take (they run off the clock).

reconchess gives them no limit, so a bot looping there hung the match; a minute is far more
than loading a model or writing a log needs."""
_OUT_OF_CLOCK = "ran out of clock"


def _describe(move: Optional[chess.Move]) -> str:
    """The move in UCI, or its raw fields when it has none (a square off the board)."""
    try:
        return str(move)
    except (IndexError, TypeError):
        return f"a chess.Move from {getattr(move, 'from_square', None)!r} to {getattr(move, 'to_square', None)!r}"


class NoReferee:
    """The referee of a plain turn: it calls the bot directly and lets every error propagate, as reconchess does.

    `play_turn` without a referee plays through this one, so that the plain and the refereed
    turn are the same code: where `Referee` turns a failure into a `BotFault`, this one
    re-raises it.
    """

    def begin_turn(self) -> Color:
        """Nothing to time; the colour returned is a placeholder, since this referee attributes nothing to anyone."""
        return chess.WHITE

    def call(self, player: Any, color: Color, callback: str, *args: Any) -> Any:
        return getattr(player, callback)(*args)

    def checked_sense(self, color: Color, sense: Any) -> Any:
        return sense  # `Game.sense` judges it

    def check_move(self, color: Color, move: Any) -> None:
        """Nothing: `Game.move` judges the move."""

    def refuse(self, error: ValueError, color: Color, callback: str, problem: str) -> NoReturn:
        raise error

    def settle_after_move(self, error: BotFaultError, game: Game, end_turn_last: bool) -> NoReturn:
        raise error

    def settle(self, error: BotFaultError, color: Color) -> Optional[BotFault]:
        raise error


_NO_REFEREE = NoReferee()


def play_turn(game: Game, player: Player, end_turn_last: bool = False, *, referee: Optional[Referee] = None) -> Optional[BotFault]:
    """Play one turn of `player`: opponent's result, sense, move.

    Without a referee this is reconchess's `play_turn` (exceptions propagate). With one,
    a bot fault ends the game (see the module docstring) and is returned. Every fault is
    the colour's that began the turn, even after `Game.end_turn` has handed the move to the
    opponent. The turn's steps are written out here rather than as functions: this runs
    every turn, and the steps' own calls were a measurable part of it.
    """
    sense_actions = game.sense_actions()
    move_actions = game.move_actions()
    assert sense_actions is not None and move_actions is not None, "play_turn is only called while the game runs"
    judge: Union[Referee, NoReferee] = _NO_REFEREE if referee is None else referee
    color = judge.begin_turn()
    call = judge.call
    try:
        capture_square = game.opponent_move_results()
        call(player, color, "handle_opponent_move_result", capture_square is not None, capture_square)

        sense = call(player, color, "choose_sense", sense_actions, move_actions, game.get_seconds_left())
        if sense is not None and type(sense) is not int:
            sense = judge.checked_sense(color, sense)
        try:
            sense_result = game.sense(sense)
        except ValueError as error:  # IllegalActionError; or an int too long to print (10**5000) in its message
            judge.refuse(error, color, "choose_sense", f"returned {quote(sense)}, not one of the sense actions")
        call(player, color, "handle_sense_result", sense_result)

        move = call(player, color, "choose_move", move_actions, game.get_seconds_left())
        if move is not None and not isinstance(move, chess.Move):
            judge.check_move(color, move)
        try:
            requested_move, taken_move, capture_square = game.move(move)
        except IllegalActionError as error:
            judge.refuse(error, color, "choose_move", f"returned {_describe(move)}, not one of the move actions")
        if not end_turn_last:
            game.end_turn()
        try:
            call(player, color, "handle_move_result", requested_move, taken_move, capture_square is not None, capture_square)
        except BotFaultError as error:
            judge.settle_after_move(error, game, end_turn_last)
        if end_turn_last:
            game.end_turn()
    except BotFaultError as error:
        return judge.settle(error, color)
    return None


def play_local_game(
    white_player: Player,
    black_player: Player,
    game: Optional[LocalGame[Any]] = None,
    seconds_per_player: float = 900,
    *,
    enforce_deadlines: bool = True,
    off_clock_seconds: float = OFF_CLOCK_SECONDS,
    hang_limit: Optional[float] = None,
) -> tuple[Optional[Color], Optional[WinReason], GameHistory]:
    """Play a whole game between two players and return (winner, reason, history).

    Like reconchess's `play_local_game`, but a bot fault ends the game instead of the
    process (see the module docstring); the faults are in ``history.faults``.

    Args:
        white_player: The White `Player` (or any object with the seven callbacks).
        black_player: The Black player.
        game: The game to play in; a fresh `LocalGame(seconds_per_player)` by default.
        seconds_per_player: Each player's clock, used only when `game` is None.
        enforce_deadlines: Interrupt a callback that overruns its clock, and a game start or end
            callback that runs longer than `off_clock_seconds`.
        off_clock_seconds: How long ``handle_game_start`` and ``handle_game_end`` may each take.
        hang_limit: Under a CPU clock (`game` given `meters`), each in-turn callback's wall-time
            limit; None: `blindchess.arbiter.sandbox.cpu_clock.hang_seconds` of the CPU time left.

    Raises:
        PonderingNeedsIsolationError: a player is a `PonderingPlayer` (see :mod:`blindchess.arbiter.sandbox.pondering`).
    """
    for player in (white_player, black_player):
        if isinstance(player, PonderingPlayer):
            raise PonderingNeedsIsolationError(
                f"{type(player).__name__} would ponder in the arbiter's process, on its opponent's clock;"
                " play it isolated: isolated_player(..., ponder=True)"
            )
    if game is None:
        game = LocalGame(seconds_per_player=seconds_per_player)
    players = {chess.WHITE: white_player, chess.BLACK: black_player}
    names = {color: type(player).__name__ for color, player in players.items()}
    game.store_players(names[chess.WHITE], names[chess.BLACK])
    faults: list[BotFault] = []
    unlimited = all(math.isinf(clock.seconds) for clock in game.time_controls.values())
    use_watchdog = enforce_deadlines and not (unlimited and math.isinf(off_clock_seconds))
    referee = Referee(game, names, shared_watchdog() if use_watchdog else None, off_clock_seconds, hang_limit)
    _start(game, players, names, referee, faults)
    while not game.is_over():
        fault = play_turn(game, players[game.turn], end_turn_last=True, referee=referee)
        if fault is not None:
            faults.append(fault)
    game.end()
    winner, reason = game.get_winner_color(), game.get_win_reason()
    history = game.get_game_history()
    assert history is not None, "a game is over after end()"
    if reason == WinReason.TIMEOUT and winner is not None and not any(fault.timed_out for fault in faults):
        # the clock ran out over a whole turn (checked at its end, as in reconchess), not inside one callback
        loser = not winner
        problem = _OUT_OF_CLOCK + " (turn longer than clock plus increment)"
        faults.append(BotFault(names[loser], loser, "its turn", problem, referee.current_turn(loser), None, True))
    for color in (chess.WHITE, chess.BLACK):
        try:
            referee.call(players[color], color, "handle_game_end", winner, reason, history, timed=False)
        except BotFaultError as error:
            faults.append(error.fault)
    for fault in faults:
        logger.warning("bot fault: %s", fault.message)
    history.faults = faults
    return winner, reason, history


def _start(
    game: LocalGame[Any], players: dict[Color, Player], names: dict[Color, str], referee: Referee, faults: list[BotFault]
) -> None:
    """Both `handle_game_start`s, then the clock; a fault there resigns the bot (see the history module's rule)."""
    failed: list[Color] = []
    for color in (chess.WHITE, chess.BLACK):
        opponent = names[not color]
        try:
            referee.call(players[color], color, "handle_game_start", color, game.rules.copy(game.board), opponent, timed=False)
        except BotFaultError as error:
            faults.append(error.fault)
            failed.append(color)
    if failed == [chess.BLACK]:
        game.resign(chess.BLACK)  # before start(): White is never told a turn began
    game.start()
    if chess.WHITE in failed:
        game.resign(chess.WHITE)
