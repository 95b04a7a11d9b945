"""Issue 12's belief failures, each reproduced: a rejected update leaves the belief as it was, bad input gets a belief error.

Measured on ``c05014a``: a contradicting sense emptied `BoardSet` and `HybridBelief`
(and the correct sense was then refused), a rejected `MoveResult` still flipped the side
to move, ``OpponentMoved(-1)`` was read as a capture on h8 (removing our own rook), and
off-board squares or wrong types raised `IndexError`/`AttributeError`/`TypeError`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import chess
import numpy as np
import pytest

from blindchess.arbiter.game.observations import GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.arbiter.rules.reference import sense_window
from blindchess.beliefs import (
    Belief,
    BeliefError,
    BoardSet,
    HybridBelief,
    InconsistentObservationError,
    MalformedObservationError,
    ParticleFilter,
    ReferenceBoardSet,
)
from blindchess.beliefs.enumerated_belief import EnumeratedBelief
from blindchess.variants.teaching import TEACHING_4X4

BELIEFS: dict[str, Callable[[], Belief]] = {
    "boardset": lambda: BoardSet(max_boards=None),
    "hybrid": lambda: HybridBelief(switch_boards=100_000, particles=50),
    "particles": lambda: ParticleFilter(5_000),
    "reference": ReferenceBoardSet,
}

KING_E8 = chess.Piece(chess.KING, chess.BLACK)


def _after_two_moves(make: Callable[[], Belief]) -> tuple[Belief, chess.Board]:
    """White after 1. e4 (unsensed) e5: the belief before White's second sense, and the true board."""
    board = chess.Board()
    belief = make()
    belief.update(GameStarted(chess.WHITE, chess.STARTING_FEN))
    belief.update(OpponentMoved(None))
    belief.update(SenseResult(None, ()))
    e4 = chess.Move.from_uci("e2e4")
    board.push(e4)
    belief.update(MoveResult(e4, e4, None))
    board.push(chess.Move.from_uci("e7e5"))
    belief.update(OpponentMoved(None))
    return belief, board


def _snapshot(belief: Belief, truth: chess.Board) -> tuple[Any, ...]:
    return (
        len(belief),
        belief.marginals().tobytes(),
        [b.fen() for b in belief.sample(10, np.random.default_rng(0))],
        belief.is_exact,
        truth in belief,
    )


@pytest.mark.parametrize("name", BELIEFS)
def test_a_contradicting_sense_changes_nothing_and_the_true_sense_is_then_accepted(name: str) -> None:
    belief, truth = _after_two_moves(BELIEFS[name])
    before = _snapshot(belief, truth)
    assert len(belief) > 1
    window = dict(sense_window(truth, chess.D7))
    window[chess.D6] = window[chess.C6] = KING_E8  # two black kings: no board shows that
    with pytest.raises(InconsistentObservationError):
        belief.update(SenseResult(chess.D7, tuple(window.items())))
    assert _snapshot(belief, truth) == before  # on c05014a: 0 boards for boardset and hybrid
    belief.update(SenseResult(chess.D7, sense_window(truth, chess.D7)))
    assert truth in belief and 1 <= len(belief) < before[0]


@pytest.mark.parametrize("name", BELIEFS)
def test_a_rejected_move_result_does_not_flip_the_side_to_move(name: str) -> None:
    belief, truth = _after_two_moves(BELIEFS[name])
    belief.update(SenseResult(chess.E6, sense_window(truth, chess.E6)))
    before = _snapshot(belief, truth)
    d4 = chess.Move.from_uci("d2d4")
    with pytest.raises(InconsistentObservationError):
        belief.update(MoveResult(d4, chess.Move.from_uci("d4d2"), None))  # taken from another square than requested
    assert _snapshot(belief, truth) == before  # on c05014a: the set had Black to move (truth not in it)
    truth.push(d4)
    belief.update(MoveResult(d4, d4, None))
    assert truth in belief


