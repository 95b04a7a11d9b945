"""Acceptance 2: reconchess's bots play in our arbiter, ours play in reconchess's, histories round-trip.

Real reconchess 1.6.9 and real Stockfish throughout. Trout games are kept short with a full-turn
limit (reconchess's TroutBot thinks 0.5 s per move and cannot be told otherwise) or a depth limit.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import chess
import chess.engine
import pytest
import reconchess
import reconchess.bots.attacker_bot
import reconchess.bots.random_bot

from blindchess.arbiter import GameHistory, LocalGame, Player, WinReason, load_player, play_local_game
from blindchess.arbiter.game.reconchess_adapter import from_reconchess_class, to_reconchess_class
from blindchess.bots.attacker_bot import AttackerBot
from blindchess.bots.random_bot import RandomBot
from blindchess.bots.trout_bot import TroutBot
from blindchess.evaluation.stockfish import STOCKFISH_ENV_VAR, find_stockfish

FAST = chess.engine.Limit(depth=2)


def query_answers(history: Any) -> dict[str, Any]:
    """Everything the documented query API says about a history, as plain comparable values.

    `history` is either package's GameHistory: the two classes share this API but no type, hence Any.
    """
    turns = list(history.turns())
    return {
        "names": (history.get_white_player_name(), history.get_black_player_name()),
        "result": (history.get_winner_color(), None if history.get_win_reason() is None else history.get_win_reason().name),
        "counts": (history.num_turns(), history.num_turns(chess.WHITE), history.num_turns(chess.BLACK), history.is_empty()),
        "ends": tuple(str(turn) for turn in (history.first_turn(), history.last_turn())),
        "turns": [
            (
                str(turn),
                history.has_sense(turn),
                history.sense(turn),
                list(history.sense_result(turn)),
                history.has_move(turn),
                history.move_result(turn),
                history.truth_fen_before_move(turn),
                history.truth_fen_after_move(turn),
                history.truth_board_before_move(turn).fen(),
                history.truth_board_after_move(turn).fen(),
            )
            for turn in turns
        ],
    }


@pytest.fixture
def stockfish_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STOCKFISH_ENV_VAR, find_stockfish())


@pytest.mark.parametrize("module", ["reconchess.bots.random_bot", "reconchess.bots.attacker_bot"])
def test_reconchess_bots_play_full_games_in_our_arbiter(module: str) -> None:
    random.seed(7)  # reconchess's bots draw from the random module
    _, their_class = load_player(module)
    for their_color in (chess.WHITE, chess.BLACK):
        theirs, ours = their_class(), RandomBot(rng=their_color)
        white, black = (theirs, ours) if their_color == chess.WHITE else (ours, theirs)
        _winner, reason, history = play_local_game(white, black)
        assert reason in (WinReason.KING_CAPTURE, WinReason.MOVE_LIMIT)
        assert history.num_turns() > 0 and history.get_win_reason() == reason
        assert history.get_white_player_name() == type(white).__name__


def test_reconchess_trout_plays_full_games_in_our_arbiter(stockfish_env: None) -> None:
    random.seed(3)
    _, trout_class = load_player("reconchess.bots.trout_bot")
    # As White against our random bot (it wins those: about 20 of its turns at 0.5 s per move);
    # the turn limit only bounds the test's time should Stockfish's timing make it wander.
    winner, reason, history = play_local_game(trout_class(), RandomBot(rng=4), game=LocalGame(full_turn_limit=60))
    assert reason in (WinReason.KING_CAPTURE, WinReason.TURN_LIMIT)
    assert winner in (chess.WHITE, None)
    trout_moves = list(history.collect(history.requested_move, history.turns(chess.WHITE)))
    assert sum(move is not None for move in trout_moves) >= len(trout_moves) // 2  # Stockfish answered
    # As Black against our attacker's rush: a short game to its natural end.
    winner, reason, history = play_local_game(AttackerBot(rng=4), trout_class())
    assert reason == WinReason.KING_CAPTURE and history.get_black_player_name() == "TroutBot"


def test_a_reconchess_bot_is_told_the_end_in_reconchess_types() -> None:
    endings = []

    class RecordingRandom(reconchess.bots.random_bot.RandomBot):
        def handle_game_end(
            self, winner_color: Optional[chess.Color], win_reason: Optional[reconchess.WinReason],
            game_history: reconchess.GameHistory,
        ) -> None:
            endings.append((winner_color, win_reason, game_history))

    random.seed(12)
    wrapped = from_reconchess_class(RecordingRandom)
    winner, reason, history = play_local_game(wrapped(), AttackerBot(rng=12))
    [(their_winner, their_reason, their_history)] = endings
    assert their_winner == winner
    assert isinstance(their_reason, reconchess.WinReason) and reason is not None and their_reason.name == reason.name
    assert isinstance(their_history, reconchess.GameHistory)
    assert query_answers(their_history) == query_answers(history)


@pytest.mark.parametrize(
    "white_class, black_class",
    [(RandomBot, AttackerBot), (AttackerBot, RandomBot)],
)
def test_our_bots_play_in_reconchess_play_local_game(white_class: type[Player], black_class: type[Player]) -> None:
    endings = []

    class Recording(white_class):  # type: ignore[valid-type,misc]  # a parametrised base class
        def handle_game_end(
            self, winner_color: Optional[chess.Color], win_reason: Optional[WinReason], game_history: GameHistory
        ) -> None:
            endings.append((winner_color, win_reason, game_history))

    white = to_reconchess_class(Recording)(rng=1)  # type: ignore[call-arg]  # the wrapper takes our bot's arguments; type[reconchess.Player] does not say
    black = to_reconchess_class(black_class)(rng=2)  # type: ignore[call-arg]  # the wrapper takes our bot's arguments; type[reconchess.Player] does not say
    winner, reason, rc_history = reconchess.play_local_game(white, black)
    [(our_winner, our_reason, our_history)] = endings
    # The bot was told the result in our types, with the same answers reconchess gives.
    assert our_winner == winner and isinstance(our_reason, WinReason) and reason is not None and our_reason.name == reason.name
    assert isinstance(our_history, GameHistory)
    assert query_answers(our_history) == query_answers(rc_history)


def test_our_trout_plays_in_reconchess() -> None:
    white = to_reconchess_class(TroutBot)(rng=1, limit=FAST)  # type: ignore[call-arg]  # the wrapper takes our bot's arguments; type[reconchess.Player] does not say
    black = to_reconchess_class(RandomBot)(rng=2)  # type: ignore[call-arg]  # the wrapper takes our bot's arguments; type[reconchess.Player] does not say
    _winner, reason, history = reconchess.play_local_game(white, black, game=reconchess.LocalGame(full_turn_limit=40))
    assert reason in (reconchess.WinReason.KING_CAPTURE, reconchess.WinReason.TURN_LIMIT)
    assert sum(move is not None for move in history.collect(history.taken_move, history.turns(chess.WHITE))) > 0


def test_histories_round_trip_both_ways(tmp_path: Path) -> None:
    _winner, _reason, ours = play_local_game(AttackerBot(rng=5), RandomBot(rng=6))
    ours_path = tmp_path / "ours.json"
    ours.save(str(ours_path))
    theirs = reconchess.GameHistory.from_file(str(ours_path))
    assert query_answers(theirs) == query_answers(ours)
    # reconchess writes back exactly the bytes we wrote.
    again_path = tmp_path / "ours-through-reconchess.json"
    theirs.save(str(again_path))
    assert again_path.read_bytes() == ours_path.read_bytes()

    random.seed(9)
    _, _, rc_history = reconchess.play_local_game(
        reconchess.bots.attacker_bot.AttackerBot(), reconchess.bots.random_bot.RandomBot()
    )
    rc_path = tmp_path / "theirs.json"
    rc_history.save(str(rc_path))
    loaded = GameHistory.from_file(str(rc_path))
    assert query_answers(loaded) == query_answers(rc_history)
    back_path = tmp_path / "theirs-through-ours.json"
    loaded.save(str(back_path))
    assert back_path.read_bytes() == rc_path.read_bytes()


class _EngineKillingTrout(TroutBot):
    """Our trout whose Stockfish process is killed (SIGKILL) just before its `kill_on_turn`-th move."""

    kill_on_turn = 3

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.turns = 0
        self.killed_pid: Optional[int] = None
        self.moves_after_kill: list[Optional[chess.Move]] = []

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        self.turns += 1
        if self.turns == self.kill_on_turn:
            self.killed_pid = self.engine.pid
            assert self.killed_pid is not None, "trout starts its engine at the game start"
            os.kill(self.killed_pid, signal.SIGKILL)
        move = super().choose_move(move_actions, seconds_left)
        if self.killed_pid is not None:
            self.moves_after_kill.append(move)
        return move


def test_trout_restarts_a_killed_stockfish_and_plays_on() -> None:
    trout = _EngineKillingTrout(rng=8, limit=FAST)
    _winner, reason, _history = play_local_game(trout, RandomBot(rng=9), game=LocalGame(full_turn_limit=12))
    assert trout.killed_pid is not None
    assert trout.engine.restarts >= 1
    assert any(move is not None for move in trout.moves_after_kill)  # it kept asking Stockfish, and got answers
    assert reason in (WinReason.KING_CAPTURE, WinReason.TURN_LIMIT)
    assert trout.engine.pid is None  # it stopped its (new) engine at the game's end


def test_reconchess_scripts_run_our_bots(tmp_path: Path) -> None:
    # The modules behind the rc-bot-match and rc-playback commands (wherever pip put the commands).
    match = subprocess.run(
        [sys.executable, "-m", "reconchess.scripts.rc_bot_match", "blindchess.bots.rc.attacker_bot", "blindchess.bots.rc.random_bot"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert match.returncode == 0 and "Traceback" not in match.stderr, match.stderr
    [saved] = list(tmp_path.glob("AttackerBot-RandomBot-*.json"))
    assert saved.name.split("-")[2] != "ERROR"
    history = GameHistory.from_file(str(saved))
    assert history.get_win_reason() == WinReason.KING_CAPTURE
    playback = subprocess.run(
        [sys.executable, "-m", "reconchess.scripts.rc_playback", str(saved), "blindchess.bots.rc.random_bot", "black"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert playback.returncode == 0 and "Traceback" not in playback.stderr, playback.stderr
