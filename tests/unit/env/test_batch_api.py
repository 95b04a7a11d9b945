"""The batched environment's interfaces (issue 40, acceptance 3): Gymnasium's vector API, seeds, torch, the bots.

Gymnasium 1.x ships `check_env` for single environments only; the checks here are its checks as a
vector env needs them: the spaces hold what reset and step return, a seed replays the run, the
autoreset mode does what the metadata says.
"""

from __future__ import annotations

from typing import Any

import chess
import numpy as np
import pytest
import torch
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from blindchess.arbiter.rules.compiled_game import NONE
from blindchess.bots.attacker_bot import QUICK_ATTACKS, AttackerBot
from blindchess.env.aec import RbcEnv
from blindchess.env.batch import CODEC, BatchedGames
from blindchess.env.batch_vector import RbcVectorEnv


def masked_choice(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in masks], dtype=np.int64)


def run(envs: RbcVectorEnv, seed: int, steps: int) -> list[tuple[Any, ...]]:
    """The whole run's returns, copied (the env hands out its live buffers)."""
    rng = np.random.default_rng(seed)
    observations, infos = envs.reset(seed=seed)
    assert envs.observation_space.contains(observations)
    trace: list[tuple[Any, ...]] = [(observations["observation"].copy(), observations["action_mask"].copy())]
    for _ in range(steps):
        actions = masked_choice(rng, observations["action_mask"])
        assert envs.action_space.contains(actions)
        observations, rewards, terminations, truncations, infos = envs.step(actions)
        assert envs.observation_space.contains(observations)
        assert rewards.shape == terminations.shape == truncations.shape == (envs.num_envs,)
        trace.append((observations["observation"].copy(), observations["action_mask"].copy(), rewards.copy(),
                      terminations.copy(), truncations.copy(), infos["final_obs"].copy()))  # fmt: skip
    return trace


def test_the_vector_env_keeps_to_its_spaces_and_a_seed_replays_the_run() -> None:
    envs = RbcVectorEnv(4, opponent="random", learner="alternate", turn_limit=6)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    space = envs.single_observation_space
    assert isinstance(space, spaces.Dict) and space["action_mask"].shape == (CODEC.size,)
    first = run(envs, seed=3, steps=40)
    again = run(RbcVectorEnv(4, opponent="random", learner="alternate", turn_limit=6), seed=3, steps=40)
    assert all(all(np.array_equal(x, y) for x, y in zip(a, b, strict=True)) for a, b in zip(first, again, strict=True))
    other = run(RbcVectorEnv(4, opponent="random", learner="alternate", turn_limit=6), seed=4, steps=40)
    assert not all(np.array_equal(a[0], b[0]) for a, b in zip(first, other, strict=True))


def test_same_step_autoreset_hands_out_the_next_games_start_and_the_result() -> None:
    envs = RbcVectorEnv(3, opponent="random", learner="white", turn_limit=3)
    observations, _ = envs.reset(seed=1)
    start = observations["observation"][0].copy()
    rng = np.random.default_rng(0)
    for step in range(6):  # three turns of White: sense, move
        observations, rewards, terminations, truncations, infos = envs.step(masked_choice(rng, observations["action_mask"]))
        assert truncations.all() == (step == 5)
    assert not terminations.any() and (rewards == 0).all() and infos["_final_obs"].all()
    assert (infos["win_reason"] == 2).all() and (infos["length"] == 12).all() and (infos["winner"] == -1).all()
    assert np.array_equal(observations["observation"][0], start) and observations["action_mask"][0].sum() == 65
    assert not np.array_equal(infos["final_obs"][0], start)


def test_a_black_learner_starts_after_the_opponents_first_turn() -> None:
    envs = RbcVectorEnv(2, opponent="attacker", learner="black")
    _, infos = envs.reset(seed=2)
    assert (infos["color"] == 0).all() and (envs.batch.to_act == 0).all() and (envs.batch.log_length == 2).all()
    plans = {QUICK_ATTACKS[index][0] for index in range(4)}
    assert {CODEC.move_action(move) for move in plans} >= set(envs.batch.log[:, 1].tolist())


@pytest.mark.parametrize("sides", ["both", "black"])
def test_torch_reads_the_buffers_without_a_copy(sides: str) -> None:
    batch = BatchedGames(4, sides=sides)
    batch.reset(seed=0)
    frames, mask = torch.from_numpy(batch.observation), torch.from_numpy(batch.mask)
    assert frames.data_ptr() == batch.observation.ctypes.data and mask.data_ptr() == batch.mask.ctypes.data
    for _ in range(3):
        batch.step(batch.random_actions())
        assert torch.equal(frames, torch.from_numpy(batch.observation.copy()))
        assert np.array_equal(batch.observation, batch.frames[np.arange(4), batch.to_act])
        assert int(mask.sum()) == int(batch.n_legal.sum())


def test_a_game_depends_on_its_seed_index_and_reset_count_only() -> None:
    small, large = BatchedGames(3, sides="alternate", turn_limit=4), BatchedGames(7, sides="alternate", turn_limit=4)
    for batch in (small, large):
        batch.reset(seed=9)
        for _ in range(25):
            batch.step(batch.random_actions())
    for g in range(3):
        assert small.actions_of(g) == large.actions_of(g) and small.games_started[g] == large.games_started[g]
        assert small.actions_of(g, finished=False) == large.actions_of(g, finished=False)
    assert small.actions_of(0) != small.actions_of(1)


def test_the_batch_attacker_moves_as_attacker_bot_on_the_same_lists() -> None:
    batch = BatchedGames(12, sides="white", opponent="attacker")
    batch.reset(seed=4)
    for _ in range(30):
        batch.step(batch.random_actions())
    passes = 0
    for g in range(12):
        actions = batch.actions_of(g, finished=False)
        bot = AttackerBot(rng=0)
        bot.attack = QUICK_ATTACKS[batch.attack[g]]
        bot.handle_game_start(chess.BLACK, chess.Board(), "learner")
        env = RbcEnv(observations=False)
        env.reset()
        for index, action in enumerate(actions):
            if index % 4 == 3:
                moves = env.game.move_actions()
                assert moves is not None
                assert CODEC.move_action(bot.choose_move(moves, float("inf"))) == action, (g, index)
                passes += action == NONE
            elif index % 4 == 2:
                assert action != NONE  # the random bot's senses never skip
            env.step(action)
    assert passes > 0  # some rushes ran out (or were blocked) and passed


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="n_games 0 is not a positive int"):
        BatchedGames(0)
    with pytest.raises(ValueError, match="sides 'red' is not one of"):
        BatchedGames(2, sides="red")
    with pytest.raises(ValueError, match="opponent 'trout' is not one of"):
        BatchedGames(2, opponent="trout")
    with pytest.raises(ValueError, match="learner 'both' is not one of"):
        RbcVectorEnv(2, learner="both")
    batch = BatchedGames(2)
    batch.reset(seed=0)
    with pytest.raises(ValueError, match=r"game 2 is not in 0\.\.1"):
        batch.history(2)
    with pytest.raises(ValueError, match="game 0 has finished no game yet"):
        batch.history(0)
