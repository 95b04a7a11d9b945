"""`NeuralPosterior`: a board set weighted by the posterior network, and that weighting (`LearnedPrior`) for any set belief.

The network (:mod:`blindchess.beliefs.neural_model`) reads one encoded frame per event and
predicts, per square, the opponent's piece there. That gives two things:

- `LearnedPrior`, a `BoardWeighting` (:mod:`blindchess.beliefs.board_weights`) for any
  set-based belief::

      w(s) = prod_{sq not ours} max(p_t(sq, s[sq]), floor) ** temperature

  ``p_t`` the network's marginals after event ``t``; the floor keeps every consistent board
  possible whatever the network says (against an opponent it never saw, too).
- `NeuralPosterior`, a `Belief`: `marginals` are the weighted set's up to `EXACT_BELOW`
  boards (exact under the network's weighting, and cheap: see `EXACT_BELOW`), and above that
  those of a fixed-size sample of the set weighted alike, blended with the network's own
  (cost independent of the set's size: `sampled_marginals`);
  everything about boards comes from a capped, unweighted
  `BoardSet` (no opponent-move model: the network is the opponent model) weighted by `LearnedPrior`:

  * `sample` draws from the weighted set, so every sample is consistent with the observations;
  * ``__contains__`` and ``len`` are the set's (a board has non-zero probability iff the set holds it);
  * `is_exact` is the set's (false once its cap pushed boards to the backlog);
  * `entropy` is that of the weighted set.

  The network's marginals and the weighted set's agree only as well as the network is
  right; `support_marginals` always gives the latter, `prior.marginals()` the former.

The model runs on the CPU in `torch.no_grad`; one update costs one GRU step (see
``experiments/bench_neural.py`` for the measured time).
"""

from __future__ import annotations

from typing import Optional

import chess
import numpy as np
import torch

from blindchess.arbiter.game.observations import GameStarted, Observation

from .base import N_CHANNELS, NotInitialisedError
from .board_set import BoardSet
from .board_weights import Weighted, WeightingError, grid_marginals
from .encoding import StreamEncoder, relative_square
from .neural_model import PosteriorNet, default_model

DEFAULT_TEMPERATURE = 0.4
"""The product's exponent, fitted for the shipped model: the mean -log2 P(truth) on sets of more
than 100 boards over 40 validation games (seed 2, never trained on; floor 1e-3, mix 0.05) is
least near 0.4 (7.62 bits, against 9.05 at 1.0 and 9.67 for the uniform set;
``experiments/fit_prior_temperature.py``): a product of 64 per-square marginals is
overconfident, since the squares are not independent."""

EXACT_BELOW = 5_000
"""Up to this many boards `NeuralPosterior.marginals` are the weighted set's: a weighted count over
at most 5,000 x 64 cells, about 2 ms (the network's step is about 1 ms), and they know every hard
constraint the set does (which squares a piece seen two turns ago can have reached), where the
network only learned them approximately: on sets of 101-1,000 boards of held-out games the
weighted set's per-square cross-entropy of the truth was 13.3 bits a board against the
network's 18.0 and the uniform set's 14.8 (docs/neural.md). Above it, a sample of as many of
the set's boards (`sampled_marginals`), for the same reason."""

NETWORK_SHARE = 0.01
"""The network's share in `sampled_marginals`: it keeps every class the network
thinks possible above zero (the sample may miss the truth's class on a square) at a cost of at
most ``-log2(0.99)``, 0.015 bits, on a square the sample gets right."""

_ABSOLUTE = np.array([relative_square(square, chess.BLACK) for square in range(64)])
"""Relative square of each absolute square for Black (White's is the identity)."""


