"""Playing seeded games between a mix of bots, on the tournament runner's executors, and encoding them as examples.

Game ``i`` of a run with seed ``S`` is set by ``(S, i)``: its pairing is drawn from the mix
with ``numpy.random.default_rng((S, i))`` and both bots are seeded from it, so the same command
writes the same shards (whatever the number of workers or the executor) for bots that are
deterministic given their seed, such as random and attacker. Games of bots that search with
Stockfish can differ from run to run: trout's node-limited searches are not reproducible here
(the same position in two runs has given two moves).

The mix names bots as the registry does (:mod:`blindchess.bots.registry`). Data generation
builds the engine-backed ones at cheap settings (`CHEAP_SETTINGS`: the games have to be many,
not strong): trout searches 2000 nodes a move; belief-bot presets and the flagship use the
test settings of their Stockfish selector. Any other registered name or bot file is built
as `blindchess match` builds it.

Each game is a tournament `GameSpec` (:mod:`blindchess.tournament.spec`, no clock), played by
any executor of :mod:`blindchess.tournament.executors`: in this process, a local process pool,
or Ray tasks on a cluster (``--executor ray --address host:port``), with the same results. A
game that fails (a bot crashed, a worker died twice) is reported and left out; one whose
setup fails (an unknown bot, no Stockfish) stops the run, as every game would fail alike.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np

from blindchess.arbiter.game.history import GameHistory
from blindchess.beliefs.observed_games import ObservedGame, observed_game
from blindchess.bots.registry import resolve_bot
from blindchess.errors import BlindchessError
from blindchess.tournament import spec as tournament
from blindchess.tournament.base import Executor
from blindchess.tournament.executors import InlineExecutor
from blindchess.tournament.task import play_game as play_tournament_game

from .examples import Sequence, encode_game

logger = logging.getLogger(__name__)

DEFAULT_MIX = ("random", "attacker", "trout")
"""The default training mix: reconchess-style random, attacker and trout (belief bots cost 10-30 s a game
even at cheap settings; add them with `--mix`)."""

_SELECTOR_TEST_SETTINGS: dict[str, Any] = {"preset": "fast"}
CHEAP_SETTINGS: dict[str, dict[str, Any]] = {
    "trout": {"limit": {"nodes": 2000}},
    "flagship": _SELECTOR_TEST_SETTINGS,
    "flagship-hybrid": _SELECTOR_TEST_SETTINGS,
    "belief-random": _SELECTOR_TEST_SETTINGS,
    "belief-eig": _SELECTOR_TEST_SETTINGS,
}
"""Constructor settings per registered name for data generation, as a tournament's TOML gives
them (``limit`` becomes a `chess.engine.Limit`); see the module docstring."""


class GenerationError(BlindchessError, RuntimeError):
    """A game of the data run could not be set up or played; the message names the game and why."""


@dataclass(frozen=True)
class GameSpec:
    """One game to play: its number in the run, the run's seed, the mix, the turn limit."""

    index: int
    seed: int
    mix: tuple[str, ...]
    full_turn_limit: int = 50


def pairing(spec: GameSpec) -> tuple[str, str, int, int]:
    """White's and Black's names and seeds of game `spec` (see the module docstring)."""
    rng = np.random.default_rng((spec.seed, spec.index))
    white, black = (spec.mix[int(i)] for i in rng.integers(len(spec.mix), size=2))
    return white, black, int(rng.integers(2**31)), int(rng.integers(2**31))


def game_id(spec: GameSpec) -> str:
    """The id of game `spec` in the shards (the held-out split hashes it)."""
    return f"gen-{spec.seed}-{spec.index}"


def tournament_spec(spec: GameSpec) -> tournament.GameSpec:
    """Game `spec` as the tournament runner's executors take it: no clock, each bot at its `CHEAP_SETTINGS`."""
    white, black, white_seed, black_seed = pairing(spec)
    return tournament.GameSpec(
        key=game_id(spec), white=_bot("white", white), black=_bot("black", black), white_seed=white_seed,
        black_seed=black_seed, pairing=f"{white} vs {black}", full_turn_limit=spec.full_turn_limit,
    )  # fmt: skip


def _bot(label: str, name: str) -> tournament.BotSpec:
    return tournament.BotSpec(label, name, dict(CHEAP_SETTINGS.get(name, {})))


def observed(result: tournament.GameResult) -> ObservedGame:
    """The events and truths of a played game.

    Raises:
        GenerationError: the game failed (its error says why).
    """
    if not result.ok or result.history is None:
        raise GenerationError(f"game {result.key} failed: {result.error}")
    return observed_game(GameHistory.from_json(result.history))


def play_game(spec: GameSpec) -> tuple[ObservedGame, tuple[str, str]]:
    """Play game `spec` in this process (no clock, `full_turn_limit` full turns): the events and truths, and White's and Black's names."""
    white, black, _, _ = pairing(spec)
    return observed(play_tournament_game(tournament_spec(spec))), (white, black)


def generate(
    games: int,
    seed: int,
    mix: tuple[str, ...] = DEFAULT_MIX,
    executor: Optional[Executor] = None,
    full_turn_limit: int = 50,
    progress: Optional[Callable[[int], None]] = None,
) -> Iterator[Union[list[Sequence], GenerationError]]:
    """Per game of the run, in game order: both players' sequences, or the error of a game that failed.

    Games are played by `executor` (default: in this process) in any order; each is yielded as
    soon as every game before it is in, so the output does not depend on the executor.
    `progress` is called with the number of games finished so far.

    Raises:
        GenerationError: a game's setup failed (an unknown bot, no Stockfish): every game would.
    """
    for name in mix:
        resolve_bot(name)  # an unknown name fails here, not in a worker
    specs = {game_id(spec): spec for spec in (GameSpec(i, seed, mix, full_turn_limit) for i in range(games))}
    executor = executor if executor is not None else InlineExecutor()
    waiting: dict[int, Union[list[Sequence], GenerationError]] = {}
    next_index = 0
    results = executor.run(tournament_spec(spec) for spec in specs.values())
    try:
        for done, result in enumerate(results, start=1):
            if result.setup_error:
                raise GenerationError(f"game {result.key} could not be set up: {result.error}")
            spec = specs[result.key]
            try:
                waiting[spec.index] = encode_game(observed(result), result.key, pairing(spec)[:2])
            except GenerationError as error:
                logger.warning("%s", error)
                waiting[spec.index] = error
            if progress is not None:
                progress(done)
            while next_index in waiting:
                yield waiting.pop(next_index)
                next_index += 1
    finally:
        getattr(results, "close", lambda: None)()
