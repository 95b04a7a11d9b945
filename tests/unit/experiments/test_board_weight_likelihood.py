"""experiments/board_weight_likelihood.py on a short recorded game, with real Stockfish at depth 1 and the shipped prior."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest

from blindchess.beliefs.board_weights import grid_board
from blindchess.evaluation.stockfish import Engine
from blindchess.experiments.board_weight_likelihood import (
    EvalCache,
    RecordError,
    main,
    read_decisions,
    replay,
    score_point,
)
from blindchess.experiments.board_weight_report import RowsError, Weighting, bits, probability, read_rows, weightings
from blindchess.experiments.regret_per_budget import sample

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "flagship_fast_game.json"
CHOSEN = weightings([200.0, 50.0], [1], [0.4, 1.0])
Point = tuple[dict[str, Any], Any, Any, chess.Board]
"""A scored point: its row, a copy of the belief and of the prior there, and the true board."""


@pytest.fixture(scope="module")
def evals() -> Iterator[EvalCache]:
    with Engine(cache_size=0) as engine:
        yield EvalCache(None, engine)


@pytest.fixture(scope="module")
def points(evals: EvalCache) -> list[Point]:
    """Two drawn turns of the fixture at both stages: each point's row, belief copy, prior copy and truth."""
    found = sample(read_decisions([str(FIXTURE)], "flagship"), 2, seed=3)
    scored = []
    for decision, _, belief, prior in replay(found):
        row = score_point(belief, prior, decision.truth, evals, [1], 400, np.random.default_rng(0))
        scored.append((row, belief.copy(), prior.copy(), decision.truth))  # type: ignore[attr-defined]
    return scored


def test_a_replay_scores_each_drawn_turn_after_the_move_and_after_the_sense(points: list[Point]) -> None:
    assert len(points) == 4  # two turns, two stages
    assert all(row["truth_in"] for row, *_ in points)
    sizes = [row["boards"] for row, *_ in points]
    assert sizes[1] <= sizes[0] and sizes[3] <= sizes[2]  # a sense only removes boards


def test_uniform_is_log2_of_the_set_size_over_the_truths_boards(points: list[Point]) -> None:
    for row, *_ in points:
        assert bits(row, Weighting("uniform")) == pytest.approx(math.log2(row["boards"] / row["truth_count"]))
        if row["placements"] > 1:  # a set past the cap stays uniform
            capped = Weighting("sigmoid", cap=row["boards"] - 1)
            assert bits(row, capped) == bits(row, Weighting("uniform")) != bits(row, Weighting("sigmoid"))
    unique = [row for row, *_ in points if row["truth_count"] == 1]
    assert unique, "a point whose true placement is one board of the set"
    for row in unique:
        assert bits(row, Weighting("uniform")) == pytest.approx(-math.log2(1 / row["boards"]))


def _smallest(
    points: list[Point],
) -> Point:
    """The point with the fewest placements but at least 4."""
    return min((point for point in points if point[0]["placements"] >= 4), key=lambda point: point[0]["placements"])


def _all_truths(belief: object, prior: object, evals: EvalCache, color: chess.Color, boards: int) -> list[dict[str, object]]:
    """The row of every placement of the set, as if each were the truth."""
    placements = np.unique(belief.piece_grid(), axis=0)  # type: ignore[attr-defined]
    rng = np.random.default_rng(1)
    return [score_point(belief, prior, grid_board(row, color), evals, [1], boards, rng) for row in placements]  # type: ignore[arg-type]


def test_every_weighting_sums_to_one_over_a_fully_scored_set(
    points: list[Point], evals: EvalCache
) -> None:
    _, belief, prior, truth = _smallest(points)
    rows = _all_truths(belief, prior, evals, truth.turn, boards=400)
    assert 2 <= len(rows) <= 400 and all(each["all"] for each in rows)
    for weighting in CHOSEN:
        assert sum(probability(each, weighting) for each in rows) == pytest.approx(1.0, abs=1e-9), weighting.name


def test_sampled_normalisers_sum_to_about_one(points: list[Point], evals: EvalCache) -> None:
    row, belief, prior, truth = _smallest(points)
    boards = max(2, row["placements"] // 2)  # half the placements: the estimators, seeded
    rows = _all_truths(belief, prior, evals, truth.turn, boards)
    assert not any(each["all"] for each in rows)
    for weighting in CHOSEN:
        total = sum(probability(each, weighting) for each in rows)
        exact = weighting.kind in ("uniform", "learned")
        assert total == pytest.approx(1.0, abs=1e-9 if exact else 0.25), weighting.name


def test_a_rerun_reads_every_score_from_the_cache_and_from_rows_tabulates_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(FIXTURE), "--turns", "2", "--boards", "8", "--depths", "1", "--scales", "200", "--out", str(tmp_path)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "| uniform | 2 |" in first and "0 from the cache" not in first.splitlines()[-1]
    assert main(argv) == 0
    assert " 0 searched" in capsys.readouterr().out
    assert len(read_rows(tmp_path / "rows.jsonl")) == 4
    assert main(["--from-rows", "--out", str(tmp_path), "--scales", "200"]) == 0
    assert "| sigmoid 200 cp, depth 1 | 2 |" in capsys.readouterr().out


def test_a_corrupt_record_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    truncated = tmp_path / "truncated.json"
    truncated.write_text(FIXTURE.read_text()[:500])
    with pytest.raises(RecordError, match=r"truncated\.json.*not valid JSON"):
        read_decisions([str(truncated)], "flagship")
    assert main([str(truncated), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "truncated.json" in error and error.startswith("error: ")


def test_a_record_contradicting_itself_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = json.loads(FIXTURE.read_text())
    document["sense_results"]["true"][2][0] = [45, {"type": "Piece", "value": "k"}]  # Black's king on f6 at its second move
    contradicting = tmp_path / "contradicting.json"
    contradicting.write_text(json.dumps(document))
    assert main([str(contradicting), "--turns", "8", "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "contradicting.json" in error


def test_a_corrupt_rows_file_is_refused_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_text('{"game": "g", "turn": 1, "stage": "moved", "boards": 3, "truth_in": true}\n{"game"\n')
    with pytest.raises(RowsError, match="line 2"):
        read_rows(tmp_path / "rows.jsonl")