class LearnedPrior:
    """The posterior network as a board weighting (see the module docstring).

    Args:
        model: the network; default: the shipped one.
        floor: the least per-square probability (keeps every board possible).
        temperature: exponent of the product (below 1 softens the network's independence
            assumption). The default, `DEFAULT_TEMPERATURE`, was fitted on a validation split
            (docs/neural.md), never on the benchmark's games.
    """

    def __init__(self, model: Optional[PosteriorNet] = None, floor: float = 1e-3, temperature: float = DEFAULT_TEMPERATURE) -> None:
        if not 0.0 < floor < 1.0 or temperature <= 0:
            raise WeightingError(f"need 0 < floor < 1 and temperature > 0, got floor={floor!r}, temperature={temperature!r}")
        self.model = model if model is not None else default_model()
        self.floor, self.temperature = floor, temperature
        self._encoder = StreamEncoder()
        self._state: Optional[torch.Tensor] = None
        self._probabilities: Optional[np.ndarray] = None  # (64, 7), relative squares

    def update(self, observation: Observation) -> None:
        """One GRU step on the event's frame (`GameStarted` starts a fresh stream).

        Squares seen since the opponent last moved are set to what they showed
        (`StreamEncoder.known_contents`): the network only blurs a certainty.
        """
        if isinstance(observation, GameStarted):
            self._state = None
        encoder = self._encoder.copy()  # a rejected event leaves the prior unchanged
        frame = encoder.push(observation)
        if frame is None:
            return
        with torch.no_grad():
            logits, state = self.model(torch.from_numpy(frame).view(1, 1, -1), self._state)
            probabilities = torch.softmax(logits[0, 0].double(), dim=-1).numpy()
        known = encoder.known_contents()
        certain = np.flatnonzero(known >= 0)
        probabilities[certain] = 0.0
        probabilities[certain, known[certain]] = 1.0
        self._encoder, self._state, self._probabilities = encoder, state, probabilities

    def _relative(self) -> np.ndarray:
        if self._probabilities is None:
            raise NotInitialisedError("the learned prior has not received GameStarted")
        return self._probabilities

    def _absolute_squares(self) -> np.ndarray:
        return np.arange(64) if self._encoder.color == chess.WHITE else _ABSOLUTE

    def marginals(self) -> np.ndarray:
        """Shape (64, 13): the network's marginals, our own pieces and what we saw since the opponent moved certain."""
        relative = self._relative()[self._absolute_squares()]
        color = self._encoder.color
        result = np.zeros((64, N_CHANNELS))
        offset = 6 if color == chess.WHITE else 0
        result[:, 0] = relative[:, 0]
        result[:, offset + 1 : offset + 7] = relative[:, 1:]
        own = self._encoder.own_types()[self._absolute_squares()]
        mine = own > 0
        result[mine] = 0.0
        result[np.flatnonzero(mine), own[mine] + (0 if color == chess.WHITE else 6)] = 1.0
        normalised: np.ndarray = result / result.sum(axis=1, keepdims=True)
        return normalised

    def log_weights(self, grid: np.ndarray) -> np.ndarray:
        """``temperature * sum_sq log max(p(sq, class of s[sq]), floor)`` per board of `grid`."""
        log_p = np.log(np.maximum(self._relative()[self._absolute_squares()], self.floor))
        opponent_offset = 6 if self._encoder.color == chess.WHITE else 0
        classes = np.zeros(N_CHANNELS, dtype=np.int64)
        classes[opponent_offset + 1 : opponent_offset + 7] = np.arange(1, 7)
        per_square = log_p[np.arange(64), classes[grid]]
        log_w: np.ndarray = self.temperature * per_square.sum(axis=1)
        return log_w

    def copy(self) -> LearnedPrior:
        other = LearnedPrior(self.model, self.floor, self.temperature)
        other._encoder, other._state, other._probabilities = self._encoder.copy(), self._state, self._probabilities
        return other


class NeuralPosterior(Weighted):
    """The neural belief (see the module docstring).

    Args:
        model: the network; default: the shipped one.
        max_boards: the cap of the board set behind `sample`, membership and size.
        floor, temperature: the `LearnedPrior` settings.
        mix: share of the unweighted set kept in the board weights.
        exact_below: the largest set whose own (weighted) marginals `marginals` returns.
        sampled_boards: above `exact_below`, how many of the set's boards `sampled_marginals`
            reads; 0 for the network's marginals alone.
    """

    def __init__(
        self,
        model: Optional[PosteriorNet] = None,
        max_boards: Optional[int] = 200_000,
        floor: float = 1e-3,
        temperature: float = DEFAULT_TEMPERATURE,
        mix: float = 0.05,
        exact_below: int = EXACT_BELOW,
        sampled_boards: int = EXACT_BELOW,
    ) -> None:
        if exact_below < 1:
            raise WeightingError(f"need exact_below >= 1 (a single board's marginals are that board), got {exact_below!r}")
        if sampled_boards < 0:
            raise WeightingError(f"need sampled_boards >= 0 (0: the network's marginals), got {sampled_boards!r}")
        super().__init__(BoardSet(max_boards=max_boards, move_model=None), LearnedPrior(model, floor, temperature), mix)
        self.exact_below = exact_below
        self.sampled_boards = sampled_boards

    @property
    def prior(self) -> LearnedPrior:
        assert isinstance(self.weighting, LearnedPrior)
        return self.weighting

    def marginals(self) -> np.ndarray:
        """The weighted set's marginals up to `exact_below` boards, else a fixed-size sample's (see `sampled_marginals`)."""
        if len(self) <= self.exact_below:
            return self.support_marginals()
        if self.sampled_boards == 0:
            return self.prior.marginals()
        return self.sampled_marginals()

    def sampled_marginals(self) -> np.ndarray:
        """`sampled_marginals` of this belief: `sampled_boards` of its boards, blended with the network's."""
        return sampled_marginals(self, self.prior.marginals(), self.sampled_boards)

    def support_marginals(self) -> np.ndarray:
        """The weighted board set's exact marginals (linear in its size)."""
        return super().marginals()


def sampled_marginals(belief: Weighted, network: np.ndarray, boards: int) -> np.ndarray:
    """The marginals of `belief` (a weighted `BoardSet`) estimated from `boards` of its boards, blended with `network`.

    The sample is systematic (`boards` boards evenly spaced through the set, all of them if it
    holds fewer; the same set gives the same marginals) and weighted as the whole set would be,
    ``b_w(s)`` of `Weighted` renormalised over the sample: a self-normalised estimate of the
    weighted set's marginals whose cost does not grow with the set (beyond slicing its weight
    vector). A class no sampled board has on a square would get probability zero, so
    `NETWORK_SHARE` of the network's marginals is blended in::

        p(sq, c) = (1 - NETWORK_SHARE) p_sample(sq, c) + NETWORK_SHARE p_net(sq, c)
    """
    inner = belief.inner
    if not isinstance(inner, BoardSet):
        raise WeightingError(f"sampled marginals read a BoardSet's boards, not a {type(inner).__name__}'s")
    size = max(1, min(boards, len(inner)))
    rows = np.linspace(0, len(inner) - 1, num=size).round().astype(np.int64)
    grid = inner.piece_grid(rows)
    sample = grid_marginals(grid, belief.reweigh(grid, inner.weights()[rows]))
    blended: np.ndarray = (1.0 - NETWORK_SHARE) * sample + NETWORK_SHARE * network
    return blended
