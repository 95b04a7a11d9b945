"""The arbiter: RBC rules, the game flow, clocks, observations and histories."""

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
    "SenseResult",
    "Square",
    "WinReason",
]
