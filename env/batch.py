"""`BatchedGames`: N games of 8x8 RBC held as numpy arrays and stepped together in one compiled call.

Why: training is limited by steps per second, and one game at a time (`RbcEnv`, OpenSpiel's `rbc`)
or one game per process (`AsyncVectorEnv` over `BotOpponentEnv`) spends most of each step in the
interpreter and in pipes. Here every array has the game as its first axis, and `step` advances all
games by one action each in one numba call (:func:`blindchess.env.batch_step.advance`), which
also plays the in-batch opponent's turns and restarts finished games. The rules are the arbiter's
compiled game and the observations the shared encoder's, through the single-game environment's
own compiled step, so every game equals `play_local_game` on the same actions and every
observation and mask equals `RbcEnv`'s (tests/unit/env/test_batch_differential.py).

Who acts: ``sides="white"`` or ``"black"``: the caller plays that colour and the in-batch
``opponent`` (``"random"`` or ``"attacker"``, see :mod:`blindchess.env.batch_step`) the other, inside
the step; ``"alternate"``: the caller's colour switches every game of a slot; ``"both"``: self-play,
the caller supplies the action of whichever colour is to act in each game (``to_act``).

The arrays the caller reads are live buffers, overwritten by the next `step` (copy what you keep);
``torch.from_numpy(batch.observation)`` shares their memory. After a `step`: ``observation`` (N, 2,
1353) uint8 the two latest frames of the player to act, ``mask`` (N, 16449) int8 its action mask,
``legal[g, :n_legal[g]]`` the same actions listed (NONE last), ``phase`` 1 for a sense; for games that
ended in this step (``terminated | truncated``): ``reward`` (+1/-1/0 for the colour that acted),
``winner`` (1 White, 0 Black, -1 draw), ``reason`` (`compiled_game`'s), ``length`` (actions of the
game), ``final_observation``, and the game's record (`history`). A finished game has already
restarted: its ``observation`` is the new game's.

Example:

>>> import numpy as np
>>> batch = BatchedGames(4, sides="white", opponent="random", turn_limit=5)
>>> batch.reset(seed=1)
>>> batch.observation.shape, batch.mask.shape, int(batch.mask[0].sum())
((4, 2, 1353), (4, 16449), 65)
>>> for _ in range(40):
...     batch.step(batch.random_actions())
>>> int(batch.games_started.sum()) > 4, batch.history(0).get_white_player_name()
(True, 'learner')
"""

from __future__ import annotations

from typing import Optional

import chess
import numpy as np

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.rules import compiled_game
from blindchess.arbiter.rules.compiled_game import MAX_MOVE_ACTIONS
from blindchess.beliefs.encoding import FRAME_SIZE, STATE_SIZE
from blindchess.bots.attacker_bot import QUICK_ATTACKS, flipped_move
from blindchess.errors import BlindchessError

from . import batch_step
from .actions import ActionCodec
from .aec import RbcEnv
from .view import N_FRAMES

SIDES = {"black": batch_step.BLACK_SIDE, "white": batch_step.WHITE_SIDE, "both": batch_step.BOTH_SIDES,
         "alternate": batch_step.ALTERNATE}  # fmt: skip
OPPONENTS = {"random": batch_step.RANDOM, "attacker": batch_step.ATTACKER}
CODEC = ActionCodec(tuple(chess.SQUARES))
_LOG_START = 256


def attacker_plans() -> np.ndarray:
    """The attacker's rushes as action numbers: shape (2, 4, PLAN_LENGTH), [Black's, White's], -1 padded."""
    plans = np.full((2, len(QUICK_ATTACKS), batch_step.PLAN_LENGTH), -1, dtype=np.int64)
    for index, rush in enumerate(QUICK_ATTACKS):
        for step, move in enumerate(rush):
            plans[1, index, step] = CODEC.move_action(move)
            plans[0, index, step] = CODEC.move_action(flipped_move(move))
    return plans


