"""simulchess players: a random bot and a one-turn search bot, and the match runner the `match` command calls.

The search bot treats a turn as the simultaneous-move game it is: for each of its
primaries (with its best backup) it resolves the turn against every primary of
the opponent (with the opponent's best backup) on a copy of the state, scores
the result by material (a king is worth the game), and plays the primary with the
best mix of worst case and average over the opponent's replies. Candidate lists
are capped (captures and the best-looking quiet moves first) to bound the
|mine| x |theirs| resolutions per turn.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Optional, Protocol, Union

import chess
import numpy as np

from blindchess.arbiter.types import Color
from blindchess.variants.simulchess.game import SimulGame, SimulResult, resolve
from blindchess.variants.simulchess.rules import (
    NULL,
    SimulState,
    Submission,
    needs_backup,
    submittable_moves,
    valid_backups,
)

logger = logging.getLogger(__name__)

PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 1000}


class SimulPlayer(Protocol):
    """A simulchess player: sees the whole state, submits a primary and (when needed) a backup."""

    def submit(self, state: SimulState, color: Color) -> Submission: ...


def material(board: chess.Board, color: Color) -> int:
    """Material of `color` minus the opponent's (kings included at 1000)."""
    score = 0
    for piece in board.piece_map().values():
        score += PIECE_VALUES[piece.piece_type] * (1 if piece.color == color else -1)
    return score


class RandomSimulBot:
    """A uniformly random primary; a uniformly random valid backup when one is needed; a pass when stuck."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def submit(self, state: SimulState, color: Color) -> Submission:
        moves = submittable_moves(state, color)
        if not moves:
            return Submission(NULL)
        primary = moves[int(self.rng.integers(len(moves)))]
        if not needs_backup(state, color, primary):
            return Submission(primary)
        backups = valid_backups(state, color, primary)
        return Submission(primary, backups[int(self.rng.integers(len(backups)))])


class SearchSimulBot:
    """One simultaneous turn of lookahead: maximise worst case plus average material over the opponent's replies.

    Args:
        rng: breaks ties between equally scored primaries.
        max_candidates: the most primaries considered per side.
        worst_case_weight: weight of the worst case against the average (1 = pure maximin).
    """

    def __init__(self, rng: np.random.Generator, max_candidates: int = 12, worst_case_weight: float = 0.5) -> None:
        self.rng = rng
        self.max_candidates = max_candidates
        self.worst_case_weight = worst_case_weight

    def _candidates(self, state: SimulState, color: Color) -> list[Submission]:
        moves = submittable_moves(state, color)
        if not moves:
            return [Submission(NULL)]
        board = state.board

        def greed(move: chess.Move) -> float:
            victim = board.piece_at(move.to_square)
            gain = PIECE_VALUES[victim.piece_type] if victim is not None else 0
            return gain + (8 if move.promotion == chess.QUEEN else 0) + float(self.rng.random()) * 0.1

        ranked = sorted(moves, key=greed, reverse=True)[: self.max_candidates]
        submissions = []
        for primary in ranked:
            if needs_backup(state, color, primary):
                backups = valid_backups(state, color, primary)
                submissions.append(Submission(primary, max(backups, key=lambda b: greed(b) if b != NULL else -1.0)))
            else:
                submissions.append(Submission(primary))
        return submissions

    def submit(self, state: SimulState, color: Color) -> Submission:
        mine = self._candidates(state, color)
        theirs = self._candidates(state, not color)
        best: Optional[Submission] = None
        best_score = -float("inf")
        for submission in mine:
            scores = []
            for reply in theirs:
                pair = (submission, reply) if color == chess.WHITE else (reply, submission)
                after, _ = resolve(state, *pair)
                scores.append(material(after.board, color))
            score = self.worst_case_weight * min(scores) + (1 - self.worst_case_weight) * float(np.mean(scores))
            if score > best_score:
                best, best_score = submission, score
        assert best is not None
        return best


BOTS = {"random": RandomSimulBot, "search": SearchSimulBot}
"""simulchess bots by name, as `blindchess simulchess` names them."""


@dataclass(frozen=True)
class SimulGameRecord:
    """One finished game of a match: the players by colour, the result and the number of turns."""

    white: str
    black: str
    result: SimulResult
    turns: int


def play_simulchess_game(white: SimulPlayer, black: SimulPlayer, max_turns: int = 300) -> SimulGame:
    """Play one game to its end and return it (reports and result inside)."""
    game = SimulGame(max_turns=max_turns)
    while game.result is None:
        game.play_turn(white.submit(game.state, chess.WHITE), black.submit(game.state, chess.BLACK))
    return game


def play_simulchess_match(
    white: Union[str, SimulPlayer],
    black: Union[str, SimulPlayer],
    games: int = 1,
    seed: int = 0,
    max_turns: int = 300,
    swap_colors: bool = False,
) -> list[SimulGameRecord]:
    """A match of simulchess games; bots are `BOTS` names (each game builds them seeded) or player objects.

    Game i uses seed ``seed + i``; with `swap_colors` the players change colours every other game.

    Raises:
        SimulchessError: an unknown bot name (the message lists the known ones).
    """
    from blindchess.variants.simulchess.rules import SimulchessError

    records = []
    for index in range(games):
        rng = np.random.default_rng(seed + index)
        sides = (white, black) if not (swap_colors and index % 2) else (black, white)
        players = []
        for side in sides:
            if isinstance(side, str):
                if side not in BOTS:
                    raise SimulchessError(f"unknown simulchess bot {side!r}; known: {', '.join(sorted(BOTS))}")
                players.append(BOTS[side](rng))
            else:
                players.append(side)
        game = play_simulchess_game(players[0], players[1], max_turns=max_turns)
        names = [side if isinstance(side, str) else type(side).__name__ for side in sides]
        assert game.result is not None
        records.append(SimulGameRecord(names[0], names[1], game.result, len(game.reports)))
        logger.info("simulchess game %d: %s vs %s -> %s", index, names[0], names[1], game.result)
    return records
