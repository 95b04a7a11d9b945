"""AttackerBot: one of four scripted rushes at the king, then passes, like reconchess's."""

from __future__ import annotations

from typing import Optional

import chess

from blindchess.arbiter import Color

from .random_bot import RandomBot, SeedLike

QUICK_ATTACKS: tuple[tuple[chess.Move, ...], ...] = (
    # queen-side knight attacks
    tuple(chess.Move.from_uci(uci) for uci in ("b1c3", "c3b5", "b5d6", "d6e8")),
    tuple(chess.Move.from_uci(uci) for uci in ("b1c3", "c3e4", "e4f6", "f6e8")),
    # king-side knight attack
    tuple(chess.Move.from_uci(uci) for uci in ("g1h3", "h3f4", "f4h5", "h5f6", "f6e8")),
    # four-move mate, finished by capturing the king
    tuple(chess.Move.from_uci(uci) for uci in ("e2e4", "f1c4", "d1h5", "c4f7", "f7e8", "h5e8")),
)
"""Move sequences from White's side; Black plays them mirrored rank-wise (same files)."""


def flipped_move(move: chess.Move) -> chess.Move:
    """`move` reflected across the board's middle rank (a1 <-> a8), promotion kept."""
    return chess.Move(chess.square_mirror(move.from_square), chess.square_mirror(move.to_square), move.promotion)


class AttackerBot(RandomBot):
    """Picks one rush at random, skips moves that are no longer possible, then passes.

    Senses at random, as reconchess's AttackerBot does (it never uses what it sees): the
    senses, and the callbacks it ignores, are `RandomBot`'s.

    Args:
        rng: a seed or `numpy.random.Generator`; None draws fresh entropy.
    """

    def __init__(self, rng: SeedLike = None) -> None:
        super().__init__(rng)
        self.attack = QUICK_ATTACKS[self.rng.integers(len(QUICK_ATTACKS))]
        """The rush chosen at construction (from White's side)."""
        self.move_sequence: list[chess.Move] = list(self.attack)
        """The moves still to try, from our side of the board."""

    def handle_game_start(self, color: Color, board: chess.Board, opponent_name: str) -> None:
        self.move_sequence = [flipped_move(move) for move in self.attack] if color == chess.BLACK else list(self.attack)

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        while self.move_sequence and self.move_sequence[0] not in move_actions:
            self.move_sequence.pop(0)
        return self.move_sequence.pop(0) if self.move_sequence else None
