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

from typing import Optional

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
_PIECE_TYPES = np.arange(1, 7, dtype=np.int8)[:, None]

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


class StreamEncoder:
    """Turns one player's observation events into frames (see the module docstring).

    Stateful and O(1) per event; `copy` for an independent encoder (beliefs copy theirs).
    `GameEnded` yields no frame (`push` returns None).
    """

    def __init__(self) -> None:
        self._color: Optional[chess.Color] = None
        self._own = np.zeros(64, dtype=np.int8)  # 0 none, 1..6 own piece type (relative squares)
        self._seen = np.full(64, -1, dtype=np.int8)  # -1 unknown, 0 no opponent piece, 1..6 opponent type
        self._age = np.full(64, NEVER_SEEN, dtype=np.uint8)
        self._turn = 0
        self._captures = 0

    def copy(self) -> StreamEncoder:
        other = StreamEncoder()
        other._color, other._turn, other._captures = self._color, self._turn, self._captures
        other._own, other._seen, other._age = self._own.copy(), self._seen.copy(), self._age.copy()
        return other

    @property
    def color(self) -> chess.Color:
        if self._color is None:
            raise NotInitialisedError("the encoder has not received GameStarted")
        return self._color

    def _sq(self, square: chess.Square) -> int:
        return relative_square(square, self.color)

    def push(self, event: Observation) -> Optional[np.ndarray]:
        """Fold `event` in and return its frame (shape ``(FRAME_SIZE,)`` uint8), or None for `GameEnded`."""
        if isinstance(event, GameEnded):
            _ = self.color  # raises before GameStarted
            return None
        if not isinstance(event, _EVENT_TYPES):
            raise UnexpectedObservationError(f"not an observation event: {event!r}")
        frame = np.zeros(FRAME_SIZE, dtype=np.uint8)
        planes, scalars = frame[: N_PLANES * 64].reshape(N_PLANES, 64), frame[N_PLANES * 64 :]  # views into the frame
        if isinstance(event, GameStarted):
            self._start(event)
        elif isinstance(event, OpponentMoved):
            self._opponent_moved(event, planes)
        elif isinstance(event, SenseResult):
            self._sensed(event, planes, scalars)
        else:
            self._moved(event, planes, scalars)
        self._fill(event, planes, scalars)
        return frame

    def _start(self, event: GameStarted) -> None:
        self._color, self._turn, self._captures = event.color, 0, 0
        self._own[:], self._seen[:], self._age[:] = 0, -1, NEVER_SEEN
        board = event.starting_board()
        for square, piece in board.piece_map().items():
            if piece.color == event.color:
                self._own[self._sq(square)] = piece.piece_type

    def _opponent_moved(self, event: OpponentMoved, planes: np.ndarray) -> None:
        _ = self.color  # raises before GameStarted
        captured = event.capture_square
        square = None if captured is None else self._sq(captured)
        if captured is not None and square is not None and not self._own[square]:
            raise UnexpectedObservationError(f"{event!r}: no piece of ours on {chess.square_name(captured)}")
        seen = self._age < NEVER_SEEN
        self._age[seen] += 1
        if square is not None:
            self._own[square] = 0
            self._seen[square], self._age[square] = -1, NEVER_SEEN
            planes[_LOST, square] = 1

    def _sensed(self, event: SenseResult, planes: np.ndarray, scalars: np.ndarray) -> None:
        color = self.color
        if event.square is None:
            scalars[8] = 1
        for square, piece in event.window:
            rel = self._sq(square)
            planes[_WINDOW, rel] = 1
            self._seen[rel] = piece.piece_type if piece is not None and piece.color != color else 0
            self._age[rel] = 0

    def _moved(self, event: MoveResult, planes: np.ndarray, scalars: np.ndarray) -> None:
        requested, taken = event.requested_move, event.taken_move
        if taken is not None and not self._own[self._sq(taken.from_square)]:
            raise UnexpectedObservationError(f"{event!r}: no piece of ours on {chess.square_name(taken.from_square)}")
        if requested is None:
            scalars[8] = 1
        else:
            planes[_REQ_FROM, self._sq(requested.from_square)] = 1
            planes[_REQ_TO, self._sq(requested.to_square)] = 1
        scalars[7] = requested is not None and requested != taken
        if event.capture_square is not None:
            square = self._sq(event.capture_square)
            planes[_CAPTURED, square] = 1
            self._seen[square], self._age[square] = 0, 0
            self._captures += 1
        if taken is not None:
            self._apply_own_move(taken, planes)
        self._turn += 1

    def _apply_own_move(self, move: chess.Move, planes: np.ndarray) -> None:
        src, dst = self._sq(move.from_square), self._sq(move.to_square)
        piece = int(self._own[src])
        planes[_TAKEN_FROM, src], planes[_TAKEN_TO, dst] = 1, 1
        self._own[src] = 0
        self._own[dst] = move.promotion or piece
        self._seen[dst], self._age[dst] = 0, 0
        if piece == chess.KING and abs(dst - src) == 2:  # castling: relative squares keep the rank-1 geometry
            rook_src, rook_dst = (src + 3, src + 1) if dst > src else (src - 4, src - 1)
            self._own[rook_src], self._own[rook_dst] = 0, chess.ROOK

    def _fill(self, event: Observation, planes: np.ndarray, scalars: np.ndarray) -> None:
        """Write the memory planes and the scalars into the frame's views (one vectorised op per block:
        the learning environment encodes every event, so this is its hot path)."""
        flags = planes.view(np.bool_)  # the same bytes as booleans: the comparisons write 0/1 without a cast
        np.equal(self._own, _PIECE_TYPES, out=flags[_OWN : _OWN + 6])
        np.equal(self._seen, _PIECE_TYPES, out=flags[_SEEN_OPP : _SEEN_OPP + 6])
        np.equal(self._seen, 0, out=flags[_SEEN_EMPTY])
        planes[_AGE] = self._age
        scalars[_EVENT_TYPES.index(type(event))] = 1
        scalars[4] = self.color == chess.WHITE
        scalars[5] = min(self._turn, 255)
        scalars[6] = min(self._captures, 16)

    def own_types(self) -> np.ndarray:
        """Shape (64,) int8, relative squares: our piece type on each square now (0 for none)."""
        own: np.ndarray = self._own.copy()
        return own

    def known_contents(self) -> np.ndarray:
        """Shape (64,) int8, relative squares: what a square holds for certain, -1 where unknown.

        A square seen since the opponent's last move (age 0: this turn's sense window, or the
        square our capture emptied) still holds what it showed, since only the opponent's
        moves change what we cannot see: 0 for no opponent piece, 1..6 the opponent's type.
        Our own squares are not included (`own_types` has them).
        """
        known = np.where((self._age == 0) & (self._own == 0), self._seen, -1).astype(np.int8)
        return known


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
