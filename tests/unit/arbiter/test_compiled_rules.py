"""The compiled rules core against the reference and the fast Python path: three writings of the RBC rules, one answer.

The reference (`rules.py` over python-chess), the fast Python path `LocalGame` runs
(`fast_actions`, `fast_revision`, `fast_push`) and the compiled core
(`compiled_rules`, through the compiled game's state arrays, which is how every compiled user
reaches it) must give at a position the same move actions (the same list, in order, duplicates
included) and, for every move action's number, the same revised move, capture square and board
after the push (pieces, turn, castling rights, en passant, clocks).

Where: 500 seeded random games, played from the compiled lists and replayed in python-chess: at
every ply the move actions and the played action's outcome on all three, and at `FULL` plies of
each game (drawn by its seed; the reference's cost bounds how many) the reference's list and
every move action's outcome; games whose choices hypothesis draws, checked alike; and positions
made for the rare rules (castling through attacked squares and refused castling, en passant,
under-promotion, a double push cut short by a piece, which leaves no en-passant square behind).
The seeded games must have shown every rule the core spells out.
"""

from __future__ import annotations

from collections import Counter
from typing import Optional

import chess
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from blindchess.arbiter.rules import compiled_game, fast_actions, fast_push, fast_revision
from blindchess.arbiter.rules import reference as rules
from blindchess.arbiter.rules.compiled_game import MAX_MOVE_ACTIONS, NONE

GAMES = 500
MAX_PLIES = 60
FULL = 1
"""Plies per game (drawn by its seed) where every move action is checked on all three."""
_KINDS = {None: 0, chess.QUEEN: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3}
_PROMOTIONS = (None, chess.KNIGHT, chess.BISHOP, chess.ROOK)
"""A number's promotion kind as a request (none: the arbiter adds the queen where a pawn reaches the last rank)."""
State = tuple[np.ndarray, np.ndarray]


def number(move: chess.Move) -> int:
    """The action number of a requested move (the compiled game's numbering)."""
    return compiled_game.MOVE_BASE + _KINDS[move.promotion] * 4096 + move.from_square * 64 + move.to_square


def load(board: chess.Board) -> State:
    state = compiled_game.new_state()
    compiled_game.load(board, float("inf"), float("inf"), *state)
    return state


def check_actions(board: chess.Board, state: State) -> dict[int, chess.Move]:
    """The three lists of move actions are one; returns each number's first move action (what the number means)."""
    out = np.zeros(MAX_MOVE_ACTIONS, dtype=np.int64)
    compiled = out[: compiled_game.move_action_numbers(*state, out)].tolist()
    moves = fast_actions.move_actions(board)
    assert rules.move_actions(board) == moves, board.fen()
    numbers = [number(move) for move in moves]
    assert numbers == compiled, board.fen()
    first: dict[int, chess.Move] = {}
    for code, move in zip(numbers, moves, strict=True):
        first.setdefault(code, move)
    return first


def check_request(
    board: chess.Board, state: State, move: chess.Move, seen: Counter[str]
) -> tuple[chess.Board, State]:
    """One move action's revision, capture square and the board after it agree on all three; returns the boards after."""
    requested = rules.with_default_promotion(board, move)
    taken = rules.revise_move(board, requested)
    capture = rules.capture_square_of_move(board, taken)
    fast = fast_revision.request_outcome(board, move)
    assert (fast.taken, fast.capture_square) == (taken, capture), (board.fen(), move)
    origin, target, _, taken_to, promotion, capture_square = compiled_game.request(*state, number(move))
    assert (origin, target) == (move.from_square, move.to_square)
    assert (taken_to, promotion) == ((-1, 0) if taken is None else (taken.to_square, taken.promotion or 0)), (board.fen(), move)
    assert capture_square == (-1 if capture is None else capture), (board.fen(), move)
    after_reference, after_fast = board.copy(stack=False), board.copy(stack=False)
    rules.push(after_reference, taken)
    fast_push.push(after_fast, taken)
    after = (state[0].copy(), state[1].copy())
    compiled_game.push(*after, origin if taken_to >= 0 else -1, taken_to, promotion)
    assert compiled_game.agrees(after_reference, *after), (board.fen(), move)
    assert compiled_game.agrees(after_fast, *after), (board.fen(), move)
    seen[feature(board, move, taken, capture)] += 1
    return after_fast, after


