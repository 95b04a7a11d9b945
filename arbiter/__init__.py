"""The arbiter: RBC rules, the game flow, clocks, observations and histories."""

from .loading import PlayerLoadError, load_player
from .player import Player
from .observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from .types import Color, PieceType, Square, WinReason

__all__ = [
    "Color",
    "GameEnded",
    "GameStarted",
    "MoveResult",
    "Observation",
    "OpponentMoved",
    "PieceType",
    "Player",
    "PlayerLoadError",
    "SenseResult",
    "Square",
    "WinReason",
    "load_player",
]
