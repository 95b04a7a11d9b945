"""The compiled game step against the rules' references (`rules.py`, python-chess's push) and `LocalGame`.

Every position of seeded random games, and of games hypothesis draws, is checked: the move actions
(numbers, order, duplicates) against `rules.move_actions`, every move action's revision and capture
square against `rules.revise_move` / `rules.capture_square_of_move`, the position after the push,
the end of the game and its result against `LocalGame`, and the sense windows against
`rules.sense_window`. The random games must have shown every rule the compiled code spells out
(castling, en passant, promotions and under-promotions, revised slides and pawn steps, refusals).
"""

from __future__ import annotations

from collections import Counter
from typing import Optional

import chess
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from blindchess.arbiter import compiled_game, rules
from blindchess.arbiter.compiled_game import MAX_MOVE_ACTIONS, NONE, REASON, SENSE_WINDOWS, WINNER
from blindchess.arbiter.game import LocalGame
from blindchess.arbiter.types import WinReason

TURN_LIMIT = 60
_KINDS = {None: 0, chess.QUEEN: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3}
_REASONS = {compiled_game.KING_CAPTURE: WinReason.KING_CAPTURE, compiled_game.FULL_TURN_LIMIT: WinReason.TURN_LIMIT,
            compiled_game.MOVE_LIMIT: WinReason.MOVE_LIMIT}  # fmt: skip


def number(move: chess.Move) -> int:
    """The action number of a requested move (the learning environment's numbering on 8x8)."""
    return compiled_game.MOVE_BASE + _KINDS[move.promotion] * 4096 + move.from_square * 64 + move.to_square


def check_position(board: chess.Board, state: tuple[np.ndarray, np.ndarray], seen: Counter[str]) -> list[int]:
    """Assert the compiled move actions and every request's outcome equal the references'; returns the numbers."""
    out = np.zeros(MAX_MOVE_ACTIONS, dtype=np.int64)
    n = compiled_game.move_action_numbers(*state, out)
    reference = rules.move_actions(board)
    assert out[:n].tolist() == [number(move) for move in reference], board.fen()
    first: dict[int, chess.Move] = {}
    for move in reference:
        first.setdefault(number(move), move)  # a number means its first move action
    for action, move in first.items():
        requested = rules.with_default_promotion(board, move)
        taken = rules.revise_move(board, requested)
        capture = rules.capture_square_of_move(board, taken)
        origin, target, requested_promotion, taken_to, promotion, capture_square = compiled_game.request(*state, action)
        assert (origin, target, requested_promotion) == (move.from_square, move.to_square, move.promotion or 0), move
        expected = (-1, 0) if taken is None else (taken.to_square, taken.promotion or 0)
        assert (taken_to, promotion) == expected, (board.fen(), move)
        assert capture_square == (-1 if capture is None else capture), (board.fen(), move)
        seen[_feature(board, move, taken, capture)] += 1
    return list(first)


def _feature(board: chess.Board, move: chess.Move, taken: Optional[chess.Move], capture: Optional[int]) -> str:
    """What kind of rule a request exercised (to check that the games covered them all)."""
    if taken is None:
        return "refused castling" if board.is_castling(move) else "refused"
    if board.is_castling(taken):
        return "castling"
    if capture is not None and capture != taken.to_square:
        return "en passant"
    if taken.promotion is not None:
        return "under-promotion" if taken.promotion != chess.QUEEN else "promotion"
    return "revised" if taken != move else "as requested"


def play(seed: int, picks: Optional[list[int]], seen: Counter[str]) -> None:
    """One random game through `LocalGame` and the compiled state side by side (`picks`: the choices, else a seeded rng)."""
    rng = np.random.default_rng(seed)
    game: LocalGame[chess.Board] = LocalGame(None, None, 100, TURN_LIMIT)
    game.start()
    state = compiled_game.new_state()
    compiled_game.load(game.board, game.full_turn_limit, game.reversible_moves_limit, *state)
    ply = 0
    while not game.is_over() and (picks is None or ply < len(picks)):
        actions = [*check_position(game.board, state, seen), NONE]
        choice = int(rng.integers(len(actions))) if picks is None else picks[ply] % len(actions)
        action = actions[choice]
        moves = game.move_actions()
        assert moves is not None
        move = None if action == NONE else next(m for m in moves if number(m) == action)
        game.move(move)
        game.end_turn()
        origin, _, _, taken, promotion, _ = compiled_game.request(*state, action)
        compiled_game.push(*state, origin if taken >= 0 else -1, taken, promotion)
        over = compiled_game.end_of_turn(*state)
        assert compiled_game.agrees(game.board, *state), game.board.fen()
        assert over == game.is_over()
        ply += 1
    if game.is_over():
        game.end()
        game_state = state[1]
        assert _REASONS[int(game_state[REASON])] == game.get_win_reason()
        assert (None if game_state[WINNER] < 0 else bool(game_state[WINNER])) == game.get_winner_color()
        seen[str(game.get_win_reason())] += 1


def test_seeded_random_games_equal_the_references() -> None:
    seen: Counter[str] = Counter()
    for seed in range(25):
        play(seed, None, seen)
    features = {"castling", "refused castling", "en passant", "promotion", "under-promotion", "revised", "refused"}
    assert features <= set(seen), seen
    assert {str(WinReason.KING_CAPTURE), str(WinReason.TURN_LIMIT)} <= set(seen), seen


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 2**16), min_size=40, max_size=160))
def test_games_hypothesis_draws_equal_the_references(seed: int, picks: list[int]) -> None:
    play(seed, picks, Counter())


def test_the_move_limit_ends_a_game_of_passes() -> None:
    game: LocalGame[chess.Board] = LocalGame(None, None, 6, None)
    state = compiled_game.new_state()
    compiled_game.load(game.board, game.full_turn_limit, game.reversible_moves_limit, *state)
    for _ in range(6):
        assert not compiled_game.end_of_turn(*state)
        compiled_game.push(*state, -1, -1, 0)
        game.move(None)
        game.end_turn()
    assert compiled_game.end_of_turn(*state) and game.is_over()
    assert _REASONS[int(state[1][REASON])] == game.get_win_reason() == WinReason.MOVE_LIMIT


def test_sense_windows_are_the_rules_windows() -> None:
    for square in chess.SQUARES:
        expected = sum(chess.BB_SQUARES[s] for s, _ in rules.sense_window(chess.Board(), square))
        assert int(SENSE_WINDOWS[square]) == expected
