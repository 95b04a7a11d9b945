"""Beliefs: distributions over the hidden board, built from observation events.

`NeuralPosterior` and `LearnedPrior` (torch) are imported on first use, so that importing
the package does not load torch.
"""

from typing import TYPE_CHECKING, Any

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
from .board_weights import BoardWeighting, StockfishSigmoid, Weighted, WeightingError, weighted
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
    "BoardWeighting",
    "ExactSensing",
    "HybridBelief",
    "InconsistentObservationError",
    "LearnedPrior",
    "MalformedObservationError",
    "MoveModelError",
    "NeuralPosterior",
    "NoisySensing",
    "NotInitialisedError",
    "OpponentMoveModel",
    "ParticleFilter",
    "ReferenceBoardSet",
    "SenseLikelihood",
    "StockfishSigmoid",
    "UnexpectedObservationError",
    "Weighted",
    "WeightedBoards",
    "WeightingError",
    "channel",
    "weighted",
]

if TYPE_CHECKING:
    from .neural_posterior import LearnedPrior, NeuralPosterior

_LAZY = {"NeuralPosterior": "neural_posterior", "LearnedPrior": "neural_posterior"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
