"""How far can a model of the opponent sharpen the board set? Opponent policies no network has to learn, scored.

Issue 13's target asks the learned prior for at most half the uniform set's -log2 P(truth) on
sets of more than 100 boards. This measures what models of the opponents could gain, without
training one: the exact set (`ReferenceBoardSet`, parents and all) weights each outcome ``m``
of the opponent's turn on a parent board ``s`` by a policy. Against an engine bot (trout by
default) the policy asks the opponent's own engine, with its own search limit::

    pi(m | s) = (1 - eps) [m = revise(s, stockfish(v(s)))] + eps / |M(s)|

where the board asked, ``v(s)``, is either ``s`` itself (a model of the opponent's engine) or
the opponent's *naive view* of ``s``: its own pieces where ``s`` has them, ours where they stood
``k`` of our moves ago, or where they started (trout's board is the start position plus its own
moves, its captures and its senses). With ``--samples K`` also the average over ``K`` simulated
trout boards (`SampledViewPolicy`). ``eps = 1`` is `BoardSet`'s uniform-move model. Against
the random bot (``--opponent random``) also its own policy, which makes the set the exact
posterior (`RandomMoverPolicy`). Nothing here reads the truth: ``s`` ranges over the set, and
our own pieces' past squares are ours to know.

Per decision point (after the opponent's move and after our sense) whose exact set holds more
than `--min-boards` and at most `--cap` boards, ``-log2`` of the true piece placement's
probability, averaged per weighting, beside the uniform set's (every consistent board equally
likely); the game's stream stops at `--cap`. Also: how often the opponent's requested move is
the engine's on each view of the true board, and for trout how often its own program, replayed
on its own board, gives it again (`own_board_hits`). Games are the data command's
(`blindchess posterior data`), by ``(seed, index)``::

    nice -n 5 python3 experiments/engine_policy_ceiling.py --games 30 --seed 3 --samples 16
    nice -n 5 python3 experiments/engine_policy_ceiling.py --games 40 --seed 3 --opponent random --cap 20000
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Optional, Union

import chess
import chess.engine
import numpy as np

from blindchess.arbiter import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.arbiter.rules import reference as rules
from blindchess.beliefs.calibration import truth_channels
from blindchess.beliefs.reference import ReferenceBoardSet
from blindchess.bots.trout_bot import TroutBot
from blindchess.evaluation.stockfish import Engine, king_capture
from blindchess.learning.generate import CHEAP_SETTINGS, DEFAULT_MIX, GameSpec, play_game

EPSILONS = (1.0, 0.5, 0.2)
"""The oracle's mixing weights: 1.0 is the uniform-move model."""


def naive_view(board: chess.Board, observer_pieces: dict[chess.Square, chess.Piece]) -> chess.Board:
    """`board` as its side to move would see it: its own pieces as they are, the observer's at `observer_pieces`."""
    mover = board.turn
    view = chess.Board(None)
    view.set_piece_map({**observer_pieces, **board.piece_map(mask=board.occupied_co[mover])})
    view.turn = mover
    view.castling_rights = board.castling_rights
    view.castling_rights = view.clean_castling_rights()
    return view


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

    def record(self, observer: chess.Color, board: chess.Board, capture: Optional[chess.Square] = None) -> None:
        """The observer's pieces on `board` (after its move, where it captured, or at the start) join the history the views read."""
        self.observer_pieces.append(board.piece_map(mask=board.occupied_co[observer]))

    def view(self, board: chess.Board) -> chess.Board:
        """The board the opponent's engine is asked on (`board` itself when `lag` is 0)."""
        if self.lag == 0 or not self.observer_pieces:
            return board
        return naive_view(board, self.observer_pieces[0 if self.lag is None else max(0, len(self.observer_pieces) - 1 - self.lag)])

    def engine_move(self, board: chess.Board) -> Optional[chess.Move]:
        """The outcome on `board` of the engine's request on `view(board)` (None when it passes or has no move)."""
        return self.ask(board, self.view(board))

    def ask(self, board: chess.Board, asked: chess.Board) -> Optional[chess.Move]:
        """The outcome on `board` of the engine's request on `asked`."""
        key = asked.fen()
        if key not in self.answers:
            self.answers[key] = king_capture(asked) or self.engine.play(asked, self.limit)
        request = self.answers[key]
        if request is None or request not in rules.move_actions(board):  # a view's request is one of them; kept safe
            return None
        return rules.revise_move(board, rules.with_default_promotion(board, request))

    def __call__(self, board: chess.Board, outcomes: list[Optional[chess.Move]]) -> np.ndarray:
        if self.eps == 1.0:  # the uniform model: no need to ask
            return np.ones(len(outcomes))
        best = self.engine_move(board)
        return np.array([self.eps / len(outcomes) + (1.0 - self.eps) * (move == best) for move in outcomes])


