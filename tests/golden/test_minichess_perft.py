"""Golden perft counts of Mini-Chess from the start position (terminal after a king capture)."""

from __future__ import annotations

import chess
import pytest

from blindchess.variants.minichess import (
    IMCS,
    MINICHESS,
    IllegalMiniChessMove,
    MiniChessRules,
    PlacementError,
)

SEED_COUNTS = (7, 49, 452, 4230, 47102, 532718)
IMCS_COUNTS = (7, 49, 473, 4627, 54252, 645333)


@pytest.mark.parametrize("depth", range(1, 7))
def test_seed_rules_perft(depth: int) -> None:
    assert MINICHESS.perft(MINICHESS.start(), depth) == SEED_COUNTS[depth - 1]


@pytest.mark.parametrize("depth", range(1, 7))
def test_imcs_rules_perft(depth: int) -> None:
    assert IMCS.perft(IMCS.start(), depth) == IMCS_COUNTS[depth - 1]


def test_perft_by_explicit_tree_walk_agrees_with_bulk_counting() -> None:
    """The slow reference walk over the checked `chess.Move` API (legal_moves, push) gives the same counts."""
    assert MINICHESS.reference_perft(MINICHESS.start(), 4) == SEED_COUNTS[3]
    assert IMCS.reference_perft(IMCS.start(), 4) == IMCS_COUNTS[3]


def test_start_position_round_trips_through_chess_board() -> None:
    board = MINICHESS.to_board(MINICHESS.start())
    assert board.fen() == "8/8/kqbnr3/ppppp3/8/8/PPPPP3/RNBQK3 w - - 0 1"
    assert MINICHESS.from_board(board) == MINICHESS.start()
    assert MINICHESS.placement(MINICHESS.start()) == "kqbnr/ppppp/5/5/PPPPP/RNBQK"


def test_bad_input_raises_specific_errors() -> None:
    with pytest.raises(IllegalMiniChessMove, match="a2a4"):
        MINICHESS.push(MINICHESS.start(), chess.Move.from_uci("a2a4"))
    with pytest.raises(PlacementError, match="off the 5x6 board"):
        MINICHESS.from_board(chess.Board())
    with pytest.raises(PlacementError, match="ranks"):
        MiniChessRules(start_placement="kqbnr/ppppp")
