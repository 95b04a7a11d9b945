"""experiments/regret_sources.py: its rows reader, and its classes on constructed beliefs valued by real Stockfish."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import chess
import pytest

from blindchess.beliefs.board_set import BoardSet
from blindchess.evaluation.stockfish import Engine
from blindchess.experiments.regret_report import Row, RowsError, read_rows
from blindchess.experiments.regret_sources import Searches, main, source

GOOD = {
    "position": 0, "game": "g.json", "color": "white", "turn": 5, "setting": "flagship", "budget": 2.0,
    "move": "d1d2", "sense": None, "regret": 900, "cpu": 1.0, "wall": 1.0,
}  # fmt: skip
TRUTH = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")
"""Black's queen stands on d5, unguarded: d1-d5 takes it (the true best request); d1-d2 hangs the rook to Qxd2+."""
ELSEWHERE = chess.Board("4k3/8/8/7q/8/8/8/3RK3 w - - 0 1")
"""The queen on h5 instead: d1-d5 hangs the rook to Qxd5, d1-d2 keeps it."""


def test_a_corrupt_rows_file_is_refused_in_one_line_naming_the_file_and_line(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD)[:40] + "\n")
    with pytest.raises(RowsError) as error:
        read_rows(rows, None, "flagship")
    assert f"{rows} line 2 " in str(error.value) and "\n" not in str(error.value)
    rows.write_text(json.dumps({**GOOD, "color": "purple"}) + "\n")
    with pytest.raises(RowsError, match=r"line 1 .*purple"):
        read_rows(rows, None, "flagship")
    with pytest.raises(SystemExit) as exit_:
        main(["--rows", str(rows), "--scores", str(tmp_path / "scores.json"), "--cache", str(tmp_path / "cache.json")])
    assert exit_.value.code == 2 and not (tmp_path / "cache.json").exists()


def test_the_reader_keeps_the_setting_and_budgets_asked_for(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    kinds = [(budget, setting) for budget in (2.0, 30.0) for setting in ("flagship", "x")]
    rows.write_text("\n".join(json.dumps({**GOOD, "budget": budget, "setting": setting}) for budget, setting in kinds))
    assert [(row.setting, row.budget) for row in read_rows(rows, {30.0}, "flagship")] == [("flagship", 30.0)]
    assert read_rows(rows, None, "x")[0] == Row(0, "g.json", chess.WHITE, 5, "x", 2.0, "d1d2", None, 900, 1.0, 1.0)


@pytest.mark.parametrize(
    ("boards", "label", "truth_in"),
    [([TRUTH, ELSEWHERE], "B", True), ([ELSEWHERE], "A", False)],
    ids=["the belief holds the truth: the choice was wrong", "the belief misses the truth: blind"],
)
def test_a_regret_is_classed_by_the_requests_values_on_the_belief(
    tmp_path: Path, boards: list[chess.Board], label: str, truth_in: bool
) -> None:
    belief = BoardSet.from_boards(chess.WHITE, boards, move_model=None)
    row = Row(0, "g.json", chess.WHITE, 5, "flagship", 2.0, "d1d2", None, 900, 1.0, 1.0)
    args = argparse.Namespace(seed=1, boards=200, value_depth=4)
    with Engine(cache_size=0) as engine:
        found = source(row, belief, TRUTH, {"d1d5": 900, "d1d2": -700, "e1f1": -700}, Searches(tmp_path / "cache.json", engine), args)
    assert (found.label, found.truth_in, found.boards, found.best) == (label, truth_in, len(boards), "d1d5")
    assert found.p_uniform == pytest.approx(0.5 if truth_in else 0.0) and found.gap_error == 0.0
    if truth_in:
        assert found.gap > 0.15 and found.p_sigmoid < 0.5  # the queen en prise is the opponent's worse board, so
        assert found.gap_sigmoid < found.gap  # the sigmoid moves weight to the board where d1-d5 hangs the rook
    else:
        assert found.gap < -0.1 and found.p_sigmoid == 0.0 and found.truth_gap > 0.5  # the true board shows d1-d5 wins
