"""The tournament runner on real games: a worker killed mid-game, an interrupted run resumed, bad input."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blindchess.arbiter.game.time_control import TimeControl
from blindchess.cli import main
from blindchess.tournament.base import Executor
from blindchess.tournament.config import ConfigError, load_config, parse_config
from blindchess.tournament.executors import InlineExecutor, PoolExecutor
from blindchess.tournament.results_db import ResultStore
from blindchess.tournament.runner import run_schedule
from blindchess.tournament.spec import BotSpec, GameSpec

from .tournament_helpers import DETERMINISTIC_PLAYERS, dying_bot, recorded, write_config


def test_a_player_may_have_its_own_clock_and_older_specs_still_resume() -> None:
    """``tc = "60+2"`` in a player's table: that player's clock in every game, whatever its colour."""
    config = parse_config({"players": {"fast": {"bot": "random", "tc": "10+0.5"}, "slow": {"bot": "random", "tc": "60+2"}}})
    fast, slow = sorted(config.players, key=lambda player: player.label)
    assert (fast.clock, slow.clock) == (TimeControl(10, 0.5), TimeControl(60, 2))  # not a self pairing: the clocks differ
    game = GameSpec("1", slow, fast, 1, 2, seconds=900, increment=5)
    assert (game.time_control(white=True), game.time_control(white=False)) == (slow.clock, fast.clock)
    plain = GameSpec("1", BotSpec("a", "random"), BotSpec("b", "random", clock=TimeControl(30, 1)), 1, 2, seconds=900, increment=5)
    assert plain.time_control(white=True) == TimeControl(900, 5)  # no clock of its own: the game's
    assert '"clock"' not in GameSpec("1", BotSpec("a", "random"), BotSpec("b", "random"), 1, 2).to_json()  # as before clocks
    with pytest.raises(ConfigError, match=r"\[players.fast\] tc: .*'1:00'"):
        parse_config({"players": {"fast": {"bot": "random", "tc": "1:00"}, "slow": {"bot": "attacker"}}})


def _run(config: Path, db: Path, executor: Executor) -> None:
    with ResultStore(db) as store:
        run_schedule(load_config(config).schedule(), store, executor)
    executor.close()


def test_a_killed_worker_loses_no_game_and_counts_none_twice(tmp_path: Path) -> None:
    dies_once, dies_always = dying_bot(tmp_path, once=True), dying_bot(tmp_path, once=False)
    # isolate = false: the bot plays in the worker's own process, so its SIGKILL kills the worker.
    players = f'[players.dies-once]\nbot = "{dies_once}"\nisolate = false\n[players.random]\nbot = "random"\n'
    config = write_config(tmp_path, players, games=4)
    _run(config, tmp_path / "pool.sqlite", PoolExecutor(2))
    assert dies_once.with_suffix(".died").exists()  # a worker really was killed mid-game
    pool = recorded(tmp_path / "pool.sqlite")
    schedule = [spec.key for spec in load_config(config).schedule()]
    assert sorted(pool) == sorted(schedule)  # every game once (the primary key forbids twice)
    assert all(ok for ok, *_ in pool.values())
    _run(config, tmp_path / "inline.sqlite", InlineExecutor())  # the marker exists now: nobody dies
    assert recorded(tmp_path / "inline.sqlite") == pool  # the retried game is the game it would have been

    players = f'[players.dies-always]\nbot = "{dies_always}"\nisolate = false\n[players.random]\nbot = "random"\n'
    config = write_config(tmp_path, players, games=2, name="always")
    _run(config, tmp_path / "always.sqlite", PoolExecutor(1, max_attempts=2))
    with ResultStore(tmp_path / "always.sqlite") as store:
        rows = store.rows()
    assert len(rows) == 2 and not any(row.ok for row in rows)
    assert all(row.error == "worker process died 2 times while playing it (killed or out of memory)" for row in rows)


def test_a_bot_file_is_isolated_by_default_so_its_death_is_its_own_loss(tmp_path: Path) -> None:
    dies_always = dying_bot(tmp_path, once=False)
    players = f'[players.dies-always]\nbot = "{dies_always}"\n[players.random]\nbot = "random"\n'
    config = write_config(tmp_path, players, games=2, name="isolated")
    _run(config, tmp_path / "isolated.sqlite", PoolExecutor(1, max_attempts=1))
    assert dies_always.with_suffix(".died").exists()  # the bot's process really was killed
    games = recorded(tmp_path / "isolated.sqlite")
    with sqlite3.connect(tmp_path / "isolated.sqlite") as connection:
        faults = dict(connection.execute("SELECT key, faults FROM games").fetchall())
    assert len(games) == 2
    for key, (ok, winner, reason, _history) in games.items():
        spec = next(spec for spec in load_config(config).schedule() if spec.key == key)
        dying_color = spec.white.label == "dies-always"
        assert ok and (winner, reason) == (not dying_color, "RESIGN")  # a played game, lost by the bot
        assert "BotProcessDied: its process was killed by SIGKILL" in faults[key]


SLOW_BOT = """
import time
from blindchess.bots.random_bot import RandomBot

