"""Perfect-information Mini-Chess games between two players (no hidden information, no clocks)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Optional, Protocol

import chess

from blindchess.variants.minichess import MiniChessRules, Outcome, Position

logger = logging.getLogger(__name__)


class MiniChessPlayer(Protocol):
    """A perfect-information Mini-Chess player."""

    def choose_move(self, rules: MiniChessRules, position: Position) -> chess.Move:
        """A legal move for the side to move (the game is not over)."""
        ...


@dataclass(frozen=True)
class PlayedGame:
    """A finished game: its outcome and its moves."""

    outcome: Outcome
    moves: tuple[chess.Move, ...]


def play_game(
    rules: MiniChessRules, white: MiniChessPlayer, black: MiniChessPlayer, start: Optional[Position] = None
) -> PlayedGame:
    """Play from `start` (the rule set's start position by default) until the rules end the game.

    Raises:
        IllegalMiniChessMove: a player chose an illegal move (the player, not the game, is at fault).
    """
    position = (start or rules.start()).copy()
    moves: list[chess.Move] = []
    while (outcome := rules.outcome(position)) is None:
        player = white if position.turn == chess.WHITE else black
        move = player.choose_move(rules, position)
        rules.push(position, move)
        moves.append(move)
    logger.debug("%s game over after %d plies: %s", rules.name, len(moves), outcome)
    return PlayedGame(outcome, tuple(moves))
