"""Differential test: our `LocalGame` against the real reconchess 1.6.9 `LocalGame` (acceptance 1).

1,000 games of seeded random action sequences are driven through both games by their
`Game` methods, in lock step. Everything either side is told must match: the action
lists (same order), the opponent's capture square, every sense result, every move
result, the ValueErrors for refused actions (same message), `is_over`, the winner and
reason, and finally the whole history JSON string (which holds every truth FEN before
and after every move) and the final board FEN. Some games end by resignation after a
sense. Our game's live observation events must equal `history.observations(color)`,
also after a JSON round trip.

The action policy reads the truth board to steer towards the rare cases (en passant,
castling into pieces, blocked double steps, promotions with and without a piece,
slides through opponent pieces), and some games run pass-heavy or with small draw
limits. Each case is counted and each chunk asserts that every case occurred.
Clocks are unlimited so timing cannot make the two sides differ.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace
from enum import Enum
from functools import partial
from typing import Optional

import chess
import numpy as np
import pytest
import reconchess
from reconchess.history import GameHistoryEncoder

from blindchess.arbiter import GameHistory, GameStarted, LocalGame, Observation, Turn, WinReason
from blindchess.arbiter.rules import reference as rules

GAMES = 1000  # 27 ms of CPU a game; each chunk of 250 exercises every case (it once took 2,000)
CHUNKS = 4
SLIDERS = (chess.BISHOP, chess.ROOK, chess.QUEEN)


@dataclass(frozen=True)
class Setup:
    """One game's settings: start position, draw limits, how often the policy passes, a cap on half-turns."""

    starting_fen: Optional[str]
    reversible_moves_limit: Optional[int]
    full_turn_limit: Optional[int]
    pass_probability: float
    steer_probability: float
    max_half_turns: int


def warmed_up_fen(rng: np.random.Generator, plies: int) -> str:
    """A White-to-move position after `plies` (even) random RBC moves, pawn moves favoured (promotions come sooner)."""
    board = chess.Board()
    for _ in range(plies):
        actions = rules.move_actions(board)
        pawn_moves = [move for move in actions if board.piece_type_at(move.from_square) == chess.PAWN]
        pool = pawn_moves if pawn_moves and rng.random() < 0.6 else actions
        requested = pool[int(rng.integers(len(pool)))]
        rules.push(board, rules.revise_move(board, rules.with_default_promotion(board, requested)))
        if rules.king_captured(board) is not None:
            return chess.STARTING_FEN
    return board.fen(en_passant="fen")


def castling_gauntlet_fen(rng: np.random.Generator) -> str:
    """The start position with the back ranks between kings and rooks emptied, some squares taken by enemy minor pieces."""
    board = chess.Board()
    for color, rank in ((chess.WHITE, 0), (chess.BLACK, 7)):
        for file in (1, 2, 3, 5, 6):
            square = chess.square(file, rank)
            board.remove_piece_at(square)
            if rng.random() < 0.25:
                board.set_piece_at(square, chess.Piece(int(rng.choice([chess.KNIGHT, chess.BISHOP])), not color))
    return board.fen(en_passant="fen")


def promotion_gauntlet_fen(rng: np.random.Generator) -> str:
    """The start position with some pawns already on their seventh rank (pushes blocked, captures possible)."""
    board = chess.Board()
    for color, home_rank, seventh_rank in ((chess.WHITE, 1, 6), (chess.BLACK, 6, 1)):
        for file in range(8):
            if rng.random() < 0.35:
                board.remove_piece_at(chess.square(file, home_rank))
                board.set_piece_at(chess.square(file, seventh_rank), chess.Piece(chess.PAWN, color))
    return board.fen(en_passant="fen")


def en_passant_gauntlet_fen(rng: np.random.Generator) -> str:
    """The start position with some pawns advanced to their fifth rank, beside enemy pawns that may double-step."""
    board = chess.Board()
    for color, home_rank, fifth_rank in ((chess.WHITE, 1, 4), (chess.BLACK, 6, 3)):
        for file in range(8):
            if rng.random() < 0.3:
                board.remove_piece_at(chess.square(file, home_rank))
                board.set_piece_at(chess.square(file, fifth_rank), chess.Piece(chess.PAWN, color))
    return board.fen(en_passant="fen")


