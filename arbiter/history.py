"""The full-information record of a game: `Turn`, `GameHistory`, and its reconchess-compatible JSON.

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
:mod:`blindchess.arbiter.observations`), derived from the record alone, so it is the
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

import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Optional, TypeVar, Union

import chess

from blindchess.errors import BlindchessError

from .observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from .types import Color, Square, WinReason

if TYPE_CHECKING:  # the play loop imports this module
    from .play import BotFault

T = TypeVar("T")

SenseResultList = list[tuple[Square, Optional[chess.Piece]]]
"""A sense result as reconchess hands it out: a list of (square, piece or None)."""


class HistoryFormatError(BlindchessError, ValueError):
    """A history file or JSON text is not a valid reconchess GameHistory; the message names the source and the problem."""


class Turn:
    """One player's turn: its colour and how many turns that player took before it (from 0)."""

    __slots__ = ("color", "turn_number")

    def __init__(self, color: Color, turn_number: int) -> None:
        self.color = color
        self.turn_number = turn_number

    @property
    def next(self) -> Turn:
        """The turn right after this one (the other player's)."""
        return Turn(not self.color, self.turn_number + (0 if self.color == chess.WHITE else 1))

    @property
    def previous(self) -> Turn:
        """The turn right before this one (the other player's)."""
        return Turn(not self.color, self.turn_number - (1 if self.color == chess.WHITE else 0))

    def _key(self) -> tuple[int, int]:
        return self.turn_number, 0 if self.color == chess.WHITE else 1

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Turn):
            return NotImplemented
        return self.color == other.color and self.turn_number == other.turn_number

    def __hash__(self) -> int:
        return hash(self._key())

    def __lt__(self, other: Turn) -> bool:
        if not isinstance(other, Turn):
            return NotImplemented
        return self._key() < other._key()

    def __le__(self, other: Turn) -> bool:
        if not isinstance(other, Turn):
            return NotImplemented
        return self._key() <= other._key()

    def __str__(self) -> str:
        return f"Turn({chess.COLOR_NAMES[self.color]}, {self.turn_number})"

    __repr__ = __str__


class TruthFen:
    """The truth position at one moment: a FEN string, or a snapshot whose FEN is computed on first use."""

    __slots__ = ("_fen", "_snapshot", "_to_fen")

    def __init__(self, fen: Optional[str] = None, snapshot: Any = None, to_fen: Optional[Callable[[Any], str]] = None):
        self._fen = fen
        self._snapshot = snapshot
        self._to_fen = to_fen

    @property
    def fen(self) -> str:
        if self._fen is None:
            assert self._to_fen is not None, "a snapshot always carries its FEN function"
            self._fen = self._to_fen(self._snapshot)
            self._snapshot = None
        return self._fen


FenSource = Union[str, TruthFen]


class SensePhase(NamedTuple):
    """What a turn's sense phase recorded: the square asked for (None for no sense) and the window seen."""

    square: Optional[Square]
    result: SenseResultList


class MovePhase(NamedTuple):
    """What a turn's move phase recorded, with the truth position before and after the move."""

    requested_move: Optional[chess.Move]
    taken_move: Optional[chess.Move]
    capture_square: Optional[Square]
    before: TruthFen
    after: TruthFen


@dataclass(slots=True)
class TurnRecord:
    """One turn of one player: the phases it got through (a game can end between them)."""

    sense: Optional[SensePhase] = None
    move: Optional[MovePhase] = None


_new_phase = tuple.__new__
"""Builds a phase as ``_new_phase(SensePhase, (square, result))``: the named tuple's own constructor is a
Python function, and the game records two phases a turn."""


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
        """Bot faults the play loop recorded (`blindchess.arbiter.play.BotFault`); not part of the JSON file."""

    # ------------------------------------------------------------------ recording (the game calls these)

    def store_players(self, white_name: Optional[str], black_name: Optional[str]) -> None:
        self._white_name = white_name
        self._black_name = black_name

    def store_sense(self, color: Color, square: Optional[Square], sense_result: SenseResultList) -> None:
        """Record a sense (like reconchess: the n-th sense of a colour belongs to its n-th turn)."""
        records, index = self._records[color], self._sense_counts[color]
        phase = _new_phase(SensePhase, (square, sense_result))
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
        phase = _new_phase(MovePhase, (requested_move, taken_move, capture_square, before, after))
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
        """The history as reconchess 1.6.9's JSON text (same keys, order, encodings and separators).

        Written directly rather than through ``json.dumps(self._document())`` (the reference
        it equals, byte for byte): building a dict per piece seen and per move, only for the
        encoder to take them apart again, cost more than the game itself.
        """
        white, black = self._records[chess.WHITE], self._records[chess.BLACK]
        _convert_in_play_order(white, black)
        fields = ", ".join(
            f'"{key}": {{"true": {_encode_column(key, white)}, "false": {_encode_column(key, black)}}}' for key in _LIST_KEYS
        )
        reason = "null" if self._win_reason is None else f'{{"type": "WinReason", "value": "{self._win_reason.name}"}}'
        return (
            f'{{"type": "GameHistory", "white_name": {json.dumps(self._white_name)}, '
            f'"black_name": {json.dumps(self._black_name)}, {fields}, '
            f'"winner_color": {json.dumps(self._winner_color)}, "win_reason": {reason}}}'
        )

    def _document(self) -> dict[str, Any]:
        """The history as the JSON-ready dict reconchess's encoder builds (the reference `to_json` equals)."""
        lists = _per_colour_lists(self)
        return {
            "type": "GameHistory",
            "white_name": self._white_name,
            "black_name": self._black_name,
            **{key: {"true": lists[key][0], "false": lists[key][1]} for key in _LIST_KEYS},
            "winner_color": self._winner_color,
            "win_reason": None if self._win_reason is None else {"type": "WinReason", "value": self._win_reason.name},
        }

    def save(self, filename: str) -> None:
        """Write the history as reconchess does (`reconchess.GameHistory.from_file` reads it)."""
        text = self.to_json()
        with open(filename, "w", newline="") as file:
            file.write(text)

    @classmethod
    def from_json(cls, text: str, source: str = "<json text>") -> GameHistory:
        """Read reconchess GameHistory JSON; raises `HistoryFormatError` naming `source` and the problem."""
        from .history_codec import decode_history  # the codec builds GameHistory objects

        return decode_history(text, source)

    @classmethod
    def from_file(cls, filename: str) -> GameHistory:
        """Load a history saved by `save` or by reconchess."""
        try:
            with open(filename, newline="") as file:
                text = file.read()
        except UnicodeDecodeError as error:
            raise HistoryFormatError(f"history file {filename!r} is not text: {error}") from error
        return cls.from_json(text, source=f"history file {filename!r}")


