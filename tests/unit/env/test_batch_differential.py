"""The batched environment against the arbiter and the single-game environment (issue 40, acceptance 1).

- 1,000 seeded games of one batch (learners against the in-batch random and attacker bots, both
  colours, and self-play) are replayed through `play_local_game` with players that play the batch's
  recorded actions from the lists the arbiter hands them: every game's result and length equal the
  batch's, and the record the batch exports (`BatchedGames.history`) equals `play_local_game`'s JSON.
- 50 self-play games and 20 games against the random bot step beside `RbcEnv`s fed the same actions:
  every observation, mask and listed action of the player to act, and every result, are equal.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

import chess
import numpy as np
import pytest
import reconchess

from blindchess.arbiter import GameHistory, LocalGame, Player, Square, play_local_game
from blindchess.arbiter.rules.compiled_game import FULL_TURN_LIMIT, KING_CAPTURE, MOVE_LIMIT
from blindchess.arbiter.types import WinReason
from blindchess.env.aec import RbcEnv
from blindchess.env.batch import CODEC, BatchedGames, IllegalBatchActionError

REASONS = {KING_CAPTURE: WinReason.KING_CAPTURE, FULL_TURN_LIMIT: WinReason.TURN_LIMIT, MOVE_LIMIT: WinReason.MOVE_LIMIT}


class ReplayPlayer(Player):
    """Plays its recorded action numbers, finding each move in the list the arbiter hands it."""

    def __init__(self, actions: list[int]) -> None:
        self.actions = iter(actions)

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        pass

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[Square]) -> None:
        pass

    def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
        square = CODEC.sense_of(next(self.actions))
        assert square is None or square in sense_actions
        return square

    def handle_sense_result(self, sense_result: list[tuple[Square, Optional[chess.Piece]]]) -> None:
        pass

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        action = next(self.actions)
        return None if action == CODEC.none else move_actions[CODEC.move_numbers(move_actions).index(action)]

    def handle_move_result(self, requested_move: Any, taken_move: Any, captured: bool, capture_square: Optional[Square]) -> None:
        pass

    def handle_game_end(self, winner_color: Any, win_reason: Any, game_history: Any) -> None:
        pass


def finished_games(batch: BatchedGames, seed: int) -> list[tuple[list[int], int, int, int, float, int]]:
    """Each slot's first finished game: (actions, winner, reason, length, caller's reward, caller's colour)."""
    batch.reset(seed=seed)
    games: dict[int, tuple[list[int], int, int, int, float, int]] = {}
    while len(games) < batch.n_games:
        colors = batch.to_act.copy()
        batch.step(batch.random_actions())
        for g in np.flatnonzero(batch.terminated | batch.truncated):
            if g not in games:
                games[int(g)] = (batch.actions_of(int(g)), int(batch.winner[g]), int(batch.reason[g]), int(batch.length[g]),
                                 float(batch.reward[g]), int(colors[g]))  # fmt: skip
                assert batch.truncated[g] == (batch.reason[g] == FULL_TURN_LIMIT)
    return [games[g] for g in range(batch.n_games)]


CONFIGS = [  # (slots, sides, opponent, turn limit, reversible-move limit): 1,000 games in all
    (300, "alternate", "random", 8, 100),
    (250, "white", "attacker", 8, 100),
    (150, "black", "attacker", 8, 100),
    (150, "both", "random", 12, 6),  # a short reversible-move limit: some games end by it
    (150, "alternate", "random", 30, 100),
]


def test_1000_batched_games_equal_play_local_game_on_their_actions() -> None:
    start = time.process_time()
    reasons: set[WinReason] = set()
    checked = 0
    for index, (slots, sides, opponent, turn_limit, reversible) in enumerate(CONFIGS):
        batch = BatchedGames(slots, sides=sides, opponent=opponent, turn_limit=turn_limit, reversible_moves_limit=reversible,
                             observations=False)  # fmt: skip
        for actions, winner, reason, length, reward, color in finished_games(batch, seed=index):
            white = ReplayPlayer([a for i, a in enumerate(actions) if i % 4 < 2])
            black = ReplayPlayer([a for i, a in enumerate(actions) if i % 4 >= 2])
            game: LocalGame[Any] = LocalGame(None, None, reversible, turn_limit)
            local_winner, local_reason, history = play_local_game(white, black, game, enforce_deadlines=False)
            assert not history.faults
            assert (local_winner, local_reason) == (None if winner < 0 else bool(winner), REASONS[reason])
            assert length == len(actions) == 2 * history.num_turns()
            assert reward == (0.0 if winner < 0 else (1.0 if winner == color else -1.0))
            reasons.add(REASONS[reason])
            checked += 1
    assert checked == 1000
    assert reasons == {WinReason.KING_CAPTURE, WinReason.TURN_LIMIT, WinReason.MOVE_LIMIT}
    print(f"1000 batched games against play_local_game: {time.process_time() - start:.1f} CPU s")


