"""The batched environment's compiled step: N games advanced by one action each in one numba call.

Why: a learner needs millions of steps, and a step through Python (`RbcEnv`, `BotOpponentEnv`,
Gymnasium's `AsyncVectorEnv`) costs microseconds to milliseconds of interpreter and pipe time. Here
one call walks every game of the batch: it plays the caller's action with the single-game
environment's own compiled step (:func:`blindchess.env.step_kernel.step`: the arbiter's compiled
game and the shared encoder's kernels, so observations are byte-identical), then plays the
in-batch opponent's turns (sense and move) until the caller is to act again, and when a game ends
records its result and starts the next game in place. No rules are written here: the legal lists,
revision, push and end come from :mod:`blindchess.arbiter.compiled_game` through that step; the
opponents only choose among the listed actions.

Per-game arrays (first axis the game; :class:`blindchess.env.batch.BatchedGames` allocates them):
``board`` (N, 8) and ``game`` (N, 9) the compiled game; ``states`` (N, 2, STATE_SIZE) and ``frames``
(N, 2, 2, FRAME_SIZE) both players' encoders (row 0 Black, 1 White); ``legal`` (N, 1025) and
``n_legal`` (N,) the listed actions of the phase to play; ``mask`` (N, 16449) the mask of those
actions; ``sensing`` (N,) 1 while the next action is a sense.

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

from blindchess.arbiter.compiled_game import FULL_TURN_LIMIT, NONE, REASON, TURN, WINNER

from .step_kernel import step

RANDOM, ATTACKER = 0, 1
"""The in-batch opponents (``opponent[g]``)."""
BLACK_SIDE, WHITE_SIDE, BOTH_SIDES, ALTERNATE = 0, 1, 2, 3
"""``caller[g]``: which colour's actions the caller supplies (both: self-play, no in-batch opponent);
``side_mode`` `ALTERNATE`: White in a slot's even-numbered games (counting from the slot's index), else Black."""
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
    return z ^ (z >> _S31)


@nb.njit(cache=True)
def stream_seed(seed: np.uint64, index: np.uint64, resets: np.uint64) -> np.uint64:
    """The first state of game `index`'s stream in its `resets`-th game of a batch seeded `seed`."""
    return _mix(_mix(_mix(seed + _GOLDEN) ^ index) + resets * _GOLDEN)


@nb.njit(cache=True)
def draw(rng: np.ndarray, g: int, n: int) -> np.int64:
    """A uniform integer in [0, n) from game `g`'s stream (SplitMix64; n below 2**32), the stream advanced."""
    rng[g] += _GOLDEN
    word = _mix(rng[g]) >> _S32
    return np.int64((word * np.uint64(n)) >> _S32)


@nb.njit(cache=True)
def _opponent_action(
    g: int, kind: int, sensing: bool, legal: np.ndarray, n_legal: int, rng: np.ndarray,
    plans: np.ndarray, plan: np.ndarray, plan_step: np.ndarray, white: int,
) -> int:  # fmt: skip
    """The in-batch opponent's action for the phase listed in ``legal[:n_legal]`` (NONE last)."""
    if sensing:
        return draw(rng, g, NONE)  # a square, never the skip: the random bot's sense
    if kind == ATTACKER:
        rush = plans[white, plan[g]]
        while plan_step[g] < PLAN_LENGTH and rush[plan_step[g]] >= 0:
            wanted = rush[plan_step[g]]
            plan_step[g] += 1
            for index in range(n_legal - 1):
                if legal[index] == wanted:
                    return int(wanted)
        return NONE
    return int(legal[draw(rng, g, n_legal)])  # the move actions and the pass (NONE, listed last)


@nb.njit(cache=True)
def _restart(
    g: int, board: np.ndarray, game: np.ndarray, states: np.ndarray, frames: np.ndarray, legal: np.ndarray,
    n_legal: np.ndarray, mask: np.ndarray, sensing: np.ndarray, start_board: np.ndarray, start_game: np.ndarray,
    start_states: np.ndarray, start_frames: np.ndarray,
) -> None:  # fmt: skip
    """Game `g` back to the start (White to sense; the mask's old entries must be cleared already)."""
    board[g] = start_board
    game[g] = start_game
    states[g] = start_states
    frames[g] = start_frames
    for index in range(NONE + 1):
        legal[g, index] = index
        mask[g, index] = 1
    n_legal[g] = NONE + 1
    sensing[g] = 1


