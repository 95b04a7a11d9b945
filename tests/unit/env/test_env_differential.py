"""The environment against the arbiter's own loop (issue 31, acceptance 2).

200 seeded random games, 40 of each variant, are played twice: through `RbcEnv` (an agent loop
picking uniformly among the mask's actions) and through `play_local_game` with two `Player`s that
make the same picks from the same generators out of the action lists they are handed. The
action sequences, the results and the saved history JSON must be identical, and the env's
history must read back in reconchess and in our `GameHistory`. Then: an action outside the mask,
of the wrong type or out of range raises `IllegalEnvActionError` and changes nothing (the game's
record, the agent to act, the phase, the observations).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

import chess
import numpy as np
import pytest
import reconchess

from blindchess.arbiter import GameHistory, LocalGame, Player, Square, WinReason, play_local_game
from blindchess.env import IllegalEnvActionError, RbcEnv, rbc_env
from blindchess.env.actions import ActionCodec
from blindchess.variants.catalog import VARIANTS

GAMES_PER_VARIANT = 40
TURN_LIMIT = 25  # keeps 8x8 random games short; the small boards end by king capture or this limit


def pick(rng: np.random.Generator, mask: np.ndarray) -> int:
    """The one random policy both sides use: uniform over the mask's actions."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


class MaskRandomPlayer(Player):
    """Picks like the env loop does, from the lists the arbiter hands it; records its action numbers."""

    def __init__(self, codec: ActionCodec, rng: np.random.Generator) -> None:
        self.codec, self.rng = codec, rng
        self.actions: list[int] = []

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        pass

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[Square]) -> None:
        pass

    def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
        self.actions.append(pick(self.rng, self.codec.sense_mask(sense_actions)))
        return self.codec.sense_of(self.actions[-1])

    def handle_sense_result(self, sense_result: list[tuple[Square, Optional[chess.Piece]]]) -> None:
        pass

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        mask, table = self.codec.move_table(move_actions)
        self.actions.append(pick(self.rng, mask))
        return table.get(self.actions[-1])

    def handle_move_result(self, requested_move: Any, taken_move: Any, captured: bool, capture_square: Optional[Square]) -> None:
        pass

    def handle_game_end(self, winner_color: Any, win_reason: Any, game_history: Any) -> None:
        pass


def env_game(variant: str, seed: int) -> tuple[dict[str, list[int]], RbcEnv, dict[str, tuple[float, bool]]]:
    """The actions of each agent, the env at the end, and each agent's (reward, truncation) at its last step."""
    env = rbc_env(variant, turn_limit=TURN_LIMIT, observations=False, names=("MaskRandomPlayer", "MaskRandomPlayer"))
    env.reset(seed=seed)
    rngs = {agent: np.random.default_rng([seed, index]) for index, agent in enumerate(env.agents)}
    actions: dict[str, list[int]] = {agent: [] for agent in env.agents}
    final: dict[str, tuple[float, bool]] = {}
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last(observe=False)
        if termination or truncation:
            final[agent] = (float(reward), truncation)
            env.step(None)
            continue
        actions[agent].append(pick(rngs[agent], env.action_mask()))
        env.step(actions[agent][-1])
    return actions, env, final


def arbiter_game(variant: str, seed: int, codec: ActionCodec) -> tuple[dict[str, list[int]], tuple[Any, Any, GameHistory]]:
    white, black = (MaskRandomPlayer(codec, np.random.default_rng([seed, index])) for index in range(2))
    game: LocalGame[Any] = LocalGame(None, None, 100, TURN_LIMIT, rules=VARIANTS[variant])
    result = play_local_game(white, black, game, enforce_deadlines=False)
    return {"white": white.actions, "black": black.actions}, result


def test_200_random_games_equal_play_local_game_action_for_action(tmp_path: Path) -> None:
    start = time.process_time()
    reasons: set[WinReason] = set()
    for variant in VARIANTS:
        for seed in range(GAMES_PER_VARIANT):
            env_actions, env, final = env_game(variant, seed)
            local_actions, (winner, reason, history) = arbiter_game(variant, seed, env.codec)
            assert env_actions == local_actions, (variant, seed)
            ours = env.history()
            assert (ours.get_winner_color(), ours.get_win_reason()) == (winner, reason)
            assert ours.to_json() == history.to_json(), (variant, seed)
            expected = {"white": 0.0, "black": 0.0} if winner is None else {
                "white": 1.0 if winner else -1.0, "black": -1.0 if winner else 1.0
            }
            truncated = reason == WinReason.TURN_LIMIT
            assert final == {agent: (reward, truncated) for agent, reward in expected.items()}
            reasons.add(reason)
    assert {WinReason.KING_CAPTURE, WinReason.TURN_LIMIT} <= reasons
    print(f"200 games through env and play_local_game: {time.process_time() - start:.1f} CPU s")


def test_the_history_reads_back_in_reconchess_and_here(tmp_path: Path) -> None:
    _, env, _ = env_game("rbc", 7)
    path = tmp_path / "game.json"
    env.history().save(str(path))
    theirs = reconchess.GameHistory.from_file(str(path))
    assert GameHistory.from_file(str(path)) == env.history()
    turns = list(env.history().turns())
    assert theirs.num_turns() == len(turns)
    assert [theirs.requested_move(reconchess.Turn(t.color, t.turn_number)) for t in turns] == [
        env.history().requested_move(t) for t in turns
    ]


def snapshot(env: RbcEnv) -> tuple[Any, ...]:
    observations = {agent: env.observe(agent) for agent in env.agents}
    return (
        env.history().to_json(), env.agent_selection, env.phase, env.game.board.fen(), env.action_mask().tobytes(),
        {agent: (o["observation"].tobytes(), o["action_mask"].tobytes()) for agent, o in observations.items()},
    )


@pytest.mark.parametrize("variant", ["rbc", "teaching-4x4"])
def test_out_of_mask_actions_raise_and_change_nothing(variant: str) -> None:
    env = rbc_env(variant)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(6):  # into the game: senses and moves
        env.step(pick(rng, env.action_mask()))
    for phase in ("sense", "move"):
        assert env.phase == phase
        before = snapshot(env)
        outside = int(np.flatnonzero(env.action_mask() == 0)[0])
        for bad in (outside, -1, env.codec.size, 2.0, "e2e4", None, True):
            with pytest.raises(IllegalEnvActionError, match=f"not in the {phase} mask of '{env.agent_selection}'"):
                env.step(bad)  # type: ignore[arg-type]
            assert snapshot(env) == before
        env.step(pick(rng, env.action_mask()))


def test_an_unknown_variant_is_named() -> None:
    with pytest.raises(ValueError, match=r"unknown variant 'teaching-4x3' \(did you mean 'teaching-4x5'"):
        rbc_env("teaching-4x3")
