"""Recon Mini-Chess through the arbiter's game flow (`LocalGame` with the Mini-Chess rules object).

Belief bots play full games on the 5x6 board (and the teaching boards); after every
observation event, each bot's exact belief must still hold the true board.
"""

from __future__ import annotations

from typing import Any, Optional

import chess
import numpy as np
import pytest

from blindchess.arbiter.game.local_game import LocalGame
from blindchess.arbiter.play import play_local_game
from blindchess.arbiter.types import WinReason
from blindchess.variants.recon import RECON_MINICHESS, RECON_MINICHESS_IMCS, ReconMiniChessRules
from blindchess.variants.recon_bot import ReconMiniChessBot
from blindchess.variants.teaching import TEACHING_4X4, TEACHING_4X5

SEEDED_GAMES = 200  # 55 ms of CPU a game
MOVE_LIMIT = RECON_MINICHESS.full_turn_limit
"""Mini-Chess's 40 moves a side become the flow's full-turn limit."""


def play_checked(rules: ReconMiniChessRules, white: ReconMiniChessBot, black: ReconMiniChessBot) -> tuple[LocalGame[Any], int]:
    """Play one game in reconchess's callback order, asserting the truth is in the mover's belief after every event."""
    game: LocalGame[Any] = LocalGame(seconds_per_player=None, full_turn_limit=MOVE_LIMIT, rules=rules)
    players = {chess.WHITE: white, chess.BLACK: black}
    for color, player in players.items():
        player.handle_game_start(color, rules.starting_board(), "opponent")
        assert game.board in player.belief
    game.start()
    checks = 0
    while not game.is_over():
        player = players[game.turn]
        capture: Optional[int] = game.opponent_move_results()
        player.handle_opponent_move_result(capture is not None, capture)
        assert game.board in player.belief
        sense_actions, move_actions = game.sense_actions(), game.move_actions()
        assert sense_actions is not None and move_actions is not None, "the game is not over"
        square = player.choose_sense(sense_actions, move_actions, game.get_seconds_left())
        player.handle_sense_result(game.sense(square))
        assert game.board in player.belief
        requested, taken, capture = game.move(player.choose_move(move_actions, game.get_seconds_left()))
        player.handle_move_result(requested, taken, capture is not None, capture)
        assert game.board in player.belief  # the mover's belief after its own move: the board the opponent now faces
        checks += 3
        game.end_turn()
    game.end()
    return game, checks


def test_the_move_limit_is_forty_full_turns() -> None:
    assert MOVE_LIMIT == 40 == RECON_MINICHESS_IMCS.full_turn_limit


def test_a_full_game_between_two_belief_bots_on_5x6() -> None:
    white = ReconMiniChessBot(RECON_MINICHESS, np.random.default_rng(1))
    black = ReconMiniChessBot(RECON_MINICHESS, np.random.default_rng(2))
    game, checks = play_checked(RECON_MINICHESS, white, black)
    assert game.get_win_reason() in (WinReason.KING_CAPTURE, WinReason.TURN_LIMIT)
    assert checks >= 6
    history = game.get_game_history()
    assert history is not None and history.num_turns() >= 2


def test_play_local_game_runs_recon_minichess_unchanged() -> None:
    """The arbiter's own play loop (`play_local_game`) with the Mini-Chess rules object and two belief bots."""
    game: LocalGame[Any] = LocalGame(seconds_per_player=None, full_turn_limit=MOVE_LIMIT, rules=RECON_MINICHESS)
    white = ReconMiniChessBot(RECON_MINICHESS, np.random.default_rng(3), explore=0.2)
    black = ReconMiniChessBot(RECON_MINICHESS, np.random.default_rng(4), explore=0.2)
    _winner, reason, history = play_local_game(white, black, game=game)
    assert reason in (WinReason.KING_CAPTURE, WinReason.TURN_LIMIT) and not history.faults
    final = RECON_MINICHESS.starting_board(history.truth_fen_after_move(history.last_turn()))
    assert (RECON_MINICHESS.king_captured(final) is not None) == (reason == WinReason.KING_CAPTURE)
    for bot in (white, black):
        assert bot.belief.is_exact and len(bot.belief) >= 1


@pytest.mark.slow
def test_truth_is_in_the_belief_after_every_event_over_200_seeded_games() -> None:
    reasons, lengths = [], []
    for seed in range(SEEDED_GAMES):
        rules = RECON_MINICHESS if seed % 2 == 0 else RECON_MINICHESS_IMCS
        bots = [ReconMiniChessBot(rules, np.random.default_rng([seed, color]), depth=1, boards=1, explore=0.25) for color in (0, 1)]
        game, checks = play_checked(rules, bots[0], bots[1])
        reasons.append(game.get_win_reason())
        lengths.append(checks)
    assert reasons.count(WinReason.KING_CAPTURE) > SEEDED_GAMES // 2
    assert len(set(lengths)) > 20  # the seeds really give different games


def test_the_sense_planners_work_on_the_5x6_belief_through_the_same_protocol() -> None:
    from blindchess.sensing.eig import EntropySensePlanner
    from blindchess.sensing.expected_size import ExpectedSizeSensePlanner

    for seed, planner in enumerate((EntropySensePlanner(), ExpectedSizeSensePlanner())):
        bots = [
            ReconMiniChessBot(RECON_MINICHESS, np.random.default_rng([seed, color]), explore=0.2, sense_planner=planner)
            for color in (0, 1)
        ]
        game, checks = play_checked(RECON_MINICHESS, bots[0], bots[1])
        assert game.is_over() and checks >= 6


@pytest.mark.parametrize("rules", [TEACHING_4X4, TEACHING_4X5], ids=lambda r: r.name)
def test_teaching_boards_run_through_the_same_flow(rules: ReconMiniChessRules) -> None:
    for seed in range(10):
        bots = [ReconMiniChessBot(rules, np.random.default_rng([seed, color]), explore=0.3) for color in (0, 1)]
        game, _ = play_checked(rules, bots[0], bots[1])
        assert game.is_over()
