"""A long match stops and resumes: every game is counted once, and the result is the uninterrupted one (issue 39).

``blindchess match`` records each finished game in ``--out``'s ``results.jsonl``
(:mod:`blindchess.tournament.match_record`). The test interrupts a match of deterministic bots
with Ctrl-C while a game is in flight, resumes it, and compares with the same match played
without a stop: the same games, with the same results (so the game in flight was replayed from
its seeds), each recorded once, and ``blindchess match-report`` counts them right.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blindchess.cli import main
from blindchess.tournament.match_record import GameLine, read_all

from .test_runner import SLOW_BOT

GAMES = 6


def _command(bot: Path, out: Path) -> list[str]:
    return [
        sys.executable, "-m", "blindchess", "match", str(bot), "attacker", "--games", str(GAMES), "--seconds", "60",
        "--seed", "7", "--full-turn-limit", "25", "--out", str(out),
    ]  # fmt: skip


def _outcome(line: GameLine) -> tuple[int, str, str, int, int, str | None, str | None, int]:
    return (line.game, line.white, line.black, line.white_seed, line.black_seed, line.winner, line.reason, line.turns)


def test_an_interrupted_match_resumes_to_the_uninterrupted_result(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bot = tmp_path / "slow_bot.py"
    bot.write_text(SLOW_BOT)
    stopped, whole = tmp_path / "stopped", tmp_path / "whole"
    process = subprocess.Popen(_command(bot, stopped), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if len(read_all(stopped)) >= 2:
            process.send_signal(signal.SIGINT)  # Ctrl-C with the third game in flight
            break
        time.sleep(0.05)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    partial = read_all(stopped)
    assert 2 <= len(partial) < GAMES
    resumed = subprocess.run([*_command(bot, stopped), "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr.count("(saved earlier)") == len(partial)
    lines = read_all(stopped)
    assert sorted(line.game for line in lines) == list(range(1, GAMES + 1))  # each game once
    assert lines[: len(partial)] == partial  # nothing recorded was touched
    assert len(list(stopped.glob("*-vs-*.json"))) == GAMES  # one history per game: the one in flight left none
    subprocess.run(_command(bot, whole), capture_output=True, text=True, timeout=300, check=True)
    assert sorted(map(_outcome, lines)) == sorted(map(_outcome, read_all(whole)))
    assert main(["match-report", str(stopped)]) == 0
    report = capsys.readouterr().out
    label = "SlowBot"  # the first bot's label: a .py bot goes by its class
    wins = sum(line.score_of(label) == 1.0 for line in lines)
    losses = sum(line.score_of(label) == 0.0 for line in lines)
    assert losses > 0
    assert f"{label} vs attacker: {wins} - {losses} - {GAMES - wins - losses} (wins - losses - draws) over {GAMES} games" in report
    assert report.count("-vs-") == losses  # each loss listed with its record
    assert f"clock used by {label}" in report and "clock used by attacker" in report


def test_a_resume_with_other_settings_counts_none_of_the_games(tmp_path: Path) -> None:
    command = ["match", "random", "attacker", "--games", "2", "--seconds", "60", "--seed", "1", "--full-turn-limit", "10"]
    assert main([*command, "--out", str(tmp_path)]) == 0
    assert main([*command, "--out", str(tmp_path), "--resume", "--increment", "1"]) == 0  # another clock: another match
    lines = read_all(tmp_path)
    assert len(lines) == 4 and len({line.match for line in lines}) == 2
    matches = [json.loads(text) for text in (tmp_path / "matches.jsonl").read_text().splitlines()]
    expected = {line.match: clock for line, clock in zip(lines[::2], ("60+5", "60+1"), strict=True)}  # each run's first line
    assert {match["match"]: match["clock"] for match in matches} == expected


def test_match_report_of_a_folder_without_results_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["match-report", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "holds no results.jsonl" in error and error.count("\n") == 1


def test_a_resume_and_the_report_note_the_games_other_code_played(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Each line keeps its code's digest; a line of other code (or of none, from before) is counted, and said so."""
    command = ["match", "random", "attacker", "--games", "2", "--seconds", "60", "--seed", "1", "--full-turn-limit", "10"]
    command += ["--out", str(tmp_path)]
    assert main(command) == 0
    assert "other code" not in capsys.readouterr().err
    results = tmp_path / "results.jsonl"
    lines = [json.loads(text) for text in results.read_text().splitlines()]
    assert lines[0]["code"] == lines[1]["code"] is not None
    lines[0]["code"] = "older"
    del lines[1]["code"]  # as written before the digest was kept
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main([*command[:4], "3", *command[5:], "--resume"]) == 0
    note = f"note: {tmp_path}: 2 of the 2 games were played by other code than this run's: 1 by older, 1 before the code was recorded"
    assert note in capsys.readouterr().err
    assert main(["match-report", str(tmp_path)]) == 0
    assert note.replace("2 of the 2", "2 of the 3") in capsys.readouterr().out
