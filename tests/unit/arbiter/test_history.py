"""GameHistory: reconchess JSON both ways (byte for byte), the query API, observations, and bad files."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any, Optional

import chess
import pytest
import reconchess

from blindchess.arbiter import (
    GameEnded,
    GameHistory,
    GameStarted,
    HistoryFormatError,
    LocalGame,
    MoveResult,
    Observation,
    OpponentMoved,
    Player,
    SenseResult,
    Turn,
    WinReason,
    play_local_game,
)

P, N, R = chess.Piece.from_symbol("P"), chess.Piece.from_symbol("N"), chess.Piece.from_symbol("R")
p, n, r = chess.Piece.from_symbol("p"), chess.Piece.from_symbol("n"), chess.Piece.from_symbol("r")


class RandomPolicy(Player, reconchess.Player):
    """Seeded random play; our Player and a reconchess.Player, so both packages' play loops run it."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def handle_game_start(self, *args: Any) -> None:
        pass

    def handle_opponent_move_result(self, *args: Any) -> None:
        pass

    def choose_sense(self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float) -> Optional[int]:
        return None if self.rng.random() < 0.1 else self.rng.choice(sense_actions)

    def handle_sense_result(self, *args: Any) -> None:
        pass

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        move = self.rng.choice(move_actions + [None])
        if move is not None and move.promotion == chess.QUEEN and self.rng.random() < 0.5:
            return chess.Move(move.from_square, move.to_square)  # a promotion requested without the piece
        return move

    def handle_move_result(self, *args: Any) -> None:
        pass

    def handle_game_end(self, *args: Any) -> None:
        pass


def answers(history: Any) -> dict[str, Any]:
    """Every query of the documented API, on either package's history (win reasons by name)."""
    reason = history.get_win_reason()
    turns = list(history.turns())
    per_turn = []
    for turn in turns + [Turn(chess.WHITE, len(turns)), Turn(chess.BLACK, -1)]:
        row: list[Any] = [str(turn), history.has_sense(turn), history.has_move(turn)]
        if history.has_sense(turn):
            row += [history.sense(turn), list(history.sense_result(turn))]
        if history.has_move(turn):
            row += [
                history.move_result(turn),
                history.truth_fen_before_move(turn),
                history.truth_fen_after_move(turn),
                history.truth_board_before_move(turn).fen(),
                history.truth_board_after_move(turn).fen(),
            ]
        per_turn.append(row)
    return {
        "names": (history.get_white_player_name(), history.get_black_player_name()),
        "result": (history.get_winner_color(), None if reason is None else reason.name),
        "counts": (history.num_turns(), history.num_turns(chess.WHITE), history.num_turns(chess.BLACK), history.is_empty()),
        "ends": [
            str(t)
            for t in (history.first_turn(), history.last_turn(), history.last_turn(chess.WHITE), history.last_turn(chess.BLACK))
        ],
        "slices": [str(t) for t in history.turns(start=1, stop=3)] + [str(t) for t in history.turns(chess.BLACK, stop=2)],
        "collected": list(history.collect(history.taken_move, history.turns(chess.WHITE))),
        "turns": per_turn,
    }


@pytest.mark.parametrize("seed", range(4))
def test_reconchess_files_load_and_save_byte_for_byte(seed: int, tmp_path: Path) -> None:
    _, _, theirs = reconchess.play_local_game(RandomPolicy(seed), RandomPolicy(seed + 100))
    theirs_path, ours_path = tmp_path / "theirs.json", tmp_path / "ours.json"
    theirs.save(str(theirs_path))
    ours = GameHistory.from_file(str(theirs_path))
    ours.save(str(ours_path))
    assert ours_path.read_bytes() == theirs_path.read_bytes()
    assert answers(ours) == answers(theirs)


@pytest.mark.parametrize("seed", range(4))
def test_our_files_load_in_reconchess_and_answer_the_same(seed: int, tmp_path: Path) -> None:
    game = LocalGame(full_turn_limit=None if seed % 2 else 30)
    _, _, ours = play_local_game(RandomPolicy(seed), RandomPolicy(seed + 100), game=game)
    ours_path, theirs_path = tmp_path / "ours.json", tmp_path / "theirs.json"
    ours.save(str(ours_path))
    theirs = reconchess.GameHistory.from_file(str(ours_path))
    theirs.save(str(theirs_path))
    assert theirs_path.read_bytes() == ours_path.read_bytes()
    assert answers(theirs) == answers(ours)
    assert GameHistory.from_json(ours.to_json()) == ours


