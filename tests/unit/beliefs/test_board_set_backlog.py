"""The board set's backlog is folded back in (`BoardSet.refill` and the fold after each own-turn update).

Small caps (50-300 boards) make the backlog fill within three full turns of random play, so
every check runs on short seeded games against an uncapped set of the same events, which
holds every board consistent with them (itself checked against the reference elsewhere).
"""

from __future__ import annotations

from typing import Any, Optional

import chess
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blindchess.arbiter.game.observations import GameEnded, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.beliefs import BoardSet, OpponentMoveModel
from blindchess.beliefs.board_layout import BoardKey, board_key
from blindchess.beliefs.observed_games import play_random_game

CAP = 200


def _weights_by_key(belief: BoardSet) -> dict[BoardKey, float]:
    return {board_key(board): float(w) for board, w in zip(belief.boards(), belief.weights(), strict=True)}


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # about 0.5 s an example
@given(seed=st.integers(0, 2**32 - 1), cap=st.integers(50, 300), weighted=st.booleans(), step=st.integers(10, 300))
def test_a_folded_set_is_the_uncapped_set_until_it_is_full(seed: int, cap: int, weighted: bool, step: int) -> None:
    """After folding (in steps of `step` parents) the set holds only consistent boards, and is the uncapped set once its
    backlog is empty (weights too); it stops early only when full. `exact()` is the uncapped set throughout."""
    game = play_random_game(np.random.default_rng(seed), full_turn_limit=3, sense_probability=0.9)
    model = OpponentMoveModel.capture_biased() if weighted else None
    for color in (chess.WHITE, chess.BLACK):
        capped, full = BoardSet(max_boards=cap, move_model=model, fold_parents=0), BoardSet(max_boards=None, move_model=model)
        for event in game.events[color]:
            capped.update(event)
            full.update(event)
            if capped.is_exact or isinstance(event, (OpponentMoved, GameEnded)):
                continue
            consistent = full.keys()
            assert capped.keys() <= consistent
            folded, before = capped.copy(), (len(capped), capped.backlog_parents)
            while (parents := folded.refill(step)) > 0:
                assert parents <= step
            assert folded.keys() <= consistent
            assert folded.exact().keys() == consistent
            if folded.is_exact:
                expected, got = _weights_by_key(full), _weights_by_key(folded)
                assert got.keys() == expected.keys()
                assert all(got[key] == pytest.approx(p, rel=1e-9, abs=1e-15) for key, p in expected.items())
            else:
                assert len(folded) >= cap
            assert (len(capped), capped.backlog_parents) == before  # folding a copy leaves the original alone


def test_the_true_board_lost_past_the_cap_comes_back() -> None:
    """Regression (strangefish2-120/g1, turns 14-16, in small): Black's third turn of this seeded game expands 195 boards
    past the cap of 200 children, its sense keeps 5 of them and not the truth, which waits in a backlog of 170 parents.
    The set used to keep those 5 boards for the rest of the game; the fold after the sense brings the truth back."""
    events, truths = _black_of_seed_1()
    belief = BoardSet(max_boards=CAP)
    for event in events[:9]:
        belief.update(event)
    assert isinstance(events[8], SenseResult)
    assert truths[8] in belief and belief.is_exact, "the truth was left in the backlog"


def test_without_folding_the_seed_1_game_loses_the_truth() -> None:
    """The scenario above as the set used to play it (``fold_parents=0``: the backlog replayed only when the set runs empty)."""
    events, truths = _black_of_seed_1()
    belief = BoardSet(max_boards=CAP, fold_parents=0)
    for event in events[:9]:
        belief.update(event)
    assert (len(belief), belief.backlog_parents) == (5, 170) and truths[8] not in belief
    assert belief.refill() >= 170 and truths[8] in belief and belief.is_exact  # parents of every replayed expansion count


