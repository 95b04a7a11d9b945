"""The blunder regression suite: positions from the flagship's games where one move choice is plainly wrong.

Each position (``tests/fixtures/blunder_positions.json``, built by ``experiments/blunder_positions.py``
from the game records in ``../shared/games/``, its source file and turn kept with it) is the
flagship's own observations up to a move, and a constraint on that move read off its belief:
take the king when every board allows it; do not move where most boards let the opponent
capture our king when a move exists that does not. The flagship's belief is rebuilt by
replaying the observations, and its selector (the ``fast`` preset: depth 1, seeded) must meet
the constraint. docs/champion.md lists the kinds and how the positions were chosen.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from blindchess.arbiter.game.observations import GameStarted
from blindchess.arbiter.rules import reference as rules
from blindchess.beliefs import Belief
from blindchess.bots.flagship_config import FAST_FLAGSHIP, BeliefConfig
from blindchess.experiments.blunder_positions import decode_turn
from blindchess.moving import MoveContext
from blindchess.moving.stockfish_selector import StockfishMoveSelector

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "blunder_positions.json"
SUITE: dict[str, Any] = json.loads(FIXTURE.read_text())
POSITIONS: list[dict[str, Any]] = SUITE["positions"]


def label(position: dict[str, Any]) -> str:
    return f"{Path(position['source']).stem}@{position['turn']}-{position['kind']}"


@functools.cache
def beliefs(source: str) -> dict[int, Belief]:
    """The flagship's belief just before each suite position's move in game `source`, by own turn."""
    game = next(game for game in SUITE["games"] if game["source"] == source)
    color = game["color"] == "white"
    wanted = {p["own_turn"] for p in POSITIONS if p["source"] == source}
    belief = BeliefConfig().build()
    belief.update(GameStarted(color, game["starting_fen"]))
    found: dict[int, Belief] = {}
    for own, turn in enumerate(game["turns"]):
        opponent, sense, move = decode_turn(turn)
        belief.update(opponent)
        belief.update(sense)
        if own in wanted:
            found[own] = belief.copy()
        if own >= max(wanted):
            break
        belief.update(move)
    return found


@pytest.fixture(scope="module")
def selector() -> Iterator[StockfishMoveSelector]:
    with contextlib.closing(StockfishMoveSelector(FAST_FLAGSHIP.selector)) as chosen:
        yield chosen


def test_the_suite_has_at_least_thirty_positions_each_with_its_source() -> None:
    assert len(POSITIONS) >= 30
    assert {p["kind"] for p in POSITIONS} == {"king-capture", "king-safety", "hanging-piece"}
    for position in POSITIONS:
        assert (position["source"], position["turn"]) and ("one_of" in position) != ("not" in position)


@pytest.mark.parametrize("position", POSITIONS, ids=[label(p) for p in POSITIONS])
def test_the_flagship_meets_the_constraint(position: dict[str, Any], selector: StockfishMoveSelector) -> None:
    belief = beliefs(position["source"])[position["own_turn"]]
    color = next(game for game in SUITE["games"] if game["source"] == position["source"])["color"] == "white"
    board = next(iter(belief.sample(1, np.random.default_rng(0))))
    actions = rules.move_actions(board)
    move = selector.choose_move(belief, actions, 300.0, np.random.default_rng(position["turn"]), MoveContext(color))
    assert move is not None
    if "one_of" in position:
        assert move.uci() in position["one_of"], f"{move.uci()} is not one of {position['one_of']}"
    else:
        assert move.uci() not in position["not"], f"{move.uci()} leaves the king capturable on most boards"
