"""Our UCI client against python-chess's engine API: the same questions get the same answers.

`Engine` speaks to Stockfish through `UciProcess`; before, it went through python-chess's
``SimpleEngine``. Both send the same commands, so a fresh engine of each, asked the same
sequence (play, analysis with every field, score only, several PV lines), must answer alike
to the node count: a differential test against the real python-chess and the real Stockfish.
"""

from __future__ import annotations

import chess
import chess.engine
from hypothesis import given
from hypothesis import strategies as st

from blindchess.evaluation.stockfish import Engine, find_stockfish
from blindchess.evaluation.uci import go_command, parse_info
from blindchess.experiments.bench_engine_protocol import positions

DEPTH = chess.engine.Limit(depth=5)


def essentials(info: chess.engine.InfoDict) -> tuple[object, ...]:
    """What a search found (timing fields vary from run to run)."""
    return info.get("score"), info.get("depth"), info.get("seldepth"), info.get("nodes"), info.get("pv")


def test_engine_answers_what_python_chess_answers_to_the_same_questions() -> None:
    boards = positions(24, seed=5) + [chess.Board(), chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")]  # a stalemate too
    with chess.engine.SimpleEngine.popen_uci(find_stockfish()) as theirs, Engine(cache_size=0) as ours:
        for index, board in enumerate(boards):
            kind = index % 4
            if kind == 0:
                assert ours.play(board, DEPTH) == theirs.play(board, DEPTH).move, board.fen()
            elif kind == 1:
                expected = theirs.analyse(board, DEPTH)
                answer = ours.analyse(board, DEPTH)
                assert isinstance(answer, dict) and essentials(answer) == essentials(expected), board.fen()
            elif kind == 2:
                expected = theirs.analyse(board, DEPTH, info=chess.engine.INFO_SCORE)
                answer = ours.analyse(board, DEPTH, info=chess.engine.INFO_SCORE)
                assert isinstance(answer, dict) and answer.get("score") == expected.get("score") and "pv" not in answer
            else:
                listed_theirs = theirs.analyse(board, DEPTH, multipv=3)
                listed = ours.analyse(board, DEPTH, multipv=3)
                assert isinstance(listed, list)
                assert [essentials(info) for info in listed] == [essentials(info) for info in listed_theirs], board.fen()


@given(
    depth=st.integers(1, 99), nodes=st.integers(0, 10**9), millis=st.integers(0, 10**6),
    cp=st.one_of(st.tuples(st.just("cp"), st.integers(-30000, 30000)), st.tuples(st.just("mate"), st.integers(-200, 200))),
    bound=st.sampled_from(["", " lowerbound", " upperbound"]), turn=st.booleans(),
    pv=st.lists(st.sampled_from(["e2e4", "e7e5", "g1f3", "a7a8q", "e1g1"]), max_size=6),
)
def test_an_info_line_parses_to_its_fields(
    depth: int, nodes: int, millis: int, cp: tuple[str, int], bound: str, turn: bool, pv: list[str]
) -> None:
    kind, value = cp
    line = (f"info depth {depth} seldepth {depth + 1} multipv 1 score {kind} {value}{bound} nodes {nodes} nps 5"
            f" hashfull 0 tbhits 0 time {millis} pv {' '.join(pv)}")
    info = parse_info(line.rstrip(), turn)
    score = chess.engine.Cp(value) if kind == "cp" else chess.engine.Mate(value)
    assert info["score"] == chess.engine.PovScore(score, turn)
    assert (info["depth"], info["seldepth"], info["nodes"], info["time"]) == (depth, depth + 1, nodes, millis / 1000)
    assert info.get("pv", []) == [chess.Move.from_uci(move) for move in pv]
    assert bool(bound) == (bound.strip() in info)
    assert "pv" not in parse_info(line, turn, chess.engine.INFO_SCORE)


def test_go_commands_are_written_as_python_chess_writes_them() -> None:
    assert go_command(chess.engine.Limit(depth=4)) == "go depth 4"
    assert go_command(chess.engine.Limit(time=0.0004)) == "go movetime 1"
    assert go_command(chess.engine.Limit(time=0.25, nodes=500)) == "go nodes 500 movetime 250"
    assert go_command(chess.engine.Limit(white_clock=60, black_clock=59.5, white_inc=2, black_inc=2)) == (
        "go wtime 60000 btime 59500 winc 2000 binc 2000"
    )
