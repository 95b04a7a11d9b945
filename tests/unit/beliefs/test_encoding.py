"""The observation encoding against the truth of recorded games: what a frame says it knows must be true."""

from __future__ import annotations

import hashlib
from typing import Any

import chess
import numpy as np
import pytest

from blindchess.arbiter import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.arbiter.game.history import GameHistory
from blindchess.beliefs import NotInitialisedError, UnexpectedObservationError
from blindchess.beliefs.encoding import (
    FRAME_SCALE,
    FRAME_SIZE,
    N_PLANES,
    NEVER_SEEN,
    StreamEncoder,
    relative_square,
    relative_targets,
)
from blindchess.beliefs.observed_games import observed_game
from blindchess.fixtures.recorded_games import load_records

RECORDS = load_records()[::30]  # 11 games across every pairing of the fixture


def _planes(frame: np.ndarray) -> np.ndarray:
    return frame[: N_PLANES * 64].reshape(N_PLANES, 64)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: f"{r['white']}-{r['black']}-{r['seed']}")
def test_frames_agree_with_the_true_board(record: dict[str, Any]) -> None:
    game = observed_game(GameHistory.from_json(record["history"]))
    for color in (chess.WHITE, chess.BLACK):
        encoder = StreamEncoder()
        for event, truth in zip(game.events[color], game.truth[color], strict=False):
            frame = encoder.push(event)
            assert frame is not None and frame.shape == (FRAME_SIZE,)
            planes = _planes(frame)
            target = relative_targets(truth, color)
            for square, piece in truth.piece_map().items():
                rel = relative_square(square, color)
                if piece.color == color:  # own pieces are exact
                    assert planes[piece.piece_type - 1, rel] == 1
                else:
                    assert target[rel] == piece.piece_type
            assert planes[:6].sum() == len(truth.piece_map()) - int(np.count_nonzero(target))
            if isinstance(event, SenseResult):
                window = planes[14].astype(bool)
                assert window.sum() == len(event.window)
                seen = np.where(planes[12].astype(bool), 0, np.argmax(planes[6:12], axis=0) + 1)
                np.testing.assert_array_equal(seen[window], target[window])  # what a sense showed is the truth now
                assert (planes[13][window] == 0).all()
            if isinstance(event, OpponentMoved) and event.capture_square is not None:
                assert planes[15, relative_square(event.capture_square, color)] == 1
            if isinstance(event, MoveResult) and event.capture_square is not None:
                assert planes[20, relative_square(event.capture_square, color)] == 1
            assert (planes[13] <= NEVER_SEEN).all()
            known = encoder.known_contents()
            sure = known >= 0
            np.testing.assert_array_equal(known[sure], target[sure])  # a certainty is the truth
            assert not (sure & (planes[:6].sum(axis=0) > 0)).any()
            if isinstance(event, SenseResult):
                assert (sure | (planes[:6].sum(axis=0) > 0))[planes[14].astype(bool)].all()


FRAMES_DIGEST = "7e0c4caa474175cd44eae16f6fefaf671ad2ab4821767a24ae20f8f2683c1713"
"""sha256 of every frame, `own_types` and `known_contents` over RECORDS, as the first (numpy-array) encoder
of ENCODING_VERSION 1 made them: a faster encoder must make the very same tensors (saved models read them)."""


def test_frames_are_those_of_encoding_version_1() -> None:
    digest = hashlib.sha256()
    for record in RECORDS:
        game = observed_game(GameHistory.from_json(record["history"]))
        for color in (chess.WHITE, chess.BLACK):
            encoder = StreamEncoder()
            for event in game.events[color]:
                frame = encoder.push(event)
                if frame is not None:
                    digest.update(frame.tobytes())
                digest.update(encoder.own_types().tobytes())
                digest.update(encoder.known_contents().tobytes())
    assert digest.hexdigest() == FRAMES_DIGEST


def test_fold_writes_the_frame_push_returns_into_the_array_given() -> None:
    """`fold` (what the learning environment's window calls) and `push` make the same frames, in place."""
    folding, pushing = StreamEncoder(), StreamEncoder()
    events: list[Observation] = [GameStarted(chess.BLACK, chess.STARTING_FEN), OpponentMoved(None), SenseResult(chess.E2, ())]
    frame = np.full(FRAME_SIZE, 7, dtype=np.uint8)  # every byte is written
    for event in events:
        assert folding.fold(event, frame)
        pushed = pushing.push(event)
        assert pushed is not None
        np.testing.assert_array_equal(frame, pushed)
    assert not folding.fold(GameEnded(None, None), frame)


def test_scaled_frames_lie_in_the_unit_interval() -> None:
    encoder = StreamEncoder()
    frame = encoder.push(GameStarted(chess.WHITE, chess.STARTING_FEN))
    assert frame is not None
    scaled = frame * FRAME_SCALE
    assert scaled.min() >= 0 and scaled.max() <= 1
    assert scaled[13 * 64] == 1.0  # never seen


def test_bad_events_are_refused_without_changing_the_encoder() -> None:
    encoder = StreamEncoder()
    with pytest.raises(NotInitialisedError):
        encoder.push(OpponentMoved(None))
    encoder.push(GameStarted(chess.WHITE, chess.STARTING_FEN))
    before = encoder.copy()
    with pytest.raises(UnexpectedObservationError, match="e4"):
        encoder.push(OpponentMoved(chess.E4))  # none of ours there
    with pytest.raises(UnexpectedObservationError, match="e3"):
        encoder.push(MoveResult(chess.Move.from_uci("e3e4"), chess.Move.from_uci("e3e4"), None))
    np.testing.assert_array_equal(encoder.own_types(), before.own_types())
