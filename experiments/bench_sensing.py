"""How long does choosing a sense square by expected information gain take on 100,000 boards?

Builds a real belief (`BoardSet`) by letting White play random moves while Black, whose belief
it is, never senses, until the set holds at least ``--boards`` boards (its cap is set ten times
higher: the cap policy keeps a capped set below its cap, so growing "past the cap" would never
end). Then it times,
on one core, in the same run:

* ``eig``: `EntropySensePlanner.choose_sense` end to end (reads the belief's piece grid,
  scores the 36 undominated centres with dense relabelling and bincount);
* ``naive``: the straightforward vectorised baseline, for every one of the 64 squares
  ``numpy.unique(grid[:, window], axis=0)`` and a weighted bincount of the inverse;

checks that both give the same entropies, and prints the times and their ratio.

Run: ``python3 experiments/bench_sensing.py`` (``--boards 1000000`` to scale up).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import TypeVar

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as the acceptance line asks

import chess
import numpy as np

from blindchess.arbiter.game.observations import GameStarted, MoveResult, OpponentMoved, SenseResult
from blindchess.arbiter.rules import reference as rules
from blindchess.beliefs import BoardSet
from blindchess.sensing import EntropySensePlanner, SenseContext
from blindchess.sensing.windows import WINDOWS

T = TypeVar("T")


def grown_belief(boards: int, seed: int) -> BoardSet:
    """Black's belief after random play in which Black never senses, once it holds at least `boards` boards."""
    rng = np.random.default_rng(seed)
    board = chess.Board()
    belief = BoardSet(max_boards=10 * boards, move_model=None)
    belief.update(GameStarted(chess.BLACK, chess.STARTING_FEN))
    while len(belief) < boards:
        if board.king(chess.WHITE) is None or board.king(chess.BLACK) is None:
            raise SystemExit(f"seed {seed}: the random game ended with {len(belief):,} boards; try another --seed")
        white_moves = rules.move_actions(board)
        request = white_moves[rng.integers(len(white_moves))]
        taken = rules.revise_move(board, rules.with_default_promotion(board, request))
        capture = rules.capture_square_of_move(board, taken)
        rules.push(board, taken)
        belief.update(OpponentMoved(capture))
        belief.update(SenseResult(None, ()))
        black_moves = rules.move_actions(board)
        request = black_moves[rng.integers(len(black_moves))]
        taken = rules.revise_move(board, rules.with_default_promotion(board, request))
        capture = rules.capture_square_of_move(board, taken)
        rules.push(board, taken)
        belief.update(MoveResult(request, taken, capture))
    return belief


class FirstBoards:
    """The first `n` boards of a belief, renormalised: a `WeightedBoards` of exactly the size asked for."""

    def __init__(self, belief: BoardSet, n: int) -> None:
        self.grid = np.ascontiguousarray(belief.piece_grid()[:n])
        weights = belief.weights()[:n]
        self.weight: np.ndarray = weights / weights.sum()

    def piece_grid(self) -> np.ndarray:
        return self.grid

    def weights(self) -> np.ndarray:
        return self.weight


def naive_entropies(grid: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The baseline: every square's 9 window channels as one base-13 integer, then np.unique per square."""
    result = np.zeros(64)
    for centre in chess.SQUARES:
        code = np.zeros(len(grid), dtype=np.int64)
        for square in WINDOWS[centre]:
            code = code * 13 + grid[:, square]
        _, inverse = np.unique(code, return_inverse=True)
        p = np.bincount(inverse.ravel(), weights=weights)
        p = p[p > 0]
        result[centre] = -(p * np.log2(p)).sum()
    return result


def best_of(repeats: int, run: Callable[[], T]) -> tuple[float, T]:
    """The best of `repeats` timings of `run` (at least one), and its last answer."""
    times = []
    for _ in range(max(1, repeats)):
        started = time.perf_counter()
        answer = run()
        times.append(time.perf_counter() - started)
    return min(times), answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=100_000, help="belief size (default 100,000)")
    parser.add_argument("--repeats", type=int, default=5, help="timings per method; the best is reported")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    started = time.perf_counter()
    belief = grown_belief(args.boards, args.seed)
    print(f"belief: {len(belief):,} boards (exact: {belief.is_exact}), built in {time.perf_counter() - started:.1f} s;"
          f" planning over its first {args.boards:,}")
    boards = FirstBoards(belief, args.boards)

    planner = EntropySensePlanner()
    context = SenseContext(color=chess.BLACK)
    actions = list(chess.SQUARES)
    eig_time, square = best_of(args.repeats, lambda: planner.choose_sense(boards, actions, 60.0, np.random.default_rng(0), context))
    grid, weights = boards.piece_grid(), boards.weights()
    grid_time, _ = best_of(args.repeats, belief.piece_grid)
    naive_time, naive = best_of(max(1, args.repeats // 2), lambda: naive_entropies(grid, weights))

    centres, fast = planner.scores(boards, actions, np.random.default_rng(0))
    agree = np.allclose(fast, np.asarray(naive)[centres], atol=1e-9)
    assert square is not None, "a belief of many boards has an informative window"
    print(f"chosen square: {chess.square_name(square)}  (EIG {fast.max():.3f} bits; fast and naive entropies agree: {agree})")
    print(f"{'method':<34}{'seconds':>10}")
    print(f"{'eig choose_sense (end to end)':<34}{eig_time:>10.3f}")
    print(f"{f'+ BoardSet.piece_grid() ({len(belief):,} b)':<34}{grid_time:>10.3f}")
    print(f"{'naive (unique per window, 64 sq)':<34}{naive_time:>10.3f}")
    print(f"speed-up over naive: {(naive_time) / eig_time:.1f}x; under 0.5 s: {eig_time < 0.5}")


if __name__ == "__main__":
    main()
