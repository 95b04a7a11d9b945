"""The posterior pipeline end to end on a tiny case: games -> shards -> one epoch -> saved model -> eval.

Small on purpose (a few dozen random and attacker games, a hidden size of 16): it checks the
pipeline and its reproducibility, not the model's quality (that is experiments/bench_neural.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import chess
import numpy as np
import pytest
import torch

from blindchess.arbiter.game.history import GameHistory
from blindchess.beliefs.neural_model import default_model_path, load_model
from blindchess.cli import main
from blindchess.fixtures.recorded_games import load_records
from blindchess.learning.examples import Sequence, ShardError, held_out, read_shard, read_shards, write_shard
from blindchess.learning.generate import GameSpec, GenerationError, generate, pairing
from blindchess.learning.train import TrainSettings, split, train
from blindchess.tournament import spec as tournament
from blindchess.tournament.executors import InlineExecutor
from blindchess.tournament.spec import failed

MIX = ("random", "attacker")
SETTINGS = TrainSettings(epochs=1, batch=8, hidden=16, seed=5, holdout_percent=25)


@pytest.fixture(scope="module")
def sequences() -> list[Sequence]:
    games = list(generate(30, seed=11, mix=MIX, full_turn_limit=20))
    assert not [game for game in games if isinstance(game, GenerationError)]
    return [s for game in games if not isinstance(game, GenerationError) for s in game]


def test_games_are_determined_by_seed_and_index(sequences: list[Sequence]) -> None:
    again = [s for game in generate(3, seed=11, mix=MIX, full_turn_limit=20) if not isinstance(game, GenerationError) for s in game]
    for one, two in zip(sequences[:6], again, strict=False):
        assert one.game_id == two.game_id and np.array_equal(one.frames, two.frames) and np.array_equal(one.targets, two.targets)
    assert {pairing(GameSpec(i, 11, MIX))[:2] for i in range(30)} >= {("random", "attacker"), ("attacker", "random")}


def test_shards_round_trip_and_refuse_other_files(sequences: list[Sequence], tmp_path: Path) -> None:
    path = write_shard(tmp_path / "a.npz", sequences)
    back = read_shard(path)
    assert [s.game_id for s in back] == [s.game_id for s in sequences]
    assert all(np.array_equal(a.frames, b.frames) and np.array_equal(a.decision, b.decision) for a, b in zip(back, sequences, strict=False))
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(path.read_bytes()[:500])
    with pytest.raises(ShardError, match=str(truncated)):
        read_shard(truncated)
    other = tmp_path / "other.npz"
    np.savez(other, frames=np.zeros(3))
    with pytest.raises(ShardError, match="not a blindchess-posterior-shard"):
        read_shard(other)


def test_held_out_split_is_by_game(sequences: list[Sequence]) -> None:
    training, held = split(sequences, 25)
    assert training and held
    assert not {s.game_id for s in training} & {s.game_id for s in held}
    assert all(held_out(s.game_id, 25) for s in held)


def test_same_seed_same_weights(sequences: list[Sequence]) -> None:
    few = sequences[:24]
    one, report = train(few, SETTINGS)
    two, _ = train(few, SETTINGS)
    settings = report["settings"]
    assert isinstance(settings, dict)
    other, _ = train(few, TrainSettings(**{**settings, "seed": 6}))
    assert all(torch.equal(a, b) for a, b in zip(one.state_dict().values(), two.state_dict().values(), strict=False))
    assert not all(torch.equal(a, b) for a, b in zip(one.state_dict().values(), other.state_dict().values(), strict=False))
    assert report["held_out_sequences"] and report["epochs"][0]["held_out_bits_per_board"] > 0  # type: ignore[index]


def test_command_line_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["posterior", "data", "--games", "24", "--seed", "3", "--mix", ",".join(MIX), "--workers", "1",
                 "--full-turn-limit", "15", "--shard-games", "12", "--out", str(tmp_path / "data")]) == 0  # fmt: skip
    shards = sorted(str(p) for p in (tmp_path / "data").glob("shard-*.npz"))
    assert len(shards) == 2 and len(read_shards(shards)) == 48
    assert (
        main(
            [
                "posterior",
                "train",
                *shards,
                "--epochs",
                "1",
                "--hidden",
                "16",
                "--holdout",
                "25",
                "--out",
                str(tmp_path / "model"),
            ]
        )
        == 0
    )
    model = load_model(tmp_path / "model")
    assert model.config.hidden == 16
    capsys.readouterr()
    assert main(["posterior", "eval", str(tmp_path / "model"), *shards, "--holdout", "100"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["sequences"] == 48 and 0 < scores["bits_per_board"] < 64 * np.log2(7)


def test_history_files_become_examples(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = []
    for n, record in enumerate(load_records()[:3]):
        path = tmp_path / f"game-{n}.json"
        GameHistory.from_json(record["history"]).save(str(path))
        files.append(str(path))
    assert main(["posterior", "data", "--histories", *files, "--out", str(tmp_path / "mine")]) == 0
    sequences = read_shard(tmp_path / "mine" / "histories.npz")
    assert [s.game_id for s in sequences] == [f"game-{n}.json" for n in range(3) for _ in (chess.WHITE, chess.BLACK)]
    assert json.loads(capsys.readouterr().out)["sequences"] == 6


def test_history_paths_that_name_no_file_get_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A shell passes a pattern that matched nothing as it is: that showed as a FileNotFoundError traceback."""
    pattern = str(tmp_path / "archive" / "*.json")
    assert main(["posterior", "data", "--histories", pattern, "--out", str(tmp_path / "mine")]) == 2
    assert capsys.readouterr().err == (
        f"blindchess posterior: error: --histories {pattern!r}: no file matches this pattern; see 'blindchess posterior --help'\n"
    )
    assert main(["posterior", "data", "--histories", str(tmp_path / "gone.json"), "--out", str(tmp_path / "mine")]) == 2
    assert "gone.json': no such file" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{")
    assert main(["posterior", "data", "--histories", str(tmp_path / "bad.json"), "--out", str(tmp_path / "mine")]) == 2
    assert capsys.readouterr().err.count("\n") == 1 and not (tmp_path / "mine").exists()  # nothing written


def test_training_into_the_shipped_model_needs_a_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shipped = default_model_path()
    before = (shipped / "weights.pt").read_bytes()
    assert main(["posterior", "train", str(tmp_path / "none.npz"), "--out", str(shipped)]) == 2
    error = capsys.readouterr().err
    assert "is the model shipped in the package" in error and "--replace-shipped" in error
    assert (shipped / "weights.pt").read_bytes() == before


class FailingSecondGame:
    """The inline executor, except that game 1 of the run comes back failed (as a worker that died twice)."""

    workers = 1

    def run(self, specs: Iterable[tournament.GameSpec]) -> Iterator[tournament.GameResult]:
        for result in InlineExecutor().run(specs):
            yield failed(result.key, "worker died twice", attempts=2) if result.key.endswith("-1") else result

    def close(self) -> None:
        pass


def test_a_failed_game_is_reported_in_its_place_and_the_rest_kept() -> None:
    games = list(generate(3, seed=11, mix=MIX, executor=FailingSecondGame(), full_turn_limit=10))
    assert [isinstance(game, GenerationError) for game in games] == [False, True, False]
    assert "gen-11-1" in str(games[1]) and "worker died twice" in str(games[1])
    assert [s.game_id for s in games[2]] == ["gen-11-2", "gen-11-2"]  # type: ignore[union-attr]


def test_a_bot_that_cannot_be_built_stops_the_data_command_with_its_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken_bot.py"
    broken.write_text(
        "from blindchess.bots.random_bot import RandomBot\n\n"
        "class BrokenBot(RandomBot):\n    def __init__(self, rng=None):\n        raise ValueError('no config file')\n"
    )
    assert main(["posterior", "data", "--games", "4", "--mix", f"random,{broken}", "--workers", "1", "--out", str(tmp_path / "d")]) == 2
    error = capsys.readouterr().err
    assert "could not be set up" in error and "no config file" in error
