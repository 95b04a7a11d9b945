"""`RbcEnv`: RBC and its variants as a PettingZoo AEC environment, played by the arbiter itself.

Agents ``"white"`` and ``"black"`` take two steps per turn, a sense then a move, in the
arbiter's order. The rules, revision, clocks, end conditions and the `GameHistory` are the
arbiter's own, nothing re-implemented: on 8x8 RBC without clocks a step runs the arbiter's
compiled game step (:mod:`blindchess.arbiter.rules.compiled_game`, held equal to `rules.py` and
`LocalGame` by its tests) and the shared encoder's kernels in one numba call
(:mod:`blindchess.env.env_step`), and the environment's :class:`~blindchess.arbiter.game.local_game.LocalGame`
replays the actions when something needs it (`game`, `history()`, `render`, a resignation),
checking that the positions agree. Other variants, clocked games and a game from a bot's first
turn on (`play_bot_turn`) drive the `LocalGame` step by step. Either way a game played here
equals the same game played by `play_local_game` action for action and record for record
(tests/unit/env/test_env_differential.py), and the two paths give the same observations
(tests/unit/env/test_env_compiled.py).

Observation (a dict, per agent): ``"observation"``, the agent's latest two frames of the shared
stream encoder (:mod:`blindchess.env.view`), and ``"action_mask"``, int8 over the action space
(:mod:`blindchess.env.actions`): the legal senses and NONE in the sense step, the move actions and
NONE (the pass) in the move step, all zeros for the agent that is not to act. ``infos[agent]``
holds ``"phase"`` (``"sense"`` or ``"move"``) for the agent to act.

Rewards: +1 to the winner and -1 to the loser when the game ends, 0 otherwise and for a draw.
A game ended by the full-turn limit is a *truncation* (the limit is the environment's option,
not a rule a player can see coming); every other end (king capture, clock, resignation, the
reversible-move limit) is a *termination*. The record is ``env.history()`` (a `GameHistory`;
``history().save(path)`` writes reconchess's JSON).

An action outside the mask raises `IllegalEnvActionError` (a ValueError naming the action, the
agent and the phase) before anything changes: the game, the observations and the step order
stay as they were. The game has no randomness; `reset(seed=...)` seeds the action spaces (their
``sample``), so a seeded loop over masked samples replays exactly.

Example:

>>> env = rbc_env("teaching-4x4", turn_limit=3)
>>> env.reset(seed=1)
>>> env.agent_selection, env.infos["white"]["phase"], int(env.observe("white")["action_mask"].sum())
('white', 'sense', 17)
>>> for agent in env.agent_iter():
...     observation, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
...     env.step(action)
>>> env.history().get_win_reason() is not None
True
"""

from __future__ import annotations

import numbers
from typing import Any, Optional

import chess
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from blindchess.arbiter.game.faults import BotFault
from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.local_game import IllegalActionError, LocalGame
from blindchess.arbiter.game.observations import Observation
from blindchess.arbiter.game.player import Player
from blindchess.arbiter.play import Referee, play_turn
from blindchess.arbiter.rules import compiled_game
from blindchess.arbiter.rules.compiled_game import (
    FULL_TURN_LIMIT,
    KING_CAPTURE,
    MAX_MOVE_ACTIONS,
    MOVE_LIMIT,
    REASON,
    WINNER,
)
from blindchess.arbiter.rules.ruleset import STANDARD, Rules
from blindchess.arbiter.types import Color, WinReason
from blindchess.beliefs.encoding import FRAME_SIZE, STATE_SIZE
from blindchess.variants.catalog import variant_rules

from .actions import ActionCodec
from .env_step import step as compiled_step
from .view import N_FRAMES, OBSERVATION_SHAPE, FrameWindow

AGENTS = ("white", "black")
COLOR_OF = {"white": chess.WHITE, "black": chess.BLACK}
AGENT_OF = {chess.WHITE: "white", chess.BLACK: "black"}
SENSE, MOVE = "sense", "move"
_REASONS = {KING_CAPTURE: WinReason.KING_CAPTURE, FULL_TURN_LIMIT: WinReason.TURN_LIMIT, MOVE_LIMIT: WinReason.MOVE_LIMIT}


class IllegalEnvActionError(IllegalActionError):
    """An action outside the mask of the agent to act (or not an action number); nothing changed."""


