"""Playing seeded games between a mix of bots, in worker processes, and encoding them as examples.

Game ``i`` of a run with seed ``S`` is fully determined by ``(S, i)``: its pairing is drawn
from the mix with ``numpy.random.default_rng((S, i))`` and both bots are seeded from it, so
the same command writes the same shards (whatever the number of workers).

The mix names bots as the registry does (:mod:`blindchess.bots.registry`). Data generation
builds the engine-backed ones at cheap settings (`CHEAP_SETTINGS`: the games have to be many,
not strong): trout searches 2000 nodes a move; belief-bot presets and the flagship use the
test settings of their Stockfish selector. Any other registered name or bot file is built
as `blindchess match` builds it.

Workers are a `multiprocessing` pool. When the tournament runner (its own subsystem) is
available its executors will take this job (see docs/neural.md); `play_and_encode` is the
unit of work either way.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Optional

import chess
import chess.engine
import numpy as np

from blindchess.arbiter import LocalGame, Player, play_local_game
from blindchess.beliefs.random_games import ObservedGame
from blindchess.beliefs.recorded_games import observed_game
from blindchess.bots.registry import make_bot, resolve_bot

from .examples import Sequence, encode_game

logger = logging.getLogger(__name__)

DEFAULT_MIX = ("random", "attacker", "trout")
"""The default training mix: reconchess-style random, attacker and trout (belief bots cost 10-30 s a game
even at cheap settings; add them with `--mix`)."""

_SELECTOR_TEST_SETTINGS: dict[str, Any] = {"search_depth": 1, "boards": 2, "safety_boards": 8}
CHEAP_SETTINGS: dict[str, dict[str, Any]] = {
    "trout": {"limit": chess.engine.Limit(nodes=2000)},
    "flagship": _SELECTOR_TEST_SETTINGS,
    "flagship-hybrid": _SELECTOR_TEST_SETTINGS,
    "belief-random": _SELECTOR_TEST_SETTINGS,
    "belief-eig": _SELECTOR_TEST_SETTINGS,
}
"""Constructor settings per registered name for data generation (see the module docstring)."""


@dataclass(frozen=True)
class GameSpec:
    """One game to play: its number in the run, the run's seed, the mix, the turn limit."""

    index: int
    seed: int
    mix: tuple[str, ...]
    full_turn_limit: int = 50


def build_bot(name: str, seed: int) -> Player:
    """The bot `name` at its data-generation settings, seeded."""
    _, player_class = resolve_bot(name)
    settings = CHEAP_SETTINGS.get(name)
    if settings is None:
        return make_bot(player_class, rng=seed)
    return player_class(rng=np.random.default_rng(seed), **settings)  # type: ignore[call-arg]


def pairing(spec: GameSpec) -> tuple[str, str, int, int]:
    """White's and Black's names and seeds of game `spec` (see the module docstring)."""
    rng = np.random.default_rng((spec.seed, spec.index))
    white, black = (spec.mix[int(i)] for i in rng.integers(len(spec.mix), size=2))
    return white, black, int(rng.integers(2**31)), int(rng.integers(2**31))


def game_id(spec: GameSpec) -> str:
    """The id of game `spec` in the shards (the held-out split hashes it)."""
    return f"gen-{spec.seed}-{spec.index}"


def play_game(spec: GameSpec) -> tuple[ObservedGame, tuple[str, str]]:
    """Play game `spec` (no clock, `full_turn_limit` full turns): the events and truths, and White's and Black's names."""
    white_name, black_name, white_seed, black_seed = pairing(spec)
    white, black = build_bot(white_name, white_seed), build_bot(black_name, black_seed)
    game: LocalGame[chess.Board] = LocalGame(seconds_per_player=None, full_turn_limit=spec.full_turn_limit)
    _, _, history = play_local_game(white, black, game, enforce_deadlines=False)  # bots close their engines at the end
    return observed_game(history), (white_name, black_name)


def play_and_encode(spec: GameSpec) -> list[Sequence]:
    """Play game `spec` and encode both players' sides."""
    game, names = play_game(spec)
    return encode_game(game, game_id(spec), names)


def generate(
    games: int,
    seed: int,
    mix: tuple[str, ...] = DEFAULT_MIX,
    workers: int = 2,
    full_turn_limit: int = 50,
    progress: Optional[Callable[[int], None]] = None,
) -> Iterator[list[Sequence]]:
    """The sequences of each of `games` games, in game order, played by `workers` processes.

    `progress` is called with the number of games finished so far.
    """
    for name in mix:
        resolve_bot(name)  # an unknown name fails here, not in a worker
    specs = [GameSpec(i, seed, mix, full_turn_limit) for i in range(games)]
    if workers <= 1:
        results: Iterator[list[Sequence]] = map(play_and_encode, specs)
        pool = None
    else:
        pool = multiprocessing.get_context("forkserver").Pool(workers)
        results = pool.imap(play_and_encode, specs)
    try:
        for done, sequences in enumerate(results, start=1):
            if progress is not None:
                progress(done)
            yield sequences
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
