"""The batched environment's compiled step: N games advanced by one action each in one numba call.

Why: a learner needs millions of steps, and a step through Python (`RbcEnv`, `BotOpponentEnv`,
Gymnasium's `AsyncVectorEnv`) costs microseconds to milliseconds of interpreter and pipe time. Here
one call walks every game of the batch: it plays the caller's action with the single-game
environment's own compiled step (:func:`blindchess.env.env_step.step`: the arbiter's compiled
game and the shared encoder's kernels, so observations are byte-identical), then plays the
in-batch opponent's turns (sense and move) until the caller is to act again, and when a game ends
records its result and starts the next game in place. No rules are written here: the legal lists,
revision, push and end come from :mod:`blindchess.arbiter.rules.compiled_game` through that step; the
opponents only choose among the listed actions.

Per-game arrays (first axis the game; :class:`blindchess.env.batch.BatchedGames` allocates them):
``board`` (N, 8) and ``game`` (N, 9) the compiled game; ``states`` (N, 2, STATE_SIZE) and ``frames``
(N, 2, 2, FRAME_SIZE) both players' encoders (row 0 Black, 1 White); ``legal`` (N, 1025) the listed
actions of the phase to play; ``mask`` (N, 16449) their mask; ``slots`` (N, `SLOT_SIZE`) int64 the
game's small fields, indexed by the constants below (one array, not twelve: numba's dispatch costs
per argument, and a small batch pays it per step).

Opponents (``opponent[g]``), each choosing only among the listed actions:

- `RANDOM`: reconchess's random bot (`blindchess.bots.random_bot.RandomBot`): a sense on one of the
  64 squares uniformly (never the skip), a move uniformly among the listed move actions and the pass
  (the list holds a pawn's diagonal onto the last rank twice, as `LocalGame.move_actions` does, so the
  draw is the bot's over the same list);
- `ATTACKER`: `blindchess.bots.attacker_bot.AttackerBot`: one of its four rushes drawn at the game's
  start, each planned move skipped while it is not listed, a pass once the plan is done, and the
  random bot's senses. It differs from the Python bot only in its random numbers (its own stream
  per game, not numpy's generator): the plan logic is the bot's, move for move.

Randomness is counter-based: a game's stream is seeded from (seed, game index, reset count) by
SplitMix64, so every game replays from those three numbers and the caller's actions, whatever the
batch size or the order the games are stepped in.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from blindchess.arbiter.rules.compiled_game import FULL_TURN_LIMIT, NONE, REASON, TURN, WINNER

from .env_step import step

RANDOM, ATTACKER = 0, 1
"""The in-batch opponents (``opponent[g]``)."""
BLACK_SIDE, WHITE_SIDE, BOTH_SIDES, ALTERNATE = 0, 1, 2, 3
"""``caller[g]``: which colour's actions the caller supplies (both: self-play, no in-batch opponent);
``side_mode`` `ALTERNATE`: White in a slot's even-numbered games (counting from the slot's index), else Black."""
N_LEGAL, SENSING, CALLER, OPPONENT, ATTACK, PLAN_STEP, GAMES, LOG_LEN, DONE_LEN, WINNER_OF, REASON_OF, LENGTH = range(12)
SLOT_SIZE = 12
"""``slots[g]``: how many actions are listed, 1 while the next is a sense, the caller's colour (``CALLER``),
the opponent, the attacker's rush and its next step, games started, the running and the last finished
game's log lengths, and the last finished game's winner (1 White, 0 Black, -1 none), reason and actions."""
PLAN_LENGTH = 8
"""Room per rush in the attacker's plan table (the longest has 6 moves; -1 pads)."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1, _MIX_2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


