"""What a learner sees: the latest two frames of its observation stream, from the shared encoder.

The frames are :class:`~blindchess.beliefs.encoding.StreamEncoder`'s, the same tensors the neural
posterior reads (one encoder, not a copy). Two frames because between two decisions of one player
at most two events arrive: before a sense, the result of its own last move and the
opponent's turn (``MoveResult``, ``OpponentMoved``); before a move, the sense result (then the
earlier frame is the turn's ``OpponentMoved``). So the pair never drops an event's own planes
(which move was taken, what was captured), and the encoder's memory planes carry everything older.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from blindchess.arbiter.game.observations import GameEnded, Observation
from blindchess.beliefs.encoding import FRAME_SIZE, StreamEncoder

N_FRAMES = 2
OBSERVATION_SHAPE = (N_FRAMES, FRAME_SIZE)
"""The shape of the ``"observation"`` entry: (earlier frame, latest frame), uint8."""


class FrameWindow:
    """One player's stream encoder and its latest two frames (zeros before the first events).

    The environment keeps both players' encoder states and frame pairs in two arrays, so that its
    compiled step folds the events in with the encoder's own kernels; a window is the view of one
    player's rows, for the events that come from the `LocalGame` (the game start, a bot's turn).

    Args:
        encode: False keeps the frames at zero and skips the encoder (for throughput without observations).
        state: the encoder's state (see `StreamEncoder`); None: its own.
        frames: shape ``OBSERVATION_SHAPE`` uint8, the (earlier, latest) pair; None: its own.
    """

    def __init__(self, encode: bool = True, state: Optional[np.ndarray] = None, frames: Optional[np.ndarray] = None) -> None:
        self.encode = encode
        self.encoder = StreamEncoder(state)
        self.pair = np.zeros(OBSERVATION_SHAPE, dtype=np.uint8) if frames is None else frames

    def push(self, event: Observation) -> None:
        """Fold `event` in; its frame (``GameEnded`` has none) becomes the latest."""
        if not self.encode or isinstance(event, GameEnded):
            return
        frame = self.encoder.push(event)  # into a new array first: a refused event changes nothing
        if frame is not None:
            self.pair[0] = self.pair[1]
            self.pair[1] = frame

    def frames(self) -> np.ndarray:
        """A new array of (earlier frame, latest frame)."""
        pair: np.ndarray = self.pair.copy()
        return pair
