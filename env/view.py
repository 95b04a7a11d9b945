"""What a learner sees: the latest two frames of its observation stream, from the shared encoder.

The frames are :class:`~blindchess.beliefs.encoding.StreamEncoder`'s, the same tensors the neural
posterior reads (one encoder, not a copy). Two frames because between two decisions of one player
at most two events arrive: before a sense, the result of its own last move and the
opponent's turn (``MoveResult``, ``OpponentMoved``); before a move, the sense result (then the
earlier frame is the turn's ``OpponentMoved``). So the pair never drops an event's own planes
(which move was taken, what was captured), and the encoder's memory planes carry everything older.
"""

from __future__ import annotations

import numpy as np

from blindchess.arbiter.observations import Observation
from blindchess.beliefs.encoding import FRAME_SIZE, ZERO_PARTS, StreamEncoder, frames_of

N_FRAMES = 2
OBSERVATION_SHAPE = (N_FRAMES, FRAME_SIZE)
"""The shape of the ``"observation"`` entry: (earlier frame, latest frame), uint8."""


class FrameWindow:
    """One player's stream encoder and its latest two frames (zeros before the first events).

    Args:
        encode: False keeps the frames at zero and skips the encoder (for throughput without observations).
    """

    def __init__(self, encode: bool = True) -> None:
        self.encode = encode
        self.encoder = StreamEncoder()
        self._pair = (ZERO_PARTS, ZERO_PARTS)  # (earlier, latest), made into frames only when read

    def push(self, event: Observation) -> None:
        """Fold `event` in; its frame (``GameEnded`` has none) becomes the latest."""
        if not self.encode:
            return
        parts = self.encoder.fold(event)
        if parts is not None:
            self._pair = (self._pair[1], parts)

    def frames(self) -> np.ndarray:
        """A new array of (earlier frame, latest frame)."""
        return frames_of(self._pair)
