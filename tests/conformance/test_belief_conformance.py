"""The belief conformance suite: every belief in `belief_registry.BELIEF_FACTORIES` must pass it.

Covers initialisation, every event type, sampling, marginals, membership, copy
independence, determinism by seed, and the transaction rule (an update that raises
changes nothing: for impossible events, malformed ones, sense windows that are not their
centre's on the factory's board, and events after `GameEnded`), on short seeded
random-action games played on the real arbiter with the factory's rules (small enough for
the reference to keep up).
"""

from __future__ import annotations

from typing import Any

import chess
import numpy as np
import pytest

from blindchess.arbiter import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.arbiter.rules.ruleset import Rules
from blindchess.beliefs import (
    N_CHANNELS,
    Belief,
    BeliefError,
    InconsistentObservationError,
    MalformedObservationError,
    NotInitialisedError,
    UnexpectedObservationError,
    channel,
)
from blindchess.beliefs.observed_games import ObservedGame, play_random_game
from blindchess.beliefs.validation import STANDARD_WINDOWS
from blindchess.tests.conformance.belief_registry import BELIEF_FACTORIES, BeliefFactory

FACTORIES = BELIEF_FACTORIES
GAME_SEEDS = (1, 2, 3)


_GAMES: dict[tuple[int, int, int], ObservedGame] = {}


def _game(ruleset: Rules[Any], seed: int, full_turns: int = 3) -> ObservedGame:
    """A seeded random game under `ruleset`, played once and shared (rule sets are module-level singletons)."""
    key = (id(ruleset), seed, full_turns)
    if key not in _GAMES:
        _GAMES[key] = play_random_game(np.random.default_rng(seed), full_turn_limit=full_turns, ruleset=ruleset)
    return _GAMES[key]


def _start(factory: Any) -> tuple[str, chess.Board]:
    board = factory.ruleset.starting_board()
    return factory.ruleset.fen(board), board


@pytest.fixture(params=FACTORIES, ids=[f.name for f in FACTORIES])
def factory(request: pytest.FixtureRequest) -> BeliefFactory:
    chosen: BeliefFactory = request.param
    return chosen


def _fed(belief: Belief, game: ObservedGame, color: chess.Color, upto: int) -> Belief:
    """`belief` after the first `upto` events `color` received in `game`."""
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
    fen, board = _start(factory)
    belief.update(GameStarted(chess.BLACK, fen))
    assert len(belief) == 1
    assert board in belief
    assert belief.entropy() == pytest.approx(0.0)
    marginals = belief.marginals()
    for square in chess.SQUARES:
        assert marginals[square, channel(board.piece_at(square))] == pytest.approx(1.0)


@pytest.mark.parametrize("seed", GAME_SEEDS)
@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK], ids=["white", "black"])
def test_every_event_keeps_a_normalised_belief_holding_the_truth(factory: BeliefFactory, seed: int, color: chess.Color) -> None:
    game = _game(factory.ruleset, seed)
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
    belief = _fed(factory.make(), _game(factory.ruleset, 1), chess.BLACK, 5)
    first = belief.sample(50, np.random.default_rng(7))
    second = belief.sample(50, np.random.default_rng(7))
    assert [b.fen() for b in first] == [b.fen() for b in second]
    assert all(board in belief for board in first)
    assert belief.sample(0, np.random.default_rng(0)) == []


def test_marginals_agree_with_the_samples(factory: BeliefFactory) -> None:
    belief = _fed(factory.make(), _game(factory.ruleset, 2), chess.WHITE, 5)
    samples = belief.sample(4000, np.random.default_rng(3))
    empirical = np.zeros((64, N_CHANNELS))
    for board in samples:
        for square in chess.SQUARES:
            piece = board.piece_at(square)
            empirical[square, 0 if piece is None else piece.piece_type + (0 if piece.color else 6)] += 1
    # each cell is a mean of 4000 Bernoulli draws: 5 standard deviations is at most 0.04
    np.testing.assert_allclose(empirical / len(samples), factory.sample_marginals(belief), atol=0.04)


