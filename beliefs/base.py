"""The belief protocol: one interface that every belief over the hidden board implements.

A belief is a probability distribution over the boards the player cannot see,
conditioned on everything the player has observed:

    b_t(s) = P(s_t = s | o_1, ..., o_t)

It is built with its settings only and initialised by the `GameStarted` event;
after that, `update` folds in one observation event at a time (all or nothing: an
update that raises changes nothing), in the order the arbiter delivers them (see :mod:`blindchess.arbiter.game.observations`). Planners and
move selectors only read a belief through this protocol, so any implementation
(the exhaustive `BoardSet`, a particle filter, a neural posterior) plugs into
every bot.

Marginals are an array of shape ``(64, 13)``: one row per python-chess square
(a1 = 0), channel 0 for an empty square, 1..6 for white pawn..king and 7..12 for
black pawn..king (python-chess piece-type order). Squares off a smaller board are
always empty.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import chess
import numpy as np

from blindchess.arbiter.game.observations import Observation
from blindchess.errors import BlindchessError

N_CHANNELS = 13
"""Marginal channels per square: empty, then white P N B R Q K, then black P N B R Q K."""


def channel(piece: chess.Piece | None) -> int:
    """The marginal channel of a piece (0 for an empty square).

    >>> channel(None), channel(chess.Piece(chess.PAWN, chess.WHITE)), channel(chess.Piece(chess.KING, chess.BLACK))
    (0, 1, 12)
    """
    if piece is None:
        return 0
    return piece.piece_type + (0 if piece.color == chess.WHITE else 6)


class BeliefError(BlindchessError, ValueError):
    """Base class of the errors a belief raises."""


class InconsistentObservationError(BeliefError):
    """No board the belief can hold agrees with the observations so far.

    Raised instead of ever leaving a belief silently empty. The message names the
    event that emptied it.
    """


class UnexpectedObservationError(BeliefError):
    """An event arrived out of the order a game delivers them, or refers to a piece the player does not have."""


class MalformedObservationError(BeliefError):
    """An event's contents are not valid (a square off the board, a value of the wrong type); the message quotes the value.

    Raised at the belief's edge, before any work, so the belief is left as it was.
    """


class NotInitialisedError(BeliefError):
    """The belief was asked something before it received `GameStarted`."""


@runtime_checkable
class Belief(Protocol):
    """A distribution over the hidden board, updated from observation events."""

    @property
    def is_exact(self) -> bool:
        """True when the belief holds every board consistent with the observations (no cap, no sampling)."""
        ...

    def update(self, observation: Observation) -> None:
        """Fold one observation event into the belief; all or nothing.

        An update that raises leaves the belief exactly as it was: the same boards with
        the same weights, the same counters and side to move, so every query (size,
        marginals, samples drawn with the same generator, membership, ``is_exact``)
        answers as before, and later updates behave as if the refused one never
        arrived. Callers never need a defensive copy. Implementations get this cheaply:
        check the event first (:func:`blindchess.beliefs.validation.check_event`),
        compute into new arrays and swap them in at the end.

        Raises:
            MalformedObservationError: the event is not well formed (a square off the
                board, a value of the wrong type, not an event at all).
            UnexpectedObservationError: the event arrived out of order.
            InconsistentObservationError: no board is left and the belief cannot recover.
            NotInitialisedError: the first event was not `GameStarted`.
        """
        ...

    def sample(self, n: int, rng: np.random.Generator) -> list[chess.Board]:
        """`n` boards drawn (with replacement) in proportion to their probability."""
        ...

    def marginals(self) -> np.ndarray:
        """Per-square piece probabilities, shape ``(64, 13)``, each row summing to one."""
        ...

    def entropy(self) -> float:
        """Shannon entropy of the distribution over boards, in bits (an estimate for approximate beliefs)."""
        ...

    def copy(self) -> Belief:
        """An independent copy: updating one never changes the other."""
        ...

    def __contains__(self, board: object) -> bool:
        """True when `board` (a `chess.Board` of the hidden position) has non-zero probability."""
        ...

    def __len__(self) -> int:
        """The support size: how many distinct boards have non-zero probability."""
        ...


@runtime_checkable
class WeightedBoards(Protocol):
    """A belief that can show its whole support at once, for planners that vectorise over boards.

    The board set and the particle filter implement it; a belief that only has
    marginals does not, and planners fall back to `Belief.marginals`.
    """

    def piece_grid(self) -> np.ndarray:
        """Shape ``(N, 64)`` uint8: the marginal channel of every square on each of the N boards."""
        ...

    def weights(self) -> np.ndarray:
        """Shape ``(N,)`` float64, non-negative, summing to one, aligned with `piece_grid`."""
        ...
