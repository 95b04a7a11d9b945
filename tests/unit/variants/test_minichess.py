"""Mini-Chess rules, one test per rule the module docstrings state (seed and IMCS settings, recon revision)."""

from __future__ import annotations

from typing import Optional

import chess

from blindchess.variants.minichess import IMCS, MINICHESS, MiniChessRules, Outcome, Position, Termination
from blindchess.variants.recon import RECON_MINICHESS, RECON_MINICHESS_IMCS, ReconMiniChessRules

M = chess.Move.from_uci


def position(rules: MiniChessRules, placement: str, turn: bool = chess.WHITE, ply: int = 0) -> Position:
    return rules.position(placement, turn, ply)


def test_pawn_steps_one_and_promotes_to_queen_only() -> None:
    assert chess.Move.from_uci("a2a4") not in MINICHESS.legal_moves(MINICHESS.start())
    pos = position(MINICHESS, "1k3/P4/5/5/5/4K")
    assert M("a5a6q") in MINICHESS.legal_moves(pos) and M("a5a6") not in MINICHESS.legal_moves(pos)
    MINICHESS.push(pos, M("a5a6q"))
    assert MINICHESS.placement(pos) == "Qk3/5/5/5/5/4K"


def test_imcs_bishop_steps_orthogonally_onto_empty_squares_only() -> None:
    pos = position(MINICHESS, "k4/5/1pB2/5/5/4K")
    seed_moves, imcs_moves = set(MINICHESS.legal_moves(pos)), set(IMCS.legal_moves(pos))
    assert imcs_moves - seed_moves == {M("c4c5"), M("c4d4"), M("c4c3")}  # b4 holds a black pawn: no capture
    assert M("c4b4") not in imcs_moves


def test_moving_into_check_is_legal_and_king_capture_wins() -> None:
    pos = position(MINICHESS, "k4/5/5/5/1r3/K4")
    assert M("a1b1") in MINICHESS.legal_moves(pos)
    MINICHESS.push(pos, M("a1b1"))
    MINICHESS.push(pos, M("b2b1"))
    assert MINICHESS.outcome(pos) == Outcome(chess.BLACK, Termination.KING_CAPTURE)


def test_draw_after_forty_moves_each() -> None:
    pos = position(MINICHESS, "k4/5/5/5/5/RR2K", ply=79)
    assert MINICHESS.outcome(pos) is None
    pos.ply = 80
    assert MINICHESS.outcome(pos) == Outcome(None, Termination.MOVE_LIMIT)
    assert IMCS.outcome(pos) == Outcome(None, Termination.MOVE_LIMIT)


def test_material_draws_under_seed_rules_only() -> None:
    for placement in ("k4/5/5/5/5/4K", "k4/5/5/5/5/3NK", "kb3/5/5/5/5/4K"):
        pos = position(MINICHESS, placement)
        assert MINICHESS.outcome(pos) == Outcome(None, Termination.MATERIAL)
        assert IMCS.outcome(pos) is None
    assert MINICHESS.outcome(position(MINICHESS, "k4/5/5/5/5/2NNK")) is None


def test_no_legal_move_is_a_draw_under_seed_rules_and_a_loss_under_imcs() -> None:
    pos = position(MINICHESS, "KP3/PP3/5/5/5/4k")  # king a6 walled in by its own pawns, which cannot move
    assert MINICHESS.legal_moves(pos) == []
    assert MINICHESS.outcome(pos) == Outcome(None, Termination.NO_MOVES)
    assert IMCS.outcome(pos) == Outcome(chess.BLACK, Termination.NO_MOVES)


def test_recon_revision_slides_to_first_blocker_and_rejects_bad_pawn_moves() -> None:
    board = RECON_MINICHESS.starting_board("8/8/k7/4p3/8/8/8/R3K3 w - - 0 1")
    assert RECON_MINICHESS.revise(board, M("a1a6")) == M("a1a6")  # captures the king on a6
    board = RECON_MINICHESS.starting_board("8/8/k7/p7/8/8/1P6/R3K3 w - - 0 1")
    assert RECON_MINICHESS.revise(board, M("a1a6")) == M("a1a5")
    assert RECON_MINICHESS.capture_square(board, M("a1a5")) == chess.A5
    assert RECON_MINICHESS.revise(board, M("b2a3")) is None  # pawn diagonal onto an empty square
    assert RECON_MINICHESS.revise(board, M("b2c3")) is None
    board = RECON_MINICHESS.starting_board("8/8/k7/8/8/1p6/1P6/4K3 w - - 0 1")
    assert RECON_MINICHESS.revise(board, M("b2b3")) is None  # pawn push onto a piece


def test_recon_imcs_bishop_step_onto_an_opponent_piece_is_illegal() -> None:
    board = RECON_MINICHESS_IMCS.starting_board("8/8/k7/8/2p5/2B5/8/4K3 w - - 0 1")
    assert M("c3c4") in RECON_MINICHESS_IMCS.move_actions(board)
    assert RECON_MINICHESS_IMCS.revise(board, M("c3c4")) is None


def test_recon_move_actions_offer_pawn_diagonals_and_queen_promotions() -> None:
    board = RECON_MINICHESS.starting_board("8/8/k7/2P5/8/8/8/4K3 w - - 0 1")
    actions = set(RECON_MINICHESS.move_actions(board))
    assert {M("c5c6q"), M("c5b6q"), M("c5d6q")} <= actions
    assert RECON_MINICHESS.normalize(board, M("c5c6")) == M("c5c6q")


def _reference_revise(rules: ReconMiniChessRules, board: chess.Board, move: chess.Move) -> Optional[chess.Move]:
    """Slow, obviously-correct revision: legal if the full generator has it, else a slider stops at its first blocker."""
    game = rules.game
    cells = [0] * 64
    for square, piece in board.piece_map().items():
        cells[square] = piece.piece_type + (0 if piece.color else 6)
    legal = (chess.Move(m & 63, m >> 6 & 63, chess.QUEEN if m >> 12 else None) for m in game.generate(cells, board.turn))
    if any(m == move for m in legal):
        return move
    kind = board.piece_type_at(move.from_square)
    assert kind is not None, f"no piece on {chess.square_name(move.from_square)}"
    geometry = rules.geometry
    rays = {chess.BISHOP: geometry.bishop_rays, chess.ROOK: geometry.rook_rays, chess.QUEEN: geometry.queen_rays}.get(kind)
    for ray in rays[move.from_square] if rays else ():
        if move.to_square in ray:
            return next(chess.Move(move.from_square, square) for square in ray if cells[square])
    return None


def test_fast_revision_agrees_with_the_reference_on_random_positions() -> None:
    import numpy as np

    for rules in (RECON_MINICHESS, RECON_MINICHESS_IMCS):
        rng = np.random.default_rng(5)
        checked = 0
        for _ in range(15):
            board = rules.starting_board()
            for _ in range(60):
                actions = rules.move_actions(board)
                for action in actions:
                    normalized = rules.normalize(board, action)
                    assert rules.revise(board, normalized) == _reference_revise(rules, board, normalized), (board.fen(), action)
                    checked += 1
                taken = rules.revise(board, rules.normalize(board, actions[int(rng.integers(len(actions)))]))
                rules.push(board, taken)
                if rules.king_captured(board) is not None:
                    break
        assert checked > 3000
