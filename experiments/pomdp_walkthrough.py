"""A belief update as a POMDP, step by step, on the 4x4 teaching board.

Question: what does White believe about the hidden board after each event, and why?

Two random players play recon chess on the 4x4 teaching board (see
`blindchess.variants.teaching`). White's exact belief
(`EnumeratedBelief`) folds in White's observation events one at a time. For every
event this script prints the three quantities of the Bayes filter

    prior       b^-(s')  (after the opponent's unseen move: sum over boards and actions, uniform opponent)
    likelihood  P(o | s') (0 or 1: does the board explain what White observed?)
    posterior   b(s') = P(o | s') b^-(s') / sum_x P(o | x) b^-(x)

one row per board (the placement, rank 4 first), with the true board marked. For
White's own move the table shows the boards before the move; the belief then
applies the (now known) move to every board left.

    python3 experiments/pomdp_walkthrough.py [--seed 3] [--turns 3] [--rows 8]
"""

from __future__ import annotations

import argparse
import math

import chess
import numpy as np

from blindchess.arbiter.game.observations import GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.beliefs.enumerated_belief import BayesStep, EnumeratedBelief
from blindchess.variants.geometry import code_piece
from blindchess.variants.teaching import TEACHING_4X4


def placement(key: bytes) -> str:
    """A belief key (64 piece codes) as the 4x4 placement, rank 4 first."""
    rows = []
    for rank in range(3, -1, -1):
        rows.append("".join((p.symbol() if (p := code_piece(key[chess.square(f, rank)])) else ".") for f in range(4)))
    return "/".join(rows)


def describe(event: Observation) -> str:
    if isinstance(event, OpponentMoved):
        where = chess.square_name(event.capture_square) if event.capture_square is not None else "nowhere"
        return f"OpponentMoved: Black captured {where}"
    if isinstance(event, SenseResult):
        seen = " ".join(f"{chess.square_name(s)}={p.symbol() if p else '.'}" for s, p in event.window)
        return f"SenseResult at {chess.square_name(event.square) if event.square is not None else '-'}: {seen}"
    if isinstance(event, MoveResult):
        asked = event.requested_move.uci() if event.requested_move else "pass"
        made = event.taken_move.uci() if event.taken_move else "nothing"
        captured = "none" if event.capture_square is None else chess.square_name(event.capture_square)
        return f"MoveResult: asked {asked}, made {made}, capture {captured}"
    return type(event).__name__


def show(step: BayesStep, truth: bytes, rows: int) -> None:
    print(f"\n== {describe(step.event)}")
    order = sorted(step.prior, key=lambda k: -step.prior[k])
    print(f"   {'board':20s} {'prior':>8s} {'P(o|s)':>7s} {'posterior':>9s}")
    shown = order[:rows] + ([truth] if truth in order[rows:] else [])
    for key in shown:
        mark = "  <- true board" if key == truth else ""
        print(f"   {placement(key):20s} {step.prior[key]:8.4f} {step.likelihood[key]:7.0f} {step.posterior.get(key, 0.0):9.4f}{mark}")
    if len(order) > len(shown):
        rest = [k for k in order if k not in shown]
        kept = sum(1 for k in rest if step.likelihood[k] > 0)
        print(f"   ... {len(rest)} more boards (prior mass {sum(step.prior[k] for k in rest):.4f}, {kept} consistent)")
    entropy = max(0.0, -sum(p * math.log2(p) for p in step.posterior.values() if p > 0))
    print(f"   support {len(step.prior)} -> {len(step.posterior)} boards, posterior entropy {entropy:.2f} bits")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--turns", type=int, default=3, help="White turns to show")
    parser.add_argument("--rows", type=int, default=8, help="boards shown per table")
    args = parser.parse_args()
    rules, rng = TEACHING_4X4, np.random.default_rng(args.seed)
    board = rules.starting_board()
    belief = EnumeratedBelief(rules)
    belief.update(GameStarted(chess.WHITE, rules.fen(board)))
    print(f"teaching board {rules.game.name}, start {placement(rules.cells_of(board))}, seed {args.seed}")
    capture = None
    for _ in range(2 * args.turns):
        mover = rules.turn(board)
        if mover == chess.WHITE:
            belief.update(OpponentMoved(capture))
            assert belief.last_step is not None
            show(belief.last_step, rules.cells_of(board), args.rows)
            square = int(rng.choice(rules.sense_actions(board)))
            belief.update(SenseResult(square, rules.sense(board, square)))
            assert belief.last_step is not None
            show(belief.last_step, rules.cells_of(board), args.rows)
        actions = rules.move_actions(board)
        request = actions[int(rng.integers(len(actions)))]
        taken = rules.revise(board, rules.normalize(board, request))
        capture = rules.capture_square(board, taken)
        if mover == chess.WHITE:
            before = rules.cells_of(board)
        rules.push(board, taken)
        if mover == chess.WHITE:
            belief.update(MoveResult(request, taken, capture))
            assert belief.last_step is not None
            show(belief.last_step, before, args.rows)
        if rules.king_captured(board) is not None:
            print(f"\n{'White' if mover else 'Black'} captured the king.")
            break


if __name__ == "__main__":
    main()