class SampledViewPolicy(EnginePolicy):
    """The oracle asked on `samples` simulated boards of a trout-like opponent, averaged.

    Trout's board is ours where its senses last showed them (or where they started): it senses
    where it was just captured, else mostly at random. Each sample keeps such a board of the
    observer's pieces: at each of the opponent's turns it senses where the observer just
    captured, else at a random square away from the opponent's pieces (as they stand on the
    board of the set `record` is given, a proxy for the opponent's own), and the window shows
    the observer's pieces as they then stood (known to the observer). On a parent ``s`` sample ``k``'s view is the
    opponent's pieces of ``s`` over sample ``k``'s board of ours, and::

        pi(m | s) = (1 - eps) (1/K) sum_k [m = revise(s, stockfish(view_k(s)))] + eps / |M(s)|

    This is what a bot that knows trout's program, but not where its random senses fell, can
    compute; the senses of different turns are drawn independently, per turn (not per path).
    Trout's sense at the square its next move would capture depends on the board and is drawn
    at random here.
    """

    def __init__(
        self,
        engine: Engine,
        limit: chess.engine.Limit,
        eps: float,
        answers: dict[str, Optional[chess.Move]],
        samples: int,
        rng: np.random.Generator,
    ) -> None:
        super().__init__(engine, limit, eps, answers, lag=0)
        self.samples, self.rng = samples, rng
        self.boards: list[dict[chess.Square, chess.Piece]] = []

    def record(self, observer: chess.Color, board: chess.Board, capture: Optional[chess.Square] = None) -> None:
        super().record(observer, board, capture)
        pieces = self.observer_pieces[-1]
        if not self.boards:
            self.boards = [dict(pieces) for _ in range(self.samples)]
            if observer == chess.WHITE:
                return  # White moves before the opponent's first sense
        away = list(chess.SquareSet(~board.occupied_co[not observer] & chess.BB_ALL))  # trout senses away from its pieces
        for seen in self.boards:
            centre = capture if capture is not None else away[int(self.rng.integers(len(away)))]
            for square, _ in rules.sense_window(board, centre):
                seen.pop(square, None)
                if square in pieces:
                    seen[square] = pieces[square]

    def __call__(self, board: chess.Board, outcomes: list[Optional[chess.Move]]) -> np.ndarray:
        share = np.zeros(len(outcomes))
        for seen in self.boards:
            best = self.ask(board, naive_view(board, seen))
            share += [(move == best) / len(self.boards) for move in outcomes]
        return self.eps / len(outcomes) + (1.0 - self.eps) * share


