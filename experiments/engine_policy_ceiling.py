"""Would knowing the opponent's engine sharpen the board set? Oracle engine policies, scored.

Issue 13's target asks the learned prior for at most half the uniform set's -log2 P(truth) on
sets of more than 100 boards; the prior gains least against trout, which plays Stockfish's move
(2000 nodes in the data mix) on its own naive board. This measures what a model of such an
opponent could gain, without training one: the exact set (`ReferenceBoardSet`, parents and
all) weights each outcome ``m`` of the opponent's turn on a parent board ``s`` by an *oracle*
that asks the opponent's own engine, with the opponent's own search limit::

    pi(m | s) = (1 - eps) [m = revise(s, stockfish(v(s)))] + eps / |M(s)|

where the board asked, ``v(s)``, is either ``s`` itself (a model of the opponent's engine) or
the opponent's *naive view* of ``s``: its own pieces where ``s`` has them, ours where they stood
``k`` of our moves ago, or where they started (a model of what a player that seldom sees our
pieces believes: trout's board is the start position plus its own moves, its captures and its
senses). ``eps = 1`` is `BoardSet`'s uniform-move model. Nothing here reads the truth: ``s``
ranges over the set, and our own pieces' past squares are ours to know.

Per decision point (after the opponent's move and after our sense) whose exact set holds more
than `--min-boards` and at most `--cap` boards, ``-log2`` of the true piece placement's
probability, averaged per weighting, beside the uniform set's (every consistent board equally
likely); the game's stream stops at `--cap`. Also: how often the opponent's requested move is
the engine's on each view of the true board (Stockfish at a node limit answers the same move to
the same position here). Games are the data command's (`blindchess posterior data`), by
``(seed, index)``::

    nice -n 10 python3 experiments/engine_policy_ceiling.py --games 12 --seed 3
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
from blindchess.arbiter.observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.beliefs.calibration import truth_channels
from blindchess.beliefs.reference import ReferenceBoardSet
from blindchess.evaluation.stockfish import Engine, king_capture
from blindchess.learning.generate import CHEAP_SETTINGS, DEFAULT_MIX, GameSpec, play_game

EPSILONS = (1.0, 0.5, 0.2)
"""The oracle's mixing weights: 1.0 is the uniform-move model."""


class EnginePolicy:
    """The oracle ``pi(m | s)`` above, an `OpponentPolicy`; the engine's requests are kept per position asked.

    With `lag` the engine is asked on the opponent's *naive view* of `s` instead of `s`: its own
    pieces where `s` has them, the observer's where they stood `lag` of the observer's moves ago
    (``None``: where they started), as a player that never sensed them would keep its board
    (`record` is told the observer's pieces after each of its moves). The request is then
    revised on `s` itself, as the arbiter would. A king capture on the board asked is the
    engine's request (trout, attacker and our bots all take the king when their board shows it).
    """

    def __init__(
        self,
        engine: Engine,
        limit: chess.engine.Limit,
        eps: float,
        answers: Optional[dict[str, Optional[chess.Move]]] = None,
        lag: Optional[int] = 0,
    ) -> None:
        if not 0.0 < eps <= 1.0:
            raise ValueError(f"eps must be in (0, 1], got {eps!r}")
        if lag is not None and lag < 0:
            raise ValueError(f"lag must be non-negative or None, got {lag!r}")
        self.engine, self.limit, self.eps, self.lag = engine, limit, eps, lag
        self.answers: dict[str, Optional[chess.Move]] = {} if answers is None else answers  # shared between policies
        self.observer_pieces: list[dict[chess.Square, chess.Piece]] = []

    def record(self, observer: chess.Color, board: chess.Board) -> None:
        """The observer's pieces on `board` (after its move, or at the start) join the history the naive view reads."""
        self.observer_pieces.append(board.piece_map(mask=board.occupied_co[observer]))

    def view(self, board: chess.Board) -> chess.Board:
        """The board the opponent's engine is asked on (`board` itself when `lag` is 0)."""
        if self.lag == 0 or not self.observer_pieces:
            return board
        past = self.observer_pieces[0 if self.lag is None else max(0, len(self.observer_pieces) - 1 - self.lag)]
        mover = board.turn
        view = chess.Board(None)
        view.set_piece_map({**past, **board.piece_map(mask=board.occupied_co[mover])})
        view.turn = mover
        view.castling_rights = board.castling_rights
        view.castling_rights = view.clean_castling_rights()
        return view

    def engine_move(self, board: chess.Board) -> Optional[chess.Move]:
        """The outcome on `board` of the engine's request on `view(board)` (None when it passes or has no move)."""
        asked = self.view(board)
        key = asked.fen()
        if key not in self.answers:
            self.answers[key] = king_capture(asked) or self.engine.play(asked, self.limit)
        request = self.answers[key]
        if request is None or request not in rules.move_actions(board):  # a view's request is one of them; kept safe
            return None
        return rules.revise_move(board, rules.with_default_promotion(board, request))

    def __call__(self, board: chess.Board, outcomes: list[Optional[chess.Move]]) -> np.ndarray:
        best = self.engine_move(board)
        return np.array([self.eps / len(outcomes) + (1.0 - self.eps) * (move == best) for move in outcomes])


@dataclass(frozen=True)
class Point:
    """One decision point: the exact set's size and -log2 P(true placement), uniform set first, then one per policy."""

    boards: int
    bits: tuple[float, ...]


