"""`fast_revision` revises every move action, and finds its capture square, exactly as `rules` does.

Every move action (with the default promotion added, as the arbiter adds it) of every
position of seeded random RBC games, plus hand-made positions for the rare cases
(blocked double steps, en passant, castling through pieces, capture-promotions, slides
into a piece), is revised by both; the moves taken and the capture squares must match.
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from blindchess.arbiter.rules import fast_revision
from blindchess.arbiter.rules import reference as rules

EDGE_FENS = [
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "rn2k1nr/8/8/8/8/8/8/RN2K1NR b KQkq - 0 1",  # castling through opponent pieces
    "r3k2r/8/8/8/8/8/8/RN2K1nR w KQkq - 0 1",
    "4k3/1P6/8/3pP3/8/8/6p1/4K3 w - d6 0 1",  # en passant, promotions
    "2n1k3/1P6/8/8/8/8/6p1/4KN2 b - - 0 1",  # capture-promotions with and without a piece
    "4k3/8/8/8/8/p7/P7/4K3 w - - 0 1",  # blocked pawns, single and double steps
    "4k3/8/8/8/p7/8/P7/4K3 w - - 0 1",
    "q3k3/8/8/3p4/8/1n6/8/Q3K2R w K - 0 1",  # slides into opponent pieces
]


def assert_same_revisions(board: chess.Board) -> int:
    count = 0
    for action in rules.move_actions(board):
        move = rules.with_default_promotion(board, action)
        taken = rules.revise_move(board, move)
        assert fast_revision.revise_move(board, move) == taken, (board.fen(), move)
        assert fast_revision.capture_square(board, taken) == rules.capture_square_of_move(board, taken), (board.fen(), move)
        count += 1
    return count


@pytest.mark.parametrize("seed", range(2))
def test_fast_revision_matches_reference_on_random_games(seed: int) -> None:
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(10):
        board = chess.Board()
        while rules.king_captured(board) is None and board.fullmove_number < 100:
            checked += assert_same_revisions(board)
            actions = rules.move_actions(board)
            pawn_moves = [move for move in actions if board.piece_type_at(move.from_square) == chess.PAWN]
            pool = pawn_moves if pawn_moves and rng.random() < 0.5 else actions + [None]
            requested = pool[int(rng.integers(len(pool)))]
            rules.push(board, None if requested is None else rules.revise_move(board, rules.with_default_promotion(board, requested)))
    assert checked > 20_000


@pytest.mark.parametrize("fen", EDGE_FENS)
def test_fast_revision_matches_reference_on_edge_cases(fen: str) -> None:
    assert assert_same_revisions(chess.Board(fen)) > 0
