"""Beliefs: distributions over the hidden board, built from observation events."""

from .base import (
    N_CHANNELS,
    Belief,
    BeliefError,
    InconsistentObservationError,
    NotInitialisedError,
    WeightedBoards,
    channel,
)

__all__ = [
    "N_CHANNELS",
    "Belief",
    "BeliefError",
    "InconsistentObservationError",
    "NotInitialisedError",
    "WeightedBoards",
    "channel",
]
