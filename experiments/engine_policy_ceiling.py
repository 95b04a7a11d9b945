"""Would knowing the opponent's engine sharpen the board set? An oracle engine policy, scored.

Issue 13's target asks the learned prior for at most half the uniform set's -log2 P(truth) on
sets of more than 100 boards; the prior gains least against trout, which plays Stockfish's move
(2000 nodes in the data mix) on its own naive board. The natural guess is that a model of that
policy would close the gap. This measures the ceiling of such a model without training one:
the exact set (`ReferenceBoardSet`, parents and all) weights each outcome ``m`` of the
opponent's turn on a parent board ``s`` by an *oracle* that asks the opponent's own engine, with
the opponent's own search limit, on ``s`` itself::

    pi(m | s) = (1 - eps) [m = revise(s, stockfish(s))] + eps / |M(s)|

(``eps = 1`` is `BoardSet`'s uniform-move model). Per decision point (after the opponent's move
and after our sense) whose exact set holds more than `--min-boards` and at most `--cap` boards,
``-log2`` of the true piece placement's probability, averaged per weighting, beside the
uniform set's (every consistent board equally likely); the game's stream stops at `--cap`.
Also: how often the opponent's requested move *is* Stockfish's move on the true board (its
hit rate; Stockfish at a node limit answers the same move to the same position here). Games
are the data command's (`blindchess posterior data`), by ``(seed, index)``::

    nice -n 5 python3 experiments/engine_policy_ceiling.py --games 12 --seed 3
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Optional

import chess
import chess.engine
import numpy as np

from blindchess.arbiter import rules
from blindchess.arbiter.observations import GameEnded, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.beliefs.reference import ReferenceBoardSet
from blindchess.evaluation.stockfish import Engine, king_capture
from blindchess.learning.generate import CHEAP_SETTINGS, DEFAULT_MIX, GameSpec, play_game

EPSILONS = (1.0, 0.5, 0.2, 0.05)
"""The oracle's mixing weights: 1.0 is the uniform-move model."""


class EnginePolicy:
    """The oracle ``pi(m | s)`` above, an `OpponentPolicy`; the engine's answers are kept per position.

    A king capture on `s` is the engine's move (trout, attacker and our bots all take the king when their board shows it).
    """

    def __init__(
        self, engine: Engine, limit: chess.engine.Limit, eps: float, answers: Optional[dict[str, Optional[chess.Move]]] = None
    ) -> None:
        if not 0.0 < eps <= 1.0:
            raise ValueError(f"eps must be in (0, 1], got {eps!r}")
        self.engine, self.limit, self.eps = engine, limit, eps
        self.answers: dict[str, Optional[chess.Move]] = {} if answers is None else answers  # shared between policies

    def engine_move(self, board: chess.Board) -> Optional[chess.Move]:
        """The outcome of the engine's request on `board` (None when it passes or has no move)."""
        key = board.fen()
        if key not in self.answers:
            request = king_capture(board) or self.engine.play(board, self.limit)
            self.answers[key] = None if request is None else rules.revise_move(board, rules.with_default_promotion(board, request))
        return self.answers[key]

    def __call__(self, board: chess.Board, outcomes: list[Optional[chess.Move]]) -> np.ndarray:
        best = self.engine_move(board)
        return np.array([self.eps / len(outcomes) + (1.0 - self.eps) * (move == best) for move in outcomes])


@dataclass(frozen=True)
class Point:
    """One decision point: the exact set's size and -log2 P(true placement), uniform set first, then one per policy."""

    boards: int
    bits: tuple[float, ...]


