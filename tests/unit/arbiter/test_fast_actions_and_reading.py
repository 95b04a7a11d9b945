"""The fast bitboard readers agree with their references on seeded random RBC positions.

`fast_actions.move_actions` must equal `rules.move_actions` (same moves, same order) and
`fast_reading.fen` must equal python-chess's ``fen(en_passant="fen")`` and
`fast_reading.sense_window` must equal `rules.sense_window` (every centre), on positions from
random games (castling rights, en passant squares, promotions and king captures
included) and on a few hand-made edge cases.
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from blindchess.arbiter.rules import fast_actions, fast_reading
from blindchess.arbiter.rules import reference as rules

EDGE_FENS = [
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",  # castling both ways, both colours
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "rn2k1nr/8/8/8/8/8/8/RN2K1NR w KQkq - 0 1",  # castling blocked by own pieces
    "4k3/1P6/8/3pP3/8/8/6p1/4K3 w - d6 0 1",  # en passant square, promotions both ways
    "4k3/1P6/8/3pP3/8/8/6p1/4K3 b - - 0 1",
    "8/8/8/8/8/8/8/K7 w - - 0 1",  # a side without its king (after a capture)
    "R3K2R/8/8/8/8/8/8/r3k2r w - - 0 1",  # kings and rooks on the wrong back ranks
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "1k6/8/8/8/8/8/8/K6K w - - 0 1",  # two kings of one colour: the reference path
    "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",  # pawns on their own back rank or the last rank (python-chess accepts the FEN)
    "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
    "p3k3/8/8/8/8/8/8/4K2p b - - 0 1",
]


def random_positions(seed: int, games: int) -> list[chess.Board]:
    rng = np.random.default_rng(seed)
    boards = []
    for _ in range(games):
        board = chess.Board()
        while rules.king_captured(board) is None and board.fullmove_number < 120:
            boards.append(board.copy())
            actions = rules.move_actions(board)
            pawn_moves = [move for move in actions if board.piece_type_at(move.from_square) == chess.PAWN]
            pool = pawn_moves if pawn_moves and rng.random() < 0.5 else actions + [None]
            requested = pool[int(rng.integers(len(pool)))]
            taken = None if requested is None else rules.revise_move(board, rules.with_default_promotion(board, requested))
            rules.push(board, taken)
        boards.append(board.copy())
    return boards


@pytest.mark.parametrize("seed", range(2))
def test_fast_readers_match_references_on_random_games(seed: int) -> None:
    boards = random_positions(seed, 12)
    rng = np.random.default_rng(seed)
    assert len(boards) > 1000
    for board in boards:
        assert fast_actions.move_actions(board) == rules.move_actions(board), board.fen()
        assert fast_reading.fen(board) == board.fen(en_passant="fen")
    for center in chess.SQUARES:
        assert fast_reading.sense_window(board, center) == rules.sense_window(board, center)
        snapshot = board.copy(stack=False)  # histories format stackless copies
        assert fast_reading.fen(snapshot) == board.fen(en_passant="fen")
        center = int(rng.integers(64))
        assert fast_reading.sense_window(board, center) == rules.sense_window(board, center)


@pytest.mark.parametrize("fen", EDGE_FENS)
def test_fast_readers_match_references_on_edge_cases(fen: str) -> None:
    board = chess.Board(fen)
    assert fast_actions.move_actions(board) == rules.move_actions(board)
    assert fast_reading.fen(board) == board.fen(en_passant="fen")
    for center in chess.SQUARES:
        assert fast_reading.sense_window(board, center) == rules.sense_window(board, center)


def test_move_actions_stay_equal_across_cache_resets(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tiny cache limit empties the move tables over and over; the answers must not change."""
    monkeypatch.setattr(fast_actions, "CACHE_LIMIT", 3)
    for board in random_positions(5, 3):
        assert fast_actions.move_actions(board) == rules.move_actions(board), board.fen()
