"""The beliefs the conformance suite runs through: add yours to `BELIEF_FACTORIES`.

A factory builds a fresh belief from its settings only (no game yet). ``exact``
says whether the belief claims to hold every consistent board (then the suite also
checks that the true board is always a member). ``ruleset`` is the board its games are
played on: the 8x8 rules, or a small board for a belief made for one (the tests may
import the variants; the library's beliefs never do). ``sample_marginals`` gives the
marginals its samples follow: the belief's own, except for a belief whose `marginals` are
a model's fast estimate (the neural posterior), whose samples follow its weighted boards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from blindchess.arbiter.rules.ruleset import STANDARD, Rules
from blindchess.beliefs import (
    Belief,
    BoardSet,
    HybridBelief,
    LearnedPrior,
    NeuralPosterior,
    NoisySensing,
    OpponentMoveModel,
    ParticleFilter,
    ReferenceBoardSet,
    weighted,
)  # fmt: skip
from blindchess.beliefs.enumerated_belief import EnumeratedBelief
from blindchess.variants.teaching import TEACHING_4X4


def _own_marginals(belief: Belief) -> np.ndarray:
    return belief.marginals()


def _support_marginals(belief: Belief) -> np.ndarray:
    assert isinstance(belief, NeuralPosterior)
    return belief.support_marginals()


@dataclass(frozen=True)
class BeliefFactory:
    name: str
    make: Callable[[], Belief]
    exact: bool
    ruleset: Rules[Any] = field(default=STANDARD)
    sample_marginals: Callable[[Belief], np.ndarray] = _own_marginals


BELIEF_FACTORIES: list[BeliefFactory] = [
    BeliefFactory("boardset", lambda: BoardSet(max_boards=None), exact=True),
    BeliefFactory("boardset-unweighted", lambda: BoardSet(max_boards=None, move_model=None), exact=True),
    BeliefFactory("boardset-weighted", lambda: BoardSet(max_boards=None, move_model=OpponentMoveModel.capture_biased()), exact=True),
    BeliefFactory("reference", lambda: ReferenceBoardSet(), exact=True),
    # is_exact holds only until the first resampling drops a board; small budgets force drops
    BeliefFactory("particles-30", lambda: ParticleFilter(30, seed=1), exact=True),
    BeliefFactory("particles-noisy", lambda: ParticleFilter(200, likelihood=NoisySensing(0.05), seed=1), exact=False),
    BeliefFactory("hybrid-40", lambda: HybridBelief(switch_boards=40, particles=30, seed=1), exact=True),
    BeliefFactory("enumerated-4x4", lambda: EnumeratedBelief(TEACHING_4X4), exact=True, ruleset=TEACHING_4X4),
    BeliefFactory("neural", lambda: NeuralPosterior(max_boards=None), exact=True, sample_marginals=_support_marginals),
    # the network's own marginals on every set of more than one board
    BeliefFactory(
        "neural-network", lambda: NeuralPosterior(max_boards=None, exact_below=1), exact=True, sample_marginals=_support_marginals
    ),
    BeliefFactory("boardset-learned-prior", lambda: weighted(BoardSet(max_boards=None), LearnedPrior()), exact=True),
]
