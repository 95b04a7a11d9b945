"""The Stockfish wrapper against the real engine: locating it, refusing impossible positions, restarting."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import pytest

from blindchess.evaluation.stockfish import (
    STOCKFISH_ENV_VAR,
    Engine,
    EngineNotFoundError,
    EnginePool,
    find_stockfish,
    is_searchable,
    king_capture,
)

FAST = chess.engine.Limit(depth=4)


@pytest.fixture
def engine() -> Iterator[Engine]:
    with Engine() as running:
        yield running


def test_find_stockfish_honours_the_environment_variable() -> None:
    real = find_stockfish()
    assert find_stockfish({STOCKFISH_ENV_VAR: real, "PATH": ""}, fallback="/nonexistent") == real


def test_find_stockfish_names_everything_it_tried(tmp_path: Path) -> None:
    bogus = str(tmp_path / "no-stockfish-here")
    with pytest.raises(EngineNotFoundError) as raised:
        find_stockfish({STOCKFISH_ENV_VAR: bogus, "PATH": str(tmp_path)}, fallback="/nonexistent/stockfish")
    message = str(raised.value)
    assert bogus in message and "'stockfish' on PATH" in message and "/nonexistent/stockfish" in message


def test_find_stockfish_falls_back_to_path_then_fixed_location(tmp_path: Path) -> None:
    real = find_stockfish()
    link = tmp_path / "stockfish"
    link.symlink_to(real)
    assert find_stockfish({"PATH": str(tmp_path)}, fallback="/nonexistent") == str(link)
    assert find_stockfish({"PATH": ""}, fallback=real) == real


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/8/8/8/8/8/K7 w - - 0 1",  # no black king: crashes Stockfish 15.1
        "4k3/8/8/8/8/8/8/4K2K w - - 0 1",  # two white kings
        "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",  # pawn on the back rank
    ],
)
def test_impossible_positions_answer_none_without_killing_the_engine(engine: Engine, fen: str) -> None:
    board = chess.Board(fen)
    assert not is_searchable(board)
    assert engine.play(board, FAST) is None
    assert engine.analyse(board, FAST) is None
    move = engine.play(chess.Board(), FAST)
    assert move is not None and move in chess.Board().legal_moves
    assert engine.restarts == 0


def test_rbc_guesses_stockfish_can_search_are_searched(engine: Engine) -> None:
    # Nine white pawns: invalid chess, fine for Stockfish (a sense can leave a guess like it).
    board = chess.Board("4k3/8/8/8/P7/8/PPPPPPPP/4K3 w - - 0 1")
    assert not board.is_valid() and is_searchable(board) and king_capture(board) is None
    move = engine.play(board, FAST)
    assert move is not None and move in board.pseudo_legal_moves and engine.restarts == 0


@pytest.mark.parametrize(
    ("fen", "capture"),
    [
        ("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", "e7e8"),
        # from a board set in bench_neural: Stockfish 15.1 dies on it (exit -11)
        ("rn3b1r/pR1kpp1p/5np1/1p2p3/3P2b1/2P2N2/P1PB1PPP/3Q1RK1 w - - 0 1", "b7d7"),
        ("4k3/8/8/8/8/8/3q4/4K3 b - - 0 1", "d2e1"),
    ],
)
def test_the_side_to_move_capturing_the_king_is_answered_without_stockfish(engine: Engine, fen: str, capture: str) -> None:
    board = chess.Board(fen)
    assert board.status() & chess.STATUS_OPPOSITE_CHECK and is_searchable(board)
    assert engine.play(board, FAST) == chess.Move.from_uci(capture)
    info = engine.analyse(board, FAST)
    assert isinstance(info, dict) and info["score"].pov(board.turn) == chess.engine.Mate(1)
    listed = engine.analyse(board, FAST, multipv=3)
    assert isinstance(listed, list) and listed[0]["pv"] == [chess.Move.from_uci(capture)]
    assert engine.restarts == 0 and engine.pid is None  # Stockfish was never started


@pytest.mark.parametrize(
    "fen",
    [
        # both from the flagship's SPRT games, where Stockfish 15.1 died on them (exit -11): a pawn
        # pushed two squares beside a king already in check from a knight
        "3k4/3r1p1p/8/6pP/5PK1/4n3/6P1/8 w - g6 0 1",
        "2n1k3/6Np/4p3/6p1/pP6/4P3/P5PP/R6K b - b3 0 1",
    ],
)
def test_an_en_passant_square_beside_a_check_is_searched_without_it(engine: Engine, fen: str) -> None:
    board = chess.Board(fen)
    assert board.status() & chess.STATUS_IMPOSSIBLE_CHECK and not board.has_legal_en_passant()
    move = engine.play(board, FAST)
    assert move is not None and move in board.legal_moves  # an evasion, not the en-passant capture
    info = engine.analyse(board, FAST)
    assert isinstance(info, dict) and "score" in info
    assert engine.restarts == 0 and board.ep_square is not None  # the caller's board keeps its square


def test_the_callers_board_and_its_null_moves_are_left_alone(engine: Engine) -> None:
    board = chess.Board()
    board.push(chess.Move.null())  # RBC passes are null moves; UCI engines misread "0000"
    before = (board.fen(), list(board.move_stack))
    move = engine.play(board, FAST)
    assert move is not None and move in board.legal_moves
    assert (board.fen(), list(board.move_stack)) == before


def test_engine_restarts_after_its_process_is_killed(engine: Engine) -> None:
    board = chess.Board()
    assert engine.play(board, FAST) is not None
    first_pid = engine.pid
    assert first_pid is not None
    os.kill(first_pid, signal.SIGKILL)
    board.push_san("e4")
    move = engine.play(board, FAST)
    assert move is not None and move in board.legal_moves
    assert engine.restarts == 1
    assert engine.pid not in (None, first_pid)


def test_cached_answers_need_no_engine(engine: Engine) -> None:
    board = chess.Board()
    move = engine.play(board, FAST)
    engine.close()
    assert engine.pid is None
    assert engine.play(board, FAST) == move
    assert engine.pid is None  # answered from the cache, no process started


def test_analyse_returns_scores_and_multipv(engine: Engine) -> None:
    infos = engine.analyse(chess.Board(), FAST, multipv=3)
    assert isinstance(infos, list) and len(infos) == 3
    assert all("score" in info and info["pv"] for info in infos)


def test_pool_lends_distinct_engines() -> None:
    with EnginePool(2, cache_size=0) as pool, pool.engine() as first, pool.engine() as second:
        assert first is not second
        assert first.play(chess.Board(), FAST) is not None
        assert second.play(chess.Board(), FAST) is not None
        assert first.pid != second.pid


def test_bad_sizes_are_rejected() -> None:
    with pytest.raises(ValueError, match="-1"):
        Engine(cache_size=-1)
    with pytest.raises(ValueError, match="0"):
        EnginePool(0)


def test_engine_replaces_a_hung_process() -> None:
    with Engine(timeout=3.0) as engine:  # also bounds the restart, so not too tight on a busy machine
        board = chess.Board()
        assert engine.play(board, FAST) is not None
        hung_pid = engine.pid
        assert hung_pid is not None
        os.kill(hung_pid, signal.SIGSTOP)  # alive but silent: only the timeout can tell
        try:
            board.push_san("d4")
            move = engine.play(board, chess.engine.Limit(time=0.05))
        finally:
            with contextlib.suppress(ProcessLookupError):  # the engine normally killed it already
                os.kill(hung_pid, signal.SIGKILL)
        assert move is not None and move in board.legal_moves
        assert engine.restarts == 1 and engine.pid != hung_pid


def _positions() -> list[chess.Board]:
    """A short game's positions, one twice (a cache hit), a king capture and an unsearchable board among them."""
    board, boards = chess.Board(), []
    for san in ("e4", "e5", "Nf3", "Nc6", "Bb5", "a6"):
        board.push_san(san)
        boards.append(board.copy(stack=False))
    return [*boards, boards[2], chess.Board("4k3/8/8/8/8/8/8/4RK2 w - - 0 1"), chess.Board("8/8/8/8/8/8/8/4K3 w - - 0 1")]


