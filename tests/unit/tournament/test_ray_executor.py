"""A real local Ray cluster, started once for this module, plays the same games as the process pool."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import ray

from blindchess.cli import main
from blindchess.learning.examples import read_shard
from blindchess.tournament.config import load_config
from blindchess.tournament.executors import PoolExecutor
from blindchess.tournament.ray_executor import RayExecutor
from blindchess.tournament.results_db import ResultStore
from blindchess.tournament.runner import run_schedule

from .tournament_helpers import DETERMINISTIC_PLAYERS, dying_bot, recorded, write_config


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def test_ray_and_the_process_pool_play_identical_games(local_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, DETERMINISTIC_PLAYERS, games=2)
    assert main(["tournament", str(config), "--db", str(tmp_path / "ray.sqlite"), "--executor", "ray", "--no-progress"]) == 0
    assert "trout" in capsys.readouterr().out  # the standings table
    pool = PoolExecutor(2)
    with ResultStore(tmp_path / "pool.sqlite") as store:
        run_schedule(load_config(config).schedule(), store, pool)
    pool.close()
    on_ray, on_pool = recorded(tmp_path / "ray.sqlite"), recorded(tmp_path / "pool.sqlite")
    assert len(on_ray) == 6 and all(ok for ok, *_ in on_ray.values())
    assert on_ray == on_pool  # winners, reasons and history JSON, game by game
    assert len({history for *_, history in on_ray.values()}) == 6  # six different games, not one repeated
    assert ray.is_initialized()  # the executor joined the running Ray and left it running


def test_a_ray_worker_killed_mid_game_is_retried_once_recorded(local_ray: None, tmp_path: Path) -> None:
    dies_once = dying_bot(tmp_path, once=True)
    config = write_config(tmp_path, f'[players.dies-once]\nbot = "{dies_once}"\n[players.random]\nbot = "random"\n', games=2)
    with ResultStore(tmp_path / "ray.sqlite") as store:
        report = run_schedule(load_config(config).schedule(), store, RayExecutor(workers=2))
        rows = store.rows()
    assert dies_once.with_suffix(".died").exists()
    assert report.played == 2 and report.failed == 0
    assert sorted(row.key for row in rows) == sorted(spec.key for spec in load_config(config).schedule())
    assert all(row.ok for row in rows)


def test_posterior_data_on_ray_writes_the_shards_the_inline_run_writes(local_ray: None, tmp_path: Path) -> None:
    common = ["posterior", "data", "--games", "4", "--seed", "5", "--mix", "random,attacker", "--full-turn-limit", "12"]
    assert main([*common, "--executor", "ray", "--workers", "2", "--out", str(tmp_path / "ray")]) == 0
    assert main([*common, "--workers", "1", "--out", str(tmp_path / "inline")]) == 0
    on_ray, inline = read_shard(tmp_path / "ray" / "shard-00000.npz"), read_shard(tmp_path / "inline" / "shard-00000.npz")
    assert [s.game_id for s in on_ray] == [s.game_id for s in inline] == [f"gen-5-{i}" for i in range(4) for _ in "wb"]
    assert all(np.array_equal(a.frames, b.frames) and np.array_equal(a.targets, b.targets) for a, b in zip(on_ray, inline, strict=True))
