"""Is the true board in the flagship's belief past the board set's cap? The backlog fold, with and without.

The flagship's board set caps an expansion at ``belief.max_boards`` children and leaves the
parents it did not expand in a backlog (:mod:`blindchess.beliefs.board_set`). This replays a
recorded game's events to the flagship as `regret_per_budget.snapshots` does (one bot, fed its
colour's events in order, no pondering) for each arm, and prints, at each own turn from
``--turns``, whether the true board's pieces are among the belief's boards after the turn's sense
(the record's own), with the belief's size and the backlog's parents:

* ``old``: ``belief.fold_parents = 0``, the set as it was before the fold: the backlog is
  replayed only when the set runs empty;
* ``fold N``: each sense and own-move update folds up to N backlog parents (the flagship's
  default is 20,000);
* ``all``: each of those updates folds until the backlog is empty or the set full (`BoardSet.refill`
  without a limit after the update: what a bot with time to spare could do).

The last columns are the CPU seconds of this process (the updates are single-threaded, so a loaded
machine slows them less than their wall time) the arm's updates took over those turns, their folds
included, their ratio to ``old``'s in the same run, the longest update, and the CPU seconds of the
``all`` arm's extra folds::

    python3 experiments/backlog_truth.py ../shared/games/strangefish2-120/g1-game-001-flagship-vs-StrangeFish2.json
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

import chess

from blindchess.arbiter.game.history import GameHistory, Turn
from blindchess.arbiter.game.observations import MoveResult, OpponentMoved, SenseResult
from blindchess.beliefs import BoardSet
from blindchess.beliefs.samples import board_grid
from blindchess.bots.flagship import FlagshipBot


def truth_rows(belief: BoardSet, truth: chess.Board) -> int:
    """How many of the belief's boards have the true board's pieces (castling and en passant aside)."""
    return int((belief.piece_grid() == board_grid([truth])[0]).all(axis=1).sum())


@dataclass
class Arm:
    """One arm's row: a cell per turn ('yes'/'no', boards/backlog parents), and the seconds its updates and extra folds took."""

    label: str
    cells: list[str] = field(default_factory=list)
    updates: float = 0.0
    longest: float = 0.0
    extra: float = 0.0


def replay(history: GameHistory, color: chess.Color, turns: range, label: str, settings: dict[str, Any], fold_all: bool) -> Arm:
    """Feed the flagship `color`'s events (folding the whole backlog after each sense and own move if `fold_all`); `Arm` over `turns`."""
    bot = FlagshipBot(0, **settings)
    bot.handle_game_start(color, chess.Board(history.starting_fen), "opponent")
    arm, turn = Arm(label), -1
    for event in history.observations(color)[1:]:
        turn += 1 if isinstance(event, OpponentMoved) else 0
        if turn > turns.stop:
            break
        started = time.process_time()
        bot.observe(event)
        updated = time.process_time()
        belief = bot.belief
        if fold_all and isinstance(event, (SenseResult, MoveResult)):
            assert isinstance(belief, BoardSet)
            belief.refill()
        if turn in turns:
            arm.updates, arm.longest = arm.updates + updated - started, max(arm.longest, updated - started)
            arm.extra += time.process_time() - updated
            if isinstance(event, SenseResult):
                assert isinstance(belief, BoardSet)
                found = truth_rows(belief, history.truth_board_before_move(Turn(color, turn)))
                arm.cells.append(f"{'yes' if found else 'no'} {len(belief):,}/{belief.backlog_parents:,}")
    bot.move_selector.close()
    return arm


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a recorded game (JSON) with a player whose name contains --player")
    parser.add_argument("--player", default="flagship")
    parser.add_argument("--turns", type=int, nargs=2, default=(12, 20), metavar=("FIRST", "LAST"))
    parser.add_argument("--folds", type=int, nargs="*", default=[2_000, 5_000, 20_000], help="fold_parents arms besides 0")
    args = parser.parse_args(argv)
    history = GameHistory.from_file(args.game)
    color = chess.WHITE if args.player.lower() in (history.get_white_player_name() or "").lower() else chess.BLACK
    turns = range(args.turns[0], args.turns[1] + 1)
    arms = [("old", {"belief": {"fold_parents": 0}}, False)]
    arms += [(f"fold {n:,}", {"belief": {"fold_parents": n}}, False) for n in args.folds]
    arms += [("all", {}, True)]
    rows = [replay(history, color, turns, label, settings, fold_all) for label, settings, fold_all in arms]
    print(f"{args.game} ({'White' if color else 'Black'}): truth's pieces in the belief after each sense, boards/backlog parents\n")
    figures = ["updates (CPU s)", "ratio to old", "longest update (CPU ms)", "extra folds (CPU s)"]
    columns = ["arm", *(f"turn {turn}" for turn in turns), *figures]
    print("| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    for arm in rows:
        measured = f"{arm.updates:.2f} | {arm.updates / rows[0].updates:.1f} | {1000 * arm.longest:.0f} | {arm.extra:.2f}"
        print(f"| {arm.label} | " + " | ".join(arm.cells) + f" | {measured} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
