"""The environment's compiled step against its LocalGame path: the same games, observations and records.

On 8x8 RBC without clocks `RbcEnv` steps the arbiter's compiled game and folds the events with the
encoder's kernels (:mod:`blindchess.env.env_step`); with a clock it drives the `LocalGame` and
the encoder's `fold` of each event. A clock no game here comes near (1e9 seconds) changes nothing
else, so the two paths must agree at every step: both agents' frames and masks, the legal actions,
the step order, rewards and the record, also when the record is read in the middle of a turn
(which replays the compiled steps into the LocalGame) and against a bot (whose first turn moves the
game onto the LocalGame, after the learner's compiled steps if it plays White).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from blindchess.env import RbcEnv, rbc_env
from blindchess.env.single import BotOpponentEnv

NO_CLOCK_REACHED = 1e9


def same_state(fast: RbcEnv, slow: RbcEnv) -> None:
    for agent in fast.possible_agents:
        ours, theirs = fast.observe(agent), slow.observe(agent)
        np.testing.assert_array_equal(ours["observation"], theirs["observation"])
        np.testing.assert_array_equal(ours["action_mask"], theirs["action_mask"])
    np.testing.assert_array_equal(fast.legal_actions(), slow.legal_actions())
    assert (fast.agent_selection, fast.phase, fast.infos) == (slow.agent_selection, slow.phase, slow.infos)
    assert (fast.rewards, fast.terminations, fast.truncations) == (slow.rewards, slow.terminations, slow.truncations)


def test_the_compiled_step_equals_the_local_game_path() -> None:
    for seed in range(8):
        fast, slow = rbc_env("rbc", turn_limit=40), rbc_env("rbc", turn_limit=40, seconds_per_player=NO_CLOCK_REACHED)
        fast.reset(seed=seed)
        slow.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not (fast.terminations["white"] or fast.truncations["white"]):
            same_state(fast, slow)
            if rng.random() < 0.05:  # the record mid-game, mid-turn too: the compiled steps replayed so far
                assert fast.history().to_json() == slow.history().to_json()
                assert fast.game.board == slow.game.board
            legal = fast.legal_actions()
            action = int(legal[rng.integers(len(legal))])
            fast.step(action)
            slow.step(action)
        same_state(fast, slow)
        assert fast.history().to_json() == slow.history().to_json()


def test_a_game_against_a_bot_is_the_same_on_both_paths() -> None:
    def play(seed: int, **options: Any) -> tuple[list[bytes], str]:
        env = BotOpponentEnv("rbc", "random", turn_limit=30, **options)
        observation, _ = env.reset(seed=seed)
        rng, seen, done = np.random.default_rng(seed), [], False
        while not done:
            seen.append(observation["observation"].tobytes() + observation["action_mask"].tobytes())
            legal = np.flatnonzero(observation["action_mask"])
            observation, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
            done = terminated or truncated
        return seen, env.aec.history().to_json()

    for seed in range(3):
        assert play(seed) == play(seed, seconds_per_player=NO_CLOCK_REACHED)
