"""s(b, m): what requesting move m on board b is worth to the requester, by Stockfish, in [-1, 1].

Why here: the Stockfish selector (:mod:`blindchess.moving.stockfish_selector`) decides by these
values and the engine-values sense planner (:mod:`blindchess.sensing.engine_values`) weighs its
windows by them; a value both read lives below both of them, as the proxy does
(:mod:`blindchess.evaluation.values`)::

    s(b, m) = +1                     if the request captures the king on b
              -1                     if afterwards our king stands capturable
              v(after(b, m))         otherwise: Stockfish's score for us (`score_to_value`), or
                                     tanh(material / 10) where it has none (unsearchable, or it died twice)

The request is what the arbiter makes of it (`request_outcome`: slides stop at the first blocker,
illegal castles and pushes into pieces do nothing), never the move as if it were legal chess.
"""

from __future__ import annotations

import math
from typing import Optional

import chess
import chess.engine

from blindchess.arbiter.rules.reference import RequestOutcome
from blindchess.arbiter.types import Color

from .stockfish import Engine
from .values import material_balance

WIN, LOSS = 1.0, -1.0


def score_to_value(score: chess.engine.PovScore, color: Color) -> float:
    """Stockfish's score as a value in [-1, 1] for `color`.

    Centipawns go through a logistic scaled into (-0.95, 0.95); a mate in ``n`` is worth
    ``0.999 - 0.001 n`` (down to 0.96), so any forced mate beats any material lead and a
    shorter mate beats a longer one: without the distance every move of a won ending scores
    the same, and the bot can shuffle a piece until the 50-move draw.

    >>> score_to_value(chess.engine.PovScore(chess.engine.Mate(-2), chess.BLACK), chess.WHITE)
    0.997
    >>> round(score_to_value(chess.engine.PovScore(chess.engine.Cp(300), chess.WHITE), chess.WHITE), 3)
    0.439
    """
    pov = score.pov(color)
    mate = pov.mate()
    if mate is not None:
        magnitude = 0.999 - 0.001 * min(abs(mate), 39)
        return magnitude if pov > chess.engine.Cp(0) else -magnitude  # MateGiven has mate() == 0 too
    centipawns = pov.score(mate_score=100_000) or 0
    return 0.95 * (2.0 / (1.0 + math.exp(-centipawns / 300.0)) - 1.0)


def known_value(outcome: RequestOutcome, color: Color) -> Optional[float]:
    """s(b, m) where no search is needed: a king capture wins, an exposed king loses; else None."""
    if outcome.captures_king:
        return WIN
    if outcome.exposes_king(color):
        return LOSS
    return None


def info_value(info: Optional[object], color: Color) -> Optional[float]:
    """v(after) for `color` from the engine's analysis of it; None if there is none (unsearchable, the engine
    died twice, or the search was abandoned)."""
    if isinstance(info, dict) and "score" in info:
        return score_to_value(info["score"], color)
    return None


def fallback_value(after: chess.Board, color: Color) -> float:
    """v(after) where the engine gave no score: the material balance's, squashed into (-1, 1) as scores are."""
    return math.tanh(material_balance(after, color) / 10.0)


def searched_value(engine: Engine, after: chess.Board, color: Color, limit: chess.engine.Limit) -> float:
    """v(after) for `color`: the engine's score at `limit`, or the material balance's where it has none."""
    value = info_value(engine.analyse(after, limit, info=chess.engine.INFO_SCORE), color)  # the score is all we read
    return fallback_value(after, color) if value is None else value
