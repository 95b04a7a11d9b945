"""A player's observation stream as tensors: one fixed-size frame per observation event.

`StreamEncoder` follows the events of :mod:`blindchess.arbiter.observations` for one
player and turns each into a frame of `FRAME_SIZE` small integers (``uint8``): `N_PLANES`
planes of 64 squares, then `N_SCALARS` scalars. A frame summarises everything observed
so far (own pieces, what each square last showed and how many turns ago) plus what this
event added, so a model that reads one frame per event (a recurrent one) updates in O(1)
however long the game, and a model that reads only the latest frame still sees the memory.

Squares are from the player's side: White's squares as python-chess numbers them, Black's
mirrored (``square ^ 56``), so the player's own back rank is always rank 1. Pieces are
*own* and *opponent*, not White and Black.

======  ==========================================================  ======================
plane   content (per square)                                        values
======  ==========================================================  ======================
0-5     own pawn, knight, bishop, rook, queen, king                 0/1
6-11    opponent pawn .. king, as last seen by a sense               0/1
12      last seen without an opponent piece (sense, or our move)     0/1
13      own turns since last seen (16: never seen, or out of date)   0..16 (scaled /16)
14      in this event's sense window                                 0/1
15      this event: the opponent captured our piece here             0/1
16, 17  this event: our requested move's from / to square            0/1
18, 19  this event: our taken move's from / to square                0/1
20      this event: we captured an opponent piece here               0/1
======  ==========================================================  ======================

======  ==========================================================  ======================
scalar  content                                                     values
======  ==========================================================  ======================
0-3     event type: GameStarted, OpponentMoved, SenseResult,        0/1
        MoveResult
4       we play White                                               0/1
5       own turn number (own MoveResults so far)                    0..255 (scaled /64)
6       opponent pieces we have captured                            0..16 (scaled /16)
7       our requested move was not taken (illegal or revised)       0/1
8       we passed (no move requested) or skipped the sense          0/1
======  ==========================================================  ======================

The events carry no clock, so the clock is not encoded (a version bump will add it if the
stream ever does). A square where our piece was captured loses its last-seen content
(the capturer's type is unknown). `ENCODING_VERSION` names this table; a saved model
records it and refuses a different one.

Example:

>>> import chess
>>> from blindchess.arbiter.observations import GameStarted, OpponentMoved
>>> encoder = StreamEncoder()
>>> start = encoder.push(GameStarted(chess.BLACK, chess.STARTING_FEN))
>>> start.shape, start.dtype.name, FRAME_SIZE
((1353,), 'uint8', 1353)
>>> int(start[5 * 64 + chess.E1])  # Black's king, mirrored onto e1: an own king plane
1
>>> int(encoder.push(OpponentMoved(None))[N_PLANES * 64 + 1])  # the OpponentMoved flag
1
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from itertools import chain
from typing import NamedTuple, Optional

import chess
import numpy as np

from blindchess.arbiter.observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult

from .base import NotInitialisedError, UnexpectedObservationError

ENCODING_VERSION = 1
"""The version of the plane table above; saved models record it."""

N_PLANES = 21
N_SCALARS = 9
FRAME_SIZE = N_PLANES * 64 + N_SCALARS
NEVER_SEEN = 16
"""Plane 13's value on a square with no (current) last-seen content."""

_OWN, _SEEN_OPP, _SEEN_EMPTY, _AGE, _WINDOW, _LOST, _REQ_FROM, _REQ_TO, _TAKEN_FROM, _TAKEN_TO, _CAPTURED = (
    0, 6, 12, 13, 14, 15, 16, 17, 18, 19, 20,
)  # fmt: skip
_EVENT_TYPES = (GameStarted, OpponentMoved, SenseResult, MoveResult)
_KIND_OF = {event_type: kind for kind, event_type in enumerate(_EVENT_TYPES)}
_PIECE_TYPES = np.arange(1, 7, dtype=np.int8)[:, None]
_BIT = tuple(1 << (square ^ (7 if sys.byteorder == "little" else 63)) for square in range(64))
"""The bit of each (relative) square in the encoder's bitboards: laid out so that numpy's fastest unpacking
(``unpackbits`` in its default, most-significant-first bit order) of the words in memory lists square 0 first."""
_AGED = bytes(min(age + 1, NEVER_SEEN) for age in range(256))
"""One more own turn on every square's age (`bytes.translate` table): 16 stays 16."""

