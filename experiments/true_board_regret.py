"""What a move request was worth on the true board: every move action scored by a deep search, and regret.

A bot that cannot see the board is judged here by a player who can: on the true board, each
move action (and the pass) is requested as RBC's arbiter would make it (`request_outcome`: a
slide through an unseen piece stops on it and captures it, a blocked pawn push becomes a
shorter one or nothing) and the position after it is searched by Stockfish to a fixed depth.
Values are centipawns for the mover:

* ``+MATE_CP`` if the request captures the opponent's king (the game is won);
* ``-MATE_CP`` if it leaves the mover's king capturable (the opponent takes it next);
* otherwise Stockfish's score of the position after it, mate scores capped at ``MATE_CP``.

The **regret** of a request is ``max(values) - values[request]``: what a player who saw the
board would have gained over it (0 for the best request, never negative). A request
**loses the king** when its value is ``-MATE_CP`` (the opponent can take the king at once, or the
deep search finds a forced mate) and another request's is not (a lost position, where every
request is mated, loses nothing by the choice), and **loses material** when its regret is at least ``MINOR_PIECE_CP`` (the deep
search finds it a minor piece or more worse than the best request; a missed mate counts too).

Deep searches are slow and the same true boards come back on every rerun, so `ScoreFile`
keeps each board's values in a JSON file, keyed by the board's FEN and the search depth.

>>> request_key(None), request_key(chess.Move.from_uci("a1a8"))
('0000', 'a1a8')
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Optional

import chess
import chess.engine

from blindchess.arbiter.rules.fast_revision import request_outcome
from blindchess.arbiter.rules.reference import move_actions
from blindchess.evaluation.stockfish import Engine

logger = logging.getLogger(__name__)

MATE_CP = 1000
"""Every mate score and every king capture is worth this many centipawns (either sign)."""
MINOR_PIECE_CP = 300
"""A regret of at least this much (a knight or bishop) counts as losing material."""

Values = dict[str, int]
"""Centipawns for the mover, by request (`request_key`), for every move action and the pass."""


def request_key(move: Optional[chess.Move]) -> str:
    """A request's key in `Values`: its UCI, ``0000`` for the pass."""
    return "0000" if move is None else move.uci()


def action_values(engine: Engine, truth: chess.Board, depth: int) -> Values:
    """Every move action's and the pass's value on `truth` (the mover to move), as the module docstring defines."""
    color = truth.turn
    limit = chess.engine.Limit(depth=depth)
    values: Values = {}
    for move in [None, *move_actions(truth)]:
        outcome = request_outcome(truth, move)
        if outcome.captures_king:
            values[request_key(move)] = MATE_CP
        elif outcome.exposes_king(color):
            values[request_key(move)] = -MATE_CP
        else:
            info = engine.analyse(outcome.after(), limit, info=chess.engine.INFO_SCORE)
            score = info.get("score") if isinstance(info, dict) else None
            if score is None:  # a position Stockfish cannot search (the engine logs it): call it level
                logger.warning("no score after %s on %s; valued 0", request_key(move), truth.fen())
                values[request_key(move)] = 0
            else:
                values[request_key(move)] = max(-MATE_CP, min(MATE_CP, score.pov(color).score(mate_score=100 * MATE_CP)))
    return values


def regret(values: Mapping[str, int], move: Optional[chess.Move]) -> int:
    """``max(values) - values[move]`` in centipawns (see the module docstring).

    >>> regret({"0000": -40, "e2e4": 30, "d1h5": -870}, chess.Move.from_uci("d1h5"))
    900
    """
    return max(values.values()) - values[request_key(move)]


def loses_king(values: Mapping[str, int], move: Optional[chess.Move]) -> bool:
    """Whether `move` is valued ``-MATE_CP`` (the king capturable at once, or mated by force) where another request is not.

    >>> loses_king({"0000": -1000, "e1e2": 10}, None), loses_king({"0000": -1000, "e1e2": -1000}, None)
    (True, False)
    """
    return values[request_key(move)] <= -MATE_CP < max(values.values())


def loses_material(values: Mapping[str, int], move: Optional[chess.Move]) -> bool:
    """Whether `move`'s regret is at least a minor piece (`MINOR_PIECE_CP`)."""
    return regret(values, move) >= MINOR_PIECE_CP


class ScoreFile:
    """`action_values` kept in a JSON file between runs: ``{"<fen> depth <d>": {request: centipawns}}``.

    The file is read once and written back by `save` (whole, through a temporary file, so
    an interrupted run loses only the boards scored since its last save).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.scored: dict[str, Values] = {}
        if path.is_file():
            try:
                self.scored = json.loads(path.read_text())
            except json.JSONDecodeError as error:
                raise ValueError(f"{path} is not a score file (JSON): {error}") from error
        self.hits = 0

    def values(self, engine: Engine, truth: chess.Board, depth: int) -> Values:
        """`truth`'s values at `depth`: from the file when there, else searched and kept."""
        known = self.known(truth, depth)
        if known is not None:
            self.hits += 1
            return known
        values = self.scored[f"{truth.fen()} depth {depth}"] = action_values(engine, truth, depth)
        return values

    def known(self, truth: chess.Board, depth: int) -> Optional[Values]:
        """`truth`'s values at `depth` if the file holds them (no search)."""
        return self.scored.get(f"{truth.fen()} depth {depth}")

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".partial")
        partial.write_text(json.dumps(self.scored, indent=0, sort_keys=True))
        partial.replace(self.path)
