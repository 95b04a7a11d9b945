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

from blindchess.arbiter.rules import reference as rules
from blindchess.beliefs import Belief
from blindchess.bots.flagship_config import FAST_FLAGSHIP
from blindchess.experiments.blunder_positions import beliefs_before, label, meets
from blindchess.moving import MoveContext
from blindchess.moving.stockfish_selector import StockfishMoveSelector

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "blunder_positions.json"
SUITE: dict[str, Any] = json.loads(FIXTURE.read_text())
POSITIONS: list[dict[str, Any]] = SUITE["positions"]


KNOWN_FAILURES = {
    "strangefish2-fair/game-003-flagship-vs-StrangeFish2@14-hanging-piece": (
        "the bishop on e3, attacked by the pawn on d4 (one board left): the fast preset counterattacks the queen with"
        " d2e4 (Stockfish, depth 18 on the true board: -622 cp, against -554 for the game's c3d4)"
    ),
    "strangefish2-fair/game-003-flagship-vs-StrangeFish2@38-hanging-piece": (
        "the rook on g3, attacked by the pawn it saw take on f4: the fast preset plays g3d3 with this seed and g3g7"
        " (Rxg7 Qxg7, -3752 cp on the true board) with seeds 1-5; the game's flagship played g3g4"
    ),
}
"""Positions the flagship's fast selector fails today, by label: expected to fail (strictly: a fix shows as a
failure until its line goes). They stay in the suite; docs/champion.md lists them."""


@functools.cache
def beliefs(source: str) -> dict[int, Belief]:
    """The flagship's belief just before each suite position's move in game `source`, by own turn."""
    game = next(game for game in SUITE["games"] if game["source"] == source)
    return beliefs_before(game, {p["own_turn"] for p in POSITIONS if p["source"] == source})


@pytest.fixture(scope="module")
def selector() -> Iterator[StockfishMoveSelector]:
    with contextlib.closing(StockfishMoveSelector(FAST_FLAGSHIP.selector)) as chosen:
        yield chosen


def test_the_suite_has_at_least_thirty_positions_each_with_its_source() -> None:
    assert len(POSITIONS) >= 30
    assert {p["kind"] for p in POSITIONS} == {"king-capture", "king-safety", "hanging-piece"}
    for position in POSITIONS:
        assert (position["source"], position["turn"]) and ("one_of" in position) != ("not" in position)


def test_every_known_failure_is_a_suite_position() -> None:
    assert set(KNOWN_FAILURES) <= {label(p) for p in POSITIONS}


def case(position: dict[str, Any]) -> Any:
    """The position as a test case, strictly expected to fail when it is a known failure."""
    reason = KNOWN_FAILURES.get(label(position))
    marks = [] if reason is None else [pytest.mark.xfail(strict=True, reason=reason)]
    return pytest.param(position, id=label(position), marks=marks)


CASES = [case(p) for p in POSITIONS]


@pytest.mark.parametrize("position", CASES)
def test_the_flagship_meets_the_constraint(position: dict[str, Any], selector: StockfishMoveSelector) -> None:
    belief = beliefs(position["source"])[position["own_turn"]]
    color = next(game for game in SUITE["games"] if game["source"] == position["source"])["color"] == "white"
    board = next(iter(belief.sample(1, np.random.default_rng(0))))
    actions = rules.move_actions(board)
    move = selector.choose_move(belief, actions, 300.0, np.random.default_rng(position["turn"]), MoveContext(color))
    assert move is not None
    assert meets(position, move), f"{move.uci()} is not one of {position['one_of']}" if "one_of" in position else (
        f"{move.uci()} leaves the king capturable on most boards"
    )
