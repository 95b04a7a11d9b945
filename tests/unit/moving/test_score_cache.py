"""The selector's position cache (`ScoreCache`) and pondering into it (`StockfishMoveSelector.ponder`)."""

from __future__ import annotations

import threading

import chess
import chess.engine
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from blindchess.arbiter.game.observations import GameStarted, MoveResult, OpponentMoved
from blindchess.beliefs import BoardSet
from blindchess.bots.flagship_config import FAST_FLAGSHIP
from blindchess.moving.base import MoveContext, PonderingSelector
from blindchess.moving.score_cache import ScoreCache, covers, strength_of
from blindchess.moving.stockfish_selector import StockfishMoveSelector

seconds = st.floats(0.001, 10.0)
depths = st.integers(1, 30)


@given(seconds, seconds)
def test_a_timed_value_answers_no_longer_requests(stored: float, requested: float) -> None:
    cache = ScoreCache()
    cache.store(chess.Board(), chess.WHITE, chess.engine.Limit(time=stored), 0.25)
    found = cache.get(chess.Board(), chess.WHITE, chess.engine.Limit(time=requested))
    assert (found == 0.25) == (requested <= stored)
    assert (cache.lookups, cache.hits) == (1, int(requested <= stored))


@given(depths, depths)
def test_a_depth_value_answers_no_deeper_requests_and_never_a_timed_one(stored: int, requested: int) -> None:
    assert covers(strength_of(chess.engine.Limit(depth=stored)), strength_of(chess.engine.Limit(depth=requested))) == (requested <= stored)
    assert not covers(strength_of(chess.engine.Limit(depth=stored)), strength_of(chess.engine.Limit(time=0.001)))


def test_mixed_limits_must_match_exactly() -> None:
    mixed = chess.engine.Limit(depth=5, time=0.1)
    assert covers(strength_of(mixed), strength_of(chess.engine.Limit(depth=5, time=0.1)))
    assert not covers(strength_of(mixed), strength_of(chess.engine.Limit(depth=4, time=0.1)))


def test_the_side_and_the_position_are_the_key() -> None:
    cache, limit = ScoreCache(), chess.engine.Limit(depth=3)
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    cache.store(after_e4, chess.WHITE, limit, 0.1)
    assert cache.get(after_e4, chess.BLACK, limit) is None
    assert cache.get(chess.Board(), chess.WHITE, limit) is None
    assert cache.get(after_e4, chess.WHITE, limit) == 0.1


def test_a_weaker_search_never_replaces_a_stronger_one() -> None:
    cache, board = ScoreCache(), chess.Board()
    cache.store(board, chess.WHITE, chess.engine.Limit(time=0.5), 0.3)
    cache.store(board, chess.WHITE, chess.engine.Limit(time=0.1), -0.2)
    assert cache.get(board, chess.WHITE, chess.engine.Limit(time=0.4)) == 0.3
    cache.store(board, chess.WHITE, chess.engine.Limit(time=0.9), 0.0)
    assert cache.get(board, chess.WHITE, chess.engine.Limit(time=0.1)) == 0.0


@given(st.integers(0, 8), st.integers(1, 20))
def test_the_cache_keeps_at_most_its_capacity_and_the_latest_positions(capacity: int, stored: int) -> None:
    cache, limit = ScoreCache(capacity), chess.engine.Limit(depth=1)
    boards = []
    for square in range(stored):
        board = chess.Board(None)
        board.set_piece_at(square, chess.Piece(chess.KING, chess.WHITE))
        boards.append(board)
        cache.store(board, chess.WHITE, limit, float(square))
    assert len(cache) == min(capacity, stored)
    kept = [cache.get(board, chess.WHITE, limit, counted=False) for board in boards]
    assert kept == [None] * (stored - len(cache)) + [float(s) for s in range(stored - len(cache), stored)]
    assert cache.lookups == 0


def test_a_negative_capacity_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="capacity must be >= 0, got -1"):
        ScoreCache(-1)


def _white_after_e4() -> BoardSet:
    """White's belief once Black has answered 1. e4 unseen: the 20 boards of Black's first moves."""
    belief = BoardSet()
    belief.update(GameStarted(chess.WHITE, chess.STARTING_FEN))
    belief.update(MoveResult(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None))
    belief.update(OpponentMoved(None))
    return belief


def test_pondering_fills_the_cache_and_the_next_move_finds_it() -> None:
    selector = StockfishMoveSelector(FAST_FLAGSHIP.selector)
    assert isinstance(selector, PonderingSelector)
    belief = _white_after_e4()
    board = belief.sample(1, np.random.default_rng(0))[0]
    board.turn = chess.WHITE
    moves = list(board.generate_pseudo_legal_moves())
    try:
        searched = selector.ponder(belief, moves, chess.WHITE, threading.Event(), np.random.default_rng(1))
        assert searched == len(selector.cache) > 0
        assert selector.cache.lookups == 0  # pondering asks without counting
        selector.choose_move(belief, moves, float("inf"), np.random.default_rng(2), MoveContext(chess.WHITE))
        assert selector.cache.lookups > 0 and selector.cache.hits >= 1
    finally:
        selector.close()
    assert len(selector.cache) == 0 and selector.cache.lookups > 0  # a game's end forgets positions, not counts


def test_a_stopped_ponder_searches_nothing() -> None:
    selector = StockfishMoveSelector(FAST_FLAGSHIP.selector)
    stop = threading.Event()
    stop.set()
    try:
        assert selector.ponder(_white_after_e4(), [chess.Move.from_uci("d2d4")], chess.WHITE, stop, np.random.default_rng(1)) == 0
    finally:
        selector.close()
    assert len(selector.cache) == 0


def test_a_selector_that_never_pondered_searches_every_position_and_keeps_none() -> None:
    """Only pondering stores: without it every move is chosen on fresh searches, as before the cache."""
    selector = StockfishMoveSelector(FAST_FLAGSHIP.selector)
    belief = _white_after_e4()
    board = belief.sample(1, np.random.default_rng(0))[0]
    board.turn = chess.WHITE
    moves = list(board.generate_pseudo_legal_moves())
    try:
        for seed in (2, 3):
            selector.choose_move(belief, moves, float("inf"), np.random.default_rng(seed), MoveContext(chess.WHITE))
        assert len(selector.cache) == 0 and selector.cache.lookups > 0 and selector.cache.hits == 0
    finally:
        selector.close()