def setup_for(seed: int, rng: np.random.Generator) -> Setup:
    """Settings by seed: mostly short games from warmed-up positions (where the rare cases live), some from the start."""
    kind = seed % 10
    if seed % 50 == 7:  # all passes from the start: the default limit draws after exactly 100 half-turns
        return Setup(None, 100, None, 1.0, 0.0, 200)
    if kind in (0, 1):  # from the start, default limits
        return Setup(None, 100, None, 0.05, 0.6, 40)
    if kind == 2:  # promotions, with and without a piece, pushes and captures
        return Setup(promotion_gauntlet_fen(rng), 100, None, 0.05, 0.8, 20)
    if kind == 8:  # en passant chances
        return Setup(en_passant_gauntlet_fen(rng), 100, None, 0.05, 0.8, 20)
    if kind == 3:  # castling into and through enemy pieces
        return Setup(castling_gauntlet_fen(rng), 100, None, 0.05, 0.8, 20)
    fen = warmed_up_fen(rng, 2 * int(rng.integers(5, 30)))
    if kind == 4:  # pass-heavy with a small reversible-move limit: MOVE_LIMIT draws
        return Setup(fen, int(rng.integers(2, 20)), None, 0.8, 0.2, 40)
    if kind == 5:  # a full-turn limit a few turns ahead: TURN_LIMIT draws
        return Setup(fen, 100, chess.Board(fen).fullmove_number + int(rng.integers(0, 8)), 0.1, 0.5, 40)
    if kind == 6:  # no limits at all
        return Setup(fen, None, None, 0.05, 0.5, 30)
    return Setup(fen, 100, None, 0.05, 0.6, 30)


def interesting_moves(board: chess.Board, actions: list[chess.Move], rng: np.random.Generator) -> list[chess.Move]:
    """Candidate requests for the rare cases, given the truth board (the driver may look; bots may not)."""
    ep = board.ep_square
    if ep is not None:  # en passant, whenever it is on
        captures = [move for move in actions if move.to_square == ep and board.piece_type_at(move.from_square) == chess.PAWN]
        if captures:
            return captures
    candidates = []
    for move in actions:
        piece = board.piece_type_at(move.from_square)
        distance = chess.square_distance(move.from_square, move.to_square)
        if board.is_castling(move):
            candidates += [move] * 3
        elif piece == chess.PAWN and abs(move.to_square - move.from_square) == 16:
            candidates += [move] * 2
        elif move.promotion is not None:
            # a promotion, sometimes requested without the piece (the arbiter adds a queen)
            candidates.append(chess.Move(move.from_square, move.to_square) if rng.random() < 0.5 else move)
        elif (piece in SLIDERS and distance >= 2) or piece == chess.PAWN:
            candidates.append(move)
    return candidates


def bad_move(board: chess.Board, actions: list[chess.Move], rng: np.random.Generator) -> chess.Move:
    """A request outside the action list (the null move, or two random squares not listed)."""
    if rng.random() < 0.3:
        return chess.Move.null()
    while True:
        move = chess.Move(int(rng.integers(64)), int(rng.integers(64)))
        if move.from_square != move.to_square and move not in actions:
            return move


def classify(board: chess.Board, requested: Optional[chess.Move], taken: Optional[chess.Move], counts: Counter[str]) -> None:
    """Count which rule case a move exercised (board: the truth before the move)."""
    if requested is None:
        counts["pass"] += 1
        return
    piece = board.piece_type_at(requested.from_square)
    normalized = requested
    if piece == chess.PAWN and requested.promotion is None and chess.square_rank(requested.to_square) in (0, 7):
        normalized = chess.Move(requested.from_square, requested.to_square, chess.QUEEN)
        if taken is not None:
            counts["promotion without piece"] += 1
    elif requested.promotion is not None and taken is not None:
        counts["promotion with piece"] += 1
    if taken is None:
        counts["illegal move"] += 1
    if board.is_castling(normalized) and taken is None:
        rook_file = 7 if chess.square_file(normalized.to_square) > 4 else 0
        rook = chess.square(rook_file, chess.square_rank(normalized.from_square))
        if chess.between(normalized.from_square, rook) & board.occupied:
            counts["castling through pieces"] += 1
    if piece in SLIDERS and taken is not None and taken != normalized:
        counts["slide through opponent piece"] += 1
    if piece == chess.PAWN and abs(requested.to_square - requested.from_square) == 16 and taken != requested:
        counts["pawn double step into piece"] += 1
    if taken is not None and board.is_en_passant(taken):
        counts["en passant"] += 1


def assert_same_error(ours_call, theirs_call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError) as ours_error:
        ours_call()
    with pytest.raises(ValueError) as theirs_error:
        theirs_call()
    assert str(ours_error.value) == str(theirs_error.value)


def reason_name(reason: Optional[Enum]) -> Optional[str]:
    """The member name: the two packages' WinReason enums are different classes with the same members."""
    return None if reason is None else str(reason.name)


