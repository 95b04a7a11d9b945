"""The arbiter: RBC rules, the game flow, clocks, observations and histories."""

from .faults import BotFault
from .game import Game, IllegalActionError, LocalGame
from .history import GameHistory, HistoryFormatError, Turn
from .loading import PlayerLoadError, load_player
from .observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from .observing_player import ObservingPlayer
from .play import play_local_game, play_turn
from .player import Player
from .types import Color, PieceType, Square, WinReason

__all__ = [
    "BotFault",
    "Color",
    "Game",
    "GameEnded",
    "GameHistory",
    "GameStarted",
    "HistoryFormatError",
    "IllegalActionError",
    "LocalGame",
    "MoveResult",
    "Observation",
    "ObservingPlayer",
    "OpponentMoved",
    "PieceType",
    "Player",
    "PlayerLoadError",
    "SenseResult",
    "Square",
    "Turn",
    "WinReason",
    "load_player",
    "play_local_game",
    "play_turn",
]
