"""A player's observation stream as tensors: one fixed-size frame per observation event.

`StreamEncoder` follows the events of :mod:`blindchess.arbiter.game.observations` for one
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
>>> from blindchess.arbiter.game.observations import GameStarted, OpponentMoved
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
import numba as nb
import numpy as np

from blindchess.arbiter import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.arbiter.rules import compiled_rules as core
from blindchess.arbiter.rules.lookup_tables import BIT, lsb, mirror

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
_KIND_OF = {GameStarted: 0, OpponentMoved: 1, SenseResult: 2, MoveResult: 3}
_PIECE_TYPES = np.arange(1, 7, dtype=np.int8)[:, None]

STATE_SIZE = 80
"""The length of an encoder's state (uint64): see `StreamEncoder`."""
_COLOR, _TURN, _CAPTURES, _AGES = 13, 14, 15, 16  # the state's fields after its 13 bitboards (planes 0..12)
_NO_COLOR, _BLACK, _WHITE = 0, 1, 2
_ONE, _NEVER_SEEN, _MAX_TURN, _MAX_CAPTURES = np.uint64(1), np.uint64(NEVER_SEEN), np.uint64(255), np.uint64(16)

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


# ---------------------------------------------------------------------- the compiled fold, one kernel per event
# A state is uint64[STATE_SIZE]: own pieces by type (pawn .. king), opponent pieces last seen by type, squares
# last seen without an opponent piece (13 bitboards over relative squares, bit s = square s), then the colour
# (_NO_COLOR before GameStarted), own turns, captures, and the age plane (64 entries). Squares passed in are
# absolute (python-chess's); the kernels make them relative. Each returns False, having changed nothing, for an
# event that contradicts the state (the callers raise), else writes the event's frame into `frame`.


@nb.njit(cache=True)
def _set_bits(frame: np.ndarray, base: int, board: np.uint64) -> None:
    """Set ``frame[base + s]`` to 1 for each square ``s`` of `board` (a loop over its bits: one per piece, not 64)."""
    while board:
        frame[base + lsb(board)] = 1
        board &= board - _ONE


@nb.njit(cache=True)
def _planes(state: np.ndarray) -> tuple[np.uint64, ...]:
    """The state's 13 bitboards (planes 0..12) as they are now: what `_write_frame` compares with when incremental."""
    return (
        state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7], state[8], state[9], state[10],
        state[11], state[12],
    )  # fmt: skip


@nb.njit(cache=True)
def _write_frame(
    state: np.ndarray, frame: np.ndarray, kind: int, window: np.uint64, lost: int, req_from: int, req_to: int,
    taken_from: int, taken_to: int, captured: int, not_taken: bool, passed: bool, before: tuple[np.uint64, ...],
    incremental: bool,
) -> None:  # fmt: skip
    """The frame of the state after an event of `kind` with these event planes (squares relative, -1: none).

    `incremental`: `frame` holds the frame last written from this state, whose bitboards were then `before`;
    only the squares that changed on planes 0..12 are rewritten (scattering every bit costs most of a fold).
    """
    if incremental:
        for plane in range(_AGE):
            changed = state[plane] ^ before[plane]
            while changed:
                square = lsb(changed)
                frame[plane * 64 + square] ^= 1
                changed &= changed - _ONE
    else:
        for index in range(_AGE * 64):
            frame[index] = 0
        for plane in range(_AGE):
            _set_bits(frame, plane * 64, state[plane])
    # the event planes and the event-type scalars cleared, then set
    for index in range(_WINDOW * 64, N_PLANES * 64 + 4):
        frame[index] = 0
    for square in range(64):
        frame[_AGE * 64 + square] = state[_AGES + square]
    _set_bits(frame, _WINDOW * 64, window)
    if lost >= 0:
        frame[_LOST * 64 + lost] = 1
    if req_from >= 0:
        frame[_REQ_FROM * 64 + req_from] = 1
        frame[_REQ_TO * 64 + req_to] = 1
    if taken_from >= 0:
        frame[_TAKEN_FROM * 64 + taken_from] = 1
        frame[_TAKEN_TO * 64 + taken_to] = 1
    if captured >= 0:
        frame[_CAPTURED * 64 + captured] = 1
    scalars = N_PLANES * 64
    frame[scalars + kind] = 1
    frame[scalars + 4] = state[_COLOR] == _WHITE
    frame[scalars + 5] = min(state[_TURN], _MAX_TURN)
    frame[scalars + 6] = min(state[_CAPTURES], _MAX_CAPTURES)
    frame[scalars + 7] = not_taken
    frame[scalars + 8] = passed


