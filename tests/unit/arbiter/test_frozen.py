"""Sense windows share read-only pieces: each behaves as a `chess.Piece`, and a bot cannot change one."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import chess
import pytest

from blindchess.arbiter import WinReason, play_local_game
from blindchess.arbiter.rules import reference as rules
from blindchess.arbiter.rules.frozen import FrozenPiece, frozen_piece
from blindchess.bots.random_bot import RandomBot

PIECES = [(piece_type, color) for piece_type in chess.PIECE_TYPES for color in chess.COLORS]


@pytest.mark.parametrize(("piece_type", "color"), PIECES)
def test_frozen_piece_behaves_as_a_chess_piece(piece_type: chess.PieceType, color: chess.Color) -> None:
    shared, plain = frozen_piece(piece_type, color), chess.Piece(piece_type, color)
    assert shared is frozen_piece(piece_type, color)
    assert isinstance(shared, chess.Piece)
    assert shared == plain and plain == shared and not shared != plain  # noqa: SIM202 - tests __ne__ itself
    assert hash(shared) == hash(plain) and {plain: 1}[shared] == 1
    assert (shared.symbol(), str(shared), repr(shared)) == (plain.symbol(), str(plain), repr(plain))
    other = chess.Piece(piece_type % 6 + 1, color)
    assert shared != other and other != shared
    for clone in (pickle.loads(pickle.dumps(shared)), copy.copy(shared), copy.deepcopy(shared)):
        assert clone == plain and isinstance(clone, FrozenPiece)


def test_frozen_piece_refuses_writes() -> None:
    shared = frozen_piece(chess.QUEEN, chess.WHITE)
    with pytest.raises(AttributeError, match="shared by the arbiter"):
        shared.color = chess.BLACK
    with pytest.raises(AttributeError, match="shared by the arbiter"):
        del shared.piece_type
    assert shared == chess.Piece(chess.QUEEN, chess.WHITE)


class PieceWriter(RandomBot):
    """A random mover that senses e2 and, on its third turn, tries to recolour the first piece it sees."""

    def __init__(self) -> None:
        super().__init__(3)
        self.turns = 0

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> int:
        return chess.E2

    def handle_sense_result(self, sense_result: list[Any]) -> None:
        self.turns += 1
        if self.turns == 3:
            piece = next(piece for _, piece in sense_result if piece is not None)
            piece.color = not piece.color


def test_a_bot_writing_into_a_sense_result_loses_and_the_record_stays_true() -> None:
    winner, reason, history = play_local_game(PieceWriter(), PieceWriter())
    assert (winner, reason) == (chess.BLACK, WinReason.RESIGN)
    assert "AttributeError" in history.faults[0].message and "handle_sense_result" in history.faults[0].message
    for turn in history.turns():
        board = history.truth_board_before_move(turn) if history.has_move(turn) else None
        if board is not None:
            assert history.sense_result(turn) == list(rules.sense_window(board, chess.E2))