class RandomMoverPolicy:
    """The random bot's own policy, an `OpponentPolicy`: the exact posterior against it, the floor of every weighting.

    `RandomBot` requests each of ``move_actions(s)`` or a pass with probability
    ``1 / (|move_actions(s)| + 1)``, whatever it has seen, so an outcome ``m`` of its turn on
    ``s`` has probability ``#{a : revise(s, a) = m} / (|move_actions(s)| + 1)`` (a blocked
    slide and the capture it is cut short to are one outcome; a request illegal on ``s`` is a
    pass). Nothing else the observer sees depends on the hidden board except through the
    outcomes, so the set weighted by this policy is the Bayes posterior against the random bot:
    no weighting has a lower mean ``-log2 P(truth)`` in expectation. (`BoardSet`'s uniform
    model gives every outcome one share instead.)
    """

    def record(self, observer: chess.Color, board: chess.Board, capture: Optional[chess.Square] = None) -> None:
        """Nothing to follow: the random bot's moves do not depend on what it saw."""

    def __call__(self, board: chess.Board, outcomes: list[Optional[chess.Move]]) -> np.ndarray:
        requests: list[Optional[chess.Move]] = [*rules.move_actions(board), None]
        taken = Counter(rules.request_outcome(board, move).taken for move in requests)
        scores = np.array([taken.pop(move, 0) for move in outcomes], dtype=np.float64)
        if taken:
            raise ValueError(f"requests on {board.fen()} lead to outcomes the set does not list: {sorted(map(str, taken))}")
        return scores / len(requests)


@dataclass(frozen=True)
class Point:
    """One decision point: the exact set's size and -log2 P(true placement), uniform set first, then one per policy."""

    boards: int
    bits: tuple[float, ...]


