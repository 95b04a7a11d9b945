"""The baseline bots' decisions, one callback at a time (whole games are in tests/compat)."""

from __future__ import annotations

from collections.abc import Iterator

import chess
import chess.engine
import pytest

from blindchess.arbiter.rules.reference import move_actions, sense_actions
from blindchess.bots.attacker_bot import QUICK_ATTACKS, AttackerBot, flipped_move
from blindchess.bots.random_bot import RandomBot
from blindchess.bots.trout_bot import TroutBot
from blindchess.evaluation.stockfish import Engine

FAST = chess.engine.Limit(depth=3)


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    with Engine() as shared:
        yield shared


def _random_choices(seed: int) -> list[object]:
    bot = RandomBot(rng=seed)
    board = chess.Board()
    actions = move_actions(board)
    return [bot.choose_sense(sense_actions(), actions, 900.0) for _ in range(20)] + [
        bot.choose_move(actions, 900.0) for _ in range(200)
    ]


def test_random_bot_is_reproducible_by_seed_and_stays_in_its_action_lists() -> None:
    choices = _random_choices(11)
    assert choices == _random_choices(11)
    assert choices != _random_choices(12)
    senses, moves = choices[:20], choices[20:]
    assert all(square in chess.SQUARES for square in senses)
    assert None in moves  # passing is one of its 35 options at the start
    assert all(move is None or move in move_actions(chess.Board()) for move in moves)


def test_attacker_plays_its_rush_mirrored_as_black_and_again_next_game() -> None:
    bot = AttackerBot(rng=3)
    rush = list(bot.attack)
    assert bot.attack in QUICK_ATTACKS
    for color, expected in ((chess.BLACK, [flipped_move(m) for m in rush]), (chess.WHITE, rush)):
        board = chess.Board()
        board.turn = color
        bot.handle_game_start(color, chess.Board(), "opponent")
        assert bot.choose_move(move_actions(board), 900.0) == expected[0]


def test_attacker_skips_impossible_moves_then_passes() -> None:
    bot = AttackerBot(rng=0)
    bot.handle_game_start(chess.WHITE, chess.Board(), "opponent")
    assert bot.choose_move([], 900.0) is None
    assert bot.move_sequence == []


def test_trout_captures_a_king_on_a1(engine: Engine) -> None:
    # Black to move; White's king stands on a1 (square 0, falsy) in the rook's file.
    start = chess.Board("r3k3/8/8/8/8/8/8/K7 b - - 0 1")
    trout = TroutBot(rng=0, engine=engine, limit=FAST)
    trout.handle_game_start(chess.BLACK, start, "opponent")
    trout.handle_opponent_move_result(False, None)
    assert trout.choose_move(move_actions(start), 900.0) == chess.Move(chess.A8, chess.A1)


def test_trout_senses_where_it_lost_a_piece_on_a1(engine: Engine) -> None:
    trout = TroutBot(rng=0, engine=engine, limit=FAST)
    trout.handle_game_start(chess.WHITE, chess.Board(), "opponent")
    trout.handle_opponent_move_result(True, chess.A1)
    assert trout.board.piece_at(chess.A1) is None
    assert trout.choose_sense(sense_actions(), move_actions(chess.Board()), 900.0) == chess.A1


def test_trout_never_modifies_the_lists_it_is_handed(engine: Engine) -> None:
    trout = TroutBot(rng=5, engine=engine, limit=FAST)
    trout.handle_game_start(chess.WHITE, chess.Board(), "opponent")
    trout.handle_opponent_move_result(False, None)
    senses, moves = sense_actions(), move_actions(chess.Board())
    senses_before, moves_before = list(senses), list(moves)
    square = trout.choose_sense(senses, moves, 900.0)
    assert square in senses
    assert chess.Board().color_at(square) != chess.WHITE  # never its own pieces
    assert trout.choose_move(moves, 900.0) in moves
    assert senses == senses_before and moves == moves_before


def test_trout_passes_instead_of_crashing_stockfish_when_its_board_has_no_enemy_king(engine: Engine) -> None:
    trout = TroutBot(rng=1, engine=engine, limit=FAST)
    trout.handle_game_start(chess.WHITE, chess.Board(), "opponent")
    trout.handle_opponent_move_result(False, None)
    trout.handle_sense_result([(chess.E8, None)])  # "saw" the king gone
    restarts = engine.restarts
    assert trout.choose_move(move_actions(chess.Board()), 900.0) is None
    assert engine.restarts == restarts
    trout.handle_sense_result([(chess.E8, chess.Piece(chess.KING, chess.BLACK))])
    assert trout.choose_move(move_actions(chess.Board()), 900.0) is not None


def test_trout_removes_a_pawn_taken_en_passant(engine: Engine) -> None:
    trout = TroutBot(rng=1, engine=engine, limit=FAST)
    trout.handle_game_start(chess.WHITE, chess.Board("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1"), "opponent")
    # Its board shows no en-passant right (it never saw d7-d5), yet the arbiter made e5xd6 e.p.
    trout.handle_move_result(chess.Move(chess.E5, chess.D6), chess.Move(chess.E5, chess.D6), True, chess.D5)
    assert trout.board.piece_at(chess.D5) is None
    assert trout.board.piece_at(chess.D6) == chess.Piece(chess.PAWN, chess.WHITE)


def test_trout_stops_only_the_engine_it_owns(engine: Engine) -> None:
    borrowed = TroutBot(engine=engine, limit=FAST)
    borrowed.handle_game_start(chess.WHITE, chess.Board(), "opponent")
    borrowed.handle_opponent_move_result(False, None)
    borrowed.choose_move(move_actions(chess.Board()), 900.0)
    borrowed.handle_game_end(None, None, None)
    assert engine.pid is not None
    owning = TroutBot(limit=FAST)
    owning.handle_game_start(chess.WHITE, chess.Board(), "opponent")
    owning.choose_move(move_actions(chess.Board()), 900.0)
    assert owning.engine.pid is not None
    owning.handle_game_end(None, None, None)
    assert owning.engine.pid is None
