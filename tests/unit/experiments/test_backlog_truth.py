"""experiments/backlog_truth.py: its per-turn comparison, and its line per game of a real SPRT database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import chess
import pytest

from blindchess.arbiter.game.history import GameHistory
from blindchess.cli import main as blindchess
from blindchess.experiments.backlog_truth import Arm, Sensed, compare, main


def test_compare_counts_backlogs_size_changes_and_the_truth_held_by_one_arm_only() -> None:
    old = Arm("old", [Sensed(True, 10, 0), Sensed(False, 4, 7), Sensed(True, 5, 3), Sensed(False, 9, 2)])
    fold = Arm("fold", [Sensed(True, 10, 0), Sensed(True, 30, 0), Sensed(False, 6, 1), Sensed(False, 9, 0)])
    assert compare(old, fold) == (3, 1, 2, 1, 1)
    with pytest.raises(ValueError):
        compare(old, Arm("short", fold.turns[:2]))


def test_a_line_per_game_of_an_sprt_database_replays_the_labelled_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "sprt.sqlite"
    argv = ["sprt", "attacker", "random", "--full-turn-limit", "6", "--workers", "1", "--max-pairs", "1", "--db", str(db)]
    assert blindchess(argv) == 3
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main([])  # neither a game nor --db
    capsys.readouterr()
    assert main(["--db", str(db), "--folds", "20000", "--label", "B"]) == 0
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in capsys.readouterr().out.splitlines()[2:]]
    with sqlite3.connect(db) as connection:
        games = dict(connection.execute("SELECT key, history FROM games").fetchall())
        black_is_b = {key: black == "B" for key, black in connection.execute("SELECT key, black FROM games")}
    assert [row[0] for row in rows] == [*sorted(games), "all"]
    for key, side, _, arm, turns, *_ in rows[:-1]:
        color = chess.BLACK if black_is_b[key] else chess.WHITE
        assert (side, arm) == ("Black" if color == chess.BLACK else "White", "fold 20,000")
        assert int(turns) == GameHistory.from_json(games[key]).num_turns(color) > 0
    total = [int(cell) for cell in rows[-1][4:]]
    assert total == [sum(int(row[i]) for row in rows[:-1]) for i in range(4, 10)]
    assert total[1:3] == [0, 0]  # six full turns never fill a 60,000-board set: no backlog in either arm
