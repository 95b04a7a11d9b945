"""Does the king hunt convert won games faster? The flagship with and without it, from won positions.

Two sets of positions (``--set``), truth boards from the flagship's own games (docs/clock.md's
flagship-against-flagship games and its 30 games against reconchess's TroutBot):

* ``drift`` (the default): every stretch of at least 24 half-turns without a capture or a pawn
  move while one side was 5 or more pawns ahead, at its first half-turn: a rook, bishop and
  pawns against two pawns walked the rook along the seventh rank for 44 half-turns; the
  flagship, 14 pawns up against TroutBot, went 80 half-turns without progress;
* ``onset``: the first half-turn from which one side stayed at least 5 pawns ahead for five
  half-turns, in each of ten flagship-against-flagship games (the game then took 12 to 142
  more half-turns, 58 on average, and the side ahead lost one).

Each is played from the side ahead by the flagship (the hunt on, the default) and by the same
flagship with the hunt off (``preset = "no-hunt"``: no engine vote in the selector, no look for the king
in the planner), with the same seeds, against the opponent of the game it comes from: the
flagship as it was before its clock work (`flagship_before_clock`, no hunt) or our TroutBot. A
position with Black to move is mirrored, so that White moves first as the arbiter requires.
The game starts from the position, so both sides know the board at first.

Measured per variant: games won (king capture), drawn (the reversible-move limit, or
``--turn-cap`` full turns) and lost, and the mean number of half-turns a win took. The no-hunt
flagship, played in the same run on the same positions and seeds, is the baseline: the ratio
is its mean half-turns to a win over the hunter's::

    nice -n 5 python3 experiments/bench_conversion.py --set drift --seeds 3 --seconds 30 --increment 1
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

import chess

from blindchess.arbiter import LocalGame, Player, WinReason, play_local_game
from blindchess.bots.flagship import FlagshipBot
from blindchess.bots.trout_bot import TroutBot
from blindchess.evaluation.values import material_balance
from blindchess.experiments.flagship_before_clock import FlagshipBeforeClock

BEFORE, TROUT = "flagship before its clock work", "TroutBot"

DRIFT = [
    ("8/R7/6pk/5p2/7P/1P1B2P1/P3P2K/8 b - - 0 57", BEFORE),  # 44 quiet half-turns, then won
    ("3k4/p2b4/8/3p4/3n1p2/8/PP4P1/4K3 w - - 0 46", BEFORE),  # 26 quiet, then won
    ("3nk2r/p1r3pp/1p5n/4p3/1bb5/P3B2P/2P2PP1/3R2K1 w - - 0 33", TROUT),  # 80 quiet, then won
    ("r3r1k1/pp1b1ppp/3p4/2n5/8/5N2/PPP3PP/1KN5 w - - 0 22", TROUT),  # 24 quiet, then won
]
"""(FEN, opponent) at the start of each long quiet stretch while 5 or more pawns ahead."""

ONSET = [
    (fen, BEFORE)
    for fen in (
        "1r2r1k1/p1Nb1pbp/2p3p1/3p4/3p4/1P4PP/P3PPBK/2RQ1R2 b - - 0 29",  # won 116 half-turns later
        "2r1r1k1/pp3ppp/3R1n2/8/8/4BQP1/PP3P1P/5RK1 b - - 0 18",  # won 70 later
        "4r1rk/ppq2p1p/2p2p2/2Np4/3P4/4P3/PPP3PP/R5K1 w - - 0 21",  # lost 39 later
        "rnbqr1k1/ppp5/6p1/3pN3/3P1P1b/8/PP3PPP/RN3RK1 w - - 0 16",  # won 142 later
        "1Qb1Br1k/4bppp/p7/8/1p1N4/6P1/PN3P1P/R2R2K1 b - - 0 27",  # won 12 later
        "5rk1/p2bppbp/5np1/8/2P5/1PN5/1P2BPPP/q1B2RK1 w - - 0 16",  # won 42 later
        "2kr1b1r/ppp1q1p1/5p2/3pP3/Q6p/2P1BN1P/PP3PP1/R3KB1R b KQ - 0 16",  # won 30 later
        "5b2/B1p3pk/5p2/P6b/8/2P4P/P4PP1/4R2K b - - 0 40",  # won 40 later
        "rnb1k2r/p1p3pp/4pn2/1p1P1p2/P1pP4/2P5/3N1PPP/R1BQKB1R b KQkq - 0 10",  # won 48 later
        "rnb1q1k1/pp5p/2pb1p2/8/3Pp3/2N5/PP3PPP/R3K2R w KQ - 0 16",  # won 46 later
    )
]
"""(FEN, opponent) where one side first stayed 5 or more pawns ahead (see the module docstring)."""

SETS = {"drift": DRIFT, "onset": ONSET}


@dataclass(frozen=True)
class Outcome:
    """One game from the hunter's side."""

    won: bool
    lost: bool
    half_turns: int
    seconds: float


