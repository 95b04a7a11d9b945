"""How much faster is the compact BoardSet than the chess.Board reference, per update kind?

One run, one core: a random-action game (seeded) is followed as Black until the set
holds a few thousand boards; the next opponent turn, sense and own move are then
applied to the fast set (all boards) and to the reference (a random subset of
``--reference-boards`` boards holding the truth), and rates are compared. The same
is repeated on a set of at least a million boards (fast set only; the expansion of
that set runs until the cap, so the rate counts the children actually produced).

    python3 experiments/bench_boardset.py
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import chess
import numpy as np

from blindchess.arbiter.observations import GameEnded, MoveResult, OpponentMoved, SenseResult
from blindchess.beliefs import BoardSet, ReferenceBoardSet
from blindchess.beliefs.random_games import ObservedGame, play_random_game


def _timed(action: Callable[[], None]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _state_with_size(min_boards: int, seed: int, max_boards: int | None) -> tuple[ObservedGame, BoardSet, int, chess.Board]:
    """Follow random games as Black until, before an opponent turn, the set holds >= min_boards boards.

    Returns the game, the set, the index of the next event (an OpponentMoved) and the truth board then.
    """
    while True:
        game = play_random_game(np.random.default_rng(seed), full_turn_limit=30, sense_probability=0.5)
        events, truth = game.events[chess.BLACK], game.truth[chess.BLACK]
        belief = BoardSet(max_boards=max_boards, move_model=None)
        for index, event in enumerate(events):
            belief.update(event)
            if isinstance(event, GameEnded):
                break
            nxt = events[index + 1]
            if (
                isinstance(event, MoveResult) and isinstance(nxt, OpponentMoved) and len(belief) >= min_boards
                and isinstance(events[index + 3], MoveResult) and belief.is_exact
            ):
                return game, belief, index + 1, truth[index]
            if len(belief) > 40 * max(min_boards, 1):
                break
        seed += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=3000, help="set size for the comparison with the reference")
    parser.add_argument("--reference-boards", type=int, default=300)
    parser.add_argument("--big", type=int, default=1_000_000, help="size of the large set")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    warm = BoardSet()  # compile (or load the cached) kernels outside the timings
    game, warm, index, _ = _state_with_size(10, args.seed, None)
    for event in game.events[chess.BLACK][index : index + 3]:
        warm.update(event)

    game, fast, index, truth = _state_with_size(args.boards, args.seed, None)
    opponent_moved, sense, own_move = game.events[chess.BLACK][index : index + 3]
    parents = list(fast.boards())
    subset = [parents[i] for i in rng.choice(len(parents), size=min(args.reference_boards, len(parents)), replace=False)]
    reference = ReferenceBoardSet.from_boards(chess.BLACK, subset + [truth], move_model=None)
    print(f"set: {len(fast):,} boards ({fast.nbytes_per_board} bytes per board); reference subset: {len(reference):,} boards")
    print(f"{'update':<22}{'fast/s':>16}{'reference/s':>16}{'ratio':>10}")
    rows = [("expand (children)", opponent_moved), ("sense (boards in)", sense), ("own move (boards in)", own_move)]
    for name, event in rows:
        fast_in, reference_in = len(fast), len(reference)
        fast_time = _timed(partial(fast.update, event))
        reference_time = _timed(partial(reference.update, event))
        fast_count = len(fast) if event is opponent_moved else fast_in
        reference_count = len(reference) if event is opponent_moved else reference_in
        fast_rate, reference_rate = fast_count / fast_time, reference_count / reference_time
        print(f"{name:<22}{fast_rate:>16,.0f}{reference_rate:>16,.0f}{fast_rate / reference_rate:>9.0f}x")

    big, opponent_moved, sense, own_move = _large_state(args.big, args.seed)
    print(f"\nlarge set: {len(big):,} parents, {big.nbytes_per_board} bytes per board")
    expand_time = _timed(lambda: big.update(opponent_moved))
    print(f"expand: {len(big):,} children in {expand_time:.2f} s = {len(big) / expand_time:,.0f}/s (exact: {big.is_exact})")
    boards_in = len(big)
    sense_time = _timed(lambda: big.update(sense))
    print(f"sense filter: {boards_in:,} boards in {sense_time:.3f} s = {boards_in / sense_time:,.0f}/s")
    boards_in = len(big)
    move_time = _timed(lambda: big.update(own_move))
    print(f"own-move filter: {boards_in:,} boards in {move_time:.3f} s = {boards_in / move_time:,.0f}/s")


def _large_state(min_children: int, seed: int) -> tuple[BoardSet, OpponentMoved, SenseResult, MoveResult]:
    """A set (as Black, opponent to move) whose next opponent turn yields >= min_children boards, and the next 3 events."""
    while True:
        game = play_random_game(np.random.default_rng(seed), full_turn_limit=30, sense_probability=0.5)
        events = game.events[chess.BLACK]
        belief = BoardSet(max_boards=None, move_model=None)
        for index, event in enumerate(events[:-3]):
            if isinstance(event, OpponentMoved) and index > 1:
                probe = belief.copy()
                probe.update(event)
                if len(probe) >= min_children and isinstance(events[index + 2], MoveResult):
                    return belief, event, events[index + 1], events[index + 2]  # type: ignore[return-value]
                if len(probe) > 8 * min_children:
                    break
            belief.update(event)
        seed += 1


if __name__ == "__main__":
    main()