FRAME_SCALE = np.ones(FRAME_SIZE, dtype=np.float32)
"""Multiply a frame by this to get the model's float input (every feature in [0, 1])."""
FRAME_SCALE[_AGE * 64 : (_AGE + 1) * 64] = 1 / NEVER_SEEN
FRAME_SCALE[N_PLANES * 64 + 5] = 1 / 64
FRAME_SCALE[N_PLANES * 64 + 6] = 1 / 16


def relative_square(square: chess.Square, color: chess.Color) -> int:
    """`square` seen from `color`'s side: unchanged for White, mirrored for Black.

    >>> relative_square(chess.E1, chess.BLACK) == chess.E8
    True
    """
    return square if color == chess.WHITE else square ^ 56


class FrameParts(NamedTuple):
    """One frame before it is made (`frames_of`): its 20 bitboards (planes 0..12 and 14..20, see `_BIT`),
    its age plane (64 bytes) and its scalars (`N_SCALARS` bytes)."""

    boards: tuple[int, ...]
    age: bytes
    scalars: bytes


ZERO_PARTS = FrameParts((0,) * (N_PLANES - 1), bytes(64), bytes(N_SCALARS))
"""The parts of an all-zero frame (what a window shows before any event)."""


class StreamEncoder:
    """Turns one player's observation events into frames (see the module docstring).

    Stateful and O(1) per event; `copy` for an independent encoder (beliefs copy theirs).
    `GameEnded` yields no frame (`push` returns None).

    The state is bitboards (Python ints over relative squares): own pieces per type, opponent
    pieces last seen per type, squares last seen empty; plus the age plane as an array. An
    event's work is then a few integer operations, and a frame is the state's and the event's
    bitboards unpacked in one numpy call (the learning environment encodes every event, so this
    is its hot path).
    """

    def __init__(self) -> None:
        self._color: Optional[chess.Color] = None
        self._flip = 0  # relative_square as an xor: 0 for White, 56 for Black
        self._own = [0] * 6  # own pieces by type (pawn .. king)
        self._seen = [0] * 6  # opponent pieces by type, as last seen
        self._empty = 0  # last seen without an opponent piece
        self._age = bytearray([NEVER_SEEN]) * 64  # plane 13 as bytes: `translate` ages every square at once
        self._turn = 0
        self._captures = 0

    def copy(self) -> StreamEncoder:
        other = StreamEncoder()
        other._color, other._flip, other._turn, other._captures = self._color, self._flip, self._turn, self._captures
        other._own, other._seen, other._empty, other._age = self._own.copy(), self._seen.copy(), self._empty, self._age.copy()
        return other

    @property
    def color(self) -> chess.Color:
        if self._color is None:
            raise NotInitialisedError("the encoder has not received GameStarted")
        return self._color

    def _sq(self, square: chess.Square) -> int:
        """`relative_square` of the encoder's colour (unchecked: `fold` checks GameStarted came first)."""
        return square ^ self._flip

    def _forget(self, bit: int) -> None:
        """The square of `bit` loses its last-seen content."""
        keep = ~bit
        self._seen = [board & keep for board in self._seen]
        self._empty &= keep

    def _see_empty(self, bit: int) -> None:
        self._forget(bit)
        self._empty |= bit

    def push(self, event: Observation) -> Optional[np.ndarray]:
        """Fold `event` in and return its frame (shape ``(FRAME_SIZE,)`` uint8), or None for `GameEnded`."""
        parts = self.fold(event)
        return None if parts is None else frames_of((parts,))[0]

    def fold(self, event: Observation) -> Optional[FrameParts]:
        """Fold `event` in and return its frame as `FrameParts` (`frames_of` makes frames of them), None for `GameEnded`.

        For a caller that keeps frames to read later, or never (the learning environment): making the
        frames of several events in one `frames_of` call costs little more than making one.
        """
        if isinstance(event, GameEnded):
            _ = self.color  # raises before GameStarted
            return None
        kind = _KIND_OF.get(type(event))  # scalars 0-3: which event
        if kind is None:
            raise UnexpectedObservationError(f"not an observation event: {event!r}")
        if kind:
            _ = self.color  # raises before GameStarted
        events = [0] * (N_PLANES - _WINDOW)  # this event's planes 14..20, as bitboards
        scalars = [0] * N_SCALARS
        scalars[kind] = 1
        if isinstance(event, SenseResult):
            self._sensed(event, events, scalars)
        elif isinstance(event, MoveResult):
            self._moved(event, events, scalars)
        elif isinstance(event, OpponentMoved):
            self._opponent_moved(event, events)
        else:
            assert isinstance(event, GameStarted), "_KIND_OF has four types"
            self._start(event)
        scalars[4] = self._color == chess.WHITE
        scalars[5] = self._turn if self._turn < 255 else 255
        scalars[6] = self._captures if self._captures < 16 else 16
        return FrameParts((*self._own, *self._seen, self._empty, *events), bytes(self._age), bytes(scalars))

    def _start(self, event: GameStarted) -> None:
        self._color, self._turn, self._captures = event.color, 0, 0
        self._flip = 0 if event.color == chess.WHITE else 56
        self._own, self._seen, self._empty = [0] * 6, [0] * 6, 0
        self._age = bytearray([NEVER_SEEN]) * 64
        board = event.starting_board()
        for square, piece in board.piece_map().items():
            if piece.color == event.color:
                self._own[piece.piece_type - 1] |= _BIT[self._sq(square)]

    def _own_type(self, bit: int) -> int:
        """Our piece type on the square of `bit` (0 for none)."""
        for index, board in enumerate(self._own):
            if board & bit:
                return index + 1
        return 0

    def _opponent_moved(self, event: OpponentMoved, events: list[int]) -> None:
        captured = event.capture_square
        square = None if captured is None else self._sq(captured)
        if captured is not None and square is not None and not self._own_type(_BIT[square]):
            raise UnexpectedObservationError(f"{event!r}: no piece of ours on {chess.square_name(captured)}")
        self._age = self._age.translate(_AGED)
        if square is not None:
            bit = _BIT[square]
            self._own = [board & ~bit for board in self._own]
            self._forget(bit)
            self._age[square] = NEVER_SEEN
            events[_LOST - _WINDOW] = bit

    def _sensed(self, event: SenseResult, events: list[int], scalars: list[int]) -> None:
        color, flip = self._color, self._flip  # _sq, inlined: a window has nine squares
        if event.square is None:
            scalars[8] = 1
        age = self._age
        window = empty = 0
        opponents = [0] * 6
        for square, piece in event.window:
            rel = square ^ flip
            bit = _BIT[rel]
            window |= bit
            age[rel] = 0
            if piece is not None and piece.color != color:
                opponents[piece.piece_type - 1] |= bit
            else:
                empty |= bit
        keep = ~window
        self._seen = [board & keep | opponent for board, opponent in zip(self._seen, opponents, strict=True)]
        self._empty = self._empty & keep | empty
        events[0] = window

    def _moved(self, event: MoveResult, events: list[int], scalars: list[int]) -> None:
        requested, taken = event.requested_move, event.taken_move
        if taken is not None and not self._own_type(_BIT[self._sq(taken.from_square)]):
            raise UnexpectedObservationError(f"{event!r}: no piece of ours on {chess.square_name(taken.from_square)}")
        if requested is None:
            scalars[8] = 1
        else:
            events[_REQ_FROM - _WINDOW] = _BIT[self._sq(requested.from_square)]
            events[_REQ_TO - _WINDOW] = _BIT[self._sq(requested.to_square)]
        scalars[7] = requested is not None and requested != taken
        if event.capture_square is not None:
            square = self._sq(event.capture_square)
            events[_CAPTURED - _WINDOW] = _BIT[square]
            self._see_empty(_BIT[square])
            self._age[square] = 0
            self._captures += 1
        if taken is not None:
            self._apply_own_move(taken, events)
        self._turn += 1

    def _apply_own_move(self, move: chess.Move, events: list[int]) -> None:
        src, dst = self._sq(move.from_square), self._sq(move.to_square)
        piece = self._own_type(_BIT[src])
        events[_TAKEN_FROM - _WINDOW], events[_TAKEN_TO - _WINDOW] = _BIT[src], _BIT[dst]
        self._put(src, 0)
        self._put(dst, move.promotion or piece)
        self._see_empty(_BIT[dst])
        self._age[dst] = 0
        if piece == chess.KING and abs(dst - src) == 2:  # castling: relative squares keep the rank-1 geometry
            rook_src, rook_dst = (src + 3, src + 1) if dst > src else (src - 4, src - 1)
            self._put(rook_src, 0)
            self._put(rook_dst, chess.ROOK)

    def _put(self, square: int, piece_type: int) -> None:
        """Our piece of `piece_type` (0: none) on `square`, replacing what was there."""
        bit = _BIT[square]
        own = [board & ~bit for board in self._own]
        if piece_type:
            own[piece_type - 1] |= bit
        self._own = own

    def own_types(self) -> np.ndarray:
        """Shape (64,) int8, relative squares: our piece type on each square now (0 for none)."""
        return _types_of(self._own)

    def known_contents(self) -> np.ndarray:
        """Shape (64,) int8, relative squares: what a square holds for certain, -1 where unknown.

        A square seen since the opponent's last move (age 0: this turn's sense window, or the
        square our capture emptied) still holds what it showed, since only the opponent's
        moves change what we cannot see: 0 for no opponent piece, 1..6 the opponent's type.
        Our own squares are not included (`own_types` has them).
        """
        seen = _types_of(self._seen)
        seen[(seen == 0) & ~_bits(self._empty).astype(bool)] = -1
        fresh = np.frombuffer(self._age, dtype=np.uint8) == 0
        known = np.where(fresh & (_types_of(self._own) == 0), seen, -1).astype(np.int8)
        return known


