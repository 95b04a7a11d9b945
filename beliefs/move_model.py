"""Opponent-move models: how likely each outcome of the opponent's turn is, for weighting a board set.

A model is a score table ``scores[piece, is_capture]`` (row 0 is the pass or an
illegal request, rows 1..6 the moving piece type pawn..king). On a board ``s`` with
outcome set ``M(s)`` (see :func:`blindchess.beliefs.board_set_updates.expand_chunk`)

    pi(m | s) = scores(m) / sum_{m' in M(s)} scores(m')

and the child weights of an opponent turn with observation ``o`` are

    w'(s') = sum_{(s, m): s' = T(s, m), m agrees with o} w(s) * pi(m | s)

(duplicates summed), renormalised.

The default of every belief (`BoardSet`, `ReferenceBoardSet`, `ParticleFilter`,
`HybridBelief`) is :data:`UNIFORM`, so the same boards get the same weights, and the same
entropy, whichever belief holds them. Only the exhaustive sets can also go without a model
(``move_model=None``): then they are unweighted, every consistent board equally likely (the
bot presets use this); a particle filter always needs a proposal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .base import BeliefError


class MoveModelError(BeliefError):
    """A move-model score table is malformed (wrong shape, negative or non-finite, or a zero pass score)."""


@dataclass(frozen=True)
class OpponentMoveModel:
    """A score table over (moving piece or pass, quiet or capture); see the module docstring."""

    scores: np.ndarray = field(default_factory=lambda: np.ones((7, 2)))

    def __post_init__(self) -> None:
        scores = np.array(self.scores, dtype=np.float64)  # a copy: the caller's table may change, ours must not
        if scores.shape != (7, 2) or not np.all(np.isfinite(scores)) or np.any(scores < 0) or scores[0, 0] <= 0:
            raise MoveModelError(f"scores must be a finite non-negative (7, 2) table with a positive pass score, got {scores!r}")
        scores.flags.writeable = False  # models are shared (UNIFORM is every belief's default)
        object.__setattr__(self, "scores", scores)

    @classmethod
    def uniform(cls) -> OpponentMoveModel:
        """Every outcome of a board equally likely: pi(m | s) = 1 / |M(s)|."""
        return cls(np.ones((7, 2)))

    @classmethod
    def capture_biased(cls, capture_factor: float = 4.0, pass_score: float = 0.25) -> OpponentMoveModel:
        """Captures `capture_factor` times as likely as quiet moves; a pass scores `pass_score`."""
        scores = np.ones((7, 2))
        scores[1:, 1] = capture_factor
        scores[0, 0] = pass_score
        return cls(scores)


UNIFORM = OpponentMoveModel.uniform()
"""The default opponent-move model of every belief: each outcome of a board equally likely."""
