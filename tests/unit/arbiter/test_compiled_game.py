"""The compiled game step against `LocalGame`: the position after every ply, the end of the game and its result.

The rules themselves (move actions, revision, capture, the push) are held equal to the reference and
the fast Python path in ``test_compiled_rules.py``; here seeded random games run through `LocalGame`
and the compiled state side by side, which must agree after every ply and end alike (winner and
reason, the move limit included), and the sense windows equal `rules.sense_window`'s.
"""

from __future__ import annotations

from collections import Counter

import chess
import numpy as np

from blindchess.arbiter.game.local_game import LocalGame
from blindchess.arbiter.rules import compiled_game
from blindchess.arbiter.rules import reference as rules
from blindchess.arbiter.rules.compiled_game import MAX_MOVE_ACTIONS, NONE, REASON, SENSE_WINDOWS, WINNER
from blindchess.arbiter.types import WinReason

from .test_compiled_rules import number

TURN_LIMIT = 60
_REASONS = {compiled_game.KING_CAPTURE: WinReason.KING_CAPTURE, compiled_game.FULL_TURN_LIMIT: WinReason.TURN_LIMIT,
            compiled_game.MOVE_LIMIT: WinReason.MOVE_LIMIT}  # fmt: skip


def play(seed: int, seen: Counter[str]) -> None:
    """One random game through `LocalGame` and the compiled state side by side (the choices from a seeded rng)."""
    rng = np.random.default_rng(seed)
    game: LocalGame[chess.Board] = LocalGame(None, None, 100, TURN_LIMIT)
    game.start()
    state = compiled_game.new_state()
    compiled_game.load(game.board, game.full_turn_limit, game.reversible_moves_limit, *state)
    out = np.zeros(MAX_MOVE_ACTIONS, dtype=np.int64)
    while not game.is_over():
        actions = [*dict.fromkeys(out[: compiled_game.move_action_numbers(*state, out)].tolist()), NONE]
        action = actions[int(rng.integers(len(actions)))]
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
    game.end()
    assert _REASONS[int(state[1][REASON])] == game.get_win_reason()
    assert (None if state[1][WINNER] < 0 else bool(state[1][WINNER])) == game.get_winner_color()
    seen[str(game.get_win_reason())] += 1


def test_seeded_random_games_end_as_local_game_ends_them() -> None:
    seen: Counter[str] = Counter()
    for seed in range(25):
        play(seed, seen)
    assert {str(WinReason.KING_CAPTURE), str(WinReason.TURN_LIMIT)} <= set(seen), seen


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