def white_to_move(fen: str) -> tuple[str, chess.Color]:
    """`fen` (mirrored when Black is to move, numbered from move 1 so that ``--turn-cap`` counts
    from the start) and the colour of the side ahead in material there."""
    board = chess.Board(fen)
    if board.turn == chess.BLACK:
        board = board.mirror()
    board.fullmove_number = 1
    ahead = chess.WHITE if material_balance(board, chess.WHITE) > 0 else chess.BLACK
    return board.fen(), ahead


def play(
    fen: str, opponent_name: str, hunter_color: chess.Color, hunt: bool, seed: int, seconds: float, increment: float, turn_cap: int
) -> Outcome:
    """One game of the flagship (hunt on or off) against `opponent_name` from `fen`."""
    hunter = FlagshipBot(seed) if hunt else FlagshipBot(seed, preset="no-hunt")
    opponent: Player = FlagshipBeforeClock(seed + 1_000) if opponent_name == BEFORE else TroutBot(seed + 1_000)
    white, black = (hunter, opponent) if hunter_color == chess.WHITE else (opponent, hunter)
    game = LocalGame(seconds, increment, full_turn_limit=turn_cap, starting_fen=fen)
    started = time.monotonic()
    winner, reason, history = play_local_game(white, black, game)
    return Outcome(
        won=winner == hunter_color and reason == WinReason.KING_CAPTURE,
        lost=winner is not None and winner != hunter_color,
        half_turns=history.num_turns(),
        seconds=time.monotonic() - started,
    )


def summary(outcomes: list[Outcome]) -> str:
    wins = [o.half_turns for o in outcomes if o.won]
    lost = sum(o.lost for o in outcomes)
    mean = f"{statistics.mean(wins):.1f}" if wins else "-"
    return f"won {len(wins)}/{len(outcomes)}, lost {lost}, mean half-turns to a win {mean}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), default="drift", help="which positions (see the module docstring)")
    parser.add_argument("--seeds", type=int, default=3, help="games per position and variant")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--increment", type=float, default=1.0)
    parser.add_argument("--turn-cap", type=int, default=60, help="full turns from the position after which a game is drawn")
    args = parser.parse_args()
    results: dict[bool, list[Outcome]] = {True: [], False: []}
    for number, (fen, opponent_name) in enumerate(SETS[args.set], 1):
        start, hunter_color = white_to_move(fen)
        for seed in range(args.seeds):
            row = []
            for hunt in (False, True):
                outcome = play(start, opponent_name, hunter_color, hunt, seed, args.seconds, args.increment, args.turn_cap)
                results[hunt].append(outcome)
                verdict = "won" if outcome.won else "lost" if outcome.lost else "drawn"
                row.append(f"{'hunt' if hunt else 'no hunt'} {verdict} in {outcome.half_turns} ({outcome.seconds:.0f} s)")
            side = f"{chess.COLOR_NAMES[hunter_color]} ahead, against {opponent_name}"
            print(f"position {number} ({side}), seed {seed}: {'; '.join(row)}", flush=True)
    print(f"no hunt (baseline): {summary(results[False])}")
    print(f"hunt:               {summary(results[True])}")
    base_turns = [o.half_turns for o in results[False] if o.won]
    hunt_turns = [o.half_turns for o in results[True] if o.won]
    if base_turns and hunt_turns:
        print(f"ratio (baseline's mean half-turns to a win / hunt's): {statistics.mean(base_turns) / statistics.mean(hunt_turns):.2f}")


if __name__ == "__main__":
    main()
