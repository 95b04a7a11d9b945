"""Build the blunder regression suite's positions (``tests/fixtures/blunder_positions.json``) from game records.

Each position is a point in one of the flagship's games, just before it chose a move: its own
observations up to there (what rebuilds its belief) and a constraint on the move that no
spectator would argue with, read off the belief itself (every board it holds, or 3,000 drawn
when it holds more):

* ``king-capture``: some move captures the king on every board: the move must be one of them.
* ``king-safety``: some move leaves our king capturable on most boards (more than half) while
  another does not: the move must not be one of the former (stored as ``one_of`` the others
  when that list is shorter).

Positions of the second kind are many (most turns have a king move into an attacked square);
the suite keeps every one where most moves expose the king (the king is in check, or nearly),
and a few of the others per game. The game records are the flagship's games against
StrangeFish2 (``../shared/games/``, README there); run::

    python experiments/blunder_positions.py ../shared/games/strangefish2*/*.json --out tests/fixtures/blunder_positions.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Optional

import chess
import numpy as np

from blindchess.arbiter import rules
from blindchess.arbiter.fastrevise import request_outcome
from blindchess.arbiter.history import GameHistory
from blindchess.arbiter.observations import GameEnded, GameStarted, MoveResult, OpponentMoved, SenseResult
from blindchess.beliefs import Belief
from blindchess.bots.flagship_config import BeliefConfig

BOARDS = 3000
"""The most belief boards a constraint is read from."""
CHECKED = 20
"""A position where at least this many moves expose the king is always kept."""
OTHERS = 2
"""Of the other king-safety positions, this many per game (those with the most exposing moves)."""


def encode_turn(opponent: OpponentMoved, sense: SenseResult, move: MoveResult) -> list[Any]:
    """One own turn as ``[capture square, sense square, window, requested, taken, capture square]``, the window as
    ``[square, piece symbol or ""]`` pairs."""
    window = [[square, "" if piece is None else piece.symbol()] for square, piece in sense.window]
    moves = [None if m is None else m.uci() for m in (move.requested_move, move.taken_move)]
    return [opponent.capture_square, sense.square, window, *moves, move.capture_square]


def decode_turn(turn: list[Any]) -> tuple[OpponentMoved, SenseResult, MoveResult]:
    """The three observations `encode_turn` wrote."""
    capture, square, window, requested, taken, captured = turn
    sense = SenseResult(square, tuple((s, chess.Piece.from_symbol(p) if p else None) for s, p in window))
    move = MoveResult(*(None if m is None else chess.Move.from_uci(m) for m in (requested, taken)), captured)
    return OpponentMoved(capture), sense, move


def belief_boards(belief: Belief, rng: np.random.Generator) -> list[chess.Board]:
    """Every board of `belief`, or `BOARDS` drawn from it."""
    return list(belief.boards()) if len(belief) <= BOARDS else belief.sample(BOARDS, rng)  # type: ignore[attr-defined]


def constraint(boards: list[chess.Board], color: chess.Color) -> Optional[dict[str, Any]]:
    """The position's constraint (module docstring), or None when it has none."""
    moves = rules.move_actions(boards[0])  # our own pieces decide the move actions: the same on every board
    exposed, captures = np.zeros(len(moves)), np.zeros(len(moves))
    for board in boards:
        for j, move in enumerate(moves):
            outcome = request_outcome(board, move)
            captures[j] += outcome.captures_king
            exposed[j] += outcome.exposes_king(color) and not outcome.captures_king
    exposed, captures = exposed / len(boards), captures / len(boards)
    if captures.max() >= 1.0:
        return {"kind": "king-capture", "one_of": [m.uci() for m, c in zip(moves, captures, strict=True) if c >= 1.0]}
    bad = [m.uci() for m, e in zip(moves, exposed, strict=True) if e > 0.5]
    good = [m.uci() for m, e in zip(moves, exposed, strict=True) if e <= 0.5]
    if not bad or not good:
        return None
    return {"kind": "king-safety", **({"one_of": good} if len(good) < len(bad) else {"not": bad}), "exposing": len(bad)}


def mine(path: Path, root: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The flagship's game in `path` (its observations) and its positions with a constraint."""
    history = GameHistory.from_file(str(path))
    color = chess.WHITE if history.get_white_player_name() != "StrangeFish2" else chess.BLACK
    events = [event for event in history.observations(color) if not isinstance(event, GameEnded)]
    started = events[0]
    assert isinstance(started, GameStarted)
    source = str(path.relative_to(root))
    belief, rng = BeliefConfig().build(), np.random.default_rng(0)
    belief.update(started)
    turns: list[list[Any]] = []
    positions: list[dict[str, Any]] = []
    for own, turn in enumerate(history.turns(color)):
        first = 1 + 3 * own
        opponent, sense = events[first], events[first + 1]
        assert isinstance(opponent, OpponentMoved) and isinstance(sense, SenseResult)
        belief.update(opponent)
        belief.update(sense)
        found = constraint(belief_boards(belief, rng), color)
        if found is not None:
            played = history.requested_move(turn)
            record = {"source": source, "turn": turn.turn_number, "own_turn": own, "played": None if played is None else played.uci()}
            positions.append({**record, **found})
        move = events[first + 2]
        assert isinstance(move, MoveResult)
        turns.append(encode_turn(opponent, sense, move))
        belief.update(move)
    game = {"source": source, "color": chess.COLOR_NAMES[color], "starting_fen": started.starting_fen, "turns": turns}
    return game, positions


def select(positions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every king capture and checked position, and the `OTHERS` most exposing other positions of the game."""
    kept = [p for p in positions if p["kind"] == "king-capture" or p.get("exposing", 0) >= CHECKED]
    others = sorted((p for p in positions if p not in kept), key=lambda p: (-p["exposing"], p["turn"]))
    return sorted(kept + others[:OTHERS], key=lambda p: p["turn"])


def main(argv: Optional[list[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", type=Path, help="game records of the flagship (JSON histories)")
    parser.add_argument("--out", type=Path, required=True, help="the fixture to write")
    args = parser.parse_args(argv)
    root = Path(*Path(args.records[0]).resolve().parts[:-2])
    games, positions = [], []
    for path in sorted(args.records):
        game, found = mine(path.resolve(), root)
        games.append(game)
        positions += select(found)
    args.out.write_text(json.dumps({"games": games, "positions": positions}, separators=(",", ":")) + "\n")
    kinds = {kind: sum(p["kind"] == kind for p in positions) for kind in ("king-capture", "king-safety")}
    print(f"{len(positions)} positions from {len(games)} games: {kinds} -> {args.out}")


if __name__ == "__main__":
    main()
