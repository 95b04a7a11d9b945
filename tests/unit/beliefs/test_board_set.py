"""BoardSet unit tests: impossible observations raise, bad input is refused, the Player mixin feeds a belief."""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional

import chess
import numpy as np
import pytest

from blindchess.arbiter.game.local_game import LocalGame
from blindchess.arbiter.game.observations import GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.arbiter.game.player import Player
from blindchess.arbiter.play import play_local_game
from blindchess.beliefs import (
    Belief,
    BeliefPlayerMixin,
    BoardSet,
    InconsistentObservationError,
    MoveModelError,
    OpponentMoveModel,
    ReferenceBoardSet,
    UnexpectedObservationError,
)
from blindchess.bots.random_bot import RandomBot

BELIEFS = [lambda: BoardSet(max_boards=None), ReferenceBoardSet]


def _black_after_e4_sensed_empty() -> list[Observation]:
    """Black's stream: the opponent moved, and a sense of e4 shows it empty."""
    board = chess.Board()
    window = tuple((s, board.piece_at(s)) for s, _ in _window(chess.E4))
    return [GameStarted(chess.BLACK, chess.STARTING_FEN), OpponentMoved(None), SenseResult(chess.E4, window)]


def _window(square: int) -> list[tuple[chess.Square, Optional[chess.Piece]]]:
    from blindchess.arbiter.rules.reference import sense_window

    return list(sense_window(chess.Board(), square))


@pytest.mark.parametrize("make", BELIEFS, ids=["fast", "reference"])
def test_an_impossible_sense_raises_naming_the_event(make: Callable[[], Belief]) -> None:
    belief = make()
    for event in _black_after_e4_sensed_empty():
        belief.update(event)
    # 20 moves + pass, less the 7 that land in d3-f5: d3 d4 e3 e4 f3 f4 Nf3
    assert len(belief) == 21 - 7
    queen = chess.Piece(chess.QUEEN, chess.WHITE)  # on e5 after White's first move: no board has it
    impossible = SenseResult(chess.E4, tuple((s, queen if s == chess.E5 else piece) for s, piece in _window(chess.E4)))
    with pytest.raises(InconsistentObservationError, match="SenseResult"):
        belief.update(impossible)


@pytest.mark.parametrize("make", BELIEFS, ids=["fast", "reference"])
def test_an_impossible_own_move_result_raises(make: Callable[[], Belief]) -> None:
    belief = make()
    belief.update(GameStarted(chess.WHITE, chess.STARTING_FEN))
    belief.update(OpponentMoved(None))
    # e2e4 cannot capture anything on the first move
    with pytest.raises(InconsistentObservationError):
        belief.update(MoveResult(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), chess.E4))


def test_a_capture_where_we_have_no_piece_raises() -> None:
    belief = BoardSet()
    belief.update(GameStarted(chess.BLACK, chess.STARTING_FEN))
    with pytest.raises(InconsistentObservationError, match="e4"):
        belief.update(OpponentMoved(chess.E4))


def test_events_out_of_order_and_bad_settings_are_refused() -> None:
    belief = BoardSet()
    belief.update(GameStarted(chess.BLACK, chess.STARTING_FEN))
    with pytest.raises(UnexpectedObservationError):
        belief.update(SenseResult(None, ()))
    with pytest.raises(ValueError, match="max_boards"):
        BoardSet(max_boards=0)
    with pytest.raises(MoveModelError):
        OpponentMoveModel(np.ones((3, 2)))


def test_opening_counts_match_rbc() -> None:
    """Black before sensing: 20 White moves + the pass = 21 boards; bytes per board <= 64."""
    belief = BoardSet()
    belief.update(GameStarted(chess.BLACK, chess.STARTING_FEN))
    belief.update(OpponentMoved(None))
    assert len(belief) == 21 and belief.nbytes_per_board <= 64
    assert belief.entropy() == pytest.approx(np.log2(21))


def test_weighted_set_matches_reference_weights() -> None:
    model = OpponentMoveModel.capture_biased()
    rng = np.random.default_rng(5)
    from blindchess.beliefs.observed_games import play_random_game

    game = play_random_game(rng, full_turn_limit=3)
    fast, reference = BoardSet(max_boards=None, move_model=model), ReferenceBoardSet(model)
    for event in game.events[chess.BLACK]:
        fast.update(event)
        reference.update(event)
        expected = reference.weights_by_key()
        from blindchess.beliefs.board_layout import board_key

        got = {board_key(fast.board(i)): w for i, w in enumerate(fast.weights())}
        assert got.keys() == expected.keys()
        assert all(got[k] == pytest.approx(expected[k], rel=1e-9) for k in got)


class _BeliefRandomBot(BeliefPlayerMixin, RandomBot):
    """A plain random bot that keeps an exact belief through the mixin, checking the truth as it goes."""

    belief_factory = staticmethod(lambda: BoardSet(max_boards=None))


def test_player_mixin_feeds_the_same_events_as_the_arbiter() -> None:
    white, black = _BeliefRandomBot(rng=1), _BeliefRandomBot(rng=2)
    _, _, history = play_local_game(white, black, LocalGame(seconds_per_player=None, full_turn_limit=4))
    for bot, color in ((white, chess.WHITE), (black, chess.BLACK)):
        assert bot.observations == history.observations(color)
        reference = ReferenceBoardSet()
        for event in history.observations(color):
            reference.update(event)
        assert isinstance(bot.belief, BoardSet) and bot.belief.keys() == reference.keys()
    assert isinstance(white, Player)