def score_stream(
    color: chess.Color,
    events: Sequence[Observation],
    truths: Sequence[chess.Board],
    policies: Sequence[EnginePolicy],
    min_boards: int,
    cap: int,
) -> Iterator[Point]:
    """`color`'s decision points with ``min_boards < |set| <= cap``; stops when the set outgrows `cap`.

    Give each stream fresh policies: they record the observer's pieces as the stream goes.
    """
    sets = [ReferenceBoardSet(policy=policy) for policy in policies]
    for event, truth in zip(events, truths, strict=False):
        if isinstance(event, GameEnded):
            return
        for belief in sets:
            belief.update(event)
        if isinstance(event, (GameStarted, MoveResult)):  # every board agrees on the observer's pieces
            for policy in policies:
                policy.record(color, sets[0].boards()[0])
        size = len(sets[0])
        if size > cap:
            return
        if not isinstance(event, (OpponentMoved, SenseResult)) or size <= min_boards:
            continue
        # the sets take the same events, so they hold the same boards in the same order: only the weights differ
        truth_placement = (sets[0].piece_grid() == truth_channels(truth)).all(axis=1)
        bits = [-math.log2(truth_placement.mean())] + [-math.log2(belief.weights()[truth_placement].sum()) for belief in sets]
        yield Point(size, tuple(bits))


def hits(color: chess.Color, events: Sequence[Observation], truths: Sequence[chess.Board], policy: EnginePolicy) -> tuple[int, int]:
    """How many of `color`'s requested moves were the engine's (on `policy`'s view of the true board), of how many.

    Reads `color`'s own stream; the observer's pieces are recorded at the start and after each of its moves.
    """
    hit = total = 0
    for index, (truth, event) in enumerate(zip(truths, events, strict=False)):
        if isinstance(event, GameStarted) or (isinstance(event, OpponentMoved) and not (color == chess.WHITE and index == 1)):
            policy.record(not color, truth)  # White's first OpponentMoved follows no move of the observer
        if isinstance(event, MoveResult) and event.requested_move is not None:
            before = truths[index - 1].copy(stack=False)  # the truth at the sense before the move
            before.turn = color
            total += 1
            hit += policy.engine_move(before) == rules.revise_move(before, rules.with_default_promotion(before, event.requested_move))
    return hit, total


def _lag(text: str) -> Optional[int]:
    return None if text == "start" else int(text)


def _view_name(lag: Optional[int]) -> str:
    if lag == 0:
        return "the true board"
    return "the naive view, observer's pieces " + ("at the start" if lag is None else f"{lag} moves old")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12, help="games with the opponent in them (default 12)")
    parser.add_argument("--seed", type=int, default=3, help="the data command's seed (default 3: neither training nor benchmark)")
    parser.add_argument("--mix", default=",".join(DEFAULT_MIX))
    parser.add_argument("--opponent", default="trout", help="the bot whose moves the oracle predicts (default trout)")
    parser.add_argument("--nodes", type=int, help="the oracle's node limit (default: the opponent's own in the data mix)")
    parser.add_argument("--lags", default="0,2,start", help="views: 0 the true board, k or 'start' the naive view (default 0,2,start)")
    parser.add_argument("--min-boards", type=int, default=100)
    parser.add_argument("--cap", type=int, default=3000, help="stop a stream when its exact set holds more boards (default 3000)")
    args = parser.parse_args(argv)
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    nodes = args.nodes or CHEAP_SETTINGS.get(args.opponent, {}).get("limit", {}).get("nodes", 2000)
    limit = chess.engine.Limit(nodes=nodes)
    lags = [_lag(text) for text in args.lags.split(",")]
    columns = [(0, 1.0)] + [(lag, eps) for lag in lags for eps in EPSILONS if eps < 1.0]
    points: list[Point] = []
    hit = dict.fromkeys(lags, 0)
    requests = 0
    with Engine() as engine:
        answers: dict[str, Optional[chess.Move]] = {}
        played, index = 0, -1
        while played < args.games:
            index += 1
            game, names = play_game(GameSpec(index, args.seed, tuple(args.mix.split(","))))
            if args.opponent not in names:
                continue
            played += 1
            for color, opponent in ((chess.WHITE, names[1]), (chess.BLACK, names[0])):
                if opponent != args.opponent:
                    continue
                policies = [EnginePolicy(engine, limit, eps, answers, lag) for lag, eps in columns]
                points.extend(score_stream(color, game.events[color], game.truth[color], policies, args.min_boards, args.cap))
                for lag in lags:
                    h, n = hits(not color, game.events[not color], game.truth[not color], EnginePolicy(engine, limit, 0.5, answers, lag))
                    hit[lag] += h
                requests += n
            print(f"  game {index}: {names[0]} vs {names[1]}, {len(points)} points", file=sys.stderr, flush=True)
    if not points:
        print("no decision point in range", file=sys.stderr)
        return 1
    means = np.array([point.bits for point in points]).mean(axis=0)
    median = int(np.median([point.boards for point in points]))
    print(f"{len(points)} decision points facing {args.opponent}, {args.min_boards} < |set| <= {args.cap} (median {median} boards)")
    for lag in lags:
        share = f"{hit[lag]} of {requests} ({hit[lag] / max(requests, 1):.0%})"
        print(f"{args.opponent}'s requests that were Stockfish's move ({nodes} nodes) on {_view_name(lag)}: {share}")
    print("| weighting | -log2 P(truth) | / uniform set |")
    print("|---|---|---|")
    print(f"| uniform set | {means[0]:.2f} | 1.00 |")
    for (lag, eps), mean in zip(columns, means[1:], strict=True):
        name = "uniform moves (eps 1)" if eps == 1.0 else f"engine on {_view_name(lag)}, eps {eps}"
        print(f"| {name} | {mean:.2f} | {mean / means[0]:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
