"""How close do particle filters and the hybrid come to the exact board set, and at what cost?

Held-out data: the 306 recorded bot games of the board-set tests (every ordered pairing
of random, attacker and trout; the filter's settings were chosen on seeded random-action
games, never on these), both colours, pairings interleaved so that any prefix (and each
interim report) covers all of them; plus optionally ``--random-games`` fresh games of
random senses and moves. Each stream is followed for at most ``--turn-limit`` own turns
(12 by default), which bounds the cost of a game. Every belief follows every stream side
by side:

* ``exact``: the exhaustive `BoardSet`, weighted by the uniform opponent-move model (the
  posterior the filters approximate), capped at ``--exact-cap`` children; a stream stops
  counting once the cap makes it inexact;
* ``pf-N``: `ParticleFilter` with budget N (same model);
* ``hybrid``: `HybridBelief` (exact up to ``--switch`` boards, ``--hybrid-particles`` above,
  ``--hybrid-rebuild`` seconds per exact-rebuild attempt; its time includes the attempts).

Per event (while the exact set is exact): the cross-entropy of the true board under each
belief's marginals (`blindchess.beliefs.calibration.cross_entropy`: bits, marginals
smoothed so that a square the belief rules out costs about 17 bits instead of infinity);
whether the truth has non-zero probability (``truth in``); and the wall time of the
update. A *large* turn is an own turn in which the exact set exceeds ``--big`` boards
after some event. Deprivation: every event at which a filter had to rebuild, and whether
the truth was in the rebuilt belief (the recovery rate).

    nice -n 10 python3 experiments/bench_particles.py                  # all 306 recorded games
    nice -n 10 python3 experiments/bench_particles.py --games 20       # a quick look
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Union

import chess
import numpy as np

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.observations import GameEnded, MoveResult
from blindchess.beliefs import BoardSet, HybridBelief, OpponentMoveModel, ParticleFilter
from blindchess.beliefs.calibration import cross_entropy
from blindchess.beliefs.observed_games import ObservedGame, observed_game, play_random_game
from blindchess.fixtures.recorded_games import load_records

Tracked = Union[BoardSet, ParticleFilter, HybridBelief]


@dataclass
class Tally:
    """Sums per belief over a class of events."""

    events: int = 0
    cross_entropy: float = 0.0
    truth_in: int = 0
    seconds: float = 0.0

    def add(self, ce: float, truth_in: bool, seconds: float) -> None:
        self.events += 1
        self.cross_entropy += ce
        self.truth_in += truth_in
        self.seconds += seconds


@dataclass
class Results:
    all_events: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    large: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    deprived: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    recovered: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    filter_events: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    large_turns: int = 0
    streams: int = 0
    handovers: int = 0
    returns: int = 0


def follow(
    game: ObservedGame, color: chess.Color, makers: dict[str, Callable[[], Tracked]], big: int, turn_limit: int, results: Results
) -> None:
    """Run every belief over one stream, for at most `turn_limit` own turns, and add its figures to `results`."""
    beliefs = {name: make() for name, make in makers.items()}
    exact_alive = True
    turn: list[tuple[str, float, bool, float]] = []  # this own turn's (belief, ce, truth in, seconds)
    turn_large = False
    own_turns = 0
    for event, truth in zip(game.events[color], game.truth[color], strict=True):
        if isinstance(event, GameEnded) or own_turns == turn_limit:
            break
        own_turns += isinstance(event, MoveResult)
        scored = []
        for name, belief in beliefs.items():
            if name == "exact" and not exact_alive:
                continue  # past its cap; the filters go on for the deprivation figures
            before = getattr(belief, "recoveries", 0)
            start = time.perf_counter()
            belief.update(event)
            seconds = time.perf_counter() - start
            truth_in = truth in belief
            if name != "exact":
                results.filter_events[name] += 1
                if getattr(belief, "recoveries", 0) > before:
                    results.deprived[name] += 1
                    results.recovered[name] += truth_in
            if exact_alive:
                scored.append((name, cross_entropy(belief.marginals(), truth), truth_in, seconds))
        exact = beliefs["exact"]
        if exact_alive and not exact.is_exact:
            exact_alive = False
        if exact_alive:
            assert truth in exact, "the exact set lost the truth"
            turn += scored
            turn_large |= len(exact) > big
        if isinstance(event, MoveResult) or not exact_alive:
            _close_turn(turn, turn_large, results)
            turn, turn_large = [], False
    _close_turn(turn, turn_large, results)
    hybrid = beliefs.get("hybrid")
    if isinstance(hybrid, HybridBelief):
        results.handovers += hybrid.handovers
        results.returns += hybrid.returns
    results.streams += 1


def _close_turn(turn: list[tuple[str, float, bool, float]], large: bool, results: Results) -> None:
    for name, ce, truth_in, seconds in turn:
        results.all_events[name].add(ce, truth_in, seconds)
        if large:
            results.large[name].add(ce, truth_in, seconds)
    results.large_turns += large and bool(turn)


def report(results: Results, names: list[str], big: int) -> None:
    print(f"\n{results.streams} streams; {results.large_turns} own turns with the exact set above {big:,} boards")
    for title, tallies in (("all events (exact set exact)", results.all_events), (f"large turns (> {big:,} boards)", results.large)):
        exact = tallies["exact"]
        if not exact.events:
            print(f"\n{title}: none")
            continue
        base_ce, base_time = exact.cross_entropy / exact.events, exact.seconds / exact.events
        print(f"\n{title}: {exact.events} events")
        print(f"{'belief':<10} {'CE bits':>8} {'CE/exact':>9} {'truth in':>9} {'ms/update':>10} {'time/exact':>11}")
        for name in names:
            t = tallies[name]
            ce, ms = t.cross_entropy / t.events, 1000 * t.seconds / t.events
            print(f"{name:<10} {ce:8.2f} {ce / base_ce:9.3f} {t.truth_in / t.events:9.1%} {ms:10.2f} {ms / 1000 / base_time:11.3f}")
    print("\ndeprivation (all events, the exact set's cap aside)")
    print(f"{'belief':<10} {'events':>8} {'deprived':>9} {'per 1k':>7} {'truth in after':>15}")
    for name in names[1:]:
        n, d = results.filter_events[name], results.deprived[name]
        rate = f"{results.recovered[name] / d:.1%}" if d else "-"
        print(f"{name:<10} {n:8d} {d:9d} {1000 * d / max(n, 1):7.2f} {rate:>15}")
    print(f"\nhybrid: {results.handovers} hand-overs to particles, {results.returns} returns to the exact set")


def interleaved(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with the bot pairings taken in turn (the fixture holds each pairing's games together),
    so that the first games of a run, and every interim report, cover all pairings."""
    rank: dict[tuple[str, str], int] = defaultdict(int)
    keyed = []
    for index, record in enumerate(records):
        pair = (record["white"], record["black"])
        keyed.append((rank[pair], index, record))
        rank[pair] += 1
    return [record for _, _, record in sorted(keyed, key=lambda k: k[:2])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=306, help="recorded games (from the fixture's start)")
    parser.add_argument("--random-games", type=int, default=0, help="extra random-sensing games")
    parser.add_argument("--random-turns", type=int, default=30)
    parser.add_argument("--budgets", default="100,1000,10000")
    parser.add_argument("--turn-limit", type=int, default=12, help="own turns followed per stream (bounds the cost of a game)")
    parser.add_argument("--exact-cap", type=int, default=1_000_000)
    parser.add_argument("--switch", type=int, default=100_000)
    parser.add_argument("--hybrid-particles", type=int, default=1000)
    parser.add_argument("--hybrid-rebuild", type=float, default=0.25, help="seconds per exact-rebuild attempt of the hybrid")
    parser.add_argument("--big", type=int, default=100_000)
    parser.add_argument("--interim", type=int, default=50, help="print the tables so far every this many games")
    args = parser.parse_args()
    uniform = OpponentMoveModel.uniform()
    makers: dict[str, Callable[[], Tracked]] = {"exact": lambda: BoardSet(max_boards=args.exact_cap, move_model=uniform)}
    for budget in (int(b) for b in args.budgets.split(",")):
        makers[f"pf-{budget}"] = partial(ParticleFilter, budget)
    makers["hybrid"] = lambda: HybridBelief(switch_boards=args.switch, particles=args.hybrid_particles, rebuild_seconds=args.hybrid_rebuild)
    names = list(makers)
    results = Results()
    started = time.monotonic()
    games = [observed_game(GameHistory.from_json(r["history"])) for r in interleaved(load_records())[: args.games]]
    games += [play_random_game(np.random.default_rng(10_000 + s), full_turn_limit=args.random_turns, sense_probability=1.0)
              for s in range(args.random_games)]  # fmt: skip
    for index, game in enumerate(games):
        for color in (chess.WHITE, chess.BLACK):
            follow(game, color, makers, args.big, args.turn_limit, results)
        if (index + 1) % 20 == 0:
            print(f"{index + 1}/{len(games)} games, {time.monotonic() - started:.0f} s, {results.large_turns} large turns", flush=True)
        if (index + 1) % args.interim == 0 and index + 1 < len(games):
            print(f"\n--- interim report after {index + 1} games", flush=True)
            report(results, names, args.big)
    report(results, names, args.big)
    print(f"\n{len(games)} games ({len(games) - args.random_games} recorded, {args.random_games} random-sensing), "
          f"at most {args.turn_limit} own turns per stream, exact cap {args.exact_cap:,}, in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
