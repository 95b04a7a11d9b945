"""How much faster is the compact BoardSet than the chess.Board reference, per update kind?

One run, one core: a random-action game (seeded) is followed as Black until the set
holds a few thousand boards; the next opponent turn, sense and own move are then
applied to the fast set (all boards) and to the reference (a random subset of
``--reference-boards`` boards holding the truth), and rates are compared. The same
is repeated on a set of at least a million boards (fast set only; the expansion of
that set runs until the cap, so the rate counts the children actually produced).
With ``--baseline REV`` the fast set's rates are measured by the commit REV and by this
checkout in alternating child processes (:mod:`blindchess.experiments.baseline_checkout`),
the medians and their ratios printed.

    python3 experiments/bench_boardset.py
    python3 experiments/bench_boardset.py --baseline main --rounds 3 --big 300000
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import chess
import numpy as np

from blindchess.arbiter.game.observations import GameEnded, MoveResult, OpponentMoved, SenseResult
from blindchess.beliefs import BoardSet, ReferenceBoardSet
from blindchess.beliefs.observed_games import ObservedGame, play_random_game


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


UPDATES = ("expand (children)", "sense (boards in)", "own move (boards in)")


def measure(args: argparse.Namespace, with_reference: bool) -> dict[str, float]:
    """Rates per second: the fast set's three updates (and the reference's, if asked), then the large set's three."""
    rng = np.random.default_rng(args.seed)
    game, warm, index, _ = _state_with_size(10, args.seed, None)  # compile (or load the cached) kernels untimed
    for event in game.events[chess.BLACK][index : index + 3]:
        warm.update(event)

    game, fast, index, truth = _state_with_size(args.boards, args.seed, None)
    events = game.events[chess.BLACK][index : index + 3]  # an opponent's move, a sense, our move
    rates = {"set size": float(len(fast))}
    reference = None
    if with_reference:
        parents = list(fast.boards())
        chosen = rng.choice(len(parents), size=min(args.reference_boards, len(parents)), replace=False)
        reference = ReferenceBoardSet.from_boards(chess.BLACK, [parents[i] for i in chosen] + [truth], move_model=None)
        rates["reference set size"] = float(len(reference))
    for name, event in zip(UPDATES, events, strict=True):
        for label, belief in (("fast", fast), ("reference", reference)):
            if belief is None:
                continue
            boards_in = len(belief)
            seconds = _timed(partial(belief.update, event))
            rates[f"{label} {name}/s"] = (len(belief) if event is events[0] else boards_in) / seconds

    big, opponent_moved, sense, own_move = _large_state(args.big, args.seed)
    rates["large set parents"] = float(len(big))
    seconds = _timed(lambda: big.update(opponent_moved))
    rates["large set children"] = float(len(big))
    rates["large expand (children)/s"] = len(big) / seconds
    boards_in = len(big)
    rates["large sense filter (boards in)/s"] = boards_in / _timed(lambda: big.update(sense))
    boards_in = len(big)
    rates["large own-move filter (boards in)/s"] = boards_in / _timed(lambda: big.update(own_move))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=3000, help="set size for the comparison with the reference")
    parser.add_argument("--reference-boards", type=int, default=300)
    parser.add_argument("--big", type=int, default=1_000_000, help="size of the large set")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline", metavar="REV", help="a commit to compare the fast set's rates with (e.g. main)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of baseline and current (with --baseline)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args, with_reference=False)))
        return
    if args.baseline:  # imported here: a child runs under the baseline's package, which need not have the module
        from blindchess.experiments.baseline_checkout import alternate, print_rates
        from blindchess.tournament.commit_bot import export_commit

        argv = ["--boards", str(args.boards), "--big", str(args.big), "--seed", str(args.seed)]
        with tempfile.TemporaryDirectory() as folder:
            variants = {"baseline": str(export_commit(args.baseline, Path(folder))), "current": None}
            runs = alternate(__file__, argv, variants, args.rounds)
        per_second = {name: [{k: v for k, v in run.items() if k.endswith("/s")} for run in results] for name, results in runs.items()}
        print(f"BoardSet, {args.rounds} rounds, median rates: baseline {args.baseline} against the current checkout")
        print_rates(per_second, "/s")
        return

    rates = measure(args, with_reference=True)
    print(f"set: {rates['set size']:,.0f} boards; reference subset: {rates['reference set size']:,.0f} boards")
    print(f"{'update':<22}{'fast/s':>16}{'reference/s':>16}{'ratio':>10}")
    for name in UPDATES:
        fast, reference = rates[f"fast {name}/s"], rates[f"reference {name}/s"]
        print(f"{name:<22}{fast:>16,.0f}{reference:>16,.0f}{fast / reference:>9.0f}x")
    print(f"\nlarge set: {rates['large set parents']:,.0f} parents")
    print(f"expand: {rates['large set children']:,.0f} children, {rates['large expand (children)/s']:,.0f}/s")
    print(f"sense filter: {rates['large sense filter (boards in)/s']:,.0f} boards/s")
    print(f"own-move filter: {rates['large own-move filter (boards in)/s']:,.0f} boards/s")


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
