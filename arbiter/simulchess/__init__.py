"""simulchess (seed 004): simultaneous-move chess with established threats and backup moves, as its own arbiter."""

from .game import GameOverError, SimulGame, SimulResult
from .players import BOTS, RandomSimulBot, SearchSimulBot, play_simulchess_match
from .rules import IllegalSubmission, SimulchessError, SimulState, Submission, TurnReport

__all__ = [
    "BOTS",
    "GameOverError",
    "IllegalSubmission",
    "RandomSimulBot",
    "SearchSimulBot",
    "SimulGame",
    "SimulResult",
    "SimulState",
    "SimulchessError",
    "Submission",
    "TurnReport",
    "play_simulchess_match",
]
