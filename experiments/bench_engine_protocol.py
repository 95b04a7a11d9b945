"""What does talking to Stockfish cost us per search? Our `UciProcess` against python-chess's engine API.

The positions are those of seeded random games (``--positions`` of them, each searched once);
the searches are the flagship's (``depth`` 4 by default, score only). The baseline,
measured in the same run on the same positions and alternated with ours over ``--rounds``, is
python-chess's ``SimpleEngine.analyse`` with ``INFO_SCORE``, which `evaluation.stockfish.Engine`
used before. Both engines get the same commands, so every score must agree (checked). Printed
per search: our process's CPU milliseconds (Stockfish's own are another process's) and wall
milliseconds, and their ratios, ours over python-chess's::

    nice -n 15 python3 experiments/bench_engine_protocol.py --positions 400 --rounds 3
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import chess
import chess.engine

from blindchess.evaluation.stockfish import find_stockfish
from blindchess.evaluation.uci import UciProcess, parse_info


def positions(count: int, seed: int) -> list[chess.Board]:
    """`count` positions from seeded random games, none of them over.

    An en-passant square is kept only where the capture is legal, as `Engine` sends positions.
    """
    rng, boards = random.Random(seed), list[chess.Board]()
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(2, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            position = board.copy(stack=False)
            if not position.has_legal_en_passant():
                position.ep_square = None
            boards.append(position)
    return boards


def python_chess_scores(boards: list[chess.Board], limit: chess.engine.Limit) -> list[chess.engine.PovScore]:
    """The baseline: python-chess's engine API, one ``analyse`` per board."""
    with chess.engine.SimpleEngine.popen_uci(find_stockfish()) as engine:
        return [engine.analyse(board, limit, info=chess.engine.INFO_SCORE)["score"] for board in boards]


def our_scores(boards: list[chess.Board], limit: chess.engine.Limit) -> list[chess.engine.PovScore]:
    """Ours: `UciProcess` over the engine's pipes."""
    process = UciProcess(find_stockfish(), {}, timeout=10.0)
    try:
        scores = []
        for board in boards:
            found = process.search(board.fen(en_passant="fen"), limit, analysis=True)
            assert found is not None
            scores.append(parse_info(found[1][1], board.turn, chess.engine.INFO_SCORE)["score"])
        return scores
    finally:
        process.quit()


def timed(run: Callable[[], list[chess.engine.PovScore]]) -> tuple[float, float, list[chess.engine.PovScore]]:
    """CPU seconds of this process, wall seconds, and the answers of `run`."""
    cpu, wall = time.process_time(), time.perf_counter()
    answers = run()
    return time.process_time() - cpu, time.perf_counter() - wall, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    boards, limit = positions(args.positions, args.seed), chess.engine.Limit(depth=args.depth)
    runs: dict[str, list[tuple[float, float]]] = {"python-chess": [], "ours": []}
    for _ in range(args.rounds):
        base_cpu, base_wall, expected = timed(lambda: python_chess_scores(boards, limit))
        cpu, wall, answers = timed(lambda: our_scores(boards, limit))
        assert answers == expected, "the two protocols answered differently"
        runs["python-chess"].append((base_cpu, base_wall))
        runs["ours"].append((cpu, wall))
    per_search = {
        name: (statistics.median(c for c, _ in rows) / len(boards) * 1e3, statistics.median(w for _, w in rows) / len(boards) * 1e3)
        for name, rows in runs.items()
    }
    print(f"{len(boards)} positions, depth {args.depth}, {args.rounds} rounds (medians), every score equal")
    for name, (cpu, wall) in per_search.items():
        print(f"{name:>13}: {cpu:.3f} ms CPU per search, {wall:.3f} ms wall")
    (base_cpu, base_wall), (cpu, wall) = per_search["python-chess"], per_search["ours"]
    print(f"ratio ours / python-chess: CPU {cpu / base_cpu:.2f}, wall {wall / base_wall:.2f}")


if __name__ == "__main__":
    main()