def test_the_exported_record_is_play_local_games_and_reads_in_reconchess(tmp_path: Path) -> None:
    batch = BatchedGames(8, sides="white", opponent="attacker", turn_limit=10)
    batch.reset(seed=5)
    while not (batch.games_started >= 2).all():
        batch.step(batch.random_actions())
    for g in range(8):
        actions = batch.actions_of(g)
        white = ReplayPlayer([a for i, a in enumerate(actions) if i % 4 < 2])
        black = ReplayPlayer([a for i, a in enumerate(actions) if i % 4 >= 2])
        _, _, expected = play_local_game(white, black, LocalGame(None, None, 100, 10), enforce_deadlines=False)
        ours = batch.history(g, names=("ReplayPlayer", "ReplayPlayer"))
        assert ours.to_json() == expected.to_json()
    path = tmp_path / "game.json"
    batch.history(3).save(str(path))
    theirs = reconchess.GameHistory.from_file(str(path))
    assert theirs.num_turns() == GameHistory.from_file(str(path)).num_turns() == len(batch.actions_of(3)) // 2
    assert GameHistory.from_file(str(path)).get_white_player_name() == "learner"
    assert GameHistory.from_file(str(path)).get_black_player_name() == "attacker"


def test_the_record_names_the_learner_on_the_colour_it_played() -> None:
    batch = BatchedGames(6, sides="alternate", opponent="random", turn_limit=2)
    batch.reset(seed=8)
    played: dict[int, int] = {}
    for _ in range(12):
        colors = batch.to_act.copy()
        batch.step(batch.random_actions())
        for ended in np.flatnonzero(batch.terminated | batch.truncated):
            played[int(ended)] = int(colors[ended])
    assert set(played.values()) == {0, 1}
    for g, color in played.items():
        names = (batch.history(g).get_white_player_name(), batch.history(g).get_black_player_name())
        assert names == (("learner", "random") if color else ("random", "learner"))


def lockstep(batch: BatchedGames, seed: int, steps: int) -> int:
    """Step `batch` beside one `RbcEnv` per game on the same actions (the opponent's read from the batch's log);
    returns how many games ended. Observations, masks, listed actions and results must agree at every step."""
    n = batch.n_games
    envs = [RbcEnv(turn_limit=batch.turn_limit) for _ in range(n)]
    batch.reset(seed=seed)
    seen = [0] * n
    ended = 0

    def catch_up(g: int, actions: list[int]) -> None:
        for action in actions[seen[g]:]:
            envs[g].step(action)
        seen[g] = len(actions)

    for g, env in enumerate(envs):
        env.reset()
        catch_up(g, batch.actions_of(g, finished=False))
    for _ in range(steps):
        for g, env in enumerate(envs):
            agent = env.agent_selection
            assert batch.to_act[g] == (agent == "white")
            assert np.array_equal(batch.observation[g], env.observe(agent)["observation"]), g
            assert np.array_equal(batch.mask[g], env.action_mask()), g
            assert np.array_equal(batch.legal[g, : batch.n_legal[g]], env.legal_actions()), g
        colors = batch.to_act.copy()
        batch.step(batch.random_actions())
        for g, env in enumerate(envs):
            if batch.terminated[g] or batch.truncated[g]:
                catch_up(g, batch.actions_of(g))
                agent = "white" if batch.winner[g] == 1 else "black"
                assert env.terminations[agent] == bool(batch.terminated[g]) and env.truncations[agent] == bool(batch.truncated[g])
                if batch.winner[g] >= 0:
                    assert env.rewards[agent] == 1.0
                    assert env.history().get_winner_color() == bool(batch.winner[g])
                viewer = "white" if colors[g] else "black"
                assert np.array_equal(batch.final_observation[g], env.observe(viewer)["observation"])
                env.reset()
                seen[g] = 0
                ended += 1
            catch_up(g, batch.actions_of(g, finished=False))
    return ended


def test_50_self_play_games_observe_what_rbc_env_observes() -> None:
    assert lockstep(BatchedGames(50, sides="both", turn_limit=6), seed=11, steps=60) >= 50


def test_games_against_the_batch_bots_observe_what_rbc_env_observes() -> None:
    assert lockstep(BatchedGames(10, sides="alternate", opponent="random", turn_limit=5), seed=12, steps=40) >= 10
    assert lockstep(BatchedGames(10, sides="black", opponent="attacker", turn_limit=5), seed=13, steps=40) >= 10


def test_an_action_outside_the_mask_raises_and_changes_nothing() -> None:
    batch = BatchedGames(3, sides="both", turn_limit=5)
    batch.reset(seed=2)
    batch.step(batch.random_actions())
    before: tuple[Any, ...] = (batch.board.copy(), batch.observation.copy(), batch.mask.copy(), batch.actions_of(1, finished=False))
    for bad in (CODEC.size, -2, 3):  # out of range, negative, a sense in the move phase
        actions = batch.legal[:, 0].copy()
        actions[1] = bad
        with pytest.raises(IllegalBatchActionError, match=f"action {bad} of game 1 is not in its move mask"):
            batch.step(actions)
    with pytest.raises(IllegalBatchActionError, match=r"shape \(3,\)"):
        batch.step(np.zeros(2, dtype=np.int64))
    after: tuple[Any, ...] = (batch.board, batch.observation, batch.mask, batch.actions_of(1, finished=False))
    assert all(np.array_equal(x, y) for x, y in zip(before, after, strict=True))
