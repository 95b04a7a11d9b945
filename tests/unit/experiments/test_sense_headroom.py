"""experiments/sense_headroom.py: a position's row from its squares' regrets, the table over rows, and one real position."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blindchess.experiments.sense_headroom import SQUARES, headroom_row, main

CHECKOUT = Path(__file__).resolve().parents[3]


def test_the_row_places_the_planner_between_the_oracle_and_the_blind_mean() -> None:
    regrets = {square: 0 if square == SQUARES[0] else 200 for square in SQUARES}
    best = headroom_row(regrets, SQUARES[0], 0)
    assert (best["planner"], best["oracle"], best["rank"]) == (0, 0, 0.0)
    assert best["random"] == pytest.approx(200 * 35 / 36)
    worst = headroom_row(regrets, SQUARES[1], 50)
    assert worst["planner"] == 200 and worst["rank"] == pytest.approx(0.5 * 34 / 35 + 1 / 35)
    edge = headroom_row(regrets, 0, 75)  # a1's window is not among the 36: the planner's own play counts
    assert edge["planner"] == 75


def test_one_real_position_is_played_at_every_inner_square_and_tabulated_again_from_its_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A turn of a recorded game of the flagship (kept as data), its true board's requests valued at a shallow depth."""
    game = CHECKOUT / "data/matches/flagship-vs-attacker-cpu/20261127T172542408591Z-13306-001-flagship-vs-attacker.json"
    rows = tmp_path / "rows.jsonl"
    argv = [str(game), "--positions", "1", "--depth", "4", "--scores", str(tmp_path / "scores.json"), "--rows", str(rows)]
    assert main([*argv, "--settings", "selector.search.depth = 2"]) == 0
    (row,) = [json.loads(line) for line in rows.read_text().splitlines()]
    assert len(row["regrets"]) == 36 and row["oracle"] == min(row["regrets"].values()) <= row["planner"]
    assert row["random"] == pytest.approx(sum(row["regrets"].values()) / 36)
    played = capsys.readouterr().out
    assert main(["--from-rows", str(rows)]) == 0
    assert capsys.readouterr().out.strip() in played
    again = tmp_path / "planner.jsonl"  # the planner alone at two budgets on the table above, and the belief's bound
    argv = [*argv[:-1], str(again), "--squares", str(rows), "--budgets", "0.5", "4", "--settings", "selector.search.depth = 2"]
    assert main([*argv, "--belief-boards", "1", "--bound-depth", "2"]) == 0
    budgets = [json.loads(line) for line in again.read_text().splitlines()]
    assert [line["budget"] for line in budgets] == [0.5, 4] and all(line["regrets"] == row["regrets"] for line in budgets)
    assert all(line["bound"] == row["regrets"][str(line["bound_square"])] and len(line["expected"]) == 36 for line in budgets)
    out = capsys.readouterr().out
    assert "| selector.search.depth = 2 | 0.5 | 1 |" in out and "The belief's bound (2 rows, 1 boards each)" in out
