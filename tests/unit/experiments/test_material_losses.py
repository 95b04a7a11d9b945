"""experiments/material_losses.py: net material losses in a scripted game, classified."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from blindchess.arbiter import LocalGame
from blindchess.arbiter.game.history import GameHistory
from blindchess.experiments.material_losses import Loss, main, material_losses

# (sense, requested move): White's queen steps into a bishop's line it saw (lost); a knight is traded
# for the bishop (no loss); Black's queen stands where a knight arrives unseen (lost for the knight:
# net 6); White's rook asks for g1-g7, stops on g6 taking a pawn and is taken (net 4).
SCRIPT = [
    (None, "e2e4"), (None, "d7d5"), (chess.C7, "d1g4"), (None, "c8g4"), (None, "g1f3"), (None, "g4f3"),
    (None, "g2f3"), (None, "d8d6"), (None, "b1c3"), (None, "h7h6"), (None, "c3b5"), (None, "g7g6"),
    (None, "b5d6"), (None, "c7d6"), (None, "h1g1"), (None, "a7a6"), (None, "g1g7"), (None, "f7g6"),
    (None, "a2a3"),
]  # fmt: skip


def scripted_history() -> GameHistory:
    game = LocalGame(seconds_per_player=None)
    game.store_players("Ann", "Bob")
    game.start()
    for square, uci in SCRIPT:
        game.sense(square)
        game.move(chess.Move.from_uci(uci))
        game.end_turn()
    game.resign()
    game.end()
    history = game.get_game_history()
    assert history is not None
    return history


def test_losses_are_net_of_the_exchange_and_classified() -> None:
    history = scripted_history()
    assert material_losses(history) == [
        Loss(3, chess.WHITE, chess.QUEEN, chess.G4, 9, "moved in", True),
        Loss(12, chess.BLACK, chess.QUEEN, chess.D6, 6, "stood", False),
        Loss(17, chess.WHITE, chess.ROOK, chess.G6, 4, "slide cut short", False),
    ]
    assert [loss.net for loss in material_losses(history, threshold=5)] == [9, 6]
    traded = material_losses(history, threshold=0)
    assert any(loss.half_turn == 5 and loss.piece == chess.KNIGHT and loss.net == 0 for loss in traded)


def test_the_command_tables_losses_per_player(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    scripted_history().save(str(path))
    assert main([str(path), str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in lines if line.startswith(("| Ann", "| Bob"))}
    assert rows["Ann"][1:5] == ["2", "2.00", "13.00", "2"]  # two games: queen and rook lost in each
    assert rows["Bob"][1:5] == ["2", "1.00", "6.00", "2"]


def test_the_command_names_a_missing_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--db", str(tmp_path / "none.sqlite")])
    assert "no database at" in capsys.readouterr().err
