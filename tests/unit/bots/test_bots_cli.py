"""The match, replay and playback commands, run through `blindchess.cli.main` on real games."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import chess
import numpy as np
import pytest
import reconchess

from blindchess.arbiter import GameHistory, WinReason
from blindchess.arbiter.game.results import unique_history_path
from blindchess.cli import main
from blindchess.tournament.stats import MatchScore

CRASHING_BOT = """
from blindchess.bots.random_bot import RandomBot

class CrashingBot(RandomBot):
    '''Plays randomly, then divides by zero in its third choose_move.'''

    moves_chosen = 0

    def choose_move(self, move_actions, seconds_left):
        self.moves_chosen += 1
        if self.moves_chosen == 3:
            return 1 // 0
        return super().choose_move(move_actions, seconds_left)
"""


def _table_rows(stdout: str) -> dict[str, list[int]]:
    """Each bot's row of the summary: games, wins, as white, as black, losses, draws (its clock aside)."""
    rows = {}
    for line in stdout.splitlines():
        fields = line.split()
        if len(fields) == 8 and fields[1].isdigit():
            rows[fields[0]] = [int(value) for value in fields[1:7]]
    return rows


def _reason_name(history: GameHistory) -> str:
    reason = history.get_win_reason()
    assert reason is not None, "the game is over"
    return reason.name