def _searched(answer: object) -> object:
    """What a search found (its timing fields vary from run to run)."""
    return None if not isinstance(answer, dict) else (answer.get("score"), answer.get("depth"), answer.get("nodes"))


def test_two_fresh_engines_answer_a_sequence_of_positions_alike() -> None:
    # The same commands in the same order reach both, so even the hash-dependent scores agree.
    with Engine() as first, Engine() as second:
        expected = [first.analyse(board, FAST, info=chess.engine.INFO_SCORE) for board in _positions()]
        answers = [second.analyse(board, FAST, info=chess.engine.INFO_SCORE) for board in _positions()]
        assert [_searched(answer) for answer in answers] == [_searched(answer) for answer in expected]
        assert expected[-1] is None and expected[-2] is not None  # unsearchable; the king capture is known
        assert second.restarts == 0


def test_analysis_restarts_a_killed_engine_and_answers_every_board(engine: Engine) -> None:
    assert engine.play(chess.Board(), FAST) is not None
    first_pid = engine.pid
    assert first_pid is not None
    os.kill(first_pid, signal.SIGKILL)
    answers = [engine.analyse(board, FAST) for board in _positions()[:4]]
    assert all(isinstance(answer, dict) and "score" in answer for answer in answers)
    assert engine.restarts == 1 and engine.pid not in (None, first_pid)


def test_a_stoppable_search_answers_like_analyse_when_not_stopped(engine: Engine) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    info = engine.analyse(board, chess.engine.Limit(depth=6), stop=threading.Event())
    assert isinstance(info, dict) and info["depth"] == 6 and "score" in info and info["pv"][0] in board.legal_moves


def test_a_stopped_search_is_abandoned_and_not_kept(engine: Engine) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    stop = threading.Event()
    timer = threading.Timer(0.2, stop.set)
    timer.start()
    try:
        assert engine.analyse(board, chess.engine.Limit(depth=60), stop=stop) is None  # depth 60 would take hours
    finally:
        timer.cancel()
    assert engine.analyse(board, chess.engine.Limit(depth=60), stop=stop) is None  # already stopped: not answered from a cache
    info = engine.analyse(board, chess.engine.Limit(depth=4))
    assert isinstance(info, dict) and info["depth"] == 4  # the engine is usable afterwards
