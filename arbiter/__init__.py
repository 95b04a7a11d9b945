"""The arbiter: RBC rules, the game flow, clocks, observations and histories."""

from .game.faults import BotFault
from .game.history import GameHistory, HistoryFormatError, Turn
from .game.loading import PlayerLoadError, load_player
from .game.local_game import Game, IllegalActionError, LocalGame
from .game.observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from .game.observing_player import ObservingPlayer
from .game.player import Player
from .play import play_local_game, play_turn
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
