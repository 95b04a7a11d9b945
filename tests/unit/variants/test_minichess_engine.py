"""The alpha-beta Mini-Chess player against the random and the one-ply greedy baselines (seeded, modest depth)."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from blindchess.variants.minichess import IMCS, MINICHESS, MiniChessRules
from blindchess.variants.minichess_engine import AlphaBetaPlayer, GreedyMiniChessPlayer, RandomMiniChessPlayer
from blindchess.variants.perfect_play import play_game

GAMES = 100
DEPTH = 3


def _wins(rules: MiniChessRules, opponent_class: type, games: int) -> int:
    wins = 0
    for game in range(games):
        engine = AlphaBetaPlayer(max_depth=DEPTH)
        opponent = opponent_class(np.random.default_rng(game))
        engine_white = game % 2 == 0
        played = play_game(rules, engine, opponent) if engine_white else play_game(rules, opponent, engine)
        wins += played.outcome.winner == engine_white
    return wins


@pytest.mark.slow
def test_alpha_beta_beats_random_in_at_least_99_of_100_games() -> None:
    assert _wins(MINICHESS, RandomMiniChessPlayer, GAMES) >= 99


@pytest.mark.slow
def test_alpha_beta_beats_one_ply_greedy_in_at_least_90_of_100_games() -> None:
    assert _wins(MINICHESS, GreedyMiniChessPlayer, GAMES) >= 90


def test_alpha_beta_beats_greedy_under_imcs_rules_too() -> None:
    assert _wins(IMCS, GreedyMiniChessPlayer, 20) >= 18


def test_search_takes_a_king_in_one_and_sees_a_threat() -> None:
    pos = MINICHESS.position("4Q/1p3/p1pk1/P1N1B/RPP1P/3QK", chess.WHITE, 29)
    result = AlphaBetaPlayer(max_depth=3).search(MINICHESS, pos)
    assert result.move.to_square == chess.D4 and result.score > 900_000
    # Black to move, its king on a6 attacked by the rook on a1 through an empty file: the king must step off it.
    pos = MINICHESS.position("k4/5/5/5/5/R3K", chess.BLACK, 1)
    move = AlphaBetaPlayer(max_depth=2).choose_move(MINICHESS, pos)
    assert move.from_square == chess.A6 and chess.square_file(move.to_square) == 1


def test_search_is_deterministic_and_deeper_iterations_finish() -> None:
    first = AlphaBetaPlayer(max_depth=4).search(MINICHESS, MINICHESS.start())
    again = AlphaBetaPlayer(max_depth=4).search(MINICHESS, MINICHESS.start())
    assert (first.move, first.score, first.nodes) == (again.move, again.score, again.nodes)
    assert first.depth == 4 and first.move in MINICHESS.legal_moves(MINICHESS.start())
