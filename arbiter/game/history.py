"""The full-information record of a game, `GameHistory`, with reconchess's query API; its JSON is in `history_codec`.

Why a record per turn: reconchess keeps seven parallel per-colour lists that must stay
aligned by hand. Here each colour has a list of `TurnRecord`s, one per turn the player
took, holding the sense phase and the move phase it got through. The query API and
the JSON file are exactly reconchess 1.6.9's (same method names, same answers, same
bytes on disk), so histories move freely between the two packages.

Truth positions are kept as cheap snapshots (`TruthFen`) and turned into FEN only
when asked (a query, `to_json`, `save`): computing two FENs per turn would cost more
than the whole rest of a turn. The phases are named tuples, the cheapest records
Python builds.

`observations(color)` gives back the event stream a colour received (see
:mod:`blindchess.arbiter.game.observations`), derived from the record alone, so it is the
same before and after a save and load. One fact is not in the file format: whether a
player had been told its turn began (an `OpponentMoved`) when the game ended before it
sensed. The game tells a player at `start` and at each `end_turn` unless the game is
over by then, so the rule, followed by the arbiter and the play loop alike, is: after
a king capture or a draw limit nobody was; otherwise the player after the last complete
turn (White, if nothing was recorded) was, unless that player is the winner of a
resignation or timeout (the loser lost before handing over the turn). For a game ended
by `end()` without a result this assumes `end_turn` followed the last move. Nor does
the file hold the start position: a loaded history takes it from White's first move
(reconchess games always start from the standard position, the default).
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Optional, TypeVar

import chess

from ..types import Color, Square, WinReason
from .faults import BotFault
from .history_codec import HistoryFormatError, HistoryHeader, decode_history, encode_history, history_document
from .observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from .turns import FenSource, MovePhase, SensePhase, SenseResultList, TruthFen, Turn, TurnRecord, new_phase

__all__ = ["GameHistory", "HistoryFormatError", "Turn"]

T = TypeVar("T")


class GameHistory:
    """The full-information record of a game, with reconchess's query API.

    Turns are `Turn(color, n)`; a query about a turn that did not happen raises
    ValueError, as in reconchess. Example::

        for turn in history.turns(chess.WHITE):
            if history.has_move(turn):
                board = history.truth_board_before_move(turn)
                move = history.requested_move(turn)
    """

    def __init__(self, starting_fen: str = chess.STARTING_FEN) -> None:
        self._white_name: Optional[str] = None
        self._black_name: Optional[str] = None
        self._records: dict[Color, list[TurnRecord]] = {chess.WHITE: [], chess.BLACK: []}
        self._sense_counts = {chess.WHITE: 0, chess.BLACK: 0}
        self._move_counts = {chess.WHITE: 0, chess.BLACK: 0}
        self._winner_color: Optional[Color] = None
        self._win_reason: Optional[WinReason] = None
        self.starting_fen = starting_fen
        self.faults: list[BotFault] = []
        """Bot faults the play loop recorded (`blindchess.arbiter.game.faults.BotFault`); not part of the JSON file."""

    # ------------------------------------------------------------------ recording (the game calls these)

    def store_players(self, white_name: Optional[str], black_name: Optional[str]) -> None:
        self._white_name = white_name
        self._black_name = black_name

    def store_sense(self, color: Color, square: Optional[Square], sense_result: SenseResultList) -> None:
        """Record a sense (like reconchess: the n-th sense of a colour belongs to its n-th turn)."""
        records, index = self._records[color], self._sense_counts[color]
        phase = new_phase(SensePhase, (square, sense_result))
        if index == len(records):  # the usual case, a new turn: one call fewer than a separate lookup
            records.append(TurnRecord(phase))
        else:
            records[index].sense = phase
        self._sense_counts[color] = index + 1

    def store_move(
        self,
        color: Color,
        requested_move: Optional[chess.Move],
        taken_move: Optional[chess.Move],
        capture_square: Optional[Square],
        fen_before: FenSource,
        fen_after: FenSource,
    ) -> None:
        """Record a move with the truth positions around it (FEN strings or lazy `TruthFen` snapshots)."""
        before = fen_before if isinstance(fen_before, TruthFen) else TruthFen(fen=fen_before)
        after = fen_after if isinstance(fen_after, TruthFen) else TruthFen(fen=fen_after)
        phase = new_phase(MovePhase, (requested_move, taken_move, capture_square, before, after))
        records, index = self._records[color], self._move_counts[color]
        if index == len(records):  # a move without a sense before it
            records.append(TurnRecord(move=phase))
        else:
            records[index].move = phase
        self._move_counts[color] = index + 1

    def store_results(self, winner_color: Optional[Color], win_reason: Optional[WinReason]) -> None:
        self._winner_color = winner_color
        self._win_reason = win_reason

    # ------------------------------------------------------------------ reconchess's query API

    def get_white_player_name(self) -> Optional[str]:
        return self._white_name

    def get_black_player_name(self) -> Optional[str]:
        return self._black_name

    def get_winner_color(self) -> Optional[Color]:
        """The winner, or None for a draw or an unfinished game."""
        return self._winner_color

    def get_win_reason(self) -> Optional[WinReason]:
        """Why the game ended (a draw has reason MOVE_LIMIT or TURN_LIMIT), or None."""
        return self._win_reason

    def is_empty(self) -> bool:
        """True when White never sensed (reconchess's definition of a game with no turns)."""
        return self._sense_counts[chess.WHITE] == 0

    def num_turns(self, color: Optional[Color] = None) -> int:
        return sum(1 for _ in self.turns(color=color))

    def turns(self, color: Optional[Color] = None, start: int = 0, stop: float = math.inf) -> Iterator[Turn]:
        """The turns in play order (one colour's only if `color` is given), turn numbers in [start, stop)."""
        if self.is_empty():
            return
        first = chess.WHITE if color is None else color
        turn, stop_turn, last_turn = Turn(first, start), Turn(first, stop), self.last_turn()  # type: ignore[arg-type]
        while turn <= last_turn and turn < stop_turn:
            if color is None or turn.color == color:
                yield turn
            turn = turn.next

    def is_first_turn(self, turn: Turn) -> bool:
        return turn == self.first_turn()

    def first_turn(self, color: Optional[Color] = None) -> Turn:
        if self.is_empty():
            raise ValueError("GameHistory is empty")
        return Turn(color if color is not None else chess.WHITE, 0)

    def is_last_turn(self, turn: Turn) -> bool:
        return turn == self.last_turn()

    def last_turn(self, color: Optional[Color] = None) -> Turn:
        """The last turn with a sense (of `color`, if given), as reconchess counts it."""
        if self.is_empty():
            raise ValueError("GameHistory is empty")
        if color is not None:
            return Turn(color, self._sense_counts[color] - 1)
        white, black = self._sense_counts[chess.WHITE], self._sense_counts[chess.BLACK]
        return Turn(chess.WHITE, white - 1) if white > black else Turn(chess.BLACK, black - 1)

    def has_sense(self, turn: Turn) -> bool:
        return 0 <= turn.turn_number < self._sense_counts[turn.color]

    def has_move(self, turn: Turn) -> bool:
        return 0 <= turn.turn_number < self._move_counts[turn.color]

    def _sense_phase(self, turn: Turn) -> SensePhase:
        if not self.has_sense(turn):
            raise ValueError(f"{turn} did not happen in this game.")
        phase = self._records[turn.color][turn.turn_number].sense
        assert phase is not None, "sense phases fill a prefix of the records"
        return phase

    def _move_phase(self, turn: Turn) -> MovePhase:
        if not self.has_move(turn):
            raise ValueError(f"{turn} did not happen in this game.")
        phase = self._records[turn.color][turn.turn_number].move
        assert phase is not None, "move phases fill a prefix of the records"
        return phase

    def sense(self, turn: Turn) -> Optional[Square]:
        return self._sense_phase(turn).square

    def sense_result(self, turn: Turn) -> SenseResultList:
        return self._sense_phase(turn).result

    def requested_move(self, turn: Turn) -> Optional[chess.Move]:
        return self._move_phase(turn).requested_move

    def taken_move(self, turn: Turn) -> Optional[chess.Move]:
        return self._move_phase(turn).taken_move

    def capture_square(self, turn: Turn) -> Optional[Square]:
        return self._move_phase(turn).capture_square

    def move_result(self, turn: Turn) -> tuple[Optional[chess.Move], Optional[chess.Move], Optional[Square]]:
        phase = self._move_phase(turn)
        return phase.requested_move, phase.taken_move, phase.capture_square

    def truth_fen_before_move(self, turn: Turn) -> str:
        return self._move_phase(turn).before.fen

    def truth_fen_after_move(self, turn: Turn) -> str:
        return self._move_phase(turn).after.fen

    def truth_board_before_move(self, turn: Turn) -> chess.Board:
        """The truth board before the turn's move, with `turn` set to the mover (as reconchess does)."""
        board = chess.Board(self.truth_fen_before_move(turn))
        board.turn = turn.color
        return board

    def truth_board_after_move(self, turn: Turn) -> chess.Board:
        """The truth board after the turn's move, with `turn` still set to the mover (as reconchess does)."""
        board = chess.Board(self.truth_fen_after_move(turn))
        board.turn = turn.color
        return board

    def collect(self, get_turn_data_fn: Callable[[Turn], T], turns: Iterable[Turn]) -> Iterator[T]:
        """Apply one of this history's per-turn getters to each of `turns` (lazily, like reconchess)."""
        getters = [
            self.sense, self.sense_result, self.requested_move, self.taken_move, self.capture_square,
            self.move_result, self.truth_board_before_move, self.truth_board_after_move,
            self.truth_fen_before_move, self.truth_fen_after_move,
        ]  # fmt: skip
        if get_turn_data_fn not in getters:
            raise ValueError("get_turn_data_fn must be one of the history getter functions")
        for turn in turns:
            yield get_turn_data_fn(turn)

    def __eq__(self, other: object) -> bool:
        """Equal records and results (player names are not compared, as in reconchess)."""
        if not isinstance(other, GameHistory):
            return NotImplemented
        return bool(self._comparable() == other._comparable())

    __hash__ = None  # type: ignore[assignment]  # mutable while a game records into it

    def _comparable(self) -> Any:
        document = self._document()
        del document["white_name"], document["black_name"]
        return document

    # ------------------------------------------------------------------ observations

    def observations(self, color: Color) -> list[Observation]:
        """The events `color` received, GameStarted to GameEnded, rebuilt from the record (see module docstring)."""
        opponent_name = (self._black_name if color == chess.WHITE else self._white_name) or ""
        events: list[Observation] = [GameStarted(color, self.starting_fen, opponent_name)]
        records = self._records[color]
        for number, record in enumerate(records):
            events.append(OpponentMoved(self._opponent_capture(color, number)))
            if record.sense is not None:
                events.append(SenseResult(record.sense.square, tuple(record.sense.result)))
            if record.move is not None:
                move = record.move
                events.append(MoveResult(move.requested_move, move.taken_move, move.capture_square))
        if self._announced_unrecorded_turn() == color:
            events.append(OpponentMoved(self._opponent_capture(color, len(records))))
        events.append(GameEnded(self._winner_color, self._win_reason))
        return events

    def _opponent_capture(self, color: Color, number: int) -> Optional[Square]:
        """Where the opponent captured on the move before `color`'s turn `number` (None before White's first)."""
        previous = Turn(color, number).previous
        if previous.turn_number < 0 or not self.has_move(previous):
            return None
        return self.capture_square(previous)

    def _announced_unrecorded_turn(self) -> Optional[Color]:
        """The colour told that a turn began which has no record (the game ended before its sense), if any.

        The game announces a turn at `start` and at each `end_turn` unless the game is over
        by then; see the module docstring for why this is inferred and how.
        """
        if self._win_reason in (WinReason.KING_CAPTURE, WinReason.TURN_LIMIT, WinReason.MOVE_LIMIT):
            return None  # the last move ended the game: nobody was told of another turn
        white, black = len(self._records[chess.WHITE]), len(self._records[chess.BLACK])
        if white == 0 and black == 0:
            next_color = chess.WHITE
        else:
            last_color = chess.WHITE if white > black else chess.BLACK
            if self._records[last_color][-1].move is None:
                return None  # the game ended inside the last recorded turn
            next_color = not last_color
        if self._win_reason in (WinReason.RESIGN, WinReason.TIMEOUT) and self._winner_color == next_color:
            return None  # the player who just moved lost before handing over the turn
        return next_color

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> str:
        """The history as reconchess 1.6.9's JSON text (same keys, order, encodings and separators)."""
        return encode_history(self._header(), self._records[chess.WHITE], self._records[chess.BLACK])

    def _document(self) -> dict[str, Any]:
        """The history as the JSON-ready dict reconchess's encoder builds (the reference `to_json` equals)."""
        return history_document(self._header(), self._records[chess.WHITE], self._records[chess.BLACK])

    def _header(self) -> HistoryHeader:
        return HistoryHeader(self._white_name, self._black_name, self._winner_color, self._win_reason)

    def save(self, filename: str) -> None:
        """Write the history as reconchess does (`reconchess.GameHistory.from_file` reads it)."""
        text = self.to_json()
        with open(filename, "w", newline="") as file:
            file.write(text)

    @classmethod
    def from_json(cls, text: str, source: str = "<json text>") -> GameHistory:
        """Read reconchess GameHistory JSON; raises `HistoryFormatError` naming `source` and the problem."""
        decoded = decode_history(text, source)
        header = decoded.header
        history = cls()
        history.store_players(header.white_name, header.black_name)
        for color in (chess.WHITE, chess.BLACK):
            for square, window in decoded.senses[color]:
                history.store_sense(color, square, window)
            for requested, taken, capture, before, after in decoded.moves[color]:
                history.store_move(color, requested, taken, capture, before, after)
        history.store_results(header.winner_color, header.win_reason)
        if decoded.moves[chess.WHITE]:
            history.starting_fen = decoded.moves[chess.WHITE][0][3]  # the file holds no start position
        return history

    @classmethod
    def from_file(cls, filename: str) -> GameHistory:
        """Load a history saved by `save` or by reconchess.

        Only a regular file is read: a FIFO or a device named by mistake would block the
        reader or never end, so it raises `HistoryFormatError` instead. (The file is opened
        non-blocking and checked through its descriptor, so that opening a FIFO does not wait
        for a writer.)
        """
        descriptor = os.open(filename, os.O_RDONLY | os.O_NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise HistoryFormatError(f"history file {filename!r} is not a regular file")
            os.set_blocking(descriptor, True)
            with open(descriptor, newline="", closefd=False) as file:
                text = file.read()
        except UnicodeDecodeError as error:
            raise HistoryFormatError(f"history file {filename!r} is not text: {error}") from error
        finally:
            os.close(descriptor)
        return cls.from_json(text, source=f"history file {filename!r}")
