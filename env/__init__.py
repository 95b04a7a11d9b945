"""Learning environments: RBC and its variants for PettingZoo (two agents) and Gymnasium (one learner vs a bot).

Layer: above the bots (the single-agent wrapper's opponent is a registered bot) and the variants,
below the tournament and the experiments. See docs/env.md.
"""

from .actions import ActionCodec
from .aec import AGENTS, IllegalEnvActionError, RbcEnv, rbc_env

__all__ = ["AGENTS", "ActionCodec", "IllegalEnvActionError", "RbcEnv", "rbc_env"]
