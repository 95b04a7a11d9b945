"""ReferenceBoardSet's opponent-policy hook and experiments/engine_policy_ceiling.py's oracle (real Stockfish)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Optional

import chess
import chess.engine
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blindchess.arbiter.game.observations import MoveResult, OpponentMoved, SenseResult
from blindchess.arbiter.rules import reference as rules
from blindchess.beliefs import OpponentMoveModel
from blindchess.beliefs.calibration import truth_channels
from blindchess.beliefs.move_model import MoveModelError
from blindchess.beliefs.observed_games import play_random_game
from blindchess.beliefs.reference import OpponentPolicy, ReferenceBoardSet
from blindchess.evaluation.stockfish import Engine
from blindchess.experiments.engine_policy_ceiling import (
    EnginePolicy,
    RandomMoverPolicy,
    SampledViewPolicy,
    hits,
    main,
    own_board_hits,
    score_stream,
)
from blindchess.learning.generate import GameSpec, play_game

LIMIT = chess.engine.Limit(nodes=200)


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    with Engine() as started:
        yield started


def table_policy(model: OpponentMoveModel) -> OpponentPolicy:
    """The model's (piece, capture) table as a policy: the hook must then reproduce the table's weights."""

    def policy(board: chess.Board, outcomes: list[Optional[chess.Move]]) -> np.ndarray:
        scores = []
        for move in outcomes:
            if move is None:
                scores.append(model.scores[0, 0])
            else:
                piece = board.piece_type_at(move.from_square)
                assert piece is not None
                scores.append(model.scores[piece, int(rules.capture_square_of_move(board, move) is not None)])
        return np.array(scores)

    return policy


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), color=st.booleans())
def test_a_policy_giving_the_table_gives_the_tables_weights(seed: int, color: bool) -> None:
    model = OpponentMoveModel.capture_biased(capture_factor=3.0, pass_score=0.5)
    game = play_random_game(np.random.default_rng(seed), full_turn_limit=3)
    by_table, by_policy = ReferenceBoardSet(model), ReferenceBoardSet(policy=table_policy(model))
    for event in game.events[color]:
        by_table.update(event)
        by_policy.update(event)
        expected = by_table.weights_by_key()
        got = by_policy.weights_by_key()
        assert got.keys() == expected.keys()
        assert all(got[key] == pytest.approx(expected[key], rel=1e-12) for key in got)


def test_a_bad_policy_is_refused_and_changes_nothing() -> None:
    game = play_random_game(np.random.default_rng(3), full_turn_limit=3)
    events = game.events[chess.BLACK]
    belief = ReferenceBoardSet(policy=lambda board, outcomes: -np.ones(len(outcomes)))
    belief.update(events[0])  # GameStarted
    before = belief.weights_by_key()
    with pytest.raises(MoveModelError, match="non-negative scores"):
        belief.update(events[1])  # White's first move: the policy is asked
    assert belief.weights_by_key() == before
    short = ReferenceBoardSet(policy=lambda board, outcomes: np.ones(1))
    short.update(events[0])
    with pytest.raises(MoveModelError, match="must give"):
        short.update(events[1])
    with pytest.raises(MoveModelError, match="needs a move_model"):
        ReferenceBoardSet(move_model=None, policy=lambda board, outcomes: np.ones(len(outcomes)))


def test_the_oracle_puts_its_weight_on_the_engines_move(engine: Engine) -> None:
    board = chess.Board()
    outcomes: list[Optional[chess.Move]] = [None, *board.legal_moves]
    policy = EnginePolicy(engine, LIMIT, eps=0.2)
    scores = policy(board, outcomes)
    best = policy.engine_move(board)
    assert best in outcomes
    assert scores.sum() == pytest.approx(1.0)
    assert scores[outcomes.index(best)] == pytest.approx(0.8 + 0.2 / len(outcomes))
    assert np.count_nonzero(np.isclose(scores, 0.2 / len(outcomes))) == len(outcomes) - 1
    king_takeable = chess.Board("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1")  # a rook facing the king: the capture, not the engine
    assert policy.engine_move(king_takeable) == chess.Move.from_uci("e2e8")
    with pytest.raises(ValueError, match="eps"):
        EnginePolicy(engine, LIMIT, eps=0.0)


def test_at_eps_one_the_oracle_is_the_uniform_move_model(engine: Engine) -> None:
    game = play_random_game(np.random.default_rng(11), full_turn_limit=4)
    policies = [EnginePolicy(engine, LIMIT, eps) for eps in (1.0, 0.3)]
    uniform_moves = ReferenceBoardSet()
    points = iter(score_stream(chess.WHITE, game.events[chess.WHITE], game.truth[chess.WHITE], policies, min_boards=1, cap=5000))
    scored = 0
    for event, truth in zip(game.events[chess.WHITE], game.truth[chess.WHITE], strict=False):
        uniform_moves.update(event)
        if not isinstance(event, (OpponentMoved, SenseResult)) or len(uniform_moves) <= 1:
            continue
        point = next(points)
        target = truth_channels(truth).tolist()
        boards = [truth_channels(board).tolist() for board in uniform_moves.boards()]
        truth_probability = sum(w for b, w in zip(boards, uniform_moves.weights(), strict=True) if b == target)
        assert point.boards == len(uniform_moves)
        assert point.bits[0] == pytest.approx(-math.log2(boards.count(target) / len(boards)))
        assert point.bits[1] == pytest.approx(-math.log2(truth_probability))
        assert point.bits[2] >= 0.0
        scored += 1
    assert scored > 0
    assert next(points, None) is None


def test_the_naive_view_keeps_the_observers_pieces_where_they_stood(engine: Engine) -> None:
    start = chess.Board()
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    parent = after_e4.copy()
    parent.push_uci("g8f6")
    parent.push_uci("b1c3")  # the observer (White) moved again: Black to move
    views = {lag: EnginePolicy(engine, LIMIT, 0.5, lag=lag) for lag in (0, 1, None)}
    for policy in views.values():
        for board in (start, after_e4, parent):
            policy.record(chess.WHITE, board)
    assert views[0].view(parent) is parent
    one_old = views[1].view(parent)  # White's pieces after e4, Black's where the parent has them
    assert one_old.piece_at(chess.E4) == chess.Piece(chess.PAWN, chess.WHITE) and one_old.piece_at(chess.B1) is not None
    assert one_old.piece_at(chess.C3) is None and one_old.piece_at(chess.F6) == chess.Piece(chess.KNIGHT, chess.BLACK)
    assert one_old.turn == chess.BLACK
    at_start = views[None].view(parent)
    assert at_start.piece_at(chess.E2) is not None and at_start.piece_at(chess.E4) is None
    assert at_start.occupied_co[chess.BLACK] == parent.occupied_co[chess.BLACK]
    # the request is the engine's on the view, the outcome the arbiter's on the true board
    outcome = views[None].engine_move(parent)
    assert outcome is None or outcome in rules.move_actions(parent)
    with pytest.raises(ValueError, match="lag"):
        EnginePolicy(engine, LIMIT, 0.5, lag=-1)


def test_hits_pairs_each_request_with_the_board_before_it(engine: Engine) -> None:
    game = play_random_game(np.random.default_rng(4), full_turn_limit=5)
    color = chess.BLACK
    events, truths = game.events[color], game.truth[color]
    requests = {}
    for truth, event in zip(truths, events[1:], strict=False):
        if isinstance(event, MoveResult) and event.requested_move is not None:
            before = truth.copy(stack=False)
            before.turn = color
            requests[before.fen()] = rules.revise_move(before, rules.with_default_promotion(before, event.requested_move))
    assert requests
    knows_them = EnginePolicy(engine, LIMIT, 0.5, answers=dict(requests))
    assert hits(color, events, truths, knows_them) == (len(requests), len(requests))
    never = EnginePolicy(engine, LIMIT, 0.5, answers=dict.fromkeys(requests, chess.Move.null()))
    assert hits(color, events, truths, never) == (0, len(requests))


def test_the_random_bot_s_policy_counts_the_requests_behind_each_outcome() -> None:
    board = chess.Board("4k3/8/8/8/p7/8/1P6/R3K3 w - - 0 1")  # the rook's slides past a4 stop there, capturing
    outcomes: list[Optional[chess.Move]] = [None]
    for move in rules.move_actions(board):
        taken = rules.revise_move(board, rules.with_default_promotion(board, move))
        if taken is not None and taken not in outcomes:
            outcomes.append(taken)
    scores = RandomMoverPolicy()(board, outcomes) * (len(rules.move_actions(board)) + 1)
    assert scores.sum() == pytest.approx(len(rules.move_actions(board)) + 1)
    count = dict(zip(outcomes, np.rint(scores).astype(int).tolist(), strict=True))
    assert count[chess.Move.from_uci("a1a4")] == 5  # a1a4 and the four requests beyond it
    assert count[chess.Move.from_uci("a1a3")] == 1
    assert count[None] == 1 + 2  # the pass and the two diagonal pawn requests with nothing to take
    with pytest.raises(ValueError, match="does not list"):
        RandomMoverPolicy()(board, [None])


def test_sampled_boards_show_the_observers_pieces_where_their_senses_saw_them(engine: Engine) -> None:
    start, after = chess.Board(), chess.Board()
    after.push_uci("e2e4")
    after.push_uci("e7e5")
    after.push_uci("d1h5")  # White, the observer, moved twice; Black to move
    policy = SampledViewPolicy(engine, LIMIT, 0.5, {}, samples=40, rng=np.random.default_rng(0))
    policy.record(chess.WHITE, start)
    assert all(seen == start.piece_map(mask=start.occupied_co[chess.WHITE]) for seen in policy.boards)  # nothing sensed yet
    policy.record(chess.WHITE, after)
    now = after.piece_map(mask=after.occupied_co[chess.WHITE])
    was = start.piece_map(mask=start.occupied_co[chess.WHITE])
    for seen in policy.boards:  # each piece where it stands or where it started (both, as trout's ghosts, if only one was sensed)
        assert all(now.get(square) == piece or was.get(square) == piece for square, piece in seen.items())
    assert len({tuple(sorted(seen)) for seen in policy.boards}) > 1  # the senses fell in different places
    policy.record(chess.WHITE, after, capture=chess.H6)  # a capture next to h5: every sample senses there
    assert all(seen.get(chess.H5) == chess.Piece(chess.QUEEN, chess.WHITE) for seen in policy.boards)
    outcomes: list[Optional[chess.Move]] = [None, *after.legal_moves]
    scores = policy(after, outcomes)
    assert scores.sum() == pytest.approx(1.0) and scores.min() >= 0.5 / len(outcomes) - 1e-12


def test_the_command_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    settings = ["--games", "1", "--mix", "random,attacker", "--opponent", "attacker", "--nodes", "50", "--min-boards", "1", "--cap", "300"]
    status = main(settings)
    out = capsys.readouterr().out
    assert status == 0
    assert "decision points facing attacker" in out
    assert "| engine on the naive view, observer's pieces at the start, eps 0.2 |" in out
    assert main(["--games", "1", "--mix", "random,trout", "--opponent", "random", "--min-boards", "1", "--cap", "300"]) == 0
    assert "| the random bot's own policy (the exact posterior) |" in capsys.readouterr().out
    with_samples = ["--games", "1", "--mix", "random,trout", "--opponent", "trout", "--nodes", "50", "--samples", "2"]
    assert main([*with_samples, "--lags", "0", "--min-boards", "1", "--cap", "300"]) == 0
    assert "| engine on 2 sampled boards of a trout-like opponent, eps 0.2 |" in capsys.readouterr().out


def test_replaying_trout_s_program_on_its_own_board_gives_its_moves_again() -> None:
    spec = GameSpec(0, 5, ("trout",), full_turn_limit=12)  # trout against itself
    game, players = play_game(spec)
    colors = [color for color, name in zip((chess.WHITE, chess.BLACK), players, strict=True) if name == "trout"]
    assert colors
    for color in colors:
        hit, total = own_board_hits(color, game.events[color], game.truth[color], chess.engine.Limit(nodes=2000))
        assert total > 5 and hit == total  # trout at its data-mix limit, searches repeated in its order
