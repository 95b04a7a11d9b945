"""The worked example end to end and a trained policy as a bot (issue 31, acceptances 3 and 5).

A tiny PPO run (two updates of a few hundred steps) trains, saves, plots and evaluates through
the script's own `main`; the shipped policies load as `PolicyBot` by the registered name
``policy`` and from a bot file, and play ``blindchess match`` against trout (8x8) and random
(the 4x4 teaching board).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from blindchess.arbiter import GameHistory
from blindchess.cli import main
from blindchess.env.policy import PolicyFileError
from blindchess.env.policy_bot import MODELS, PolicyBot
from blindchess.experiments import train_policy
from blindchess.variants.teaching import TEACHING_4X4


def test_a_tiny_training_run_trains_saves_plots_and_evaluates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    weights, plot = tmp_path / "policy.pt", tmp_path / "curve.png"
    argv = ["--updates", "2", "--steps", "96", "--envs", "4", "--epochs", "1", "--minibatch", "48", "--hidden", "16",
            "--out", str(weights), "--plot", str(plot), "--eval-games", "2", "--seed", "3"]  # fmt: skip
    threads = torch.get_num_threads()
    try:
        assert train_policy.main(argv) == 0
    finally:
        torch.set_num_threads(threads)  # the script sets one thread; the rest of this process keeps its own
    out = capsys.readouterr().out
    assert "trained 2 updates" in out and "saved policy vs random, 2 games" in out
    assert plot.stat().st_size > 0
    bot = PolicyBot(TEACHING_4X4, weights)
    assert bot.net.hidden == 16


def test_a_tiny_training_run_on_the_batched_environment(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    weights = tmp_path / "policy.pt"
    argv = ["--variant", "rbc", "--batched", "--updates", "2", "--steps", "128", "--envs", "16", "--epochs", "1",
            "--minibatch", "64", "--hidden", "16", "--turn-limit", "4", "--out", str(weights), "--eval-games", "2",
            "--seed", "3"]  # fmt: skip
    threads = torch.get_num_threads()
    try:
        assert train_policy.main(argv) == 0
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    assert "trained 2 updates, 256 learner steps" in out and "saved policy vs random, 2 games" in out
    assert PolicyBot(weights=weights).net.hidden == 16


def test_a_policy_file_of_another_board_is_refused() -> None:
    with pytest.raises(PolicyFileError, match="a policy for 'teaching-4x4', not 'rbc'"):
        PolicyBot(weights=MODELS / "teaching-4x4.pt")


def _match(tmp_path: Path, *argv: str) -> list[GameHistory]:
    out = tmp_path / "games"
    assert main(["match", *argv, "--out", str(out), "--seed", "2", "--seconds", "60"]) == 0
    return [GameHistory.from_file(str(path)) for path in sorted(out.glob("*.json"))]


def test_the_shipped_policy_plays_a_match_against_trout_by_name(tmp_path: Path) -> None:
    (history,) = _match(tmp_path, "policy", "trout", "--games", "1", "--full-turn-limit", "4")
    assert history.get_white_player_name() == "PolicyBot" and history.get_win_reason() is not None


def test_a_policy_file_plays_as_a_bot_file(tmp_path: Path) -> None:
    bot_file = tmp_path / "my_policy.py"
    weights = MODELS / "teaching-4x4.pt"
    bot_file.write_text(f"from blindchess.env.policy_bot import policy_bot_class\nMyPolicy = policy_bot_class({str(weights)!r})\n")
    histories = _match(tmp_path, str(bot_file), "random", "--variant", "teaching-4x4", "--games", "2", "--no-isolate")
    assert len(histories) == 2
    assert {history.get_white_player_name() for history in histories} == {"PolicyBot_teaching-4x4", "RandomBot"}
