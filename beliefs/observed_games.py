"""Observed games: a player's event stream with the truth board beside every event, played or recorded.

`play_random_game` plays seeded random actions on the real arbiter; `observed_game` reads the
same streams from a recorded history (the posterior's training data comes from both).

Used by the belief tests, benchmarks and walkthrough: each colour's event stream is
exactly what `LocalGame` delivered, and ``truth[i]`` is the board when event ``i``
arrived (after the move it reports).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import chess
import numpy as np

from blindchess.arbiter.game.history import GameHistory, Turn
from blindchess.arbiter.game.local_game import LocalGame
from blindchess.arbiter.game.observations import GameEnded, GameStarted, MoveResult, Observation
from blindchess.arbiter.rules import reference as rules
from blindchess.arbiter.rules.ruleset import STANDARD, Rules


@dataclass
class ObservedGame:
    """Per colour, the events received and the true board at each."""

    events: dict[chess.Color, list[Observation]] = field(default_factory=lambda: {chess.WHITE: [], chess.BLACK: []})
    truth: dict[chess.Color, list[chess.Board]] = field(default_factory=lambda: {chess.WHITE: [], chess.BLACK: []})


def play_random_game(
    rng: np.random.Generator,
    full_turn_limit: int = 20,
    sense_probability: float = 0.9,
    pass_probability: float = 0.05,
    uniform_outcomes: bool = False,
    ruleset: Rules[Any] = STANDARD,
) -> ObservedGame:
    """One game of uniformly random senses and moves (each skipped with the given probability).

    With `uniform_outcomes`, a move is drawn uniformly from the distinct outcomes of the
    move actions (their revisions on the true board, the pass included) and
    `pass_probability` is ignored: the uniform opponent-move model's own distribution
    (:mod:`blindchess.beliefs.move_model`), for tests of calibration (8x8 rules only).
    `ruleset` picks the board (a small board's rules play on a `chess.Board` too).
    """
    if uniform_outcomes and ruleset is not STANDARD:
        raise ValueError(f"uniform_outcomes needs the 8x8 rules, got {ruleset.name!r}")
    record = ObservedGame()
    game: Optional[LocalGame[Any]] = None

    def observe(color: chess.Color, event: Observation) -> None:
        assert game is not None
        record.events[color].append(event)
        record.truth[color].append(game.board.copy(stack=False))

    game = LocalGame(seconds_per_player=None, full_turn_limit=full_turn_limit, rules=ruleset, observer=observe)
    game.start()
    while not game.is_over():
        senses = game.sense_actions() or []
        game.sense(None if rng.random() < 1 - sense_probability else senses[rng.integers(len(senses))])
        moves = game.move_actions() or []
        if uniform_outcomes:
            revised = {rules.revise_move(game.board, m) for m in moves}
            outcomes = sorted((m for m in revised if m is not None), key=chess.Move.uci)
            choice = int(rng.integers(len(outcomes) + 1))
            move = outcomes[choice] if choice < len(outcomes) else None
        else:
            move = None if not moves or rng.random() < pass_probability else moves[rng.integers(len(moves))]
        game.move(move)
        game.end_turn()
    game.end()
    return record


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
