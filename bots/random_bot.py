"""RandomBot: senses a random square and plays a random move action or passes, like reconchess's."""

from __future__ import annotations

from typing import Any, Optional, Union

import chess
import numpy as np

from blindchess.arbiter import Color, Player, Square, WinReason

SeedLike = Union[None, int, np.random.SeedSequence, np.random.Generator]
"""Anything `numpy.random.default_rng` accepts: None (unseeded), an int seed, or a Generator."""


class RandomBot(Player):
    """Uniform over `sense_actions`, and over `move_actions` plus a pass.

    Args:
        rng: a seed or `numpy.random.Generator`; None draws fresh entropy.
    """

    variants = None  # it chooses from the action lists, whatever the board

    def __init__(self, rng: SeedLike = None) -> None:
        self.rng = np.random.default_rng(rng)

    def handle_game_start(self, color: Color, board: chess.Board, opponent_name: str) -> None:
        pass

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[Square]) -> None:
        pass

    def choose_sense(
        self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float
    ) -> Optional[Square]:
        return sense_actions[self.rng.integers(len(sense_actions))] if sense_actions else None

    def handle_sense_result(self, sense_result: list[tuple[Square, Optional[chess.Piece]]]) -> None:
        pass

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        choice = self.rng.integers(len(move_actions) + 1)
        return move_actions[choice] if choice < len(move_actions) else None

    def handle_move_result(
        self,
        requested_move: Optional[chess.Move],
        taken_move: Optional[chess.Move],
        captured_opponent_piece: bool,
        capture_square: Optional[Square],
    ) -> None:
        pass

    def handle_game_end(self, winner_color: Optional[Color], win_reason: Optional[WinReason], game_history: Any) -> None:
        pass