class SlowBot(RandomBot):
    def choose_move(self, move_actions, seconds_left):
        time.sleep(0.03)
        return super().choose_move(move_actions, seconds_left)
"""


def test_an_interrupted_run_resumes_and_records_every_game_once(tmp_path: Path) -> None:
    slow = tmp_path / "slow_bot.py"
    slow.write_text(SLOW_BOT)
    config = write_config(tmp_path, f'[players.slow]\nbot = "{slow}"\n[players.random]\nbot = "random"\n', games=8, turn_limit=30)
    db = tmp_path / "run.sqlite"
    command = [sys.executable, "-m", "blindchess", "tournament", str(config), "--db", str(db), "--workers", "2", "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if db.exists() and len(recorded(db)) >= 2:
            process.send_signal(signal.SIGINT)  # Ctrl-C with games in flight
            break
        time.sleep(0.05)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "the same command resumes the run" in stderr
    partial = recorded(db)
    assert 2 <= len(partial) < 8
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{8 - len(partial)} games played (0 failed), {len(partial)} recorded earlier" in resumed.stderr
    final = recorded(db)
    assert sorted(final) == sorted(spec.key for spec in load_config(config).schedule())
    assert all(final[key] == partial[key] for key in partial)  # nothing recorded was touched
    assert all(ok and history for ok, _, _, history in final.values())
    assert "slow" in resumed.stdout and "random" in resumed.stdout  # the standings table


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err  # one clear line
    line: str = lines[0]
    return line


def test_bad_input_gets_one_clear_line_and_loses_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = write_config(tmp_path, DETERMINISTIC_PLAYERS.split("[players.trout]")[0], games=2, name="good")
    db = tmp_path / "kept.sqlite"
    assert main(["tournament", str(good), "--db", str(db), "--workers", "1", "--no-progress"]) == 0
    capsys.readouterr()
    before = recorded(db)
    assert len(before) == 2

    unknown = write_config(tmp_path, '[players.random]\nbot = "random"\n[players.attacker]\nbot = "atacker"\n', name="unknown")
    line = _error(capsys, "tournament", str(unknown), "--db", str(db))
    assert "'atacker'" in line and "did you mean 'attacker'?" in line

    typo = write_config(tmp_path, DETERMINISTIC_PLAYERS, extra="gams_per_pairing = 4", name="typo")
    line = _error(capsys, "tournament", str(typo), "--db", str(db))
    assert "unknown key 'gams_per_pairing' in [tournament] (did you mean 'games_per_pairing'?)" in line

    players = '[players.random]\nbot = "random"\n[players.t]\nbot = "trout"\nsettings = { limt = 1 }\n'
    setting = write_config(tmp_path, players, name="setting")
    line = _error(capsys, "tournament", str(setting), "--db", str(db))
    assert "has no setting 'limt' (did you mean 'limit'?)" in line

    itself = write_config(tmp_path, '[players.a]\nbot = "random"\n[players.b]\nbot = "random"\n', name="itself")
    line = _error(capsys, "tournament", str(itself), "--db", str(db))
    assert "'a' and 'b' are the same bot ('random') with the same settings: a pairing of a bot with itself" in line
    line = _error(capsys, "sprt", "attacker", "attacker")
    assert "a pairing of a bot with itself" in line

    line = _error(capsys, "tournament", str(good), "--db", str(db), "--executor", "ray", "--address", "127.0.0.1:1")
    assert "no Ray cluster at '127.0.0.1:1'" in line

    changed = write_config(tmp_path, DETERMINISTIC_PLAYERS.split("[players.trout]")[0], games=2, turn_limit=25, name="changed")
    line = _error(capsys, "tournament", str(changed), "--db", str(db), "--workers", "1")
    assert "already holds game" in line and "other settings" in line

    assert recorded(db) == before  # nothing recorded was lost or changed


def test_match_plays_a_variant_alike_in_this_process_and_in_workers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    histories = {}
    for workers in ("1", "2"):
        out = tmp_path / workers
        argv = ["match", "random", "attacker", "--games", "2", "--seed", "3", "--variant", "teaching-4x4", "--workers", workers]
        assert main([*argv, "--out", str(out)]) == 0
        assert "[2/2]" in capsys.readouterr().err
        histories[workers] = [path.read_text() for path in sorted(out.glob("*.json"))]
    assert len(histories["1"]) == 2 and histories["1"] == histories["2"]
    assert "8/8/8/8/kr6/p7/3P4/2RK4 w - - 0 1" in histories["1"][0]  # the 4x4 teaching board, as python-chess writes it


def test_sprt_of_a_stronger_bot_accepts_h1_and_prints_the_llr_as_it_goes(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        # elo1 100: attacker is hundreds of Elo stronger, and the LLR_alt2 form gains a bounded amount per pair
        # (about 0.03 at elo1 10 for a pair won twice), so a narrow elo1 would need over a hundred pairs.
        ["sprt", "attacker", "random", "--elo0", "0", "--elo1", "100", "--full-turn-limit", "30", "--workers", "1", "--max-pairs", "40"]
    )
    captured = capsys.readouterr()
    llrs = [float(line.split("LLR")[1]) for line in captured.err.splitlines() if "LLR" in line]
    assert code == 0 and captured.out.startswith("H1 accepted: attacker vs random after")
    assert len(llrs) >= 2 and llrs[-1] >= 2.944 and all(llr < 2.944 for llr in llrs[:-1])  # stops at the first crossing
    score = float(captured.out.split("A's score ")[1].split()[0])
    low, high = (float(bound) for bound in captured.out.split("interval over pairs ")[1].split(")")[0].split("-"))
    assert 0.5 < low <= score <= high <= 1.0


def test_sprt_with_a_db_records_every_game_resumes_where_it_stopped_and_reports_without_playing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "sprt.sqlite"
    argv = ["sprt", "attacker", "random", "--elo0", "0", "--elo1", "5", "--full-turn-limit", "12", "--workers", "1", "--db", str(db)]
    assert main([*argv, "--max-pairs", "2"]) == 3  # undecided at the limit
    first = capsys.readouterr()
    with ResultStore(db) as store:
        assert sorted(row.key for row in store.rows()) == [f"A vs B#{p}.{g}" for p in (0, 1) for g in (0, 1)]
        histories = {row.key: store.history(row.key) for row in store.rows()}
    assert main([*argv, "--max-pairs", "3"]) == 3
    second = capsys.readouterr()
    assert "4 games recorded" in second.err and "after 3 pairs (6 games)" in second.out
    assert second.err.splitlines()[2:4] == [line for line in first.err.splitlines() if "LLR" in line]  # the same pairs, first
    with ResultStore(db) as store:
        assert store.count() == 6
        assert all(store.history(key) == history for key, history in histories.items())  # recorded games were not replayed
    assert "other code" not in second.err  # this code played every game
    with sqlite3.connect(db) as connection:  # as if another version of the code had played pair 0
        connection.execute("UPDATE games SET code = 'a1b2c3d4e5f6' WHERE pair = 0")
    assert main([*argv, "--max-pairs", "5", "--report-only"]) == 3  # plays nothing: the verdict of what the file holds
    report = capsys.readouterr()
    assert f"note: {db}: 2 of the 6 games were played by other code than this run's: 2 by a1b2c3d4e5f6" in report.err
    assert "after 3 pairs (6 games)" in report.out and "report only: 4 of the 10 games not played" in report.out
    assert [line for line in report.err.splitlines() if "LLR" in line] == [line for line in second.err.splitlines() if "LLR" in line]
    with ResultStore(db) as store:
        assert store.count() == 6
    missing = tmp_path / "none.sqlite"
    assert main([*argv[:-1], str(missing), "--report-only"]) == 2 and not missing.exists()  # no file made to report on
    assert f"no file {missing}" in capsys.readouterr().err
    assert main([*argv[:-2], "--full-turn-limit", "13", "--db", str(db), "--max-pairs", "3"]) == 2  # other settings, same games
    assert str(db) in capsys.readouterr().err


def test_match_reports_the_share_of_its_clock_each_bot_used(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A bot that sleeps 0.25 s a move uses a measurable share of a 10 s clock; random almost none."""
    bot = tmp_path / "sleepy.py"
    bot.write_text(SLOW_BOT.replace("0.03", "0.25"))
    argv = ["match", str(bot), "random", "--games", "2", "--seconds", "10", "--increment", "0", "--full-turn-limit", "4"]
    assert main([*argv, "--no-isolate", "--out", str(tmp_path / "games")]) == 0
    captured = capsys.readouterr()
    assert captured.err.count(" clock used ") == 2  # on each progress line
    shares = {
        line.split(":")[0].removeprefix("clock used by "): float(line.split("mean ")[1].split("%")[0])
        for line in captured.out.splitlines()
        if line.startswith("clock used by ")
    }
    assert set(shares) == {"SlowBot", "random"}  # a bot file goes by its class's name
    # 4 moves x 0.25 s of 10 s, at most 4 turns of it each; random's few milliseconds a turn (0.1% idle)
    # stay under 5% (0.5 s) on a loaded machine, well apart from the sleeper's 10%.
    assert 4 <= shares["SlowBot"] <= 30 and shares["random"] < 5


