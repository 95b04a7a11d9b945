"""Beliefs: distributions over the hidden board, built from observation events."""

from .base import (
    N_CHANNELS,
    Belief,
    BeliefError,
    InconsistentObservationError,
    NotInitialisedError,
    UnexpectedObservationError,
    WeightedBoards,
    channel,
)
from .board_set import BoardSet
from .move_model import MoveModelError, OpponentMoveModel
from .player_mixin import BeliefPlayerMixin
from .reference import ReferenceBoardSet

__all__ = [
    "N_CHANNELS",
    "Belief",
    "BeliefError",
    "BeliefPlayerMixin",
    "BoardSet",
    "InconsistentObservationError",
    "MoveModelError",
    "NotInitialisedError",
    "OpponentMoveModel",
    "ReferenceBoardSet",
    "UnexpectedObservationError",
    "WeightedBoards",
    "channel",
]
