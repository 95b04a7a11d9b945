"""``--clock cpu`` through the commands that play games: match, sprt and tournament (issue 39).

Each plays a couple of short games of cheap bots under a CPU clock, in real cgroups, and checks
that the games were played under it (the clock use reported, the spec recorded) and that what
cannot go with it is refused in one line.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from blindchess.cli import main

from ..arbiter.cpu_clock_bots import needs_cgroups

pytestmark = needs_cgroups


def test_match_under_a_cpu_clock_reports_each_bots_clock_use(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    command = ["match", "random", "attacker", "--games", "2", "--seconds", "30", "--increment", "0", "--seed", "3"]
    code = main([*command, "--full-turn-limit", "8", "--clock", "cpu", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "clock used by random:" in out and "clock used by attacker:" in out and "(2 games)" in out
    assert len(list(tmp_path.glob("*.json"))) == 2


def test_match_refuses_a_cpu_clock_without_isolation(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["match", "random", "attacker", "--clock", "cpu", "--no-isolate", "--out", str(tmp_path)])
    error = capsys.readouterr().err
    assert code == 2 and "--clock cpu" in error and "--no-isolate" in error and error.count("\n") == 1


def test_sprt_records_its_games_under_a_cpu_clock(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = tmp_path / "sprt.sqlite"
    command = ["sprt", "random", "attacker", "--seconds", "30", "--max-pairs", "1", "--full-turn-limit", "8", "--workers", "1"]
    code = main([*command, "--clock", "cpu", "--db", str(db)])
    assert code in (0, 1, 3), capsys.readouterr().err
    assert "clock used by A" in capsys.readouterr().err
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT spec, white_clock, black_clock FROM games").fetchall()
    assert len(rows) == 2
    assert all(json.loads(spec)["clock_mode"] == "cpu" and white is not None and black is not None for spec, white, black in rows)


def test_tournament_takes_the_clock_from_its_config(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "cpu.toml"
    config.write_text(
        '[tournament]\nname = "cpu"\ngames_per_pairing = 2\nseconds = 30\nfull_turn_limit = 8\nclock = "cpu"\n'
        '[players.random]\nbot = "random"\n[players.attacker]\nbot = "attacker"\n'
    )
    db = tmp_path / "cpu.sqlite"
    assert main(["tournament", str(config), "--db", str(db), "--workers", "1", "--no-progress"]) == 0
    with sqlite3.connect(db) as connection:
        specs = [json.loads(spec) for (spec,) in connection.execute("SELECT spec FROM games")]
    assert [spec["clock_mode"] for spec in specs] == ["cpu", "cpu"]
    config.write_text(config.read_text().replace('clock = "cpu"', 'clock = "cpus"'))
    assert main(["tournament", str(config), "--db", str(db)]) == 2
    assert "clock = 'cpus' must be one of wall, cpu" in capsys.readouterr().err
