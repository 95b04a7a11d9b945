"""experiments/true_board_regret.py and experiments/regret_per_budget.py on real Stockfish at shallow depths."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest

from blindchess.arbiter.rules.reference import move_actions
from blindchess.evaluation.stockfish import Engine
from blindchess.experiments.regret_per_budget import FixedSense, decisions, main, play_turn, snapshots
from blindchess.experiments.true_board_regret import MATE_CP, action_values, loses_king, loses_material, regret

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "flagship_fast_game.json"
FAST = {"preset": "fast"}


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    with Engine(cache_size=0) as started:
        yield started


def test_the_best_request_has_no_regret_and_a_hung_queen_a_large_one(engine: Engine) -> None:
    truth = chess.Board("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2")  # after 1. e4 d5
    values = action_values(engine, truth, depth=6)
    assert set(values) == {"0000", *(move.uci() for move in move_actions(truth))}
    best = max(values, key=values.__getitem__)
    assert regret(values, None if best == "0000" else chess.Move.from_uci(best)) == 0
    assert all(regret(values, chess.Move.from_uci(uci)) >= 0 for uci in values if uci != "0000")
    hung = chess.Move.from_uci("d1g4")  # the bishop on c8 takes the queen
    assert regret(values, hung) >= 600 and loses_material(values, hung) and not loses_king(values, hung)


def test_requests_are_scored_as_the_arbiter_makes_them(engine: Engine) -> None:
    slide = chess.Board("4k3/8/8/8/n7/8/8/R3K3 w - - 0 1")  # a1-a8 stops on the knight on a4 and takes it
    values = action_values(engine, slide, depth=4)
    assert values["a1a8"] == values["a1a4"] == max(values.values())
    king = chess.Board("k7/8/8/8/8/8/8/R3K2r w - - 0 1")  # a1-a8 takes the king; our king stands in the rook's line
    values = action_values(engine, king, depth=4)
    assert values["a1a8"] == MATE_CP and regret(values, chess.Move.from_uci("a1a8")) == 0
    assert loses_king(values, chess.Move.from_uci("e1d1")) and regret(values, chess.Move.from_uci("e1d1")) == 2 * MATE_CP
    assert not loses_king(values, chess.Move.from_uci("e1e2"))


def test_a_replayed_flagship_plays_a_recorded_turn_on_the_true_board() -> None:
    decision = decisions([str(FIXTURE)], "flagship")[2]
    snapshot = snapshots([decision], FAST)[decision]
    assert snapshot.turns == decision.turn and decision.truth.turn == decision.color
    choice = play_turn(decision, snapshot, FAST, 0.2, seed=3)
    assert choice.move is None or choice.move in move_actions(decision.truth)
    assert choice.cpu > 0.0 and choice.wall > 0.0


def test_a_fixed_sense_is_made_in_place_of_the_planners_and_the_move_still_chosen() -> None:
    decision = decisions([str(FIXTURE)], "flagship")[2]
    snapshot = snapshots([decision], FAST)[decision]
    own = play_turn(decision, snapshot, FAST, 0.2, seed=3).sense
    elsewhere = chess.A1 if own != chess.A1 else chess.H8
    for square in (elsewhere, None):
        choice = play_turn(decision, snapshot, FAST, 0.2, seed=3, sense=FixedSense(square))
        assert choice.sense == square and (choice.move is None or choice.move in move_actions(decision.truth))


def test_the_benchmark_runs_and_its_second_run_reads_the_scores_it_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scores, rows = tmp_path / "scores.json", tmp_path / "rows.jsonl"
    argv = [str(FIXTURE), "--positions", "1", "--budgets", "0.1", "--depth", "2", "--settings", 'preset = "fast"',
            "--scores", str(scores), "--rows", str(rows)]  # fmt: skip
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "0 of 1 boards" in first and '| preset = "fast" | 0.1 | 1 |' in first
    assert len(json.loads(scores.read_text())) == 1
    assert main(argv) == 0
    assert "1 of 1 boards" in capsys.readouterr().out
    records = [json.loads(line) for line in rows.read_text().splitlines()]
    assert len(records) == 2 and all(record["regret"] >= 0 for record in records)
    assert records[0]["move"] == records[1]["move"]  # the same seed, the fixed-depth preset: the same choice
    assert main(["--from-rows", str(rows), "--depth", "2", "--scores", str(scores)]) == 0
    assert '| preset = "fast" | 0.1 | 2 |' in capsys.readouterr().out  # both runs' rows, read back


def test_shards_play_every_position_once_and_their_joined_rows_read_back_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = tmp_path / "scores.json"
    common = [str(FIXTURE), "--positions", "3", "--budgets", "0.1", "--depth", "2", "--settings", 'preset = "fast"', "--clock", "cpu"]
    for shard in ("1/2", "0/2"):  # the later positions' rows first: reading back sorts them
        assert main([*common, "--shard", shard, "--scores", str(scores), "--rows", str(tmp_path / "rows.jsonl")]) == 0
    assert main([*common, "--scores", str(scores), "--rows", str(tmp_path / "whole.jsonl")]) == 0
    joined = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    whole = [json.loads(line) for line in (tmp_path / "whole.jsonl").read_text().splitlines()]
    assert [row["position"] for row in joined] == [1, 0, 2] and [row["position"] for row in whole] == [0, 1, 2]
    assert {row["position"]: row["move"] for row in joined} == {row["position"]: row["move"] for row in whole}  # fixed depth
    capsys.readouterr()
    assert main(["--from-rows", str(tmp_path / "rows.jsonl"), "--depth", "2", "--scores", str(scores)]) == 0
    assert '| preset = "fast" | 0.1 | 3 |' in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([*common, "--shard", "0/2", "--scores", str(scores)])  # a shard's table alone would mislead: --rows is required
    with pytest.raises(SystemExit):
        main([*common, "--shard", "2/2", "--scores", str(scores), "--rows", str(tmp_path / "x.jsonl")])


def test_a_position_some_setting_did_not_finish_is_left_out_of_every_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shards stopped part way leave a position written for some arms only while later positions are complete. Tables
    pair arms position by position, so that position is left out of all of them (it used to shift one arm's pairs)."""
    scores, rows = tmp_path / "scores.json", tmp_path / "rows.jsonl"
    settings = ["--settings", 'preset = "fast"', "--settings", 'preset = "fast", selector.candidates.count = 2']
    argv = [str(FIXTURE), "--positions", "3", "--budgets", "0.1", "--depth", "2", "--clock", "cpu", *settings]
    assert main([*argv, "--scores", str(scores), "--rows", str(rows)]) == 0
    records = [json.loads(line) for line in rows.read_text().splitlines()]
    assert len(records) == 6
    kept = [r for r in records if not (r["position"] == 1 and "count" in r["setting"])]
    rows.write_text("".join(json.dumps(r) + "\n" for r in kept))
    capsys.readouterr()
    assert main(["--from-rows", str(rows), "--depth", "2", "--scores", str(scores)]) == 0
    out = capsys.readouterr().out
    assert "left out, not finished in every setting and budget: positions 1" in out
    assert '| preset = "fast" | 0.1 | 2 |' in out and '| preset = "fast", selector.candidates.count = 2 | 0.1 | 2 |' in out
    first = {r["position"]: r["regret"] for r in kept if "count" not in r["setting"]}
    second = {r["position"]: r["regret"] for r in kept if "count" in r["setting"]}
    differences = [second[p] - first[p] for p in (0, 2)]
    assert f"| {sum(differences) / 2:+.0f} (" in out.split("Paired, position by position:")[1].splitlines()[-1]


def test_a_corrupt_rows_file_is_refused_in_one_line_naming_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"position": 0, "game": "g.json"}\n')
    with pytest.raises(SystemExit) as exit_:
        main(["--from-rows", str(rows), "--scores", str(tmp_path / "scores.json")])
    message = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit_.value.code == 2 and f"{rows} line 1 is not a regret benchmark row" in message
