"""`BotOpponentEnv`: a Gymnasium environment where one side learns and the other is a registered bot.

The opponent is anything the bots registry resolves (``"random"``, ``"attacker"``, ``"trout"``,
``"flagship"``, a module or a ``.py`` file), built with a seed drawn from the environment's own
generator, so ``reset(seed=...)`` replays a whole game when the opponent draws only from its
generator. Its turns are played by the arbiter's own turn loop (:func:`~blindchess.arbiter.play.play_turn`
with a referee), so it receives exactly the callbacks of a `play_local_game` game, and a fault of
the bot (an exception, an illegal answer) resigns it, as in a match.

The learner's steps are those of :class:`~blindchess.env.aec.RbcEnv` (sense, then move), and its
observations, masks and action numbering are the same. The reward is +1 / -1 / 0 at the end of
the game. An action outside the mask resigns the learner (reward -1, ``info["illegal_action"]``),
as the arbiter resigns a bot that answers outside its action lists; ``illegal="raise"`` raises
`IllegalEnvActionError` instead, changing nothing.

Example:

>>> env = BotOpponentEnv("teaching-4x4", opponent="random", learner="white")
>>> observation, info = env.reset(seed=3)
>>> observation["observation"].shape, info["color"], info["phase"]
((2, 1353), 'white', 'sense')
"""

from __future__ import annotations

import inspect
from typing import Any, Optional

import chess
import gymnasium
import numpy as np

from blindchess.arbiter.game.player import Player
from blindchess.arbiter.play import Referee
from blindchess.arbiter.rules.ruleset import STANDARD
from blindchess.bots.registry import make_bot, resolve_bot

from .aec import AGENTS, COLOR_OF, IllegalEnvActionError, RbcEnv, spaces_for

LEARNER_COLORS = ("white", "black", "alternate", "random")


def build_opponent(spec: str, variant_env: RbcEnv, seed: int) -> Player:
    """A fresh, seeded instance of the bot `spec` names; a bot that takes ``rules`` gets the variant's."""
    _, player_class = resolve_bot(spec)
    rules = variant_env.rules
    try:
        takes_rules = "rules" in inspect.signature(player_class).parameters
    except (TypeError, ValueError):
        takes_rules = False
    if takes_rules and rules is not STANDARD:
        return player_class(rules=rules, rng=np.random.default_rng(seed))  # type: ignore[call-arg]
    return make_bot(player_class, seed)


class BotOpponentEnv(gymnasium.Env[dict[str, Any], Any]):
    """One learner against a bot (see the module docstring).

    Args:
        variant: the game, as for :func:`~blindchess.env.aec.rbc_env`.
        opponent: the bot, as ``blindchess match`` names it.
        learner: the learner's colour: ``"white"``, ``"black"``, ``"alternate"`` (White first, then
            switching every game, so a reset with the same seed need not replay) or ``"random"`` (the
            default: drawn from the generator that `reset(seed=...)` seeds).
        illegal: ``"resign"`` (default) or ``"raise"`` for an action outside the mask.
        **options: the `RbcEnv` options (clocks, ``turn_limit``, ``observations``, ...).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 (gymnasium declares an instance variable)

    def __init__(
        self,
        variant: str = "rbc",
        opponent: str = "random",
        learner: str = "random",
        illegal: str = "resign",
        render_mode: Optional[str] = None,
        **options: Any,
    ) -> None:
        if learner not in LEARNER_COLORS:
            raise ValueError(f"learner {learner!r} is not one of {', '.join(LEARNER_COLORS)}")
        if illegal not in ("resign", "raise"):
            raise ValueError(f"illegal {illegal!r} is not one of 'resign', 'raise'")
        resolve_bot(opponent)  # an unknown bot fails here, not at the first reset
        self.opponent_spec = opponent
        self.learner_choice = learner
        self.illegal = illegal
        self.render_mode = render_mode
        self.aec = RbcEnv(variant, render_mode=render_mode, **options)
        self.observation_space, self.action_space = spaces_for(self.aec.codec)
        self._games = 0
        self.learner = "white"
        self._opponent: Optional[Player] = None
        self._referee: Optional[Referee] = None

    @property
    def opponent(self) -> Player:
        """The opponent of the current game."""
        if self._opponent is None:
            raise RuntimeError("call reset() before using the environment")
        return self._opponent

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if self.learner_choice == "alternate":
            self.learner = AGENTS[self._games % 2]
        elif self.learner_choice == "random":
            self.learner = AGENTS[int(self.np_random.integers(2))]
        else:
            self.learner = self.learner_choice
        self._games += 1
        opponent_agent = AGENTS[1 - AGENTS.index(self.learner)]
        aec = self.aec
        aec.names = (type(self).__name__, self.opponent_spec) if self.learner == "white" else (self.opponent_spec, type(self).__name__)
        self._opponent = build_opponent(self.opponent_spec, aec, int(self.np_random.integers(2**63)))
        aec.reset(seed=int(self.np_random.integers(2**31)))
        color = COLOR_OF[opponent_agent]
        self._referee = Referee(aec.game, {chess.WHITE: aec.names[0], chess.BLACK: aec.names[1]})
        self._referee.call(self._opponent, color, "handle_game_start", color, aec.rules.copy(aec.game.board), self.learner, timed=False)
        self._play_opponent()
        return aec.observe(self.learner), self._info()

    def _info(self) -> dict[str, Any]:
        return {"color": self.learner, **self.aec.infos[self.learner]}

    def _play_opponent(self) -> None:
        """The opponent's turns until the learner is to act or the game is over; then its game end."""
        aec, opponent, referee = self.aec, self.opponent, self._referee
        assert referee is not None, "reset() builds the referee"
        while not self._done() and aec.agent_selection != self.learner:
            aec.play_bot_turn(opponent, referee)
        if self._done():
            history = aec.history()
            color = COLOR_OF[AGENTS[1 - AGENTS.index(self.learner)]]
            referee.call(opponent, color, "handle_game_end", history.get_winner_color(), history.get_win_reason(), history, timed=False)

    def _done(self) -> bool:
        aec = self.aec
        return aec.terminations[self.learner] or aec.truncations[self.learner]

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        aec = self.aec
        if self._done():
            raise RuntimeError("the game is over: call reset()")
        illegal = False
        try:
            aec.step(action)
        except IllegalEnvActionError:
            if self.illegal == "raise":
                raise
            illegal = True
            aec.resign(self.learner)
        if aec.agent_selection != self.learner or self._done():
            self._play_opponent()
        info = self._info()
        if illegal:
            info["illegal_action"] = True
        reward = aec.rewards[self.learner] if self._done() else 0.0
        return aec.observe(self.learner), reward, aec.terminations[self.learner], aec.truncations[self.learner], info

    def action_masks(self) -> np.ndarray:
        """The learner's current mask (sb3-contrib's MaskablePPO reads this method)."""
        return self.aec.observe(self.learner)["action_mask"]

    def render(self) -> Optional[str]:
        return self.aec.render()

