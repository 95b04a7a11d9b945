"""The environment passes the libraries' own checks (issue 31, acceptance 1).

PettingZoo's `api_test` and `seed_test` on every variant, Gymnasium's `check_env` on the
single-agent wrapper (against the random bot on every variant, and against the attacker on 8x8),
with short turn limits so that each check sees whole games and stays quick.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test.api_test import api_test
from pettingzoo.test.seed_test import seed_test

from blindchess.env import IllegalEnvActionError, rbc_env
from blindchess.env.single import BotOpponentEnv
from blindchess.variants.catalog import VARIANTS


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_pettingzoo_api_and_seed_tests_pass(variant: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the waiting agent's all-zero mask is reported as a warning, by design
        api_test(rbc_env(variant, turn_limit=12), num_cycles=200)
        seed_test(lambda: rbc_env(variant, turn_limit=12), num_cycles=200)


@pytest.mark.parametrize(("variant", "opponent"), [(variant, "random") for variant in VARIANTS] + [("rbc", "attacker")])
def test_gymnasium_check_env_passes(variant: str, opponent: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "no spec": render modes are checked only through gymnasium.make
        check_env(BotOpponentEnv(variant, opponent, turn_limit=12), skip_render_check=True)


def test_a_seeded_game_against_a_bot_replays() -> None:
    def play(seed: int) -> tuple[list[int], float, str]:
        env = BotOpponentEnv("teaching-4x5", "random")
        observation, _ = env.reset(seed=seed)
        rng, actions, done, reward = np.random.default_rng(seed), [], False, 0.0
        while not done:
            legal = np.flatnonzero(observation["action_mask"])
            actions.append(int(legal[rng.integers(len(legal))]))
            observation, reward, terminated, truncated, _ = env.step(actions[-1])
            done = terminated or truncated
        return actions, reward, env.aec.history().to_json()

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_the_wrapper_resigns_an_out_of_mask_action_or_raises_on_request() -> None:
    env = BotOpponentEnv("teaching-4x4", "random", learner="white")
    observation, _ = env.reset(seed=0)
    outside = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(outside)
    assert (reward, terminated, info["illegal_action"], info["win_reason"]) == (-1.0, True, True, "RESIGN")
    strict = BotOpponentEnv("teaching-4x4", "random", learner="black", illegal="raise")
    observation, _ = strict.reset(seed=0)
    with pytest.raises(IllegalEnvActionError):
        strict.step(outside)
    assert strict.aec.agent_selection == "black" and strict.aec.phase == "sense"


def test_bad_options_are_named() -> None:
    with pytest.raises(ValueError, match="learner 'green'"):
        BotOpponentEnv("rbc", learner="green")
    with pytest.raises(ValueError, match="no-such-bot"):
        BotOpponentEnv("rbc", opponent="no-such-bot")


def test_clocks_run_between_steps_and_a_flag_fall_ends_the_game() -> None:
    env = rbc_env("teaching-4x4", seconds_per_player=0.05, seconds_increment=0)
    env.reset(seed=0)
    time.sleep(0.1)  # White thinks past its clock; the arbiter sees it at the end of the turn
    env.step(env.codec.none)
    env.step(env.codec.none)
    assert env.terminations == {"white": True, "black": True}
    assert env.rewards == {"white": -1.0, "black": 1.0}
    assert env.infos["white"]["win_reason"] == "TIMEOUT"