@nb.njit(cache=True)
def _relative(state: np.ndarray, board: np.uint64) -> np.uint64:
    """An absolute bitboard over relative squares (mirrored for Black)."""
    return board if state[_COLOR] == _WHITE else mirror(board)


@nb.njit(cache=True)
def _flip(state: np.ndarray) -> int:
    return 0 if state[_COLOR] == _WHITE else 56


@nb.njit(cache=True)
def _see_empty(state: np.ndarray, bit: np.uint64) -> None:
    """The square of `bit` shows no opponent piece now (what it showed before is forgotten)."""
    for index in range(_SEEN_OPP, _SEEN_EMPTY):
        state[index] &= ~bit
    state[_SEEN_EMPTY] |= bit


@nb.njit(cache=True)
def _put(state: np.ndarray, square: int, piece_type: int) -> None:
    """Our piece of `piece_type` (0: none) on relative `square`, replacing what was there."""
    bit = BIT[square]
    for index in range(6):
        state[index] &= ~bit
    if piece_type:
        state[piece_type - 1] |= bit


@nb.njit(cache=True)
def fold_start(state: np.ndarray, frame: np.ndarray, white: bool, board: np.ndarray) -> bool:
    """GameStarted: the player's colour and, from `board` (uint64[8]: pawns .. kings, White's, Black's), its pieces."""
    for index in range(STATE_SIZE):
        state[index] = _NEVER_SEEN if index >= _AGES else 0
    state[_COLOR] = _WHITE if white else _BLACK
    own = board[6] if white else board[7]
    for index in range(6):
        state[index] = _relative(state, board[index] & own)
    _write_frame(state, frame, 0, np.uint64(0), -1, -1, -1, -1, -1, -1, False, False, _planes(state), False)
    return True


@nb.njit(cache=True)
def fold_opponent_moved(state: np.ndarray, frame: np.ndarray, capture: int, incremental: bool) -> bool:
    """OpponentMoved: every square one turn older; a captured piece of ours gone (`capture` -1: none).

    `incremental` (here and in the other folds): `frame` holds the frame this state's last fold wrote.
    """
    before = _planes(state)
    square = -1 if capture < 0 else capture ^ _flip(state)
    if square >= 0:
        bit = BIT[square]
        if not (state[0] | state[1] | state[2] | state[3] | state[4] | state[5]) & bit:
            return False
    for index in range(_AGES, STATE_SIZE):
        state[index] = min(state[index] + _ONE, _NEVER_SEEN)
    if square >= 0:
        _put(state, square, 0)
        for index in range(_SEEN_OPP, _AGE):
            state[index] &= ~bit
        state[_AGES + square] = NEVER_SEEN
    _write_frame(state, frame, 1, np.uint64(0), square, -1, -1, -1, -1, -1, False, False, before, incremental)
    return True


@nb.njit(cache=True)
def fold_sensed(
    state: np.ndarray, frame: np.ndarray, skipped: bool, window: np.uint64, board: np.ndarray, incremental: bool
) -> bool:
    """SenseResult: what `board` (uint64[8], as for `fold_start`) holds on the `window` squares, seen now."""
    before = _planes(state)
    opponent = board[7] if state[_COLOR] == _WHITE else board[6]
    seen_window = _relative(state, window)
    keep = ~seen_window
    empty = seen_window
    for index in range(6):
        seen = _relative(state, board[index] & opponent & window)
        state[_SEEN_OPP + index] = state[_SEEN_OPP + index] & keep | seen
        empty &= ~seen
    state[_SEEN_EMPTY] = state[_SEEN_EMPTY] & keep | empty
    squares = seen_window
    while squares:
        square = lsb(squares)
        squares ^= BIT[square]
        state[_AGES + square] = 0
    _write_frame(state, frame, 2, seen_window, -1, -1, -1, -1, -1, -1, False, skipped, before, incremental)
    return True