def scripted_game(observer: Any = None) -> LocalGame[chess.Board]:
    """e4, d5, exd5 (capture), Qxd5 (capture back); White senses, then resigns."""
    game = LocalGame(seconds_per_player=None, observer=observer)
    game.store_players("Ann", "Bob")
    game.start()
    script = [(chess.A1, "e2e4"), (None, "d7d5"), (chess.D5, "e4d5"), (chess.H8, "d8d5")]
    for square, uci in script:
        game.sense(square)
        game.move(chess.Move.from_uci(uci))
        game.end_turn()
    game.sense(chess.E1)
    game.resign()
    game.end()
    return game


def test_observations_golden(tmp_path: Path) -> None:
    d5 = chess.D5
    white: list[Observation] = [
        GameStarted(chess.WHITE, chess.STARTING_FEN, "Bob"),
        OpponentMoved(None),
        SenseResult(chess.A1, ((chess.A2, P), (chess.B2, P), (chess.A1, R), (chess.B1, N))),
        MoveResult(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None),
        OpponentMoved(None),
        SenseResult(d5, ((chess.C6, None), (chess.D6, None), (chess.E6, None), (chess.C5, None), (d5, p),
                         (chess.E5, None), (chess.C4, None), (chess.D4, None), (chess.E4, P))),  # fmt: skip
        MoveResult(chess.Move.from_uci("e4d5"), chess.Move.from_uci("e4d5"), d5),
        OpponentMoved(d5),
        SenseResult(chess.E1, ((chess.D2, P), (chess.E2, None), (chess.F2, P), (chess.D1, chess.Piece.from_symbol("Q")),
                               (chess.E1, chess.Piece.from_symbol("K")), (chess.F1, chess.Piece.from_symbol("B")))),  # fmt: skip
        GameEnded(chess.BLACK, WinReason.RESIGN),
    ]
    black: list[Observation] = [
        GameStarted(chess.BLACK, chess.STARTING_FEN, "Ann"),
        OpponentMoved(None),
        SenseResult(None, ()),
        MoveResult(chess.Move.from_uci("d7d5"), chess.Move.from_uci("d7d5"), None),
        OpponentMoved(d5),
        SenseResult(chess.H8, ((chess.G8, n), (chess.H8, r), (chess.G7, p), (chess.H7, p))),
        MoveResult(chess.Move.from_uci("d8d5"), chess.Move.from_uci("d8d5"), d5),
        GameEnded(chess.BLACK, WinReason.RESIGN),
    ]
    live: dict[bool, list[Observation]] = {chess.WHITE: [], chess.BLACK: []}
    history = scripted_game(lambda color, event: live[color].append(event)).get_game_history()
    assert history is not None
    path = tmp_path / "scripted.json"
    history.save(str(path))
    for color, expected in ((chess.WHITE, white), (chess.BLACK, black)):
        assert live[color] == expected
        assert history.observations(color) == expected
        assert GameHistory.from_file(str(path)).observations(color) == expected
        assert reconchess.GameHistory.from_file(str(path)).num_turns(color) == history.num_turns(color)


def test_requested_move_is_kept_as_given() -> None:
    game = LocalGame(seconds_per_player=None)
    game.board = chess.Board("8/P6k/8/8/8/8/8/K7 w - - 0 1")
    game.start()
    requested = chess.Move.from_uci("a7a8")
    assert game.move(requested) == (requested, chess.Move.from_uci("a7a8q"), None)
    game.end()
    history = game.get_game_history()
    assert history is not None
    assert history.requested_move(Turn(chess.WHITE, 0)) == requested
    assert history.taken_move(Turn(chess.WHITE, 0)) == chess.Move.from_uci("a7a8q")
    assert json.loads(history.to_json())["requested_moves"]["true"] == [{"type": "Move", "value": "a7a8"}]


def test_turn_arithmetic_and_order() -> None:
    assert Turn(chess.WHITE, 3).next == Turn(chess.BLACK, 3)
    assert Turn(chess.BLACK, 3).next == Turn(chess.WHITE, 4)
    assert Turn(chess.WHITE, 3).previous == Turn(chess.BLACK, 2)
    assert Turn(chess.WHITE, 3) < Turn(chess.BLACK, 3) < Turn(chess.WHITE, 4)
    assert str(Turn(chess.BLACK, 0)) == "Turn(black, 0)" == repr(Turn(chess.BLACK, 0))
    assert len({Turn(chess.WHITE, 1), Turn(chess.WHITE, 1)}) == 1


