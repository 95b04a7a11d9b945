"""`fast_push.push` changes a board exactly as python-chess's `Board.push` does (the undo stacks aside).

Random RBC games (every move action revised as the arbiter revises it, passes included)
and hand-made edge cases (castling both ways, en passant, promotions, king and rook
captures on the corners, moves from a position whose castling rights are not clean)
are played on two boards, one with each push; after every move every field must match.
"""

from __future__ import annotations

from typing import Optional

import chess
import numpy as np
import pytest

from blindchess.arbiter.rules import fast_push
from blindchess.arbiter.rules import reference as rules


def fields(board: chess.Board) -> tuple[object, ...]:
    return (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        board.occupied, board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.promoted,
        board.turn, board.clean_castling_rights(), board.castling_rights, board.ep_square,
        board.halfmove_clock, board.fullmove_number,
    )  # fmt: skip


def push_both(reference: chess.Board, fast: chess.Board, move: Optional[chess.Move]) -> None:
    reference.push(move if move is not None else chess.Move.null())
    fast_push.push(fast, move)
    assert fields(fast) == fields(reference), (move, reference.fen())


@pytest.mark.parametrize("seed", range(3))
def test_fast_push_matches_python_chess_on_random_games(seed: int) -> None:
    rng = np.random.default_rng(seed)
    moves = 0
    for _ in range(15):
        reference, fast = chess.Board(), chess.Board()
        while rules.king_captured(reference) is None and reference.fullmove_number < 150:
            actions = rules.move_actions(reference)
            pawn_moves = [move for move in actions if reference.piece_type_at(move.from_square) == chess.PAWN]
            pool = pawn_moves if pawn_moves and rng.random() < 0.5 else actions + [None]
            requested = pool[int(rng.integers(len(pool)))]
            taken = None if requested is None else rules.revise_move(reference, rules.with_default_promotion(reference, requested))
            push_both(reference, fast, taken)
            moves += taken is not None
    assert moves > 1000


@pytest.mark.parametrize(
    ("fen", "ucis"),
    [
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["e1g1", "e8c8"]),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["e1c1", "e8g8"]),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["a1a8", "h8h1"]),  # rooks captured on their corners
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ["e1h1"]),  # castling written as king takes rook
        ("4k3/8/8/8/8/8/8/R3K2R w KQkq - 3 9", ["h1h2", "e8e7"]),  # unclean rights (no black rooks)
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", ["e5d6"]),  # en passant
        ("1n2k3/P7/8/8/8/8/6p1/4K2R w K - 0 1", ["a7b8n", "g2h1q"]),  # capture-promotions, rook lost on h1
        ("4k3/8/8/8/8/8/8/4K2r w - - 0 1", ["e1f1", "h1e1"]),  # a king captured
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", [None, None, "e1e2"]),  # null moves
    ],
)
def test_fast_push_matches_python_chess_on_edge_cases(fen: str, ucis: list[Optional[str]]) -> None:
    reference, fast = chess.Board(fen), chess.Board(fen)
    for uci in ucis:
        push_both(reference, fast, None if uci is None else chess.Move.from_uci(uci))