def frames_of(parts: Sequence[FrameParts]) -> np.ndarray:
    """The frames of `parts`, shape ``(len(parts), FRAME_SIZE)`` uint8: every bitboard unpacked in one numpy
    call, then each frame's planes spliced with its age plane and scalars."""
    words = array("Q", chain.from_iterable([part.boards for part in parts]))  # in C, unlike numpy's int conversion
    bits = np.unpackbits(np.frombuffer(words, dtype=np.uint8)).tobytes()  # per frame: planes 0..12, 14..20
    split, size = _AGE * 64, (N_PLANES - 1) * 64
    pieces: list[bytes] = []
    for index, part in enumerate(parts):
        start = index * size
        pieces += (bits[start : start + split], part.age, bits[start + split : start + size], part.scalars)
    return np.frombuffer(bytearray(b"".join(pieces)), dtype=np.uint8).reshape(len(parts), FRAME_SIZE)


def _bits(*boards: int) -> np.ndarray:
    """Shape (len(boards) * 64,) uint8: the bits of each bitboard (see `_BIT`), square 0 first."""
    return np.unpackbits(np.array(boards, dtype=np.uint64).view(np.uint8))


def _types_of(boards: list[int]) -> np.ndarray:
    """Shape (64,) int8: the type (1..6) whose bitboard of `boards` holds each square, 0 for none."""
    planes = _bits(*boards).reshape(6, 64).astype(np.int8)
    types: np.ndarray = (planes * _PIECE_TYPES).sum(axis=0, dtype=np.int8)
    return types


def encode_stream(events: list[Observation]) -> np.ndarray:
    """Frames of every event of one player's stream but `GameEnded`: shape ``(T, FRAME_SIZE)`` uint8."""
    encoder = StreamEncoder()
    frames = [frame for frame in (encoder.push(event) for event in events) if frame is not None]
    return np.stack(frames) if frames else np.zeros((0, FRAME_SIZE), dtype=np.uint8)


def relative_targets(board: chess.Board, color: chess.Color) -> np.ndarray:
    """Shape (64,) int64, relative squares: the opponent's piece type (1..6) on each square, 0 for none.

    The training target: a model predicts, per square, one of 7 classes (no opponent
    piece, or its type). Own pieces are known and not predicted.
    """
    target = np.zeros(64, dtype=np.int64)
    for square, piece in board.piece_map().items():
        if piece.color != color:
            target[relative_square(square, color)] = piece.piece_type
    return target
