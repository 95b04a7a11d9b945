"""`PolicyBot`: a policy trained in the environment, playing as a `Player` (in matches, on the server, in the viewer).

The bot sees exactly what the learner saw: its callbacks become observation events
(:class:`~blindchess.arbiter.game.observing_player.ObservingPlayer`), the events go through the same
two-frame window of the shared encoder (:class:`~blindchess.env.view.FrameWindow`), and the masks
come from the same action numbering. So a policy that learned in the environment plays the same
way here.

By name: ``blindchess match policy trout`` plays the policy shipped for the match's variant
(``env/models/<variant>.pt``; ``--variant teaching-4x4`` for the 4x4 one). From a file of your
own weights, a two-line bot file::

    from blindchess.env.policy_bot import policy_bot_class
    MyPolicy = policy_bot_class("my_weights.pt")

and ``blindchess match my_policy.py trout``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

import chess
import torch

from blindchess.arbiter.game.observations import Observation
from blindchess.arbiter.game.observing_player import ObservingPlayer
from blindchess.arbiter.rules.ruleset import STANDARD, Rules
from blindchess.arbiter.types import Square
from blindchess.bots.random_bot import SeedLike
from blindchess.variants.catalog import VARIANTS

from .actions import ActionCodec
from .policy import PolicyFileError, PolicyNet, load_policy, saved_variant
from .view import FrameWindow

MODELS = Path(__file__).resolve().parent / "models"
"""The shipped policies, one per variant: ``<variant>.pt``."""


def variant_name(rules: Rules[Any]) -> str:
    """The catalog name of `rules` (the key the shipped policies are filed under)."""
    for name, variant_rules in VARIANTS.items():
        if variant_rules is rules:
            return name
    raise PolicyFileError(f"no variant of the catalog has the rules {rules!r}")


class PolicyBot(ObservingPlayer):
    """Plays a trained `PolicyNet` (see the module docstring).

    Args:
        rules: the variant's rules (a match hands them to bots that take them); 8x8 RBC by default.
        weights: a policy file; None: the shipped policy of the variant.
        rng: a seed or generator for sampling; with ``greedy`` (the default) the bot plays the
            policy's most likely action and uses no randomness.
        greedy: play the mode of the policy rather than a sample.
    """

    variants = frozenset(path.stem for path in MODELS.glob("*.pt"))
    """The variants with a shipped policy (a ``weights`` file of another variant is not checked for here)."""

    def __init__(
        self,
        rules: Rules[Any] = STANDARD,
        weights: Optional[Union[str, Path]] = None,
        rng: SeedLike = None,
        greedy: bool = True,
    ) -> None:
        variant = variant_name(rules)
        self.codec = ActionCodec(tuple(rules.sense_actions(rules.starting_board())))
        path = MODELS / f"{variant}.pt" if weights is None else Path(weights)
        self.net: PolicyNet = load_policy(path, variant, self.codec)
        self.generator: Optional[torch.Generator] = None
        if not greedy:
            seed = int(torch.randint(2**62, ()).item()) if rng is None else _seed_of(rng)
            self.generator = torch.Generator().manual_seed(seed)
        self.window = FrameWindow()

    def observe(self, event: Observation) -> None:
        self.window.push(event)

    def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
        action = self.net.act(self.window.frames(), self.codec.sense_mask(sense_actions), self.generator)
        return self.codec.sense_of(action)

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        mask, table = self.codec.move_table(move_actions)
        return table.get(self.net.act(self.window.frames(), mask, self.generator))


def _seed_of(rng: SeedLike) -> int:
    import numpy as np

    return int(np.random.default_rng(rng).integers(2**62))


def policy_bot_class(weights: Union[str, Path], rules: Rules[Any] = STANDARD) -> type[PolicyBot]:
    """A `PolicyBot` subclass that loads `weights` (for a bot file: ``MyPolicy = policy_bot_class("w.pt")``).

    `rules` is the default; a match of another variant hands the bot that variant's rules.
    """
    path = Path(weights).resolve()

    class FilePolicyBot(PolicyBot):
        variants = frozenset({saved_variant(path)})

        def __init__(self, rules: Rules[Any] = rules, rng: SeedLike = None, greedy: bool = True) -> None:
            super().__init__(rules, path, rng, greedy)

    FilePolicyBot.__name__ = FilePolicyBot.__qualname__ = f"PolicyBot_{path.stem}"
    return FilePolicyBot
