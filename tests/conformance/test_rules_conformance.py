"""One conformance suite for every rules object: seeded random simulation, no crash, determinism by seed.

The recon suite runs over the `Rules` protocol (the 8x8 `STANDARD` rules, recon
Mini-Chess under both rule sets and the teaching boards); the perfect-information
suite over the Mini-Chess rule sets and the teaching games.
"""

from __future__ import annotations

from typing import Any

import chess
import numpy as np
import pytest

from blindchess.arbiter.rules.ruleset import STANDARD, Rules
from blindchess.variants.minichess import IMCS, MINICHESS, MiniChessRules, Outcome, Termination
from blindchess.variants.recon import RECON_MINICHESS, RECON_MINICHESS_IMCS
from blindchess.variants.teaching import TEACHING_4X4, TEACHING_4X5

RECON_RULES: dict[str, Rules[Any]] = {
    "standard": STANDARD,
    "recon-minichess": RECON_MINICHESS,
    "recon-minichess-imcs": RECON_MINICHESS_IMCS,
    "teaching-4x4": TEACHING_4X4,
    "teaching-4x5": TEACHING_4X5,
}
GAMES = 15
MAX_PLIES = 300


def _on_board_squares(rules: Rules[Any], board: Any) -> set[int]:
    return set(rules.sense_actions(board))


def simulate_recon(rules: Rules[Any], seed: int) -> list[str]:
    """A random recon game through the protocol, checking invariants at every ply; returns the FEN trace."""
    rng = np.random.default_rng(seed)
    board = rules.starting_board()
    trace = [rules.fen(board)]
    squares = _on_board_squares(rules, board)
    for _ in range(MAX_PLIES):
        mover = rules.turn(board)
        assert rules.fen(rules.starting_board(rules.fen(board))) == rules.fen(board)
        sense_square = int(rng.choice(rules.sense_actions(board)))
        window = rules.sense(board, sense_square)
        assert 1 <= len(window) <= 9 and sense_square in {s for s, _ in window}
        assert all(s in squares and piece == board.piece_at(s) for s, piece in window)
        actions = rules.move_actions(board)
        assert actions, "the mover always has a move action in these games"
        for action in actions:
            piece = board.piece_at(action.from_square)
            assert piece is not None and piece.color == mover and action.to_square in squares
        request = None if rng.random() < 0.05 else actions[int(rng.integers(len(actions)))]
        taken = None
        if request is not None:
            normalized = rules.normalize(board, request)
            assert rules.normalize(board, normalized) == normalized
            taken = rules.revise(board, normalized)
            assert taken is None or taken.from_square == request.from_square
        capture = rules.capture_square(board, taken)
        if capture is not None:
            captured = board.piece_at(capture)
            assert captured is not None and captured.color != mover
        fullmove = rules.fullmove_number(board)
        before = rules.copy(board)
        rules.push(board, taken)
        assert rules.fen(before) != rules.fen(board)  # the copy is independent and the turn changed
        assert rules.turn(board) != mover
        assert rules.fullmove_number(board) == fullmove + (1 if mover == chess.BLACK else 0)
        assert all(square in squares for square in board.piece_map())
        trace.append(rules.fen(board))
        if rules.king_captured(board) is not None:
            assert rules.king_captured(board) == (not mover)
            break
    return trace


@pytest.mark.parametrize("name", RECON_RULES)
def test_recon_random_games_keep_the_invariants_and_replay_by_seed(name: str) -> None:
    rules = RECON_RULES[name]
    traces = [simulate_recon(rules, seed) for seed in range(GAMES)]
    assert simulate_recon(rules, 3) == traces[3]
    assert len({tuple(trace) for trace in traces}) > GAMES // 2  # seeds do drive the games
    assert any(rules.king_captured(rules.starting_board(trace[-1])) is not None for trace in traces)


PERFECT_RULES: dict[str, MiniChessRules] = {
    "minichess": MINICHESS,
    "minichess-imcs": IMCS,
    "teaching-4x4": TEACHING_4X4.game,
    "teaching-4x5": TEACHING_4X5.game,
}


def simulate_perfect(rules: MiniChessRules, seed: int) -> tuple[list[str], Outcome]:
    rng = np.random.default_rng(seed)
    position = rules.start()
    trace = [rules.placement(position)]
    while (outcome := rules.outcome(position)) is None:
        moves = rules.legal_moves(position)
        assert moves and position.ply < 2 * rules.moves_per_side
        move = moves[int(rng.integers(len(moves)))]
        board = rules.to_board(position)
        capture = rules.push(position, move)
        assert capture == (move.to_square if board.piece_at(move.to_square) is not None else None)
        assert rules.from_board(rules.to_board(position)) == position
        trace.append(rules.placement(position))
    assert rules.legal_moves(position) == []
    return trace, outcome


@pytest.mark.parametrize("name", PERFECT_RULES)
def test_perfect_information_random_games_end_with_an_outcome_and_replay_by_seed(name: str) -> None:
    rules = PERFECT_RULES[name]
    results = [simulate_perfect(rules, seed) for seed in range(4 * GAMES)]
    assert simulate_perfect(rules, 5) == results[5]
    for trace, outcome in results:
        assert len(trace) - 1 <= 2 * rules.moves_per_side
        if outcome.termination == Termination.KING_CAPTURE:
            assert outcome.winner is not None
        elif outcome.termination in (Termination.MOVE_LIMIT, Termination.MATERIAL):
            assert outcome.winner is None
    assert any(outcome.termination == Termination.KING_CAPTURE for _, outcome in results)
