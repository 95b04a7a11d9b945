"""The belief conformance suite: every belief in `belief_registry.BELIEF_FACTORIES` must pass it.

Covers initialisation, every event type, sampling, marginals, membership, copy
independence and determinism by seed, on short seeded random-action games played
on the real arbiter (small enough for the reference to keep up).
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from blindchess.arbiter.observations import GameEnded, GameStarted, MoveResult, OpponentMoved, SenseResult
from blindchess.beliefs import N_CHANNELS, Belief, BeliefError, NotInitialisedError
from blindchess.beliefs.random_games import ObservedGame, play_random_game
from blindchess.tests.conformance.belief_registry import BELIEF_FACTORIES, BeliefFactory

FACTORIES = BELIEF_FACTORIES
GAME_SEEDS = (1, 2, 3)


def _game(seed: int) -> ObservedGame:
    return play_random_game(np.random.default_rng(seed), full_turn_limit=3)


GAMES = {seed: _game(seed) for seed in GAME_SEEDS}


@pytest.fixture(params=FACTORIES, ids=[f.name for f in FACTORIES])
def factory(request: pytest.FixtureRequest) -> BeliefFactory:
    chosen: BeliefFactory = request.param
    return chosen


def _fed(belief: Belief, game: ObservedGame, color: chess.Color, upto: int) -> Belief:
    for event in game.events[color][:upto]:
        belief.update(event)
    return belief


def test_satisfies_the_protocol(factory: BeliefFactory) -> None:
    assert isinstance(factory.make(), Belief)


def test_refuses_queries_before_game_start(factory: BeliefFactory) -> None:
    belief = factory.make()
    with pytest.raises(BeliefError):
        belief.update(OpponentMoved(None))
    with pytest.raises(BeliefError):
        belief.marginals()


def test_initialised_by_game_start(factory: BeliefFactory) -> None:
    belief = factory.make()
    belief.update(GameStarted(chess.BLACK, chess.STARTING_FEN))
    assert len(belief) == 1
    assert chess.Board() in belief
    assert belief.entropy() == pytest.approx(0.0)
    marginals = belief.marginals()
    assert marginals[chess.E1, 6] == pytest.approx(1.0) and marginals[chess.E4, 0] == pytest.approx(1.0)


@pytest.mark.parametrize("seed", GAME_SEEDS)
@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK], ids=["white", "black"])
def test_every_event_keeps_a_normalised_belief_holding_the_truth(factory: BeliefFactory, seed: int, color: chess.Color) -> None:
    game = GAMES[seed]
    belief = factory.make()
    seen: set[type] = set()
    for event, truth in zip(game.events[color], game.truth[color], strict=True):
        belief.update(event)
        seen.add(type(event))
        if isinstance(event, GameEnded):
            continue
        assert len(belief) >= 1
        marginals = belief.marginals()
        assert marginals.shape == (64, N_CHANNELS)
        np.testing.assert_allclose(marginals.sum(axis=1), 1.0, atol=1e-9)
        assert belief.entropy() >= -1e-12
        if factory.exact and belief.is_exact:
            assert truth in belief
            assert belief.entropy() <= np.log2(len(belief)) + 1e-9
    assert {GameStarted, OpponentMoved, SenseResult, MoveResult, GameEnded} <= seen


def test_samples_are_members_and_deterministic_by_seed(factory: BeliefFactory) -> None:
    belief = _fed(factory.make(), GAMES[1], chess.BLACK, 5)
    first = belief.sample(50, np.random.default_rng(7))
    second = belief.sample(50, np.random.default_rng(7))
    assert [b.fen() for b in first] == [b.fen() for b in second]
    assert all(board in belief for board in first)
    assert belief.sample(0, np.random.default_rng(0)) == []


def test_marginals_agree_with_the_samples(factory: BeliefFactory) -> None:
    belief = _fed(factory.make(), GAMES[2], chess.WHITE, 5)
    samples = belief.sample(4000, np.random.default_rng(3))
    empirical = np.zeros((64, N_CHANNELS))
    for board in samples:
        for square in chess.SQUARES:
            piece = board.piece_at(square)
            empirical[square, 0 if piece is None else piece.piece_type + (0 if piece.color else 6)] += 1
    # each cell is a mean of 4000 Bernoulli draws: 5 standard deviations is at most 0.04
    np.testing.assert_allclose(empirical / len(samples), belief.marginals(), atol=0.04)


def test_non_members(factory: BeliefFactory) -> None:
    belief = _fed(factory.make(), GAMES[3], chess.WHITE, 4)
    assert chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1") not in belief
    assert "not a board" not in belief


def test_copy_is_independent(factory: BeliefFactory) -> None:
    game = GAMES[1]
    belief = _fed(factory.make(), game, chess.WHITE, 2)
    before = len(belief)
    clone = belief.copy()
    for event in game.events[chess.WHITE][2:5]:
        clone.update(event)
    assert len(belief) == before
    assert game.truth[chess.WHITE][1] in belief


def test_same_events_same_belief(factory: BeliefFactory) -> None:
    one = _fed(factory.make(), GAMES[2], chess.BLACK, 6)
    two = _fed(factory.make(), GAMES[2], chess.BLACK, 6)
    np.testing.assert_array_equal(one.marginals(), two.marginals())
    assert one.entropy() == two.entropy() and len(one) == len(two)


def test_not_initialised_error_is_a_belief_error() -> None:
    assert issubclass(NotInitialisedError, BeliefError)