def _black_of_seed_1() -> tuple[list[Observation], list[chess.Board]]:
    game = play_random_game(np.random.default_rng(1), full_turn_limit=3, sense_probability=0.9)
    return game.events[chess.BLACK], game.truth[chess.BLACK]


def test_after_each_own_turn_update_the_truth_is_held_unless_the_set_is_full() -> None:
    """With the default fold the set never holds fewer than `max_boards` boards while the truth sits in the backlog."""
    full_sets = checked = 0
    for seed in range(12):
        game = play_random_game(np.random.default_rng(seed), full_turn_limit=3, sense_probability=0.9)
        for color in (chess.WHITE, chess.BLACK):
            belief = BoardSet(max_boards=CAP)
            for event, truth in zip(game.events[color], game.truth[color], strict=True):
                belief.update(event)
                if not isinstance(event, (SenseResult, MoveResult)):
                    continue
                checked += 1
                if truth not in belief:
                    assert len(belief) >= CAP, (seed, color, event)
                    full_sets += 1
                assert len(belief) <= 2 * CAP + 512
    assert checked > 100 and full_sets < checked // 4


def test_a_refill_that_raises_leaves_the_set_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rollback rule of updates holds for `refill`: a failure in its second step undoes the first."""
    belief = BoardSet(max_boards=CAP, fold_parents=0)
    for event in _black_of_seed_1()[0][:9]:
        belief.update(event)
    assert belief.backlog_parents == 170
    keys, weights = belief.keys(), belief.weights().copy()
    merges = []
    merge = BoardSet._merge

    def failing_second_merge(self: BoardSet, other: BoardSet) -> None:
        merges.append(len(other))
        if len(merges) == 2:
            raise MemoryError("the second step ran out of memory")
        merge(self, other)

    monkeypatch.setattr(BoardSet, "_merge", failing_second_merge)
    with pytest.raises(MemoryError):
        belief.refill(50)  # 50 parents a step: the second step fails
    assert belief.keys() == keys and np.array_equal(belief.weights(), weights) and belief.backlog_parents == 170
    monkeypatch.undo()
    assert belief.refill() >= 170 and belief.is_exact


def test_refill_on_an_exact_set_does_nothing_and_negative_counts_are_refused() -> None:
    belief = BoardSet(max_boards=CAP)
    belief.update(play_random_game(np.random.default_rng(0), full_turn_limit=1).events[chess.WHITE][0])
    assert belief.refill() == 0 and belief.is_exact and len(belief) == 1
    with pytest.raises(ValueError, match="max_parents must be non-negative or None, got -1"):
        belief.refill(-1)
    with pytest.raises(ValueError, match="fold_parents must be non-negative, got -1"):
        BoardSet(fold_parents=-1)


def test_no_replay_runs_inside_a_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a replay whose set ran empty used to fold its own backlog, a replay inside the replay (seven deep
    in one profile), and a fold's cost grew with each level. Now a replay stops where it empties, and the parents it
    left out join the set's backlog: every replay is called by a set of the game, none by a replay."""
    replay, depth, deepest, calls = BoardSet._replay, [0], [0], [0]

    def counted(self: BoardSet, entry: Any, max_boards: Optional[int]) -> BoardSet:
        depth[0] += 1
        calls[0] += 1
        deepest[0] = max(deepest[0], depth[0])
        try:
            return replay(self, entry, max_boards)
        finally:
            depth[0] -= 1

    monkeypatch.setattr(BoardSet, "_replay", counted)
    for seed in range(8):
        game = play_random_game(np.random.default_rng(seed), full_turn_limit=3, sense_probability=0.9)
        for color in (chess.WHITE, chess.BLACK):
            belief = BoardSet(max_boards=50, fold_parents=30)
            for event, truth in zip(game.events[color], game.truth[color], strict=True):
                belief.update(event)
                if not isinstance(event, GameEnded):
                    assert truth in belief.exact()
    assert calls[0] > 50 and deepest[0] == 1