_LIST_KEYS = (
    "senses", "sense_results", "requested_moves", "taken_moves", "capture_squares", "fens_before_move", "fens_after_move",
)  # fmt: skip


def _encode_move(move: Optional[chess.Move]) -> Optional[dict[str, str]]:
    return None if move is None else {"type": "Move", "value": move.uci()}


def _encode_window(result: SenseResultList) -> list[list[Any]]:
    return [[square, None if piece is None else {"type": "Piece", "value": piece.symbol()}] for square, piece in result]


def _per_colour_lists(history: GameHistory) -> dict[str, tuple[list[Any], list[Any]]]:
    """reconchess's seven parallel lists, (white, black) each, JSON-ready, built from the turn records."""
    lists: dict[str, tuple[list[Any], list[Any]]] = {key: ([], []) for key in _LIST_KEYS}
    for slot, color in enumerate((chess.WHITE, chess.BLACK)):
        for record in history._records[color]:
            if record.sense is not None:
                lists["senses"][slot].append(record.sense.square)
                lists["sense_results"][slot].append(_encode_window(record.sense.result))
            if record.move is not None:
                move = record.move
                lists["requested_moves"][slot].append(_encode_move(move.requested_move))
                lists["taken_moves"][slot].append(_encode_move(move.taken_move))
                lists["capture_squares"][slot].append(move.capture_square)
                lists["fens_before_move"][slot].append(move.before.fen)
                lists["fens_after_move"][slot].append(move.after.fen)
    return lists


def _convert_in_play_order(white: list[TurnRecord], black: list[TurnRecord]) -> None:
    """Turn the truth snapshots into FENs in the order they were played.

    Why: a FEN is built from the one converted before it, redoing only the ranks that
    differ (see `blindchess.arbiter.fastread`); in play order that is one move's worth.
    """
    for index, record in enumerate(white):
        if record.move is None:
            break
        _ = record.move.before.fen, record.move.after.fen
        reply = black[index].move if index < len(black) else None
        if reply is not None:
            _ = reply.after.fen


def _encode_column(key: str, records: list[TurnRecord]) -> str:
    """One colour's list `key` of the JSON file, as ``json.dumps`` writes it."""
    if key == "senses":
        return json.dumps([record.sense.square for record in records if record.sense is not None])
    if key == "sense_results":
        windows = [_window_json(record.sense.result) for record in records if record.sense is not None]
        return "[" + ", ".join(windows) + "]"
    moves = [record.move for record in records if record.move is not None]
    if key == "requested_moves":
        return "[" + ", ".join([_move_json(move.requested_move) for move in moves]) + "]"
    if key == "taken_moves":
        return "[" + ", ".join([_move_json(move.taken_move) for move in moves]) + "]"
    if key == "capture_squares":
        return json.dumps([move.capture_square for move in moves])
    if key == "fens_before_move":
        return json.dumps([move.before.fen for move in moves])
    return json.dumps([move.after.fen for move in moves])


def _move_json(move: Optional[chess.Move]) -> str:
    return "null" if move is None else '{"type": "Move", "value": "' + move.uci() + '"}'


# The JSON text of each [square, piece] pair, at 13 * square + (0 for no piece, piece_type for White,
# piece_type + 6 for Black).
_CELL_JSON = tuple(
    json.dumps([square, None if code == 0 else {"type": "Piece", "value": chess.Piece((code - 1) % 6 + 1, code <= 6).symbol()}])
    for square in chess.SQUARES
    for code in range(13)
)


def _window_json(result: SenseResultList) -> str:
    """``json.dumps(_encode_window(result))``, from precomputed cell texts (a window is at most 9 cells)."""
    cells = [
        _CELL_JSON[13 * square + (0 if piece is None else piece.piece_type + (0 if piece.color else 6))]
        if type(square) is int and 0 <= square < 64
        else None
        for square, piece in result
    ]
    if None in cells:
        return json.dumps(_encode_window(result))  # not a plain square: let the encoder judge it
    return "[" + ", ".join(cells) + "]"  # type: ignore[arg-type]
