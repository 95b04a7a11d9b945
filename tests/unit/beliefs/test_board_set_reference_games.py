"""Fast `BoardSet` against `ReferenceBoardSet` on recorded bot games (acceptance 1).

The fixture holds 306 recorded games between random, attacker and trout (every ordered
pair, 34 games each in a row; written by ``experiments/record_boardset_games.py``). Every
sixth game is compared here, 51 games with every pair of bots: a game costs about a second
of CPU (the reference set is slow by design), and all 306 once took five minutes of the
suite's CPU to find what 51 find. Each game's observation streams (`GameHistory.observations(color)`, both colours) are replayed into:

* a full fast set (capped at ``FAST_LIMIT``) that must hold the history's true board
  whenever it is exact, and
* a lockstep pair — a fast set and a reference set holding the same boards — compared
  after every event: the same boards, and the same marginals to 1e-9 in every cell. The reference
  costs about a millisecond per board on an opponent turn, so while the pair is small it is the whole belief; once the reference grows past
  ``REFERENCE_LIMIT`` boards, the pair is re-seeded with ``SUBSET`` boards drawn from the
  full set (or, once the full set is past its cap, from the pair's own boards) and the
  history's true board. So every event of every stream is checked on real boards of the belief,
  not only the early, small ones. When the subset has no board left that fits an event,
  both implementations must say so, and the pair is re-seeded after the event.
  The full set must hold the true board after every event while it is exact.
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from blindchess.arbiter.game.history import GameHistory, Turn
from blindchess.arbiter.game.observations import MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.beliefs import BoardSet, InconsistentObservationError, ReferenceBoardSet
from blindchess.fixtures.recorded_games import load_records

REFERENCE_LIMIT = 60
SUBSET = 12
FAST_LIMIT = 50_000


RECORDS = load_records()
SAMPLE = RECORDS[::6]


def test_fixture_has_300_games_between_every_pair_of_bots() -> None:
    assert len(RECORDS) >= 300
    pairs = {(w, b) for w in ("random", "attacker", "trout") for b in ("random", "attacker", "trout")}
    assert {(r["white"], r["black"]) for r in RECORDS} == pairs
    assert {(r["white"], r["black"]) for r in SAMPLE} == pairs  # the compared games too


def assert_same_marginals(fast: BoardSet, reference: ReferenceBoardSet, context: object) -> None:
    """The compiled marginals pass against the reference's board-by-board sum, to 1e-9 in every cell."""
    difference = np.abs(fast.marginals() - reference.marginals()).max()
    assert difference <= 1e-9, (context, difference)


class _Lockstep:
    """A fast set and a reference set that must hold the same boards after every event."""

    def __init__(self, color: chess.Color) -> None:
        self.color = color
        self.fast: BoardSet | None = BoardSet(max_boards=None, move_model=None)  # never past REFERENCE_LIMIT x children
        self.reference: ReferenceBoardSet | None = ReferenceBoardSet(move_model=None)
        self.events = 0

    def reseed(self, source: BoardSet | None, rng: np.random.Generator, truth: chess.Board) -> None:
        """Hold ``SUBSET`` boards of `source` (if any) and `truth`, so that the pair is never empty."""
        boards = [truth]
        if source is not None:
            rows = rng.choice(len(source), size=min(SUBSET, len(source)), replace=False)
            boards += source.subset(np.sort(rows)).boards()
        self.fast = BoardSet.from_boards(self.color, boards, max_boards=None, move_model=None)
        self.reference = ReferenceBoardSet.from_boards(self.color, boards, move_model=None)
        assert self.fast.keys() == self.reference.keys()
        assert_same_marginals(self.fast, self.reference, "reseeded")

    def update(self, event: Observation, context: tuple[object, ...]) -> None:
        assert self.fast is not None and self.reference is not None
        outcomes = []
        for belief in (self.fast, self.reference):
            try:
                belief.update(event)
                outcomes.append("kept")
            except InconsistentObservationError:
                outcomes.append("emptied")
        assert outcomes[0] == outcomes[1], (context, outcomes)
        self.events += 1
        if outcomes[0] == "emptied":
            self.fast = self.reference = None
            return
        assert self.fast.keys() == self.reference.keys(), context
        assert_same_marginals(self.fast, self.reference, context)


def _truth_after(history: GameHistory, color: chess.Color, event: Observation, own_turns: int) -> chess.Board | None:
    """The true board right after `event` of `color`'s stream (``own_turns`` moves of ours before it)."""
    if isinstance(event, (OpponentMoved, SenseResult)) and history.has_move(Turn(color, own_turns)):
        return history.truth_board_before_move(Turn(color, own_turns))
    if isinstance(event, MoveResult):
        truth = history.truth_board_after_move(Turn(color, own_turns))
        truth.turn = not color  # reconchess's history keeps the mover's side to move after a pass
        return truth
    return None


@pytest.mark.parametrize("chunk", range(3))
def test_fast_equals_reference_after_every_event(chunk: int) -> None:
    rng = np.random.default_rng(chunk)
    compared = total = 0
    for record in SAMPLE[chunk::3]:
        history = GameHistory.from_json(record["history"])
        for color in (chess.WHITE, chess.BLACK):
            full: BoardSet | None = BoardSet(max_boards=FAST_LIMIT, move_model=None)
            pair = _Lockstep(color)
            own_turns = 0
            events = history.observations(color)
            total += len(events)
            for index, event in enumerate(events):
                context = (record["seed"], color, index, event)
                pair.update(event, context)
                if full is not None:
                    full.update(event)
                    if not full.is_exact:
                        full = None  # past the cap: recovering it costs minutes; the pair goes on without it
                truth = _truth_after(history, color, event, own_turns)
                if truth is not None and full is not None:
                    assert truth in full, context
                if pair.fast is None or pair.reference is None or len(pair.reference) > REFERENCE_LIMIT:
                    if truth is None:
                        break  # the game is over
                    pair.reseed(full if full is not None else pair.fast, rng, truth)
                if isinstance(event, MoveResult):
                    own_turns += 1
            compared += pair.events
    assert compared == total  # every event of every stream
