"""Acceptance 1: BoardSet and ReferenceBoardSet hold exactly the same boards after every event.

Replays the 306 recorded bot-vs-bot games (random, attacker, trout; every ordered
pair; fixture written by ``experiments/record_boardset_games.py``) through
`GameHistory.observations(color)` for both colours. The reference costs about a
millisecond per board on an opponent turn, so each stream is compared while the
reference set stays at most ``REFERENCE_LIMIT`` boards; the fast set alone goes on
to the end of the game and must keep the true board.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import chess
import pytest

from blindchess.arbiter.history import GameHistory, Turn
from blindchess.arbiter.observations import MoveResult, OpponentMoved
from blindchess.beliefs import BoardSet, ReferenceBoardSet

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "boardset_games.json.gz"
REFERENCE_LIMIT = 150


def _records() -> list[dict]:
    with gzip.open(FIXTURE, "rt") as handle:
        return json.load(handle)


RECORDS = _records()


def test_fixture_has_300_games_between_every_pair_of_bots() -> None:
    assert len(RECORDS) >= 300
    assert {(r["white"], r["black"]) for r in RECORDS} == {
        (w, b) for w in ("random", "attacker", "trout") for b in ("random", "attacker", "trout")
    }


@pytest.mark.parametrize("chunk", range(6))
def test_fast_equals_reference_after_every_event(chunk: int) -> None:
    compared_events = 0
    for record in RECORDS[chunk::6]:
        history = GameHistory.from_json(record["history"])
        for color in (chess.WHITE, chess.BLACK):
            fast, reference = BoardSet(max_boards=None), ReferenceBoardSet()
            own_turns = 0
            for event in history.observations(color):
                fast.update(event)
                if len(reference) <= REFERENCE_LIMIT:
                    reference.update(event)
                    assert fast.keys() == reference.keys(), (record["seed"], color, event)
                    assert len(fast) == len(reference)
                    compared_events += 1
                if isinstance(event, OpponentMoved) and history.has_move(Turn(color, own_turns)):
                    truth = history.truth_board_before_move(Turn(color, own_turns))
                    assert truth in fast, (record["seed"], color, event)
                if isinstance(event, MoveResult):
                    truth = history.truth_board_after_move(Turn(color, own_turns))
                    truth.turn = not color  # reconchess's history keeps the mover's side to move after a pass
                    assert truth in fast, (record["seed"], color, event)
                    own_turns += 1
    assert compared_events > 1000