def play_differential_game(seed: int, counts: Counter[str]) -> None:
    rng = np.random.default_rng(seed)
    setup = setup_for(seed, rng)
    limits = dict(reversible_moves_limit=setup.reversible_moves_limit, full_turn_limit=setup.full_turn_limit)
    events: dict[bool, list[Observation]] = {chess.WHITE: [], chess.BLACK: []}
    ours = LocalGame(
        seconds_per_player=None, reversible_moves_limit=setup.reversible_moves_limit, full_turn_limit=setup.full_turn_limit,
        starting_fen=setup.starting_fen, observer=lambda c, e: events[c].append(e),
    )
    theirs = reconchess.LocalGame(seconds_per_player=None, **limits)
    if setup.starting_fen is not None:
        theirs.board = chess.Board(setup.starting_fen)
    for game in (ours, theirs):
        game.store_players(f"white-{seed}", f"black-{seed}")
        game.start()
    half_turns = 0
    while True:
        over = ours.is_over()
        assert over == theirs.is_over()
        if over or half_turns == setup.max_half_turns:
            break
        assert ours.turn == theirs.turn
        assert ours.get_seconds_left() == theirs.get_seconds_left()
        assert ours.opponent_move_results() == theirs.opponent_move_results()
        sense_actions, move_actions = ours.sense_actions(), ours.move_actions()
        assert sense_actions == theirs.sense_actions()
        assert move_actions == theirs.move_actions()

        if rng.random() < 0.02:
            bad = int(rng.choice([-1, 64, 100]))
            assert_same_error(partial(ours.sense, bad), partial(theirs.sense, bad))
            counts["refused sense"] += 1
        square = None if rng.random() < 0.1 else int(rng.integers(64))
        assert ours.sense(square) == theirs.sense(square)

        if rng.random() < 0.005:  # the mover resigns after sensing
            for game in (ours, theirs):
                game.resign()
            counts["resignation"] += 1
            continue

        board = theirs.board
        if rng.random() < 0.03:
            illegal = bad_move(board, move_actions, rng)
            assert_same_error(partial(ours.move, illegal), partial(theirs.move, illegal))
            counts["refused move"] += 1
        if rng.random() < setup.pass_probability:
            requested = None
        else:
            candidates = interesting_moves(board, move_actions, rng) if rng.random() < setup.steer_probability else []
            pool = candidates or move_actions
            requested = pool[int(rng.integers(len(pool)))]
        before = board.copy(stack=False)
        result = ours.move(requested)
        assert result == theirs.move(requested)
        classify(before, requested, result[1], counts)
        assert ours.opponent_move_results() == theirs.opponent_move_results()
        for game in (ours, theirs):
            game.end_turn()
        half_turns += 1

    assert ours.get_winner_color() == theirs.get_winner_color()
    assert reason_name(ours.get_win_reason()) == reason_name(theirs.get_win_reason())
    if not over:
        counts["ended unfinished"] += 1
    for game in (ours, theirs):
        game.end()
    winner, reason = ours.get_winner_color(), ours.get_win_reason()
    assert (winner, reason_name(reason)) == (theirs.get_winner_color(), reason_name(theirs.get_win_reason()))
    assert ours.sense_actions() is None and theirs.sense_actions() is None
    assert ours.move_actions() is None and theirs.move_actions() is None
    counts[reason.name if reason is not None else "no result"] += 1
    assert ours.board.fen(en_passant="fen") == theirs.board.fen(en_passant="fen")
    ours_history, theirs_history = ours.get_game_history(), theirs.get_game_history()
    assert ours_history is not None and theirs_history is not None
    text = ours_history.to_json()
    assert text == json.dumps(theirs_history, cls=GameHistoryEncoder)
    reloaded = GameHistory.from_json(text)
    for color in (chess.WHITE, chess.BLACK):  # what the game emitted = what its history (and its file) says
        assert events[color] == ours_history.observations(color)
        expected = events[color]
        if not ours_history.has_move(Turn(chess.WHITE, 0)):  # a file keeps the start position only in White's first move
            start = expected[0]
            assert isinstance(start, GameStarted)
            expected = [replace(start, starting_fen=chess.STARTING_FEN), *expected[1:]]
        assert reloaded.observations(color) == expected


CASES = (
    "pass",
    "illegal move",
    "slide through opponent piece",
    "castling through pieces",
    "pawn double step into piece",
    "en passant",
    "promotion with piece",
    "promotion without piece",
    "refused sense",
    "refused move",
    WinReason.KING_CAPTURE.name,
    WinReason.MOVE_LIMIT.name,
    WinReason.TURN_LIMIT.name,
    "ended unfinished",
    WinReason.RESIGN.name,
)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_localgame_matches_reconchess(chunk: int) -> None:
    counts: Counter[str] = Counter()
    per_chunk = GAMES // CHUNKS
    for seed in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        play_differential_game(seed, counts)
    missing = [case for case in CASES if counts[case] == 0]
    assert not missing, f"cases never exercised: {missing}; counts {dict(counts)}"
