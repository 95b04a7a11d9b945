"""Compile the package's numba kernels once, into numba's on-disk cache, before the test workers start.

Why: every kernel is ``@nb.njit(cache=True)``; the first process to call one with a given
signature compiles it and writes the cache, later ones load it. ``run.sh test`` starts two
pytest-xdist workers at once, and on a cold cache each would compile the same kernels (about a
minute of CPU apiece); run first, this script pays that once (docs/benchmarks.md has the timing).
It drives the kernels as the suite does: a random environment game (the compiled game step, the
rules core, the encoder's folds), a board set following a random game through every kind of
event, weighted and not, the row queries on rows drawn from it, and the batched environment's step
with each in-batch opponent and in self-play::

    python3 -m blindchess.tests.warm_kernels
"""

from __future__ import annotations

import time

import chess
import numpy as np

from blindchess.arbiter.game.observations import SenseResult
from blindchess.arbiter.rules.reference import move_actions
from blindchess.beliefs import BoardSet
from blindchess.beliefs.drawn_boards import Rows
from blindchess.beliefs.observed_games import play_random_game
from blindchess.beliefs.samples import draw
from blindchess.env import rbc_env
from blindchess.env.batch import BatchedGames


def warm() -> None:
    """Call every kernel family once with the argument types the package uses."""
    rng = np.random.default_rng(0)
    env = rbc_env("rbc", observations=True)
    env.reset(seed=0)
    while not (env.terminations["white"] or env.truncations["white"]):
        env.observe(env.agent_selection)
        legal = env.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
    game = play_random_game(rng, full_turn_limit=12, sense_probability=1.0)
    for belief in (BoardSet(max_boards=20_000), BoardSet(max_boards=20_000, move_model=None)):
        for event in game.events[chess.BLACK]:
            belief.update(event)
            if isinstance(event, SenseResult) and len(belief):
                rows = draw(belief, 8, rng, chess.BLACK)
                assert isinstance(rows, Rows)
                moves: list[chess.Move | None] = [None, *move_actions(rows.boards(chess.BLACK)[0])]
                rows.threat_levels(), rows.move_values(moves), rows.exposure(moves, np.ones(len(rows)))
                rows.material_balance(), rows.unique()
        belief.marginals()
    for sides, opponent in (("white", "random"), ("black", "attacker"), ("both", "random")):
        batch = BatchedGames(2, sides=sides, opponent=opponent, turn_limit=5)
        batch.reset(seed=0)
        for _ in range(30):
            batch.step(batch.random_actions())


def main() -> None:
    started = time.monotonic()
    warm()
    print(f"numba kernels compiled or loaded from the cache in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