def score_stream(
    color: chess.Color,
    events: Sequence[Observation],
    truths: Sequence[chess.Board],
    policies: Sequence[Union[EnginePolicy, RandomMoverPolicy]],
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
            capture = event.capture_square if isinstance(event, MoveResult) else None
            for policy in policies:
                policy.record(color, sets[0].boards()[0], capture)
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


def own_board_hits(
    color: chess.Color,
    events: Sequence[Observation],
    truths: Sequence[chess.Board],
    limit: chess.engine.Limit,
    presearch: bool = True,
) -> tuple[int, int]:
    """How many of trout's requested moves (`color`'s) its own program gives again, replayed on its own board.

    The board is rebuilt by `TroutBot`'s own handlers from what trout observed (its senses
    included, which no opponent sees), and the searches are repeated in trout's order with a
    fresh engine as trout's own was: before each sense `TroutBot.choose_sense` (which searches
    unless it senses where it was captured; left out if not `presearch`), then the move's. A
    node-limited search depends on the engine's hash table, so without the first search the
    second can differ.
    """
    hit = total = 0
    with Engine() as engine:
        bot = TroutBot(engine=engine, limit=limit)
        bot.handle_game_start(color, chess.Board(), "")
        for index, event in enumerate(events):
            if isinstance(event, OpponentMoved):
                bot.handle_opponent_move_result(event.captured_my_piece, event.capture_square)
                continue
            before = truths[index - 1].copy(stack=False)  # the truth before this sense or move, trout to move
            before.turn = color
            if isinstance(event, SenseResult):
                if presearch:  # trout's own sense choice, for its search; where it sensed is the event's
                    bot.choose_sense(rules.sense_actions(), rules.move_actions(before), math.inf)
                bot.handle_sense_result(list(event.window))
            elif isinstance(event, MoveResult):
                if event.requested_move is not None:
                    total += 1
                    hit += bot.choose_move(rules.move_actions(before), math.inf) == event.requested_move
                bot.handle_move_result(event.requested_move, event.taken_move, event.captured_opponent_piece, event.capture_square)
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
    parser.add_argument("--samples", type=int, default=0, help="also the sampled-board oracle with this many boards (default 0: off)")
    parser.add_argument("--min-boards", type=int, default=100)
    parser.add_argument("--cap", type=int, default=3000, help="stop a stream when its exact set holds more boards (default 3000)")
    args = parser.parse_args(argv)
    logging.getLogger("chess.engine").setLevel(logging.CRITICAL)
    nodes = args.nodes or CHEAP_SETTINGS.get(args.opponent, {}).get("limit", {}).get("nodes", 2000)
    limit = chess.engine.Limit(nodes=nodes)
    lags = [] if args.opponent == "random" else [_lag(text) for text in args.lags.split(",")]
    columns = [(0, 1.0)] + [(lag, eps) for lag in lags for eps in EPSILONS if eps < 1.0]
    names = ["uniform moves (eps 1, `BoardSet`'s default model)"]
    names += [f"engine on {_view_name(lag)}, eps {eps}" for lag, eps in columns[1:]]
    sampled_eps = [eps for eps in EPSILONS if eps < 1.0] if args.samples and args.opponent != "random" else []
    names += [f"engine on {args.samples} sampled boards of a trout-like opponent, eps {eps}" for eps in sampled_eps]
    if args.opponent == "random":
        names.append("the random bot's own policy (the exact posterior)")
    points: list[Point] = []
    hit = dict.fromkeys(lags, 0)
    own = {True: (0, 0), False: (0, 0)}
    requests = 0
    with Engine() as engine:
        answers: dict[str, Optional[chess.Move]] = {}
        played, index = 0, -1
        while played < args.games:
            index += 1
            game, players = play_game(GameSpec(index, args.seed, tuple(args.mix.split(","))))
            if args.opponent not in players:
                continue
            played += 1
            for color, opponent in ((chess.WHITE, players[1]), (chess.BLACK, players[0])):
                if opponent != args.opponent:
                    continue
                policies: list[Union[EnginePolicy, RandomMoverPolicy]] = [
                    EnginePolicy(engine, limit, eps, answers, lag) for lag, eps in columns
                ]
                policies += [  # the same sampled boards for every eps
                    SampledViewPolicy(engine, limit, eps, answers, args.samples, np.random.default_rng((args.seed, index, int(color))))
                    for eps in sampled_eps
                ]
                if args.opponent == "random":
                    policies.append(RandomMoverPolicy())
                points.extend(score_stream(color, game.events[color], game.truth[color], policies, args.min_boards, args.cap))
                theirs = (not color, game.events[not color], game.truth[not color])
                counts = [hits(*theirs, EnginePolicy(engine, limit, 0.5, answers, lag)) for lag in lags]
                for lag, (h, _) in zip(lags, counts, strict=True):
                    hit[lag] += h
                requests += counts[0][1] if counts else 0
                if args.opponent == "trout":
                    for presearch in (True, False):
                        own_hit, own_total = own_board_hits(*theirs, limit, presearch)
                        own[presearch] = (own[presearch][0] + own_hit, own[presearch][1] + own_total)
            print(f"  game {index}: {players[0]} vs {players[1]}, {len(points)} points", file=sys.stderr, flush=True)
    for lag in lags:
        share = f"{hit[lag]} of {requests} ({hit[lag] / max(requests, 1):.0%})"
        print(f"{args.opponent}'s requests that were Stockfish's move ({nodes} nodes) on {_view_name(lag)}: {share}")
    for presearch, (own_hit, own_total) in own.items():
        if own_total:
            how = "its searches in its order" if presearch else "without the search before each sense"
            share = f"{own_hit} of {own_total} ({own_hit / own_total:.0%})"
            print(f"trout's requests its own program gives again on its own board, replayed from its stream ({how}): {share}")
    if not points:
        print("no decision point in range", file=sys.stderr)
        return 1
    means = np.array([point.bits for point in points]).mean(axis=0)
    median = int(np.median([point.boards for point in points]))
    print(f"{len(points)} decision points facing {args.opponent}, {args.min_boards} < |set| <= {args.cap} (median {median} boards)")
    print("| weighting | -log2 P(truth) | / uniform set |")
    print("|---|---|---|")
    print(f"| uniform set | {means[0]:.2f} | 1.00 |")
    for name, mean in zip(names, means[1:], strict=True):
        print(f"| {name} | {mean:.2f} | {mean / means[0]:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
