"""Recorded games as belief test data: each colour's observation stream with the true board at every event.

The board-set games fixture (``tests/fixtures/boardset_games.json.gz``, written by
``experiments/record_boardset_games.py``) holds reconchess-format histories; this turns one
into the same `ObservedGame` that :mod:`blindchess.beliefs.random_games` plays live, so
benchmarks and tests treat recorded and fresh games alike.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import chess
import numpy as np

from blindchess.arbiter.history import GameHistory, Turn
from blindchess.arbiter.observations import GameEnded, GameStarted, MoveResult, SenseResult

from .board_set import BoardSet
from .random_games import ObservedGame

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "boardset_games.json.gz"
"""The recorded games of the board-set tests (a source checkout only)."""


def load_records(path: Path = FIXTURE) -> list[dict[str, Any]]:
    """The gzipped JSON list of ``{"white", "black", "seed", "history"}`` records."""
    with gzip.open(path, "rt") as handle:
        records: list[dict[str, Any]] = json.load(handle)
    return records


def observed_game(history: GameHistory) -> ObservedGame:
    """Per colour, the events of `history` and the true board at each.

    Each stream ends at the last event whose board the history holds: `GameEnded`, and the
    events of a final turn that ended before our move (our king was taken), are left out.
    """
    game = ObservedGame()
    for color in (chess.WHITE, chess.BLACK):
        own_turns = 0
        for event in history.observations(color):
            turn = Turn(color, own_turns)
            if isinstance(event, GameStarted):
                truth = event.starting_board()
            elif isinstance(event, MoveResult):
                truth = history.truth_board_after_move(turn)
                truth.turn = not color  # the history keeps the mover's side to move after a pass
                own_turns += 1
            elif not isinstance(event, GameEnded) and history.has_move(turn):
                truth = history.truth_board_before_move(turn)
            else:
                break
            game.events[color].append(event)
            game.truth[color].append(truth)
    return game


def sensed_beliefs(history: GameHistory, color: chess.Color, limit: int = 2_000, subset: int = 400, seed: int = 0) -> list[BoardSet]:
    """`color`'s board set (unweighted) after each of its senses in `history`, our side to move.

    Past `limit` boards the set is re-seeded with `subset` of its boards (drawn with `seed`) and
    the true board, as the lockstep board-set tests do: beliefs of real games, each replay a
    fraction of a second. For tests and benchmarks of what planners read from a belief.
    """
    game = observed_game(history)
    rng = np.random.default_rng(seed)
    belief, kept = BoardSet(max_boards=None, move_model=None), []
    for event, truth in zip(game.events[color], game.truth[color], strict=True):
        belief.update(event)
        if len(belief) > limit:
            rows = np.sort(rng.choice(len(belief), size=subset, replace=False))
            belief = BoardSet.from_boards(color, [truth, *belief.subset(rows).boards()], max_boards=None, move_model=None)
        if isinstance(event, SenseResult):
            kept.append(belief.copy())
    return kept
