"""One environment step in one compiled call: the arbiter's compiled game step and the shared encoder's fold.

Why: an environment step through `LocalGame` and the Python encoder costs tens of microseconds of
interpreted code; OpenSpiel's whole `rbc` step, observation tensor included, costs about 30. Here a
step is one numba call that plays the action on the arbiter's compiled game
(:mod:`blindchess.arbiter.rules.compiled_game`), folds the events it makes into the players' encoder
states with the encoder's own kernels (:mod:`blindchess.beliefs.encoding`: the same code the neural
posterior runs, not a copy), and writes the next phase's legal actions and mask. It lives here, above
both, because the arbiter may not import the beliefs.

The events are `LocalGame`'s, in its order: a sense makes the mover's ``SenseResult``; a move makes
the mover's ``MoveResult`` and, unless the game is over, the opponent's ``OpponentMoved`` as its turn
begins (``GameStarted`` and the first ``OpponentMoved`` come from the `LocalGame` at the start). Each
frame becomes its player's latest, the one before it the earlier (the pair the agent observes). The
latest is copied to the earlier and then folded into in place (the folds' ``incremental``): only the
squares whose bits changed are rewritten, not every piece (scattering them was most of a step's cost).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from blindchess.arbiter.rules.compiled_game import (
    NONE,
    SENSE_WINDOWS,
    TURN,
    end_of_turn,
    move_action_numbers,
    push,
    request,
)
from blindchess.beliefs.encoding import fold_moved, fold_opponent_moved, fold_sensed

_NO_SQUARES = np.uint64(0)


@nb.njit(cache=True)
def _shift(frames: np.ndarray, player: int) -> None:
    """The player's latest frame becomes its earlier one (a loop: numba compiles a slice copy far more slowly)."""
    for index in range(frames.shape[2]):
        frames[player, 0, index] = frames[player, 1, index]


@nb.njit(cache=True)
def step(
    board: np.ndarray, game: np.ndarray, states: np.ndarray, frames: np.ndarray, legal: np.ndarray, mask: np.ndarray,
    n_legal: int, action: int, sensing: bool, encode: bool,
) -> int:  # fmt: skip
    """Play `action` (a sense if `sensing`, else a move) and list the next phase's actions.

    Args:
        board, game: the compiled game's state (changed in place).
        states: shape (2, STATE_SIZE) uint64, the encoder state of Black (row 0) and White (row 1).
        frames: shape (2, 2, FRAME_SIZE) uint8, each player's (earlier, latest) frames.
        legal: the legal actions of the phase just played in its first `n_legal` entries; overwritten
            with the next phase's (NONE last).
        mask: the action mask: the old actions' entries cleared, the new ones set.
        encode: False skips the encoder (the frames stay as they are).

    Returns:
        How many legal actions the next phase has; 0 when the game is over (nothing listed).
        Unchecked: `action` must be in the mask.
    """
    mover = game[TURN]
    for index in range(n_legal):
        mask[legal[index]] = 0
    if sensing:
        if encode:
            _shift(frames, mover)
            skipped = action == NONE
            window = _NO_SQUARES if skipped else SENSE_WINDOWS[action]
            fold_sensed(states[mover], frames[mover, 1], skipped, window, board, True)
        n = move_action_numbers(board, game, legal)
        legal[n] = NONE
        n += 1
    else:
        origin, target, requested_promotion, taken, promotion, capture = request(board, game, action)
        moved = origin if taken >= 0 else -1
        push(board, game, moved, taken, promotion)
        if encode:
            _shift(frames, mover)
            revised = origin >= 0 and (taken != target or promotion != requested_promotion)
            fold_moved(states[mover], frames[mover, 1], origin, target, revised, moved, taken, promotion, capture, True)
        if end_of_turn(board, game):
            return 0
        if encode:
            _shift(frames, 1 - mover)
            fold_opponent_moved(states[1 - mover], frames[1 - mover, 1], capture, True)
        for index in range(NONE + 1):
            legal[index] = index
        n = NONE + 1
    for index in range(n):
        mask[legal[index]] = 1
    return n