def placement(board: chess.Board) -> tuple[int, ...]:
    """Where each piece type of each colour stands (what the fidelity benchmark scores)."""
    types = (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
    return tuple(mask & board.occupied_co[color] for color in chess.COLORS for mask in types)


def score_stream(
    events: Sequence[Observation], truths: Sequence[chess.Board], policies: Sequence[EnginePolicy], min_boards: int, cap: int
) -> Iterator[Point]:
    """The stream's decision points with ``min_boards < |set| <= cap``; stops when the set outgrows `cap`."""
    sets = [ReferenceBoardSet(policy=policy) for policy in policies]
    for event, truth in zip(events, truths, strict=False):
        if isinstance(event, GameEnded):
            return
        for belief in sets:
            belief.update(event)
        size = len(sets[0])
        if size > cap:
            return
        if not isinstance(event, (OpponentMoved, SenseResult)) or size <= min_boards:
            continue
        target = placement(truth)
        boards = [placement(board) for board in sets[0].boards()]
        uniform = boards.count(target) / size
        bits = [-math.log2(uniform)]
        for belief in sets:
            probability = sum(weight for board, weight in zip(belief.boards(), belief.weights(), strict=True) if placement(board) == target)
            bits.append(-math.log2(probability))
        yield Point(size, tuple(bits))


def hits(color: chess.Color, events: Sequence[Observation], truths: Sequence[chess.Board], policy: EnginePolicy) -> tuple[int, int]:
    """How many of `color`'s requested moves were the engine's on the true board, of how many requests (its own stream)."""
    hit = total = 0
    for truth, event in zip(truths, events[1:], strict=False):  # the truth at the sense before each move
        if isinstance(event, MoveResult) and event.requested_move is not None:
            before = truth.copy(stack=False)
            before.turn = color
            total += 1
            hit += policy.engine_move(before) == rules.revise_move(before, rules.with_default_promotion(before, event.requested_move))
    return hit, total


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12, help="games with the opponent in them (default 12)")
    parser.add_argument("--seed", type=int, default=3, help="the data command's seed (default 3: neither training nor benchmark)")
    parser.add_argument("--mix", default=",".join(DEFAULT_MIX))
    parser.add_argument("--opponent", default="trout", help="the bot whose moves the oracle predicts (default trout)")
    parser.add_argument("--nodes", type=int, help="the oracle's node limit (default: the opponent's own in the data mix)")
    parser.add_argument("--min-boards", type=int, default=100)
    parser.add_argument("--cap", type=int, default=3000, help="stop a stream when its exact set holds more boards (default 3000)")
    args = parser.parse_args(argv)
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    nodes = args.nodes or CHEAP_SETTINGS.get(args.opponent, {}).get("limit", {}).get("nodes", 2000)
    points: list[Point] = []
    hit = requests = 0
    with Engine() as engine:
        answers: dict[str, Optional[chess.Move]] = {}
        policies = [EnginePolicy(engine, chess.engine.Limit(nodes=nodes), eps, answers) for eps in EPSILONS]
        played, index = 0, -1
        while played < args.games:
            index += 1
            game, names = play_game(GameSpec(index, args.seed, tuple(args.mix.split(","))))
            if args.opponent not in names:
                continue
            played += 1
            for color, opponent in ((chess.WHITE, names[1]), (chess.BLACK, names[0])):
                if opponent == args.opponent:
                    points.extend(score_stream(game.events[color], game.truth[color], policies, args.min_boards, args.cap))
                    h, n = hits(not color, game.events[not color], game.truth[not color], policies[0])
                    hit, requests = hit + h, requests + n
            print(f"  game {index}: {names[0]} vs {names[1]}, {len(points)} points", file=sys.stderr, flush=True)
    if not points:
        print("no decision point in range", file=sys.stderr)
        return 1
    bits = np.array([point.bits for point in points])
    means = bits.mean(axis=0)
    median = int(np.median([point.boards for point in points]))
    print(f"{len(points)} decision points facing {args.opponent}, {args.min_boards} < |set| <= {args.cap} (median {median} boards)")
    share = f"{hit} of {requests} ({hit / max(requests, 1):.0%})"
    print(f"{args.opponent}'s requests that were Stockfish's move ({nodes} nodes) on the true board: {share}")
    print("| weighting | -log2 P(truth) | / uniform set |")
    print("|---|---|---|")
    print(f"| uniform set | {means[0]:.2f} | 1.00 |")
    for eps, mean in zip(EPSILONS, means[1:], strict=True):
        name = "uniform moves (eps 1)" if eps == 1.0 else f"oracle engine policy, eps {eps}"
        print(f"| {name} | {mean:.2f} | {mean / means[0]:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
