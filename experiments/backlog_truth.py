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

With ``--db`` it reads every game of an SPRT's database (`blindchess sprt --db`) instead, replays
the side labelled ``--label`` (A by default) through every own turn, and prints a line per game:
on how many turns each arm's set had a backlog (the cap bound), on how many a ``fold N`` arm's
set differed in size from ``old``'s, and on how many the truth's pieces were in one arm's set only.
So a game judged by an SPRT can be read for whether the fold changed the belief at all::

    python3 experiments/backlog_truth.py --db data/sprt-fold-070d36d/games.sqlite --folds 20000
"""

from __future__ import annotations

import argparse
import sqlite3
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


@dataclass(frozen=True)
class Sensed:
    """The belief after one own turn's sense: whether it holds the truth's pieces, its boards and its backlog's parents."""

    truth: bool
    boards: int
    backlog: int

    def cell(self) -> str:
        return f"{'yes' if self.truth else 'no'} {self.boards:,}/{self.backlog:,}"


@dataclass
class Arm:
    """One arm's row: the belief after each turn's sense, and the seconds its updates and extra folds took."""

    label: str
    turns: list[Sensed] = field(default_factory=list)
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
                arm.turns.append(Sensed(found > 0, len(belief), belief.backlog_parents))
    bot.close()
    return arm


def sprt_games(db: str, label: str) -> list[tuple[str, chess.Color, Optional[bool], GameHistory]]:
    """The finished games of an SPRT database (key, the colour `label` played, the winner, the record), in pair order."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        rows = connection.execute(
            "SELECT key, white, winner, history FROM games WHERE status = 'ok' AND history IS NOT NULL ORDER BY pair, key"
        ).fetchall()
    return [
        (key, chess.WHITE if white == label else chess.BLACK, None if winner is None else bool(winner), GameHistory.from_json(history))
        for key, white, winner, history in rows
    ]


def compare(old: Arm, fold: Arm) -> tuple[int, int, int, int, int]:
    """Turns with a backlog (old, fold), turns whose set sizes differ, turns with the truth in fold's set only, in old's only."""
    pairs = list(zip(old.turns, fold.turns, strict=True))
    return (
        sum(a.backlog > 0 for a, _ in pairs), sum(b.backlog > 0 for _, b in pairs), sum(a.boards != b.boards for a, b in pairs),
        sum(b.truth and not a.truth for a, b in pairs), sum(a.truth and not b.truth for a, b in pairs),
    )  # fmt: skip


def summarise_sprt(db: str, label: str, folds: Sequence[int]) -> None:
    """A line per game of `db` and fold arm: how often the cap bound and the fold changed `label`'s belief (module docstring)."""
    columns = ["game", "side", "result", "arm", "turns", "backlog: old", "backlog: arm", "sizes differ"]
    columns += ["truth: arm only", "truth: old only"]
    print("| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    totals: dict[int, list[int]] = {n: [0] * 6 for n in folds}
    for key, color, winner, history in sprt_games(db, label):
        turns = range(0, history.num_turns(color))
        old = replay(history, color, turns, "old", {"belief": {"fold_parents": 0}}, False)
        result = "draw" if winner is None else "won" if winner == color else "lost"
        for n in folds:
            figures = (len(old.turns), *compare(old, replay(history, color, turns, f"fold {n:,}", {"belief": {"fold_parents": n}}, False)))
            totals[n] = [a + b for a, b in zip(totals[n], figures, strict=True)]
            print(f"| {key} | {'White' if color else 'Black'} | {result} | fold {n:,} | " + " | ".join(map(str, figures)) + " |")
    for n, total in totals.items():
        print(f"| all | | | fold {n:,} | " + " | ".join(map(str, total)) + " |")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", help="a recorded game (JSON) with a player whose name contains --player")
    parser.add_argument("--player", default="flagship")
    parser.add_argument("--turns", type=int, nargs=2, default=(12, 20), metavar=("FIRST", "LAST"))
    parser.add_argument("--folds", type=int, nargs="*", default=[2_000, 5_000, 20_000], help="fold_parents arms besides 0")
    parser.add_argument("--db", help="an SPRT's database: every game's --label side, every turn, a line per game (no GAME)")
    parser.add_argument("--label", default="A", help="with --db: the side replayed (A or B, as `blindchess sprt` names them)")
    args = parser.parse_args(argv)
    if (args.game is None) == (args.db is None):
        parser.error("give one of GAME and --db")
    if args.db is not None:
        summarise_sprt(args.db, args.label, args.folds)
        return 0
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
        print(f"| {arm.label} | " + " | ".join(sensed.cell() for sensed in arm.turns) + f" | {measured} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