def _match(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[int, str, str, list[Path]]:
    out = tmp_path / "games"
    code = main(["match", *argv, "--out", str(out)])
    captured = capsys.readouterr()
    files = sorted(out.glob("*.json")) if out.exists() else []
    return code, captured.out, captured.err, files


def test_match_saves_every_game_and_its_table_matches_the_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, stdout, stderr, files = _match(capsys, tmp_path, "random", "attacker", "--games", "4", "--seed", "3")
    assert code == 0
    assert len(files) == 4 and len({file.name for file in files}) == 4
    assert stderr.count("[") >= 4 and "[4/4]" in stderr  # progress, one line per game
    histories = [GameHistory.from_file(str(file)) for file in files]  # names sort in game order
    wins = {"random": [0, 0], "attacker": [0, 0]}  # [as white, as black]
    draws = 0
    for index, history in enumerate(histories):
        white, black = ("random", "attacker") if index % 2 == 0 else ("attacker", "random")  # colours alternate
        assert f"-{index + 1:03d}-{white}-vs-{black}" in files[index].name
        winner = history.get_winner_color()
        if winner is None:
            draws += 1
        else:
            wins[white if winner else black][0 if winner else 1] += 1
    rows = _table_rows(stdout)
    for bot in ("random", "attacker"):
        games, total, as_white, as_black, losses, bot_draws = rows[bot]
        assert (games, as_white, as_black, bot_draws) == (4, wins[bot][0], wins[bot][1], draws)
        assert total == sum(wins[bot]) and losses == 4 - total - draws
    reasons = {_reason_name(history) for history in histories}
    assert all(re.search(rf"^{reason}\s+\d+$", stdout, re.M) for reason in reasons)
    mean_turns = np.mean([history.num_turns() for history in histories])
    assert f"mean game length: {mean_turns:.1f} turns" in stdout


def test_match_reports_the_score_elo_difference_and_los_as_cutechess_does(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, stdout, _stderr, _files = _match(capsys, tmp_path, "random", "attacker", "--games", "4", "--seed", "3")
    assert code == 0
    _, wins, _, _, losses, draws = _table_rows(stdout)["random"]
    score = MatchScore(wins, draws, losses)  # from the first bot's side
    low, high = score.elo_interval
    lines = stdout.splitlines()
    assert lines[0] == f"Score of random vs attacker: {wins} - {losses} - {draws} (wins - losses - draws)  [{score.fraction:.3f}] 4 games"
    assert lines[1] == (f"Elo difference: {score.elo:+.1f} (95% interval {low:+.1f} to {high:+.1f}),"
                        f" LOS: {score.los:.1%}, draw ratio: {score.draw_ratio:.1%}")


SLEEPY_BOT = """
import time
from blindchess.bots.random_bot import RandomBot

class SleepyBot(RandomBot):
    # Takes 0.3 s over every move: more than a 0.2 s clock allows, a trifle on a 30 s one.

    def choose_move(self, move_actions, seconds_left):
        time.sleep(0.3)
        return super().choose_move(move_actions, seconds_left)
"""


def test_each_bot_plays_on_its_own_clock_and_the_histories_stay_reconchess_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--tc-second 0.2`` against ``--tc-first 30``: the second bot loses on time in both colours, the first never."""
    bot = tmp_path / "sleepy.py"
    bot.write_text(textwrap.dedent(SLEEPY_BOT))
    code, stdout, _stderr, files = _match(capsys, tmp_path, str(bot), str(bot), "--games", "2", "--seed", "1", "--no-isolate",
                                          "--tc-first", "30", "--tc-second", "0.2+0")  # fmt: skip
    assert code == 0 and len(files) == 2
    for index, file in enumerate(files):  # game 1: the first bot is White; game 2: Black
        history = reconchess.GameHistory.from_file(str(file))  # reconchess reads them as its own
        assert history.get_win_reason() == reconchess.WinReason.TIMEOUT
        assert history.get_winner_color() == (chess.WHITE if index == 0 else chess.BLACK)
    assert re.search(r"^\S+ \(1\)(\s+\d+){6}\s+30\+0$", stdout, re.M), stdout
    assert re.search(r"^\S+ \(2\)(\s+\d+){6}\s+0\.2\+0$", stdout, re.M), stdout


def test_a_bad_time_control_is_refused_before_any_game(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _match(capsys, tmp_path, "random", "random", "--tc-first", "1:00")
    assert exit_info.value.code == 2
    assert "argument --tc-first: a time control is SECONDS[+INCREMENT] such as 60+2, got '1:00'" in capsys.readouterr().err


def test_match_is_reproducible_by_seed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    first = _match(capsys, tmp_path / "a", "random", "random", "--games", "2", "--seed", "11")
    second = _match(capsys, tmp_path / "b", "random", "random", "--games", "2", "--seed", "11")
    assert [file.read_bytes() for file in first[3]] == [file.read_bytes() for file in second[3]]
    assert "random (1)" in first[1] and "random (2)" in first[1]


def test_resumed_match_plays_only_the_missing_games_and_counts_them_all(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    full = _match(capsys, tmp_path / "full", "random", "attacker", "--games", "3", "--seed", "7")
    _match(capsys, tmp_path / "part", "random", "attacker", "--games", "2", "--seed", "7")
    code, stdout, stderr, files = _match(capsys, tmp_path / "part", "random", "attacker", "--games", "3", "--seed", "7", "--resume")
    assert code == 0 and len(files) == 3
    assert stderr.count("(saved earlier)") == 2 and "[3/3]" in stderr
    assert files[2].read_bytes() == full[3][2].read_bytes()  # the seeds a full run gives game 3
    assert _table_rows(stdout) == _table_rows(full[1])  # the summary counts all three games
    assert "over the 1 game played in this run" in stdout


def test_resume_replays_a_game_whose_saved_history_is_corrupt(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _match(capsys, tmp_path, "random", "random", "--games", "2", "--seed", "9")
    first = sorted((tmp_path / "games").glob("*-001-*.json"))[0]
    intact = first.read_bytes()
    first.write_text('{"type": "GameHistory", "sen')
    code, _stdout, stderr, files = _match(capsys, tmp_path, "random", "random", "--games", "2", "--seed", "9", "--resume")
    assert code == 0
    assert f"cannot use {first}" in stderr and "playing that game again" in stderr
    assert stderr.count("(saved earlier)") == 1
    replayed = [file for file in files if "-001-" in file.name and file != first]
    assert len(replayed) == 1 and replayed[0].read_bytes() == intact


def test_match_accepts_files_and_reconchess_modules_and_records_a_crash(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bot_file = tmp_path / "crashing_bot.py"
    bot_file.write_text(textwrap.dedent(CRASHING_BOT))
    code, stdout, _stderr, files = _match(capsys, tmp_path, str(bot_file), "reconchess.bots.random_bot", "--games", "1", "--seed", "5")
    assert code == 0 and len(files) == 1
    history = GameHistory.from_file(str(files[0]))
    assert history.get_white_player_name() == "CrashingBot" and history.get_black_player_name() == "RandomBot"
    assert history.get_winner_color() == chess.BLACK and _reason_name(history) == "RESIGN"
    assert _table_rows(stdout)["CrashingBot"][4] == 1  # one loss


def test_a_bot_file_goes_by_one_name_in_the_table_the_progress_and_the_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Was: ``my_bot.py`` in the table and the progress lines, ``MyBot`` in the history file names."""
    bot_file = tmp_path / "my_bot.py"
    bot_file.write_text("from blindchess.bots.random_bot import RandomBot\n\nclass MyBot(RandomBot):\n    pass\n")
    code, stdout, stderr, files = _match(capsys, tmp_path, str(bot_file), "random", "--games", "2", "--seed", "1", "--no-isolate")
    assert code == 0 and len(files) == 2
    assert set(_table_rows(stdout)) == {"MyBot", "random"} and stdout.startswith("Score of MyBot vs random:")
    assert "[1/2] MyBot (white) vs random (black)" in stderr and "my_bot.py" not in stderr
    assert "-001-MyBot-vs-random" in files[0].name and GameHistory.from_file(str(files[0])).get_white_player_name() == "MyBot"


def test_match_names_an_unknown_bot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _stdout, stderr, files = _match(capsys, tmp_path, "random", "no_such_bot", "--games", "1")
    assert code == 2 and "'no_such_bot'" in stderr and "registered bot names" in stderr and files == []


def test_history_file_names_never_collide(tmp_path: Path) -> None:
    first = unique_history_path(tmp_path, "same-stem")
    second = unique_history_path(tmp_path, "same-stem")
    assert first != second and first.exists() and second.exists()


def test_replay_prints_every_turn_and_the_result(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, _, _, files = _match(capsys, tmp_path, "attacker", "random", "--games", "1", "--seed", "2")
    history = GameHistory.from_file(str(files[0]))
    assert main(["replay", str(files[0]), "--all"]) == 0
    stdout = capsys.readouterr().out
    assert stdout.count("== Turn(") == history.num_turns()
    assert f"== Turn(white, 0): {history.get_white_player_name()}" in stdout  # numbered as the arbiter names turns
    last = history.last_turn()
    requested, taken, _ = history.move_result(last)
    assert f"requested {requested.uci() if requested else 'pass'}, taken {taken.uci() if taken else 'pass'}" in stdout
    winner = history.get_winner_color()
    assert winner is not None
    name = history.get_white_player_name() if winner else history.get_black_player_name()
    reason = _reason_name(history).lower().replace("_", " ")
    assert stdout.rstrip().endswith(f"result: {chess.COLOR_NAMES[winner]} ({name}) won by {reason}")
    assert main(["replay", str(files[0]), "--all", "--color", "black"]) == 0
    assert capsys.readouterr().out.count("== Turn(") == history.num_turns(chess.BLACK)


def test_playback_reproduces_a_game_and_a_crash(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bot_file = tmp_path / "crashing_playback_bot.py"
    bot_file.write_text(textwrap.dedent(CRASHING_BOT))
    _, _, stderr, files = _match(capsys, tmp_path, "random", str(bot_file), "--games", "1", "--seed", "8")
    seeds = re.search(r"seeds (\d+)/(\d+)", stderr)
    assert seeds is not None, stderr
    white_seed, black_seed = seeds.groups()
    # The random bot, given its seed again, makes exactly its recorded choices.
    assert main(["playback", str(files[0]), "random", "white", "--seed", white_seed]) == 0
    assert "0 senses and 0 moves differ" in capsys.readouterr().out
    # The crashing bot crashes again, on the same turn, and the report says where.
    assert main(["playback", str(files[0]), str(bot_file), "black", "--seed", black_seed]) == 1
    stdout = capsys.readouterr().out
    assert "CrashingBot: exception in choose_move on Turn(black, 2)" in stdout
    assert "ZeroDivisionError" in stdout
    # replay numbers turns as playback names them (was: `== turn 3, black` for playback's Turn(black, 2))
    assert main(["replay", str(files[0]), "--all"]) == 0
    replayed = capsys.readouterr().out
    assert "== Turn(black, 2): CrashingBot" in replayed and "== turn 3" not in replayed


def test_match_without_stockfish_says_what_it_tried(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import blindchess.evaluation.stockfish as engine_module

    monkeypatch.setattr(engine_module, "FALLBACK_STOCKFISH_PATH", str(tmp_path / "nowhere" / "stockfish"))
    monkeypatch.setenv("STOCKFISH_EXECUTABLE", str(tmp_path / "not-stockfish"))
    monkeypatch.setenv("PATH", str(tmp_path))
    code, _stdout, stderr, files = _match(capsys, tmp_path, "trout", "random")
    assert code == 2 and files == []
    assert "cannot construct TroutBot: EngineNotFoundError" in stderr
    assert "not-stockfish" in stderr and "'stockfish' on PATH" in stderr and "nowhere/stockfish" in stderr


EARLY_CRASH_BOT = """
from blindchess.bots.random_bot import RandomBot

class EarlyCrashBot(RandomBot):
    '''Crashes in its very first {callback}.'''

    def {callback}(self, *args):
        raise RuntimeError("first turn")
"""


@pytest.mark.parametrize("callback", ["handle_game_start", "choose_sense", "choose_move", "handle_move_result"])
@pytest.mark.parametrize("color", ["white", "black"])
def test_replay_and_playback_show_a_game_that_ended_on_the_first_turn(
    callback: str, color: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """These games (a bot crashing before or during its first move) made replay and playback raise
    ``ValueError: Turn(white, 0) did not happen in this game.``"""
    bot_file = tmp_path / "early_crash_bot.py"
    bot_file.write_text(textwrap.dedent(EARLY_CRASH_BOT.format(callback=callback)))
    bots = [str(bot_file), "random"] if color == "white" else ["random", str(bot_file)]
    _, _, _, files = _match(capsys, tmp_path, *bots, "--games", "1", "--seed", "3")
    history = GameHistory.from_file(str(files[0]))
    crashed = chess.WHITE if color == "white" else chess.BLACK
    assert (history.get_winner_color(), _reason_name(history)) == (not crashed, "RESIGN")
    assert main(["replay", str(files[0]), "--all"]) == 0
    stdout = capsys.readouterr().out
    assert stdout.count("== Turn(") == history.num_turns()
    assert ("the game ended before this move" in stdout) == (callback == "choose_move")
    last_line = stdout.rstrip().splitlines()[-1]
    assert last_line.startswith(f"result: {chess.COLOR_NAMES[not crashed]} (") and "resignation" in last_line
    assert main(["playback", str(files[0]), str(bot_file), color]) == 1  # it crashes again, and says where
    stdout = capsys.readouterr().out
    assert f"EarlyCrashBot: exception in {callback}" in stdout and "RuntimeError: first turn" in stdout
    other = "black" if color == "white" else "white"
    assert main(["playback", str(files[0]), "random", other]) == 0
    assert " turns fed" in capsys.readouterr().out


SLOW_BOT = """
import time
from blindchess.bots.random_bot import RandomBot

class SlowBot(RandomBot):
    def choose_move(self, move_actions, seconds_left):
        time.sleep(0.05)
        return super().choose_move(move_actions, seconds_left)
"""


@pytest.mark.parametrize("workers", ["2"])
def test_ctrl_c_stops_a_match_without_counting_the_interrupted_game_and_resume_plays_the_rest(workers: str, tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the process group, as a terminal sends it): exit 130, no half game saved, --resume finishes.

    With worker processes; a match played in this process is interrupted and resumed in
    tests/unit/tournament/test_match_resume.py, which also holds the result equal to an uninterrupted run.
    """
    bot_file = tmp_path / "slow_bot.py"
    bot_file.write_text(SLOW_BOT)
    out = tmp_path / "games"
    command = [sys.executable, "-m", "blindchess", "match", str(bot_file), "random", "--games", "12", "--seed", "4",
               "--full-turn-limit", "30", "--workers", workers, "--out", str(out)]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if len(list(out.glob("*.json"))) >= 1:
            time.sleep(0.3)  # into the next game, most likely inside the slow bot's choose_move
            os.killpg(process.pid, signal.SIGINT)  # the whole group, workers too, as the terminal does
            break
        time.sleep(0.02)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "--resume plays the rest" in stderr
    saved = sorted(out.glob("*.json"))
    assert 1 <= len(saved) < 12
    for path in saved:  # neither bot ever faults: a RESIGN would be a game the Ctrl-C reached, counted as a loss
        assert GameHistory.from_file(str(path)).get_win_reason() is not WinReason.RESIGN
    assert _table_rows(stdout)["SlowBot"][0] == len(saved)  # the summary counts the saved games only
    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr.count("(saved earlier)") == len(saved)
    assert len(list(out.glob("*.json"))) == 12
