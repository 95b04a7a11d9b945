"""`RbcVectorEnv`: the batched environment as a Gymnasium `VectorEnv` (one learner colour per game).

Why: training libraries (CleanRL-style loops, Gymnasium's wrappers) speak `VectorEnv`; this one is
:class:`~blindchess.env.batch.BatchedGames` behind that API, so the in-batch opponent's turns and
the restarts stay inside one compiled call.

Each sub-environment is `BotOpponentEnv`'s game: the learner senses then moves, the opponent's
turns happen inside the step, the observation is ``{"observation": (2, 1353) uint8, "action_mask":
(16449,) int8}`` and the reward +1/-1/0 at the end. Autoreset is ``SAME_STEP``
(``metadata["autoreset_mode"]``): the step that ends a game returns the next game's first
observation, with the last one in ``infos["final_obs"]`` (an array over all games, to read where
``infos["_final_obs"]`` is set; Gymnasium's own vector envs give an object array there) and the
result in ``infos["winner"]``, ``infos["win_reason"]`` (`compiled_game`'s reason numbers) and
``infos["length"]`` (actions of the game). Unlike Gymnasium's vector envs, the returned arrays are the
batch's live buffers (no copy per step: ``torch.from_numpy`` shares them); copy what you keep past
the next step. An action outside its mask raises `IllegalBatchActionError` and changes nothing.

Example:

>>> envs = RbcVectorEnv(3, opponent="random", learner="alternate", turn_limit=4)
>>> observations, infos = envs.reset(seed=1)
>>> observations["observation"].shape, int(envs.single_action_space.n), envs.metadata["autoreset_mode"].value
((3, 2, 1353), 16449, 'SameStep')
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .aec import spaces_for
from .batch import CODEC, BatchedGames


class RbcVectorEnv(VectorEnv[dict[str, np.ndarray], np.ndarray, np.ndarray]):
    """`num_envs` games of 8x8 RBC, a learner against an in-batch bot (see the module docstring).

    Args:
        num_envs: how many games.
        opponent: ``"random"`` or ``"attacker"``.
        learner: ``"white"``, ``"black"`` or ``"alternate"``.
        **options: `BatchedGames`'s ``turn_limit``, ``reversible_moves_limit``, ``observations``.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012 (gymnasium's class attribute)

    def __init__(self, num_envs: int, opponent: str = "random", learner: str = "alternate", **options: Any) -> None:
        if learner not in ("white", "black", "alternate"):
            raise ValueError(f"learner {learner!r} is not one of 'white', 'black', 'alternate'")
        self.batch = BatchedGames(num_envs, sides=learner, opponent=opponent, **options)
        self.num_envs = num_envs
        self.single_observation_space, self.single_action_space = spaces_for(CODEC)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        batch = self.batch
        self._observations = {"observation": batch.observation, "action_mask": batch.mask}

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start every game; `seed` makes the whole run replay (the opponents' draws are per game, from the seed)."""
        super().reset(seed=seed)
        self.batch.reset(seed=seed)
        return self._observations, self._infos()

    def step(self, actions: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        batch = self.batch
        batch.step(actions)
        return self._observations, batch.reward, batch.terminated, batch.truncated, self._infos()

    def _infos(self) -> dict[str, Any]:
        batch = self.batch
        done = batch.terminated | batch.truncated
        return {
            "color": batch.caller, "phase": batch.phase, "_final_obs": done, "final_obs": batch.final_observation,
            "winner": batch.winner, "win_reason": batch.reason, "length": batch.length,
        }

    def action_masks(self) -> np.ndarray:
        """Every game's current mask (sb3-contrib's MaskablePPO reads this method)."""
        return self.batch.mask
