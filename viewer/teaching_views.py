"""The teaching-board view: the whole support of the exact belief, and each event's Bayes step.

On the small teaching boards (:mod:`blindchess.variants.teaching`) the belief fits on a
page, so the viewer shows all of it, as ``experiments/pomdp_walkthrough.py`` prints
it: for each event the player received at a ply, the three quantities of the filter::

    prior       b^-(s')
    likelihood  P(o | s')      (0 or 1)
    posterior   b(s') = P(o | s') b^-(s') / sum_x P(o | x) b^-(x)

one row per board, the true board marked. A game is recognised as a teaching game
by its start position.
"""

from __future__ import annotations

from typing import Any, Optional

import chess

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.observations import MoveResult, SenseResult
from blindchess.beliefs.enumerated_belief import BayesStep, BoardKey, EnumeratedBelief
from blindchess.variants.geometry import code_piece
from blindchess.variants.recon import ReconMiniChessRules
from blindchess.variants.teaching import TEACHING_BOARDS

from .replay import event_plies

MAX_ROWS = 400
"""Boards listed per table at most (the 5x6 board's belief can outgrow a page; the rest is summed up)."""


def teaching_rules(history: GameHistory) -> Optional[ReconMiniChessRules]:
    """The teaching board `history` was played on, recognised by its start position, or None for 8x8 chess."""
    placement = chess.Board(history.starting_fen).board_fen()
    for rules in TEACHING_BOARDS.values():
        if rules.starting_board().board_fen() == placement:
            return rules
    return None


def placement_rows(rules: ReconMiniChessRules, key: BoardKey) -> list[str]:
    """A board key as the rows of the small board, top rank first ('.' for empty)."""
    files, ranks = rules.game.files, rules.game.ranks
    return [
        "".join((piece.symbol() if (piece := code_piece(key[chess.square(f, r)])) else ".") for f in range(files))
        for r in range(ranks - 1, -1, -1)
    ]


def _step_json(rules: ReconMiniChessRules, step: BayesStep, truth: Optional[BoardKey]) -> dict[str, Any]:
    order = sorted(step.prior, key=lambda key: (-step.prior[key], key))
    rows = [
        {
            "board": placement_rows(rules, key),
            "prior": step.prior[key],
            "likelihood": step.likelihood.get(key, 0.0),
            "posterior": step.posterior.get(key, 0.0),
            "truth": key == truth,
        }
        for key in order[:MAX_ROWS]
    ]
    return {
        "event": repr(step.event),
        "rows": rows,
        "more": max(0, len(order) - MAX_ROWS),
        "prior_size": len(step.prior),
        "posterior_size": len(step.posterior),
    }


def _truth_key(rules: ReconMiniChessRules, fen: str) -> BoardKey:
    return rules.cells_of(chess.Board(fen))


def teaching_view(history: GameHistory, rules: ReconMiniChessRules, color: chess.Color, ply: int, truth_fens: list[str]) -> dict[str, Any]:
    """The support at `ply` and the Bayes steps of the events `color` received exactly at that ply.

    Args:
        truth_fens: the true position at each ply (``truth_fens[p]``), to mark the true board.

    `ply` must be in range (``0 <= ply < len(truth_fens)``).
    """
    events = history.observations(color)
    plies = event_plies(events)
    belief = EnumeratedBelief(rules)
    steps = []
    truth = _truth_key(rules, truth_fens[ply])
    for event, known in zip(events, plies, strict=True):
        if not 0 <= known <= ply:
            continue
        belief.update(event)
        if known == ply and belief.last_step is not None:
            # a sense and a move happen on the board before the move (a move's table lists the
            # boards before it, as the walkthrough does); a turn's start on the board at that ply
            during = known - 1 if isinstance(event, (SenseResult, MoveResult)) else known
            steps.append(_step_json(rules, belief.last_step, _truth_key(rules, truth_fens[during])))
    probabilities = belief.probabilities()
    order = sorted(probabilities, key=lambda key: (-probabilities[key], key))
    return {
        "board": rules.game.name,
        "files": rules.game.files,
        "ranks": rules.game.ranks,
        "support": [
            {"board": placement_rows(rules, key), "probability": probabilities[key], "truth": key == truth} for key in order[:MAX_ROWS]
        ],
        "support_size": len(probabilities),
        "entropy": belief.entropy(),
        "steps": steps,
    }