def test_sprt_keeps_each_bots_clock_share_in_the_db_and_adds_the_columns_to_an_older_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The shares survive a resume, and a file written before the clock columns takes them (its old rows NULL)."""
    db = tmp_path / "older.sqlite"
    with ResultStore(db):
        pass
    with sqlite3.connect(db) as connection:  # the file as written before the columns were added
        connection.execute("ALTER TABLE games DROP COLUMN white_clock")
        connection.execute("ALTER TABLE games DROP COLUMN black_clock")
    bot = tmp_path / "sleepy.py"
    bot.write_text(SLOW_BOT.replace("0.03", "0.25"))
    argv = ["sprt", str(bot), "random", "--seconds", "10", "--increment", "0", "--full-turn-limit", "4", "--workers", "1"]
    assert main([*argv, "--max-pairs", "1", "--db", str(db)]) == 3
    first = [line for line in capsys.readouterr().err.splitlines() if line.startswith("clock used by ")]
    shares = {line.split(":")[0].removeprefix("clock used by "): float(line.split("mean ")[1].split("%")[0]) for line in first}
    assert set(shares) == {"A", "B"} and 4 <= shares["A"] <= 30 and shares["B"] < 5  # as in the match test above
    with ResultStore(db) as store:
        rows = store.rows()
    assert len(rows) == 2 and all(None not in row.clock_share for row in rows)
    sleepy_white = next(row for row in rows if row.white == "A")
    white_share, black_share = sleepy_white.clock_share
    assert white_share is not None and black_share is not None and white_share > black_share
    assert main([*argv, "--max-pairs", "1", "--db", str(db)]) == 3  # nothing left to play: both games read back
    assert [line for line in capsys.readouterr().err.splitlines() if line.startswith("clock used by ")] == first