@nb.njit(cache=True)
def advance(
    actions: np.ndarray, board: np.ndarray, game: np.ndarray, states: np.ndarray, frames: np.ndarray,
    legal: np.ndarray, n_legal: np.ndarray, mask: np.ndarray, sensing: np.ndarray, encode: bool,
    caller: np.ndarray, side_mode: int, opponent: np.ndarray, plans: np.ndarray, plan: np.ndarray, plan_step: np.ndarray,
    seed: np.uint64, resets: np.ndarray, rng: np.ndarray,
    log: np.ndarray, log_len: np.ndarray, done_log: np.ndarray, done_len: np.ndarray,
    start_board: np.ndarray, start_game: np.ndarray, start_states: np.ndarray, start_frames: np.ndarray,
    observation: np.ndarray, final_observation: np.ndarray, reward: np.ndarray, terminated: np.ndarray,
    truncated: np.ndarray, winner: np.ndarray, reason: np.ndarray, length: np.ndarray,
) -> int:  # fmt: skip
    """Play ``actions[g]`` in every game `g` with ``actions[g] >= 0`` (-1: reset game `g` instead), then the
    in-batch opponent's turns until the caller is to act; write each game's observation for the caller.

    A game that ends is recorded (``reward`` from the view of the colour whose action ended it or was
    answered by the ending opponent turn, ``terminated``/``truncated``, ``winner`` 1 White, 0 Black, -1 none,
    ``reason`` the compiled game's, ``length`` its actions, its log moved to ``done_log``, its last
    observation to ``final_observation``) and restarted. Returns the longest running log, so the caller can
    grow the logs before they fill. Unchecked: every action must be in its game's mask.
    """
    n_games = actions.shape[0]
    longest = 0
    for g in range(n_games):
        action = actions[g]
        reward[g] = 0.0
        terminated[g] = False
        truncated[g] = False
        viewer = game[g, TURN]
        ended = False
        restart = action < 0
        if restart:
            for index in range(n_legal[g]):
                mask[g, legal[g, index]] = 0
        while True:
            if ended:  # record the game that just ended (`step` cleared its mask entries), then restart it
                result = game[g, WINNER]
                winner[g], reason[g], length[g] = result, game[g, REASON], log_len[g]
                reward[g] = 0.0 if result < 0 else (1.0 if result == viewer else -1.0)
                if game[g, REASON] == FULL_TURN_LIMIT:  # a truncation, as in RbcEnv
                    truncated[g] = True
                else:
                    terminated[g] = True
                final_observation[g] = frames[g, viewer]
                done_len[g] = log_len[g]
                done_log[g, : log_len[g]] = log[g, : log_len[g]]
                ended, restart = False, True
            if restart:
                number = resets[g]  # this slot's game number: its stream, and its colour when alternating
                resets[g] += 1
                rng[g] = stream_seed(seed, np.uint64(g), np.uint64(number))
                log_len[g] = 0
                _restart(g, board, game, states, frames, legal, n_legal, mask, sensing, start_board, start_game,
                         start_states, start_frames)  # fmt: skip
                if side_mode == ALTERNATE:
                    caller[g] = 1 - ((g + number) & 1)
                plan[g] = draw(rng, g, 4)
                plan_step[g] = 0
                restart = False
            mover = game[g, TURN]
            if action < 0:  # nothing to play: the opponent plays if it is to act, else the caller's turn
                if caller[g] == BOTH_SIDES or caller[g] == mover:
                    break
                action = _opponent_action(g, opponent[g], sensing[g] == 1, legal[g], n_legal[g], rng, plans, plan, plan_step,
                                          mover)  # fmt: skip
            log[g, log_len[g]] = action
            log_len[g] += 1
            n = step(board[g], game[g], states[g], frames[g], legal[g], mask[g], n_legal[g], action, sensing[g] == 1, encode)
            action = -1
            if n == 0:
                ended = True
                continue
            n_legal[g] = n
            sensing[g] = 1 - sensing[g]
        observation[g] = frames[g, game[g, TURN]]
        if log_len[g] > longest:
            longest = log_len[g]
    return longest


@nb.njit(cache=True)
def sample_legal(legal: np.ndarray, n_legal: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """``out[g]``: a uniform draw from game `g`'s listed actions, from the caller's own streams `rng`."""
    for g in range(out.shape[0]):
        out[g] = legal[g, draw(rng, g, n_legal[g])]