def test_non_members(factory: BeliefFactory) -> None:
    belief = _fed(factory.make(), _game(factory.ruleset, 3), chess.WHITE, 4)
    assert chess.Board("8/8/8/8/8/8/8/K6k w - - 0 1") not in belief
    assert "not a board" not in belief


def test_copy_is_independent(factory: BeliefFactory) -> None:
    """Updating either side of a copy (a sense, an own move, an opponent move) leaves the other as it was."""
    game = _game(factory.ruleset, 1)
    events, truth = game.events[chess.WHITE], game.truth[chess.WHITE]
    belief = _fed(factory.make(), game, chess.WHITE, 2)
    before = _snapshot(belief, truth[1])
    clone = belief.copy()
    for event in events[2:5]:
        clone.update(event)
    assert _snapshot(belief, truth[1]) == before
    after = _snapshot(clone, truth[4])
    for event in events[2:6]:
        belief.update(event)
    assert _snapshot(clone, truth[4]) == after


def test_same_events_same_belief(factory: BeliefFactory) -> None:
    one = _fed(factory.make(), _game(factory.ruleset, 2), chess.BLACK, 6)
    two = _fed(factory.make(), _game(factory.ruleset, 2), chess.BLACK, 6)
    np.testing.assert_array_equal(one.marginals(), two.marginals())
    assert one.entropy() == two.entropy() and len(one) == len(two)


def test_not_initialised_error_is_a_belief_error() -> None:
    assert issubclass(NotInitialisedError, BeliefError)


# ---------------------------------------------------------------------- the transaction rule

MALFORMED: list[Any] = [
    OpponentMoved(-1),
    OpponentMoved(64),
    OpponentMoved("e4"),  # type: ignore[arg-type]  # malformed on purpose
    SenseResult(99, ()),
    SenseResult(-3, ()),
    SenseResult(chess.B2, ((-3, None),)),
    SenseResult(chess.B2, ((chess.B2, "K"),)),  # type: ignore[arg-type]  # malformed on purpose
    SenseResult(chess.E4, ((chess.E5, None), (chess.E4, None), (chess.E3, None))),  # 3 squares of a window of 9
    SenseResult(None, ((chess.E4, None),)),  # no sense, yet a square shown
    MoveResult("a2a3", None, None),  # type: ignore[arg-type]  # malformed on purpose
    MoveResult(chess.Move(chess.A2, 64), None, None),
    MoveResult(None, None, -1),
    "OpponentMoved(None)",
    3,
]
"""Events no game delivers: off the board, negative, of the wrong type (beliefs must refuse them all)."""

STATE_ATTRIBUTES = ("turn", "fullmove_number", "recoveries", "handovers", "returns", "mode", "spread", "budget")
"""Counters and flags some beliefs have: a refused update must not move them either."""


def _snapshot(belief: Belief, truth: chess.Board) -> tuple[Any, ...]:
    """Everything a reader can observe of a belief: size, marginals, a seeded sample, exactness, the truth, counters."""
    return (
        len(belief),
        belief.marginals().tobytes(),
        [board.fen() for board in belief.sample(8, np.random.default_rng(0))],
        belief.is_exact,
        truth in belief,
        belief.entropy(),
        tuple(getattr(belief, name, None) for name in STATE_ATTRIBUTES),
    )


def _impossible(event: Observation, truth: chess.Board, color: chess.Color) -> list[Observation]:
    """Well-formed variants of `event` (the true next event) that no board of the belief can explain."""
    if isinstance(event, OpponentMoved):
        ours = chess.SquareSet(truth.occupied_co[color])
        return [OpponentMoved(next(s for s in chess.SQUARES if s not in ours))]  # a capture where we have no piece
    if isinstance(event, SenseResult) and event.square is not None:
        theirs = [(s, piece) for s, piece in event.window if piece is None or piece.color != color]
        if len(theirs) >= 2:  # two opponent kings in view
            king = chess.Piece(chess.KING, not color)
            window = dict(event.window) | {theirs[0][0]: king, theirs[1][0]: king}
            return [SenseResult(event.square, tuple(window.items()))]
    if isinstance(event, MoveResult):
        requested = event.requested_move
        if requested is None:  # a pass that moved a piece
            return [MoveResult(None, chess.Move(chess.A1, chess.A2), None)]
        return [MoveResult(requested, chess.Move(requested.to_square, requested.from_square), None)]  # taken from elsewhere
    return []