@nb.njit(cache=True)
def _mix(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser: a bijection of 64-bit words that scrambles every bit."""
    z = (z ^ (z >> _S30)) * _MIX_1
    z = (z ^ (z >> _S27)) * _MIX_2
    mixed: np.uint64 = z ^ (z >> _S31)
    return mixed


@nb.njit(cache=True)
def stream_seed(seed: np.uint64, index: np.uint64, resets: np.uint64) -> np.uint64:
    """The first state of game `index`'s stream in its `resets`-th game of a batch seeded `seed`."""
    first: np.uint64 = _mix(_mix(_mix(seed + _GOLDEN) ^ index) + resets * _GOLDEN)
    return first


@nb.njit(cache=True)
def draw(rng: np.ndarray, g: int, n: int) -> np.int64:
    """A uniform integer in [0, n) from game `g`'s stream (SplitMix64; n below 2**32), the stream advanced."""
    rng[g] += _GOLDEN
    word = _mix(rng[g]) >> _S32
    drawn: np.int64 = np.int64((word * np.uint64(n)) >> _S32)
    return drawn


@nb.njit(cache=True)
def _opponent_action(
    g: int, sensing: bool, legal: np.ndarray, slots: np.ndarray, rng: np.ndarray, plans: np.ndarray, white: int
) -> int:
    """The in-batch opponent's action for the phase listed in ``legal[:slots[g, N_LEGAL]]`` (NONE last)."""
    if sensing:
        return int(draw(rng, g, NONE))  # a square, never the skip: the random bot's sense
    n_legal = slots[g, N_LEGAL]
    if slots[g, OPPONENT] == ATTACKER:
        rush = plans[white, slots[g, ATTACK]]
        while slots[g, PLAN_STEP] < PLAN_LENGTH and rush[slots[g, PLAN_STEP]] >= 0:
            wanted = rush[slots[g, PLAN_STEP]]
            slots[g, PLAN_STEP] += 1
            for index in range(n_legal - 1):
                if legal[index] == wanted:
                    return int(wanted)
        return NONE
    return int(legal[draw(rng, g, n_legal)])  # the move actions and the pass (NONE, listed last)


@nb.njit(cache=True)
def _copy_frames(target: np.ndarray, source: np.ndarray) -> None:
    """``target[:] = source`` for a (2, FRAME_SIZE) frame pair: numba's slice assignment is ten times slower."""
    for row in range(source.shape[0]):
        for index in range(source.shape[1]):
            target[row, index] = source[row, index]


@nb.njit(cache=True)
def _restart(
    g: int, board: np.ndarray, game: np.ndarray, states: np.ndarray, frames: np.ndarray, legal: np.ndarray,
    mask: np.ndarray, slots: np.ndarray, start_board: np.ndarray, start_game: np.ndarray, start_states: np.ndarray,
    start_frames: np.ndarray,
) -> None:  # fmt: skip
    """Game `g` back to the start (White to sense; the mask's old entries must be cleared already)."""
    board[g, :] = start_board
    game[g, :] = start_game
    for color in range(2):
        for index in range(start_states.shape[1]):
            states[g, color, index] = start_states[color, index]
        _copy_frames(frames[g, color], start_frames[color])
    for index in range(NONE + 1):
        legal[g, index] = index
        mask[g, index] = 1
    slots[g, N_LEGAL] = NONE + 1
    slots[g, SENSING] = 1
    slots[g, LOG_LEN] = 0


@nb.njit(cache=True)
def _record_end(
    g: int, viewer: int, game: np.ndarray, frames: np.ndarray, slots: np.ndarray, log: np.ndarray, done_log: np.ndarray,
    final_observation: np.ndarray, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray,
) -> None:  # fmt: skip
    """Record game `g`'s end: its result, the reward for `viewer`, its last observation and its log."""
    result = game[g, WINNER]
    length = slots[g, LOG_LEN]
    slots[g, WINNER_OF], slots[g, REASON_OF], slots[g, LENGTH] = result, game[g, REASON], length
    reward[g] = 0.0 if result < 0 else (1.0 if result == viewer else -1.0)
    if game[g, REASON] == FULL_TURN_LIMIT:  # a truncation, as in RbcEnv
        truncated[g] = True
    else:
        terminated[g] = True
    _copy_frames(final_observation[g], frames[g, viewer])
    slots[g, DONE_LEN] = length
    for index in range(length):
        done_log[g, index] = log[g, index]


@nb.njit(cache=True)
def advance(
    actions: np.ndarray, board: np.ndarray, game: np.ndarray, states: np.ndarray, frames: np.ndarray,
    legal: np.ndarray, mask: np.ndarray, slots: np.ndarray, rng: np.ndarray, encode: bool, side_mode: int,
    plans: np.ndarray, seed: np.uint64, log: np.ndarray, done_log: np.ndarray,
    start_board: np.ndarray, start_game: np.ndarray, start_states: np.ndarray, start_frames: np.ndarray,
    observation: np.ndarray, final_observation: np.ndarray, reward: np.ndarray, terminated: np.ndarray,
    truncated: np.ndarray,
) -> int:  # fmt: skip
    """Play ``actions[g]`` in every game `g` with ``actions[g] >= 0`` (-1: restart game `g` instead), then the
    in-batch opponent's turns until the caller is to act; write each game's observation for the caller.

    A game that ends is recorded (``reward`` for the colour that was to act when the call began;
    ``terminated``/``truncated``; the result in ``slots``; its log moved to ``done_log``, its last frames
    of that colour to ``final_observation``) and restarted. Returns the longest running log, so that the
    caller can widen the logs before they fill. Unchecked: every action must be in its game's mask.
    """
    longest = 0
    for g in range(actions.shape[0]):
        action = actions[g]
        reward[g] = 0.0
        terminated[g] = False
        truncated[g] = False
        viewer = game[g, TURN]
        restart = action < 0
        if restart:
            for index in range(slots[g, N_LEGAL]):
                mask[g, legal[g, index]] = 0
        while True:
            if restart:
                number = slots[g, GAMES]  # this slot's game number: its stream, and its colour when alternating
                slots[g, GAMES] += 1
                rng[g] = stream_seed(seed, np.uint64(g), np.uint64(number))
                _restart(g, board, game, states, frames, legal, mask, slots, start_board, start_game, start_states,
                         start_frames)  # fmt: skip
                if side_mode == ALTERNATE:
                    slots[g, CALLER] = 1 - ((g + number) & 1)
                slots[g, ATTACK] = draw(rng, g, 4)
                slots[g, PLAN_STEP] = 0
                restart = False
            mover = game[g, TURN]
            sensing = slots[g, SENSING] == 1
            if action < 0:  # nothing to play: the opponent plays if it is to act, else it is the caller's turn
                caller = slots[g, CALLER]
                if caller in (BOTH_SIDES, mover):
                    break
                action = _opponent_action(g, sensing, legal[g], slots, rng, plans, mover)
            log[g, slots[g, LOG_LEN]] = action
            slots[g, LOG_LEN] += 1
            n = step(board[g], game[g], states[g], frames[g], legal[g], mask[g], slots[g, N_LEGAL], action, sensing, encode)
            action = -1
            if n == 0:  # the game is over (`step` cleared its mask entries): record it and start the next
                _record_end(g, viewer, game, frames, slots, log, done_log, final_observation, reward, terminated, truncated)
                restart = True
                continue
            slots[g, N_LEGAL] = n
            slots[g, SENSING] = 0 if sensing else 1
        if encode and side_mode >= BOTH_SIDES:  # a fixed colour's observation is a view of its frames (no copy)
            _copy_frames(observation[g], frames[g, game[g, TURN]])
        if slots[g, LOG_LEN] > longest:
            longest = slots[g, LOG_LEN]
    return longest


@nb.njit(cache=True)
def first_illegal(actions: np.ndarray, mask: np.ndarray) -> int:
    """The first game whose action is outside its mask (or the action range); -1 when every action is allowed."""
    size = mask.shape[1]
    for g in range(actions.shape[0]):
        action = actions[g]
        if action < 0 or action >= size or not mask[g, action]:
            return g
    return -1


@nb.njit(cache=True)
def sample_legal(legal: np.ndarray, slots: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """``out[g]``: a uniform draw from game `g`'s listed actions, from the caller's own streams `rng`."""
    for g in range(out.shape[0]):
        out[g] = legal[g, draw(rng, g, slots[g, N_LEGAL])]