def test_queries_outside_the_game_raise() -> None:
    empty = GameHistory()
    assert empty.is_empty() and list(empty.turns()) == [] and empty.num_turns() == 0
    with pytest.raises(ValueError, match="empty"):
        empty.first_turn()
    history = scripted_game().get_game_history()
    assert history is not None
    with pytest.raises(ValueError, match=r"Turn\(white, 2\) did not happen"):
        history.requested_move(Turn(chess.WHITE, 2))  # White resigned after sensing
    assert history.sense(Turn(chess.WHITE, 2)) == chess.E1
    with pytest.raises(ValueError, match="getter"):
        list(history.collect(len, history.turns()))  # type: ignore[arg-type]


def valid_document() -> dict[str, Any]:
    history = scripted_game().get_game_history()
    assert history is not None
    return dict(json.loads(history.to_json()))


@pytest.mark.parametrize(
    ("corrupt", "problem"),
    [
        (lambda d: "{not json", "not valid JSON"),
        (lambda d: json.dumps([1, 2]), "not a GameHistory object"),
        (lambda d: json.dumps({k: v for k, v in d.items() if k != "taken_moves"}), "missing field(s) taken_moves"),
        (lambda d: json.dumps({**d, "senses": {"true": [], "white": []}}), "field 'senses' must be an object"),
        (lambda d: json.dumps({**d, "senses": {"true": [99, None, 1], "false": [None, 2]}}), "senses['true'][0] is 99"),
        (lambda d: json.dumps({**d, "taken_moves": {**d["taken_moves"], "false": [{"type": "Move", "value": "zz"}, None]}}),
         "taken_moves['false'][0] has an invalid UCI move 'zz'"),  # fmt: skip
        (lambda d: json.dumps({**d, "capture_squares": {**d["capture_squares"], "true": [None]}}), "the move fields for 'true' differ"),
        (lambda d: json.dumps({**d, "win_reason": {"type": "WinReason", "value": "BORED"}}), "win_reason is"),
        (lambda d: json.dumps({**d, "winner_color": "white"}), "winner_color is 'white'"),
        # these three loaded and failed later, deep inside python-chess or a query, or raised RecursionError
        (lambda d: json.dumps({**d, "fens_after_move": {**d["fens_after_move"], "false": ["garbage"] + d["fens_after_move"]["false"][1:]}}),
         "fens_after_move['false'][0] is 'garbage', not a valid FEN"),  # fmt: skip
        (lambda d: json.dumps({**d, **{key: {"true": d[key]["true"], "false": []} for key in ("senses", "sense_results")}}),
         "the turn lists are not a game played in turn order (senses['true'] 3, requested_moves['true'] 2, senses['false'] 0"),  # fmt: skip
        (lambda d: json.dumps({**d, "white_name": None}).replace("null", "[" * 100_000 + "]" * 100_000, 1), "nested too deeply"),
    ],
    ids=[
        "not json", "not an object", "missing field", "bad colour keys", "bad square", "bad move", "ragged lists", "bad reason",
        "bad winner", "garbage FEN", "turn lists out of order", "deep nesting",
    ],  # fmt: skip
)
def test_corrupt_files_raise_a_clear_error(corrupt: Any, problem: str, tmp_path: Path) -> None:
    path = tmp_path / "corrupt.json"
    path.write_text(corrupt(valid_document()))
    with pytest.raises(HistoryFormatError) as error:
        GameHistory.from_file(str(path))
    assert isinstance(error.value, ValueError)
    assert str(path) in str(error.value) and problem in str(error.value)


def test_binary_file_raises_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(HistoryFormatError, match=r"binary\.json"):
        GameHistory.from_file(str(path))


def test_a_fifo_or_a_folder_raises_a_clear_error_without_blocking(tmp_path: Path) -> None:
    """Was: a FIFO named as a history file blocked the reader until a writer came (forever)."""
    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):
        with pytest.raises(HistoryFormatError, match="not a regular file") as error:
            GameHistory.from_file(str(path))
        assert str(path) in str(error.value)