def spaces_for(codec: ActionCodec) -> tuple[spaces.Dict, spaces.Discrete]:
    """(observation space, action space) of a board with this action numbering."""
    observation_space = spaces.Dict({
        "observation": spaces.Box(0, 255, OBSERVATION_SHAPE, dtype=np.uint8),
        "action_mask": spaces.Box(0, 1, (codec.size,), dtype=np.int8),
    })
    return observation_space, spaces.Discrete(codec.size)


class RbcEnv(AECEnv[str, dict[str, Any], Any]):
    """The AEC environment (see the module docstring); build it with :func:`rbc_env`.

    Args:
        variant: a name of :data:`blindchess.variants.catalog.VARIANTS` (``"rbc"``, ``"recon-minichess"``,
            ``"teaching-4x4"``, ...).
        seconds_per_player: each player's clock, running in real time between its steps; None (default): no clock.
        seconds_increment: seconds added at the end of each turn.
        turn_limit: full turns after which the game is drawn (a truncation); None: the variant's own
            limit (the small boards' move limit), or none on 8x8.
        reversible_moves_limit: half-moves without a capture or pawn move that draw the game (reconchess's 100).
        observations: False skips the encoder (the ``"observation"`` entries stay zero): for rollouts
            that only need the masks, and for measuring the arbiter alone.
        names: the player names the history records.
        render_mode: None, or ``"ansi"`` (`render` returns the true board as text).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo declares it an instance variable)
        "name": "blindchess_rbc_v0", "render_modes": ["ansi"], "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str = "rbc",
        *,
        seconds_per_player: Optional[float] = None,
        seconds_increment: Optional[float] = None,
        turn_limit: Optional[int] = None,
        reversible_moves_limit: Optional[int] = 100,
        observations: bool = True,
        names: tuple[str, str] = AGENTS,
        render_mode: Optional[str] = None,
    ) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # AECEnv.__init__ is unannotated (and empty)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r} is not one of None, 'ansi'")
        self.variant = variant
        self.rules: Rules[Any] = variant_rules(variant)
        self.codec = ActionCodec(tuple(self.rules.sense_actions(self.rules.starting_board())))
        self.seconds_per_player = seconds_per_player
        self.seconds_increment = seconds_increment
        self.turn_limit = turn_limit if turn_limit is not None else getattr(self.rules, "full_turn_limit", None)
        self.reversible_moves_limit = reversible_moves_limit
        self.encode = observations
        self.names = names
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        observation_space, _ = spaces_for(self.codec)
        self.observation_spaces = {agent: observation_space for agent in AGENTS}
        self.action_spaces = {agent: spaces_for(self.codec)[1] for agent in AGENTS}  # one each, seeded apart
        # Both players' encoder states and frame pairs, one array each: the compiled step folds into them,
        # and each player's FrameWindow (for the LocalGame's events) is a view of its rows (0 Black, 1 White).
        self._states = np.zeros((2, STATE_SIZE), dtype=np.uint64)
        self._frames = np.zeros((2, N_FRAMES, FRAME_SIZE), dtype=np.uint8)
        self._windows = {color: FrameWindow(observations, self._states[int(color)], self._frames[int(color)]) for color in chess.COLORS}
        self._mask = np.zeros(self.codec.size, dtype=np.int8)
        self._legal_buffer = np.zeros(MAX_MOVE_ACTIONS + 1, dtype=np.int64)  # the phase's actions in its first _n_legal
        self._n_legal = 0
        self._legal = self._legal_buffer[:0]
        self._board, self._state = compiled_game.new_state()
        self._fast = False
        self._pending: list[int] = []  # actions the compiled step took that the LocalGame has not replayed yet
        self._game_phase = SENSE  # the phase of the LocalGame's next action
        self._end_pending = False  # the compiled game ended; the LocalGame's end() has not been called yet
        self._replaying = False
        self._game: LocalGame[Any] = self._new_game()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the game

    @property
    def game(self) -> LocalGame[Any]:
        """The arbiter's `LocalGame` of this game, up to date: the actions of the compiled step replayed into it."""
        self._sync()
        return self._game

    def _new_game(self) -> LocalGame[Any]:
        game: LocalGame[Any] = LocalGame(
            self.seconds_per_player,
            self.seconds_increment,
            self.reversible_moves_limit,
            self.turn_limit,
            rules=self.rules,
            observer=self._observe_event if self.encode else None,  # no events to build when nobody reads them
        )
        game.store_players(*self.names)
        return game

    def _observe_event(self, color: Color, event: Observation) -> None:
        if not self._replaying:  # a replayed action's events were folded in by the compiled step already
            self._windows[color].push(event)

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        """Start a new game (White to sense); `seed` seeds the action spaces' `sample`."""
        if seed is not None:
            for index, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + index)
        self.agents = list(AGENTS)
        self.rewards = {agent: 0.0 for agent in AGENTS}
        self._cumulative_rewards = {agent: 0.0 for agent in AGENTS}
        self.terminations = {agent: False for agent in AGENTS}
        self.truncations = {agent: False for agent in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self._states.fill(0)
        self._frames.fill(0)
        self._pending.clear()
        self._game_phase, self._end_pending = SENSE, False
        # The compiled step plays 8x8 RBC without clocks; other rules and clocked games go through the LocalGame.
        self._fast = self.rules is STANDARD and self.seconds_per_player is None
        self._game = game = self._new_game()
        game.start()
        sense_actions = game.sense_actions()
        assert sense_actions is not None, "a new game runs"
        self._sense_legal = self.codec.sense_indices(sense_actions)
        self._set_legal(self._legal_buffer[:0])
        self.agent_selection = "white"
        if self._fast:
            compiled_game.load(game.board, game.full_turn_limit, game.reversible_moves_limit, self._board, self._state)
        self._begin_phase(SENSE)
        if game.is_over():
            self._finish_from_game()

    def _sync(self) -> None:
        """Replay the compiled step's actions into the LocalGame (its record, clocks and result are the authority)."""
        if not self._pending and not self._end_pending:
            return
        game, codec = self._game, self.codec
        self._replaying = True
        try:
            for index in self._pending:
                if self._game_phase == SENSE:
                    game.sense(codec.sense_of(index))
                    self._game_phase = MOVE
                    continue
                move = None
                if index != codec.none:
                    moves = game.move_actions()
                    assert moves is not None, "the compiled game ends when the LocalGame does"
                    move = moves[codec.move_numbers(moves).index(index)]  # the move the slow path requests
                game.move(move)
                game.end_turn()
                self._game_phase = SENSE
            self._pending.clear()
            if self._end_pending:
                self._end_pending = False
                game.end()
        finally:
            self._replaying = False
        assert compiled_game.agrees(game.board, self._board, self._state), "the compiled game left the arbiter's rules"

    def _set_legal(self, legal: np.ndarray) -> None:
        """The agent to act may take `legal` (NONE last): the mask and the legal-action list follow."""
        buffer, mask = self._legal_buffer, self._mask
        mask[buffer[: self._n_legal]] = 0
        n = len(legal)
        buffer[:n] = legal
        mask[buffer[:n]] = 1
        self._n_legal, self._legal = n, buffer[:n]

    def _begin_phase(self, phase: str) -> None:
        """The agent to act starts `phase` (the LocalGame path): its legal actions from the game's lists.

        A game's sense actions never change (LocalGame lists them once), so their numbers are made once per game.
        """
        self.phase = phase
        if phase == SENSE:
            self._set_legal(self._sense_legal)
        else:
            move_actions = self._game.move_actions()
            assert move_actions is not None, "a phase begins only while the game runs"
            numbers = self.codec.move_numbers(move_actions)
            self._move_actions: list[chess.Move] = move_actions  # step finds its move by list.index, in C
            self._move_numbers: list[int] = numbers
            self._set_legal(np.array([*numbers, self.codec.none], dtype=np.int64))
        infos = self.infos
        infos[self.agent_selection] = {"phase": phase}
        infos[AGENTS[self.agent_selection == "white"]] = {}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        acting = agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent])
        mask = self._mask.copy() if acting else np.zeros(self.codec.size, dtype=np.int8)
        return {"observation": self._windows[COLOR_OF[agent]].frames(), "action_mask": mask}

    def action_mask(self) -> np.ndarray:
        """The mask of the agent to act (the live array: read it, do not write it)."""
        return self._mask

    def legal_actions(self) -> np.ndarray:
        """The actions the agent to act may take, NONE last (the live array: read it, do not write it)."""
        return self._legal

    def step(self, action: Optional[int]) -> None:
        """Apply the action of `agent_selection` (None once it is done: the AEC dead step).

        Raises:
            IllegalEnvActionError: `action` is not an int in the agent's mask; nothing changed.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = self._checked(action)
        self._cumulative_rewards[agent] = 0.0
        if self._fast:
            self._compiled_step(agent, index)
            return
        game = self._game
        if self.phase == SENSE:
            game.sense(self.codec.sense_of(index))
            self._begin_phase(MOVE)
            return
        game.move(None if index == self.codec.none else self._move_actions[self._move_numbers.index(index)])
        game.end_turn()
        self._end_of_turn()

    def _compiled_step(self, agent: str, index: int) -> None:
        """The step on the compiled game (the LocalGame replays it when asked: see `game`)."""
        self._pending.append(index)
        sensing = self.phase == SENSE
        n = compiled_step(
            self._board, self._state, self._states, self._frames, self._legal_buffer, self._mask, self._n_legal, index,
            sensing, self.encode,
        )  # fmt: skip
        self._n_legal, self._legal = n, self._legal_buffer[:n]
        infos = self.infos
        if sensing:
            self.phase = MOVE
            infos[agent] = {"phase": MOVE}
        elif n:
            self.agent_selection = other = AGENTS[agent == "white"]
            self.phase = SENSE
            infos[other], infos[agent] = {"phase": SENSE}, {}
        else:
            state = self._state
            self._end_pending = True
            self._finish(None if state[WINNER] < 0 else bool(state[WINNER]), _REASONS[int(state[REASON])])

    def _checked(self, action: object) -> int:
        if type(action) is int:  # the usual case, without the slower abstract-class check below
            if 0 <= action < self.codec.size and self._mask[action]:
                return action
        elif isinstance(action, numbers.Integral) and not isinstance(action, bool):
            index = int(action)
            if 0 <= index < self.codec.size and self._mask[index]:
                return index
        legal = int(self._mask.sum())
        raise IllegalEnvActionError(
            f"action {action!r} is not in the {self.phase} mask of {self.agent_selection!r} "
            f"({legal} legal actions of {self.codec.size}; see observe(agent)['action_mask'])"
        )

    def _finish_from_game(self) -> None:
        """End the LocalGame and then the environment's game with its result."""
        game = self._game
        game.end()
        self._finish(game.get_winner_color(), game.get_win_reason())

    def _finish(self, winner: Optional[Color], reason: Optional[WinReason]) -> None:
        """Record the result: hand out the rewards, mark both agents done, clear the mask."""
        for agent in AGENTS:
            color = COLOR_OF[agent]
            self.rewards[agent] = 0.0 if winner is None else (1.0 if winner == color else -1.0)
            if reason == WinReason.TURN_LIMIT:
                self.truncations[agent] = True
            else:
                self.terminations[agent] = True
            self.infos[agent] = {"winner": winner, "win_reason": None if reason is None else reason.name}
        self._set_legal(self._legal_buffer[:0])
        self._accumulate_rewards()

    def play_bot_turn(self, player: Player, referee: Referee) -> Optional[BotFault]:
        """Play the whole turn of the agent to act with a `Player` (the arbiter's own turn loop, refereed).

        The agent must be at its sense step. The bot gets exactly the callbacks of a `play_local_game`
        turn; a fault resigns it (see :mod:`blindchess.arbiter.play`) and is returned. The turn goes through
        the LocalGame (brought up to date first), and so does the rest of the game: with a bot on every other
        turn, the compiled step would only add the replay to each of the agent's turns.
        """
        if self.phase != SENSE:
            raise IllegalEnvActionError(f"{self.agent_selection!r} has sensed already; a bot plays whole turns only")
        game = self.game
        self._fast = False
        fault = play_turn(game, player, end_turn_last=True, referee=referee)
        self._end_of_turn()
        return fault

    def _end_of_turn(self) -> None:
        if self._game.is_over():
            self._finish_from_game()
        else:
            self.agent_selection = AGENT_OF[self._game.turn]
            self._begin_phase(SENSE)

    def resign(self, agent: str) -> None:
        """`agent` resigns now (the game ends; used by the single-agent wrapper for an out-of-mask action)."""
        self.game.resign(COLOR_OF[agent])
        self._finish_from_game()

    def history(self) -> GameHistory:
        """The game's record so far (complete, with the result, once the game is over)."""
        return self.game.history_so_far()

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            return str(self.game.board)
        return None

    def close(self) -> None:
        pass


def rbc_env(variant: str = "rbc", **options: Any) -> RbcEnv:
    """The AEC environment of `variant` (see `RbcEnv` for the options).

    Raises:
        UnknownVariantError: no such variant (the message lists them).
    """
    return RbcEnv(variant, **options)
