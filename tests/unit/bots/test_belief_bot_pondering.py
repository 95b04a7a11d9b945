"""`BeliefBot.ponder` beyond the belief: the next sense chosen ahead, and the selector's positions scored ahead."""

from __future__ import annotations

import threading
from typing import Optional

import chess
import numpy as np
import pytest

from blindchess.arbiter import LocalGame, play_local_game
from blindchess.arbiter.rules.fast_actions import move_actions as move_actions_of
from blindchess.arbiter.types import Square, WinReason
from blindchess.beliefs import BoardSet
from blindchess.beliefs.base import Belief
from blindchess.bots.belief_bot import BeliefBot
from blindchess.bots.flagship_config import FAST_FLAGSHIP
from blindchess.bots.random_bot import RandomBot
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.sensing.base import SenseContext
from blindchess.sensing.random_planner import RandomSensePlanner
from blindchess.sensing.windows import window_squares


class CountingPlanner(RandomSensePlanner):
    """The random planner, remembering which belief each call read."""

    def __init__(self) -> None:
        self.beliefs: list[Belief] = []

    def choose_sense(
        self, belief: Belief, sense_actions: list[Square], seconds_left: float, rng: np.random.Generator, context: SenseContext
    ) -> Optional[Square]:
        self.beliefs.append(belief)
        return super().choose_sense(belief, sense_actions, seconds_left, rng, context)


class PonderingAtOnce(BeliefBot):
    """Ponders to the end right after each own turn, in the game's thread (what `PonderingPlayer` runs on another)."""

    def handle_move_result(
        self, requested_move: Optional[chess.Move], taken_move: Optional[chess.Move], captured_opponent_piece: bool,
        capture_square: Optional[Square],
    ) -> None:
        super().handle_move_result(requested_move, taken_move, captured_opponent_piece, capture_square)
        self.ponder(threading.Event())


def test_a_pondering_bot_senses_where_it_pondered_and_moves_on_pondered_scores() -> None:
    planner, selector = CountingPlanner(), StockfishMoveSelector(FAST_FLAGSHIP.selector)
    bot = PonderingAtOnce(lambda: BoardSet(max_boards=20_000), planner, selector, rng=3)
    winner, reason, _ = play_local_game(bot, RandomBot(rng=4), LocalGame(full_turn_limit=10))
    assert reason is not None and (reason == WinReason.TURN_LIMIT or winner is not None)
    assert bot.game.pondered_turns >= 3 and bot.game.pondered_senses >= 3
    # A pondered turn's sense was chosen on the expanded belief, by the ponder, not again in the turn:
    # the planner ran once per turn that was not pondered and once per ponder that reached it.
    assert bot.game.pondered_senses <= bot.game.pondered_turns <= len(planner.beliefs)
    assert len(planner.beliefs) < 2 * bot.game.turns
    assert selector.cache.hits >= 1 and selector.cache.hits <= selector.cache.lookups


@pytest.mark.parametrize("captured", [False, True])
def test_the_pondered_sense_is_taken_only_on_the_belief_it_was_chosen_on(captured: bool) -> None:
    """After a quiet reply the turn senses where pondering chose; after a capture the planner reads the new belief."""
    planner = CountingPlanner()
    bot = PonderingAtOnce(lambda: BoardSet(max_boards=5_000), planner, StockfishMoveSelector(FAST_FLAGSHIP.selector), rng=5)
    board = chess.Board()
    bot.handle_game_start(chess.WHITE, board, "opponent")
    bot.handle_opponent_move_result(False, None)
    sense_actions, move_actions = list(chess.SQUARES), move_actions_of(board)
    first = bot.choose_sense(sense_actions, move_actions, 900.0)
    assert first is not None
    bot.handle_sense_result([(square, board.piece_at(square)) for square in window_squares(first)])
    bot.handle_move_result(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), False, None)  # ponders
    assert len(planner.beliefs) == 2 and planner.beliefs[-1] is not bot.belief  # chosen on the expansion, ahead
    board.push_uci("e2e4")
    bot.handle_opponent_move_result(captured, chess.E4 if captured else None)
    if captured:
        board.remove_piece_at(chess.E4)
    board.turn = chess.WHITE
    sense = bot.choose_sense(sense_actions, move_actions_of(board), 899.0)
    assert (len(planner.beliefs), bot.game.pondered_senses) == ((3, 0) if captured else (2, 1))
    assert planner.beliefs[-1] is bot.belief and sense in sense_actions
    bot.move_selector.close()