@nb.njit(cache=True)
def fold_moved(
    state: np.ndarray, frame: np.ndarray, req_from: int, req_to: int, not_taken: bool,
    taken_from: int, taken_to: int, promotion: int, capture: int, incremental: bool,
) -> bool:  # fmt: skip
    """MoveResult: squares -1 for none (`req_from` -1: we passed; `taken_from` -1: nothing moved)."""
    before = _planes(state)
    flip = _flip(state)
    own = state[0] | state[1] | state[2] | state[3] | state[4] | state[5]
    src = -1 if taken_from < 0 else taken_from ^ flip
    if src >= 0 and not own & BIT[src]:
        return False
    captured = -1
    if capture >= 0:
        captured = capture ^ flip
        _see_empty(state, BIT[captured])
        state[_AGES + captured] = 0
        state[_CAPTURES] += _ONE
    dst = -1
    if src >= 0:
        dst = taken_to ^ flip
        piece = 0
        for index in range(6):
            if state[index] & BIT[src]:
                piece = index + 1
        _put(state, src, 0)
        _put(state, dst, promotion if promotion else piece)
        _see_empty(state, BIT[dst])
        state[_AGES + dst] = 0
        if core.is_castling(piece - 1, src, dst):  # castling (relative squares keep the files)
            rook_src, rook_dst = core.castling_rook(src, dst)
            _put(state, rook_src, 0)
            _put(state, rook_dst, chess.ROOK)
    state[_TURN] += _ONE
    passed = req_from < 0
    _write_frame(state, frame, 3, np.uint64(0), -1, -1 if passed else req_from ^ flip, -1 if passed else req_to ^ flip,
                 src, dst, captured, not_taken, passed, before, incremental)  # fmt: skip
    return True


def board_array(pieces: dict[chess.Square, chess.Piece]) -> np.ndarray:
    """uint64[8] (pawns .. kings, White's, Black's: the arbiter's compiled layout) of a piece map."""
    board = np.zeros(8, dtype=np.uint64)
    for square, piece in pieces.items():
        bit = np.uint64(1 << square)
        board[piece.piece_type - 1] |= bit
        board[6 if piece.color == chess.WHITE else 7] |= bit
    return board