class BatchedGames:
    """N games stepped together (see the module docstring).

    Args:
        n_games: the batch size, 1 or more.
        sides: ``"white"``, ``"black"``, ``"alternate"`` (the caller against the in-batch opponent) or
            ``"both"`` (self-play: the caller acts for both colours).
        opponent: ``"random"`` or ``"attacker"`` (unused with ``sides="both"``).
        turn_limit: full turns after which a game is drawn (a truncation); None: none.
        reversible_moves_limit: half-moves without a capture or pawn move that draw (a termination).
        observations: False skips the encoder (``observation`` stays zero): for masks-only rollouts.
    """

    def __init__(
        self,
        n_games: int,
        *,
        sides: str = "white",
        opponent: str = "random",
        turn_limit: Optional[int] = None,
        reversible_moves_limit: Optional[int] = 100,
        observations: bool = True,
    ) -> None:
        if not isinstance(n_games, int) or n_games < 1:
            raise ValueError(f"n_games {n_games!r} is not a positive int")
        if sides not in SIDES:
            raise ValueError(f"sides {sides!r} is not one of {', '.join(map(repr, SIDES))}")
        if opponent not in OPPONENTS:
            raise ValueError(f"opponent {opponent!r} is not one of {', '.join(map(repr, OPPONENTS))}")
        self.n_games, self.sides, self.opponent_name = n_games, sides, opponent
        self.turn_limit, self.reversible_moves_limit, self.encode = turn_limit, reversible_moves_limit, observations
        n = n_games
        self.board = np.zeros((n, compiled_game.BOARD_SIZE), dtype=np.uint64)
        self.game = np.zeros((n, compiled_game.GAME_SIZE), dtype=np.int64)
        self.states = np.zeros((n, 2, STATE_SIZE), dtype=np.uint64)
        self.frames = np.zeros((n, 2, N_FRAMES, FRAME_SIZE), dtype=np.uint8)
        self.legal = np.zeros((n, MAX_MOVE_ACTIONS + 1), dtype=np.int64)
        self.mask = np.zeros((n, CODEC.size), dtype=np.int8)
        self.slots = np.zeros((n, batch_step.SLOT_SIZE), dtype=np.int64)
        """Each game's small fields (see `batch_step.SLOT_SIZE`); the attributes below are views of its columns."""
        slots = self.slots
        self.n_legal = slots[:, batch_step.N_LEGAL]
        self.phase = slots[:, batch_step.SENSING]
        """1 where the next action is a sense, 0 a move."""
        self.caller = slots[:, batch_step.CALLER]
        """The colour the caller plays in each game (1 White, 0 Black; 2 both)."""
        side = SIDES[sides]
        self.caller[:] = side if side != batch_step.ALTERNATE else batch_step.WHITE_SIDE
        slots[:, batch_step.OPPONENT] = OPPONENTS[opponent]
        self.attack = slots[:, batch_step.ATTACK]
        """The attacker's rush in each game (an index of `QUICK_ATTACKS`)."""
        self.games_started = slots[:, batch_step.GAMES]
        """How many games each slot has started (the game number of the current one, plus one)."""
        self.log_length = slots[:, batch_step.LOG_LEN]
        self.done_log_length = slots[:, batch_step.DONE_LEN]
        self.winner = slots[:, batch_step.WINNER_OF]
        """The winner of each slot's last finished game (1 White, 0 Black, -1 none)."""
        self.reason = slots[:, batch_step.REASON_OF]
        """Its reason (`compiled_game`'s: 1 king capture, 2 full-turn limit, 3 reversible-move limit)."""
        self.length = slots[:, batch_step.LENGTH]
        """Its actions, both colours'."""
        self.winner[:] = -1
        self._plans = attacker_plans()
        self.seed = np.uint64(0)
        self._rng = np.zeros(n, dtype=np.uint64)
        self._sample_rng = self._sample_streams()
        self.log = np.zeros((n, _LOG_START), dtype=np.int16)
        self.done_log = np.zeros((n, _LOG_START), dtype=np.int16)
        fixed = side <= batch_step.WHITE_SIDE
        self.observation: np.ndarray = self.frames[:, side] if fixed else np.zeros((n, N_FRAMES, FRAME_SIZE), dtype=np.uint8)
        """(N, 2, 1353): the player to act's two latest frames; with one fixed colour, a (strided) view of its frames."""
        self.final_observation = np.zeros((n, N_FRAMES, FRAME_SIZE), dtype=np.uint8)
        self.reward = np.zeros(n, dtype=np.float32)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self._start = self._start_arrays()

    def _start_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """A new game's compiled state and both encoders, as `RbcEnv` makes them from its `LocalGame`'s start."""
        env = RbcEnv(turn_limit=self.turn_limit, reversible_moves_limit=self.reversible_moves_limit, observations=self.encode)
        env.reset()
        return env._board.copy(), env._state.copy(), env._states.copy(), env._frames.copy()

    def _sample_streams(self) -> np.ndarray:
        """The first states of `random_actions`' per-game streams: the games' own, from the complemented seed."""
        seed = ~self.seed
        return np.array([batch_step.stream_seed(seed, np.uint64(g), np.uint64(0)) for g in range(self.n_games)], dtype=np.uint64)

    def reset(self, seed: Optional[int] = None) -> None:
        """Restart every game; `seed` (an int >= 0) seeds the streams (None: keep the current seed)."""
        if seed is not None:
            if not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seed {seed!r} is not an int >= 0")
            self.seed = np.uint64(seed)
            self.games_started[:] = 0
            self._sample_rng[:] = self._sample_streams()
        self._advance(np.full(self.n_games, -1, dtype=np.int64))

    def step(self, actions: np.ndarray) -> None:
        """Play ``actions[g]`` in game `g` for every game (then the opponents; see the module docstring).

        Raises:
            IllegalBatchActionError: an action is not in its game's mask (nothing changed; the message names the game).
        """
        if not isinstance(actions, np.ndarray) or actions.shape != (self.n_games,) or actions.dtype != np.int64:
            actions = np.asarray(actions)
            if actions.shape != (self.n_games,) or actions.dtype.kind not in "iu":
                raise IllegalBatchActionError(f"actions must be ints of shape ({self.n_games},), not {actions.dtype} {actions.shape}")
            actions = actions.astype(np.int64)
        g = batch_step.first_illegal(actions, self.mask)
        if g >= 0:
            phase = "sense" if self.phase[g] else "move"
            raise IllegalBatchActionError(
                f"action {int(actions[g])} of game {g} is not in its {phase} mask ({int(self.n_legal[g])} legal actions)"
            )
        self._advance(actions)

    def step_unchecked(self, actions: np.ndarray) -> None:
        """`step` without the mask check: `actions` (int64, shape (N,)) must be in the masks (e.g. `random_actions`)."""
        self._advance(actions)

    def _advance(self, actions: np.ndarray) -> None:
        longest = batch_step.advance(
            actions, self.board, self.game, self.states, self.frames, self.legal, self.mask, self.slots, self._rng, self.encode,
            SIDES[self.sides], self._plans, self.seed, self.log, self.done_log, *self._start, self.observation,
            self.final_observation, self.reward, self.terminated, self.truncated,
        )  # fmt: skip
        if longest + 4 > self.log.shape[1]:  # a step adds at most three actions to a running game
            self.log = _wider(self.log)
            self.done_log = _wider(self.done_log)

    @property
    def to_act(self) -> np.ndarray:
        """The colour to act in each game (1 White, 0 Black): the caller's, except in self-play."""
        colors: np.ndarray = self.game[:, compiled_game.TURN]
        return colors

    def random_actions(self) -> np.ndarray:
        """One uniform draw from each game's listed actions, from streams of their own (seeded by `reset`)."""
        out = np.empty(self.n_games, dtype=np.int64)
        batch_step.sample_legal(self.legal, self.slots, self._sample_rng, out)
        return out

    def actions_of(self, g: int, finished: bool = True) -> list[int]:
        """The actions of game `g` in play order (White's sense, White's move, Black's sense, ...).

        Args:
            finished: True: its last finished game; False: the game it plays now.
        """
        self._check_game(g)
        log, length = (self.done_log, self.done_log_length) if finished else (self.log, self.log_length)
        return [int(action) for action in log[g, : length[g]]]

    def history(self, g: int, finished: bool = True, names: tuple[str, str] = ("learner", "learner")) -> GameHistory:
        """Game `g`'s record (reconchess's JSON with ``save``): its actions replayed through `play_local_game`.

        The batch keeps each game's actions, not its record: the arbiter's own loop replays them, so the
        record is the arbiter's. The player names default to ``"learner"`` and the opponent's name.

        Raises:
            ValueError: `g` is not a game of the batch, or `finished` and the slot has finished no game.
        """
        actions = self.actions_of(g, finished)
        if finished and not self.done_log_length[g]:
            raise ValueError(f"game {g} has finished no game yet")
        if names == ("learner", "learner") and self.sides != "both":
            white = int(self.caller[g]) == batch_step.WHITE_SIDE if not finished else self._finished_white(g)
            names = ("learner", self.opponent_name) if white else (self.opponent_name, "learner")
        return replay_history(actions, self.turn_limit, self.reversible_moves_limit, names)

    def _finished_white(self, g: int) -> bool:
        """Whether the caller played White in slot `g`'s last finished game."""
        if self.sides != "alternate":
            return self.sides == "white"
        number = int(self.games_started[g]) - 2
        return (g + number) % 2 == 0

    def _check_game(self, g: int) -> None:
        if not isinstance(g, (int, np.integer)) or not 0 <= g < self.n_games:
            raise ValueError(f"game {g!r} is not in 0..{self.n_games - 1}")


class IllegalBatchActionError(BlindchessError, ValueError):
    """An action outside its game's mask, or actions of the wrong shape; the batch is unchanged."""


def _wider(log: np.ndarray) -> np.ndarray:
    wider = np.zeros((log.shape[0], 2 * log.shape[1]), dtype=log.dtype)
    wider[:, : log.shape[1]] = log
    return wider


def replay_history(
    actions: list[int], turn_limit: Optional[int], reversible_moves_limit: Optional[int], names: tuple[str, str]
) -> GameHistory:
    """The record of the game these actions (both colours', in play order) make, so far or complete.

    `RbcEnv` plays them and its `LocalGame` replays them: the record is the arbiter's.
    """
    env = RbcEnv(turn_limit=turn_limit, reversible_moves_limit=reversible_moves_limit, observations=False, names=names)
    env.reset()
    for action in actions:
        env.step(action)
    return env.history()
