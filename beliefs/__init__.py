"""Beliefs: distributions over the hidden board, built from observation events."""

from .base import (
    N_CHANNELS,
    Belief,
    BeliefError,
    InconsistentObservationError,
    MalformedObservationError,
    NotInitialisedError,
    UnexpectedObservationError,
    WeightedBoards,
    channel,
)
from .board_set import BoardSet
from .hybrid import HybridBelief
from .likelihood import ExactSensing, NoisySensing, SenseLikelihood
from .move_model import UNIFORM, MoveModelError, OpponentMoveModel
from .particle_filter import ParticleFilter
from .player_mixin import BeliefPlayerMixin
from .reference import ReferenceBoardSet

__all__ = [
    "N_CHANNELS",
    "UNIFORM",
    "Belief",
    "BeliefError",
    "BeliefPlayerMixin",
    "BoardSet",
    "ExactSensing",
    "HybridBelief",
    "InconsistentObservationError",
    "MalformedObservationError",
    "MoveModelError",
    "NoisySensing",
    "NotInitialisedError",
    "OpponentMoveModel",
    "ParticleFilter",
    "ReferenceBoardSet",
    "SenseLikelihood",
    "UnexpectedObservationError",
    "WeightedBoards",
    "channel",
]