def _misshapen(event: Observation) -> list[Observation]:
    """Sense results at the true event's centre whose squares are not its window on the game's board.

    The window less a square, the window and a square outside it, and on a small board the
    8x8 window of an edge centre (whose 3x3 the small board clips further).
    """
    if not isinstance(event, SenseResult) or event.square is None:
        return []
    shown = {square for square, _ in event.window}
    outside = next(square for square in range(64) if square not in shown)
    wrong: list[Observation] = [SenseResult(event.square, event.window[:-1]), SenseResult(event.square, (*event.window, (outside, None)))]
    wide = STANDARD_WINDOWS[event.square]
    if set(wide) != shown:
        wrong.append(SenseResult(event.square, tuple((square, dict(event.window).get(square)) for square in wide)))
    return wrong


@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK], ids=["white", "black"])
def test_a_refused_update_changes_nothing(factory: BeliefFactory, color: chess.Color) -> None:
    """Before every event of a game: impossible and malformed variants raise and change nothing.

    A twin belief sees only the true events; after each true event both must read the
    same, so a refused update leaves no trace on what comes later either (counters, the
    resampling generator).
    """
    game = _game(factory.ruleset, 1, full_turns=2)  # the reference expands each impossible capture too: keep it short
    events, truths = game.events[color], game.truth[color]
    belief, twin = factory.make(), factory.make()
    belief.update(events[0])
    twin.update(events[0])
    refused = 0
    for index in range(1, len(events)):
        event, truth_before = events[index], truths[index - 1]
        before = _snapshot(belief, truth_before)
        impossible = _impossible(event, truth_before, color) if factory.exact else []
        misshapen = _misshapen(event)
        for bad in impossible + misshapen + [MALFORMED[(2 * index + k) % len(MALFORMED)] for k in range(2)]:
            expected = MalformedObservationError if bad in MALFORMED or bad in misshapen else InconsistentObservationError
            with pytest.raises(expected):
                belief.update(bad)
            refused += 1
            assert _snapshot(belief, truth_before) == before, (index, bad)
        belief.update(event)
        twin.update(event)
        if isinstance(event, GameEnded):
            break
        assert _snapshot(belief, truths[index]) == _snapshot(twin, truths[index]), index
        if factory.exact and belief.is_exact:
            assert truths[index] in belief
    assert refused >= 2 * (len(events) - 1)


@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK], ids=["white", "black"])
def test_nothing_but_a_new_game_follows_game_ended(factory: BeliefFactory, color: chess.Color) -> None:
    """After `GameEnded` every event but `GameStarted` is refused and changes nothing, in the belief and in its copy."""
    game = _game(factory.ruleset, 2, full_turns=2)
    events, truth = game.events[color], game.truth[color][-1]
    assert isinstance(events[-1], GameEnded)
    belief = _fed(factory.make(), game, color, len(events))
    before = _snapshot(belief, truth)
    sense = next(event for event in reversed(events) if isinstance(event, SenseResult))
    late_events: list[Observation] = [OpponentMoved(None), sense, MoveResult(None, None, None), events[-1]]
    for late in late_events:
        for target in (belief, belief.copy()):
            with pytest.raises(UnexpectedObservationError, match="after GameEnded"):
                target.update(late)
        assert _snapshot(belief, truth) == before, late
    belief.update(events[0])  # the next game
    assert len(belief) == 1 and game.truth[color][0] in belief
    belief.update(events[1])