@pytest.mark.parametrize("name", BELIEFS)
@pytest.mark.parametrize(
    "event, quoted",
    [
        (OpponentMoved(-1), "-1"),  # on c05014a: a capture on h8 (BIT[-1]) that removed our own rook
        (OpponentMoved(64), "64"),
        (OpponentMoved("h8"), "'h8'"),  # type: ignore[arg-type]
        (OpponentMoved(True), "True"),  # a bool is not a square
    ],
)
def test_malformed_opponent_moves_are_refused_quoting_the_value(name: str, event: Observation, quoted: str) -> None:
    belief, truth = _after_two_moves(BELIEFS[name])
    belief.update(SenseResult(chess.E6, sense_window(truth, chess.E6)))
    belief.update(MoveResult(chess.Move.from_uci("a2a3"), chess.Move.from_uci("a2a3"), None))
    truth.push(chess.Move.from_uci("a2a3"))
    before = _snapshot(belief, truth)
    with pytest.raises(MalformedObservationError, match=quoted) as raised:
        belief.update(event)
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, BeliefError)
    assert _snapshot(belief, truth) == before
    truth.push(chess.Move.null())
    belief.update(OpponentMoved(None))
    assert truth in belief


MALFORMED_ON_OUR_TURN = [
    (SenseResult(99, ()), "99"),
    (SenseResult(-2, ()), "-2"),
    (SenseResult(chess.E4, ((77, None),)), "77"),
    (SenseResult(chess.E4, ((chess.E4, "P"),)), "'P'"),  # type: ignore[arg-type]
    (SenseResult(chess.E4, (chess.E4,)), "28"),  # type: ignore[arg-type]
    (SenseResult("e4", ()), "'e4'"),  # type: ignore[arg-type]
    (SenseResult(chess.E4, None), "None"),  # type: ignore[arg-type]
    (MoveResult("e2e4", None, None), "'e2e4'"),  # type: ignore[arg-type]
    (MoveResult(chess.Move(chess.D2, 70), None, None), "70"),
    (MoveResult(chess.Move.from_uci("d2d4"), chess.Move.from_uci("d2d4"), -5), "-5"),
    (MoveResult(chess.Move(chess.D2, chess.D4, promotion=9), None, None), "9"),
    ("GameEnded", "'GameEnded'"),
    (None, "None"),
]


@pytest.mark.parametrize("name", BELIEFS)
@pytest.mark.parametrize(
    "event, quoted", MALFORMED_ON_OUR_TURN, ids=[f"{type(e).__name__}-{n}" for n, (e, _) in enumerate(MALFORMED_ON_OUR_TURN)]
)
def test_malformed_senses_and_moves_are_refused_quoting_the_value(name: str, event: Any, quoted: str) -> None:
    belief, truth = _after_two_moves(BELIEFS[name])
    before = _snapshot(belief, truth)
    with pytest.raises(MalformedObservationError, match=quoted):
        belief.update(event)
    assert _snapshot(belief, truth) == before
    belief.update(SenseResult(chess.E6, sense_window(truth, chess.E6)))
    assert truth in belief


def test_a_bad_starting_fen_is_refused_and_changes_nothing() -> None:
    makers: list[Callable[[], Belief]] = [*BELIEFS.values(), lambda: EnumeratedBelief(TEACHING_4X4)]
    for make in makers:
        belief = make()
        with pytest.raises(MalformedObservationError, match="not a fen"):
            belief.update(GameStarted(chess.WHITE, "not a fen"))
        with pytest.raises(MalformedObservationError, match="'white'"):
            belief.update(GameStarted("white", chess.STARTING_FEN))  # type: ignore[arg-type]


def test_enumerated_belief_rejected_opponent_move_keeps_the_side_to_move() -> None:
    """On c05014a the enumerated belief advanced the side to move and the move number before finding no board fits."""
    rules = TEACHING_4X4
    board = rules.starting_board()
    belief = EnumeratedBelief(rules)
    belief.update(GameStarted(chess.WHITE, rules.fen(board)))
    belief.update(OpponentMoved(None))
    belief.update(SenseResult(chess.D1, rules.sense(board, chess.D1)))
    move = chess.Move.from_uci("c1c2")
    belief.update(MoveResult(move, move, None))
    rules.push(board, move)
    turn, fullmove, size = belief.turn, belief.fullmove_number, len(belief)
    with pytest.raises(InconsistentObservationError):
        belief.update(OpponentMoved(chess.D1))  # nothing Black can do captures on d1 here
    assert (belief.turn, belief.fullmove_number, len(belief)) == (turn, fullmove, size)
    with pytest.raises(MalformedObservationError, match="-1"):
        belief.update(OpponentMoved(-1))
    rules.push(board, None)
    belief.update(OpponentMoved(None))
    assert board in belief