def feature(board: chess.Board, move: chess.Move, taken: Optional[chess.Move], capture: Optional[int]) -> str:
    """Which rule a request exercised (to check that the positions covered them all)."""
    if taken is None:
        return "refused castling" if board.is_castling(move) else "refused"
    if board.is_castling(taken):
        path = chess.SquareSet(chess.between(taken.from_square, taken.to_square)) | {taken.from_square, taken.to_square}
        return "castling through check" if any(board.is_attacked_by(not board.turn, s) for s in path) else "castling"
    if capture is not None and capture != taken.to_square:
        return "en passant"
    if taken.promotion is not None:
        return "under-promotion" if taken.promotion != chess.QUEEN else "promotion"
    if board.piece_type_at(move.from_square) == chess.PAWN and abs(move.to_square - move.from_square) == 16 != abs(
        taken.to_square - move.from_square
    ):
        return "double push cut short"
    return "revised" if taken != move else "as requested"


def play(seed: int, seen: Counter[str], picks: Optional[list[int]] = None) -> None:
    """One random game from the compiled lists (`picks`: the choices, else the seed's), its played actions checked on all
    three, and at `FULL` plies drawn by the seed every move action."""
    rng = np.random.default_rng(seed)
    full = set(rng.integers(1, MAX_PLIES, size=FULL).tolist())
    board = chess.Board()
    state = load(board)
    out = np.zeros(MAX_MOVE_ACTIONS, dtype=np.int64)
    for ply in range(MAX_PLIES if picks is None else len(picks)):
        if ply in full:
            for move in check_actions(board, state).values():
                check_request(board, state, move, seen)
        actions = [*dict.fromkeys(out[: compiled_game.move_action_numbers(*state, out)].tolist()), NONE]
        action = actions[int(rng.integers(len(actions))) if picks is None else picks[ply] % len(actions)]
        if action == NONE:
            fast_push.push(board, None)
            compiled_game.push(*state, -1, -1, 0)
            assert compiled_game.agrees(board, *state)
        else:
            code = action - compiled_game.MOVE_BASE
            kind, origin, target = code // 4096, (code // 64) % 64, code % 64
            board, state = check_request(board, state, chess.Move(origin, target, _PROMOTIONS[kind]), seen)
        if compiled_game.end_of_turn(*state):
            seen["king captured"] += 1
            return


def test_500_seeded_games_agree_on_every_rule() -> None:
    seen: Counter[str] = Counter()
    for seed in range(GAMES):
        play(seed, seen)
    rules_shown = {"castling", "castling through check", "refused castling", "en passant", "promotion",
                   "under-promotion", "revised", "double push cut short", "refused", "king captured"}  # fmt: skip
    assert rules_shown <= set(seen), seen


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 2**16), min_size=20, max_size=80))
def test_games_hypothesis_draws_agree_on_every_rule(seed: int, picks: list[int]) -> None:
    play(seed, Counter(), picks)


MADE_POSITIONS = {
    "castling through check": "5r2/4k3/8/8/8/8/8/R3K2R w KQ - 0 1",  # the rook on f8 attacks f1; a queen would see d1
    "refused castling": "4k3/8/8/8/8/8/8/R2nK1bR w KQ - 0 1",
    "en passant": "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
    "under-promotion": "2n1k3/1P6/8/8/8/8/6p1/4KN2 w - - 0 1",
    "double push cut short": "4k3/8/8/8/3n4/8/3P4/4K3 w - - 0 1",  # d2d4 becomes d2d3, which leaves no en-passant square
    "revised": "4k3/8/8/8/3p4/8/8/Q3K3 w - - 0 1",  # a1e5 stops on d4 and takes it
}
"""Positions made for the rare rules, each named by the one it must show."""


def test_made_positions_agree_on_every_move_action_and_show_their_rule() -> None:
    for name, fen in MADE_POSITIONS.items():
        board = chess.Board(fen)
        seen: Counter[str] = Counter()
        for move in check_actions(board, load(board)).values():
            check_request(board, load(board), move, seen)
        assert name in seen, (name, seen)
