"""simulchess (seed 004): simultaneous-move chess with established threats and backup moves, as its own arbiter."""

from blindchess.variants.simulchess.game import GameOverError, SimulGame, SimulResult
from blindchess.variants.simulchess.players import BOTS, RandomSimulBot, SearchSimulBot, play_simulchess_match
from blindchess.variants.simulchess.rules import IllegalSubmission, SimulchessError, SimulState, Submission, TurnReport

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
