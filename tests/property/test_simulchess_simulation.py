"""simulchess random-play simulation: 300 seeded games without an arbiter error, replayable by seed.

(A game costs about 45 ms of CPU; 1,000 games once ran here and showed nothing 300 do not.)
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from blindchess.cli import main
from blindchess.variants.simulchess import SimulchessError, SimulGame, play_simulchess_match
from blindchess.variants.simulchess.players import RandomSimulBot, play_simulchess_game

GAMES = 300


@pytest.mark.slow
def test_three_hundred_random_games_end_cleanly_and_keep_the_invariants() -> None:
    results = []
    for seed in range(GAMES):
        white, black = RandomSimulBot(np.random.default_rng(2 * seed)), RandomSimulBot(np.random.default_rng(2 * seed + 1))
        game = SimulGame()
        pieces = 32
        while game.result is None:
            report = game.play_turn(white.submit(game.state, chess.WHITE), black.submit(game.state, chess.BLACK))
            board = game.state.board
            assert set(game.state.ids) == set(board.piece_map())  # every piece keeps exactly one identity
            assert len(set(game.state.ids.values())) == len(game.state.ids)
            assert len(board.piece_map()) == pieces - len(report.taken)
            pieces -= len(report.taken)
            assert all(len(board.pieces(chess.KING, color)) <= 1 for color in chess.COLORS)
        results.append(game.result)
    reasons = {result.reason for result in results}
    assert reasons <= {"king capture", "both kings", "turn limit"}
    assert "king capture" in reasons
    wins = [result.winner for result in results if result.reason == "king capture"]
    assert 0.3 < sum(1 for w in wins if w == chess.WHITE) / len(wins) < 0.7  # neither colour is favoured by a bug


def test_games_replay_exactly_by_seed() -> None:
    def replay(seed: int) -> list[tuple[chess.Move, chess.Move]]:
        game = play_simulchess_game(RandomSimulBot(np.random.default_rng(seed)), RandomSimulBot(np.random.default_rng(seed + 1)))
        return [report.played for report in game.reports]

    assert replay(11) == replay(11)
    assert replay(11) != replay(12)


def test_search_bot_beats_the_random_bot() -> None:
    records = play_simulchess_match("search", "random", games=10, seed=0, swap_colors=True)
    search_wins = sum(
        1 for i, record in enumerate(records) if record.result.winner == (chess.WHITE if i % 2 == 0 else chess.BLACK)
    )
    assert search_wins >= 8


def test_unknown_bot_name_is_a_clear_error() -> None:
    with pytest.raises(SimulchessError, match="'stockfish'"):
        play_simulchess_match("stockfish", "random")


def test_command_line_match_alternates_colours_and_counts_every_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulchess", "search", "random", "--games", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    games = [line for line in out if line.startswith("[")]
    assert len(games) == 4
    assert [line.split(" (white)")[0].split("] ")[1] for line in games] == ["search", "random", "search", "random"]
    wins = {line.split(":")[0]: int(line.split(": ")[1].split()[0]) for line in out if line.endswith(" wins")}
    draws = int(out[-1].split(": ")[1])
    assert set(wins) == {"search", "random"} and sum(wins.values()) + draws == 4


def test_command_line_rejects_an_unknown_bot(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulchess", "search", "nobody"])
    assert exit_info.value.code == 2 and "nobody" in capsys.readouterr().err