class StreamEncoder:
    """Turns one player's observation events into frames (see the module docstring).

    Stateful and O(1) per event; `copy` for an independent encoder (beliefs copy theirs).
    `GameEnded` yields no frame (`push` returns None).

    The state is one uint64 array (`STATE_SIZE`; its layout is at the kernels above), and each
    event is folded in by a compiled kernel that takes the event's squares and bitboards as
    integers: the learning environment calls the same kernels with the integers of its compiled
    game step, so both read frames from one implementation.

    Args:
        state: the array to keep the state in (a view the caller owns, e.g. one row of the
            environment's per-player states); None: a new one.
    """

    def __init__(self, state: Optional[np.ndarray] = None) -> None:
        self.state = np.zeros(STATE_SIZE, dtype=np.uint64) if state is None else state
        if state is None:
            self.state[_AGES:] = NEVER_SEEN

    def copy(self) -> StreamEncoder:
        return StreamEncoder(self.state.copy())

    @property
    def color(self) -> chess.Color:
        if self.state[_COLOR] == _NO_COLOR:
            raise NotInitialisedError("the encoder has not received GameStarted")
        return bool(self.state[_COLOR] == _WHITE)

    def push(self, event: Observation) -> Optional[np.ndarray]:
        """Fold `event` in and return its frame (shape ``(FRAME_SIZE,)`` uint8), or None for `GameEnded`."""
        frame = np.empty(FRAME_SIZE, dtype=np.uint8)
        return frame if self.fold(event, frame) else None

    def fold(self, event: Observation, frame: np.ndarray) -> bool:
        """Fold `event` in and write its frame into `frame` (uint8, ``(FRAME_SIZE,)``); False for `GameEnded` (no frame).

        Raises:
            NotInitialisedError: an event before GameStarted.
            UnexpectedObservationError: not an event, or one that contradicts what the player knows (our piece
                captured or moved where we have none); the encoder is unchanged.
        """
        if isinstance(event, GameEnded):
            _ = self.color  # raises before GameStarted
            return False
        kind = _KIND_OF.get(type(event))
        if kind is None:
            raise UnexpectedObservationError(f"not an observation event: {event!r}")
        if kind:
            _ = self.color  # raises before GameStarted
        state = self.state
        if isinstance(event, SenseResult):
            window = 0
            for square, _piece in event.window:
                window |= 1 << square
            pieces = {square: piece for square, piece in event.window if piece is not None}
            return bool(fold_sensed(state, frame, event.square is None, np.uint64(window), board_array(pieces), False))
        if isinstance(event, MoveResult):
            requested, taken, capture = event.requested_move, event.taken_move, event.capture_square
            ok = fold_moved(
                state, frame, -1 if requested is None else requested.from_square, -1 if requested is None else requested.to_square,
                requested is not None and requested != taken, -1 if taken is None else taken.from_square,
                -1 if taken is None else taken.to_square, 0 if taken is None else taken.promotion or 0,
                -1 if capture is None else capture, False,
            )  # fmt: skip
            if not ok:
                assert taken is not None, "only a taken move can name a square without our piece"
                raise UnexpectedObservationError(f"{event!r}: no piece of ours on {chess.square_name(taken.from_square)}")
            return True
        if isinstance(event, OpponentMoved):
            capture = event.capture_square
            if not fold_opponent_moved(state, frame, -1 if capture is None else capture, False):
                assert capture is not None, "only a capture can name a square without our piece"
                raise UnexpectedObservationError(f"{event!r}: no piece of ours on {chess.square_name(capture)}")
            return True
        assert isinstance(event, GameStarted), "_KIND_OF has four types"
        return bool(fold_start(state, frame, event.color == chess.WHITE, board_array(event.starting_board().piece_map())))

    def own_types(self) -> np.ndarray:
        """Shape (64,) int8, relative squares: our piece type on each square now (0 for none)."""
        return _types_of(self.state[:6])

    def known_contents(self) -> np.ndarray:
        """Shape (64,) int8, relative squares: what a square holds for certain, -1 where unknown.

        A square seen since the opponent's last move (age 0: this turn's sense window, or the
        square our capture emptied) still holds what it showed, since only the opponent's
        moves change what we cannot see: 0 for no opponent piece, 1..6 the opponent's type.
        Our own squares are not included (`own_types` has them).
        """
        state = self.state
        seen = _types_of(state[_SEEN_OPP:_SEEN_EMPTY])
        seen[(seen == 0) & ~_bits(state[_SEEN_EMPTY : _SEEN_EMPTY + 1]).astype(bool)] = -1
        fresh = state[_AGES:] == 0
        known = np.where(fresh & (_types_of(state[:6]) == 0), seen, -1).astype(np.int8)
        return known


def _bits(boards: np.ndarray) -> np.ndarray:
    """Shape (len(boards) * 64,) uint8: the bits of each bitboard, square 0 first."""
    return np.unpackbits(boards.astype("<u8").view(np.uint8), bitorder="little")


def _types_of(boards: np.ndarray) -> np.ndarray:
    """Shape (64,) int8: the type (1..6) whose bitboard of `boards` holds each square, 0 for none."""
    planes = _bits(boards).reshape(6, 64).astype(np.int8)
    types: np.ndarray = (planes * _PIECE_TYPES).sum(axis=0, dtype=np.int8)
    return types




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
