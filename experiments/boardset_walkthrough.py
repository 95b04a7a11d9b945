"""Worked example: how big is the exhaustive belief, turn by turn, and how much does one sense buy?

Follows one seeded game between the random bot and the attacker bot (recorded on
the real arbiter) from Black's side and prints, per turn, the number of boards
before and after the sense, the entropy of the belief in bits and whether the set
is still exact (no board dropped by the cap)::

    python3 experiments/boardset_walkthrough.py [--seed 3] [--color black]
"""

from __future__ import annotations

import argparse

import chess

from blindchess.arbiter.game.local_game import LocalGame
from blindchess.arbiter.game.observations import GameEnded, MoveResult, OpponentMoved, SenseResult
from blindchess.arbiter.game.results import describe_result
from blindchess.arbiter.play import play_local_game
from blindchess.beliefs import BoardSet
from blindchess.bots.attacker_bot import AttackerBot
from blindchess.bots.random_bot import RandomBot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--color", choices=("white", "black"), default="black")
    parser.add_argument("--max-boards", type=int, default=2_000_000)
    args = parser.parse_args()
    color = args.color == "white"
    game = LocalGame(seconds_per_player=None, full_turn_limit=25)
    _, _, history = play_local_game(AttackerBot(rng=args.seed), RandomBot(rng=args.seed + 1), game)
    belief = BoardSet(max_boards=args.max_boards, move_model=None)
    print(f"attacker (White) vs random (Black), seed {args.seed}; following {args.color}")
    print(f"{'turn':>4}  {'captured':>8}  {'before sense':>12}  {'sense':>5}  {'after sense':>11}  {'entropy':>8}  {'move':>6}  exact")
    turn, row = 0, {}
    for event in history.observations(color):
        belief.update(event)
        if isinstance(event, OpponentMoved):
            row = {"captured": chess.square_name(event.capture_square) if event.capture_square is not None else "-",
                   "before": len(belief)}  # fmt: skip
        elif isinstance(event, SenseResult):
            row["sense"] = chess.square_name(event.square) if event.square is not None else "-"
            row["after"] = len(belief)
        elif isinstance(event, MoveResult):
            turn += 1
            move = event.taken_move.uci() if event.taken_move is not None else "-"
            print(
                f"{turn:>4}  {row['captured']:>8}  {row['before']:>12,}  {row.get('sense', '-'):>5}  "
                f"{row.get('after', row['before']):>11,}  {belief.entropy():>8.2f}  {move:>6}  {'yes' if belief.is_exact else 'no'}"
            )
        elif isinstance(event, GameEnded):
            result = describe_result(event.winner_color, event.win_reason, "attacker", "random")
            print(f"game over: {result}; {len(belief):,} boards left")


if __name__ == "__main__":
    main()
