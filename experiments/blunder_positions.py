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

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.observations import GameEnded, GameStarted, MoveResult, OpponentMoved, SenseResult
from blindchess.arbiter.rules import reference as rules
from blindchess.arbiter.rules.fast_revision import request_outcome
from blindchess.arbiter.rules.reference import RequestOutcome
from blindchess.beliefs import Belief
from blindchess.bots.flagship_config import BeliefConfig
from blindchess.evaluation.values import PIECE_VALUES

BOARDS = 3000
"""The most belief boards a constraint is read from."""
CHECKED = 20
"""A position where at least this many moves expose the king is always kept."""
OTHERS = 2
"""Of the other king-safety positions, this many per game (those with the most exposing moves)."""
HANGING_BOARDS = 200
"""The most boards a hanging-piece constraint is read from (it makes every move on each)."""


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
    requested_move, taken_move = (None if m is None else chess.Move.from_uci(m) for m in (requested, taken))
    move = MoveResult(requested_move, taken_move, captured)
    return OpponentMoved(capture), sense, move


def beliefs_before(game: dict[str, Any], wanted: set[int]) -> dict[int, Belief]:
    """The flagship's belief (the default board set) just before its move at each own turn in `wanted`, replayed
    from `game`'s encoded observations (an entry of the fixture's ``games``)."""
    belief = BeliefConfig().build()
    belief.update(GameStarted(game["color"] == "white", game["starting_fen"]))
    found: dict[int, Belief] = {}
    for own, turn in enumerate(game["turns"]):
        opponent, sense, move = decode_turn(turn)
        belief.update(opponent)
        belief.update(sense)
        if own in wanted:
            found[own] = belief.copy()
        if own >= max(wanted, default=-1):
            break
        belief.update(move)
    return found


def label(position: dict[str, Any]) -> str:
    """``folder/game@turn-kind``: records of different runs share file names (``game-001-...``)."""
    return f"{position['source'].removesuffix('.json')}@{position['turn']}-{position['kind']}"


def meets(position: dict[str, Any], move: chess.Move) -> bool:
    """Whether `move` meets the position's constraint (``one_of`` the moves listed, or ``not`` one of them)."""
    return move.uci() in position["one_of"] if "one_of" in position else move.uci() not in position["not"]


def belief_boards(belief: Belief, rng: np.random.Generator) -> list[chess.Board]:
    """Every board of `belief`, or `BOARDS` drawn from it."""
    return list(belief.boards()) if len(belief) <= BOARDS else belief.sample(BOARDS, rng)  # type: ignore[attr-defined]


def constraint(boards: list[chess.Board], color: chess.Color, sense: Optional[SenseResult] = None) -> Optional[dict[str, Any]]:
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
    if bad and good:
        return {"kind": "king-safety", **({"one_of": good} if len(good) < len(bad) else {"not": bad}), "exposing": len(bad)}
    if exposed.min() > 0.0 or sense is None:
        return None
    return hanging(boards[: HANGING_BOARDS], moves, color, sense)


def hanging(boards: list[chess.Board], moves: list[chess.Move], color: chess.Color, sense: SenseResult) -> Optional[dict[str, Any]]:
    """A ``hanging-piece`` constraint: a piece of ours (knight or more) that a cheaper enemy piece seen in this turn's
    sense attacks on every board; the move must save it on most boards (move it where no cheaper piece attacks it and
    it is not attacked undefended, or capture the attacker or something worth as much), when such a move exists."""
    seen = {square for square, piece in sense.window if piece is not None and piece.color != color and piece.piece_type != chess.KING}
    first = boards[0]
    for square in chess.SquareSet(first.occupied_co[color] & ~first.pawns & ~first.kings):
        value = PIECE_VALUES[first.piece_type_at(square) or chess.PAWN]
        attackers = [a for a in seen if square in first.attacks(a) and PIECE_VALUES[first.piece_type_at(a) or chess.KING] < value]
        if not attackers or not all(any(square in b.attacks(a) for a in attackers) for b in boards):
            continue
        saved = np.zeros(len(moves))
        for board in boards:
            for j, move in enumerate(moves):
                saved[j] += saves(request_outcome(board, move), square, value, color)
        good = [m.uci() for m, n in zip(moves, saved / len(boards), strict=True) if n > 0.5]
        if good and len(good) < len(moves):
            return {"kind": "hanging-piece", "one_of": good, "piece": chess.square_name(square)}
    return None


def saves(outcome: RequestOutcome, square: chess.Square, value: float, color: chess.Color) -> bool:
    """Whether, after `outcome`, the piece from `square` (worth `value`) is safe, or something worth as much was taken."""
    if outcome.captured is not None and PIECE_VALUES[outcome.captured.piece_type] >= value:
        return True
    after = outcome.after()
    target = outcome.taken.to_square if outcome.taken is not None and outcome.taken.from_square == square else square
    piece = after.piece_at(target)
    if piece is None or piece.color != color:
        return False
    attackers = after.attackers(not color, target)
    cheaper = any(PIECE_VALUES[after.piece_type_at(a) or chess.KING] < value for a in attackers if after.piece_type_at(a) != chess.KING)
    return not cheaper and not (attackers and not after.attackers(color, target))


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
        found = constraint(belief_boards(belief, rng), color, sense)
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
    kept = [p for p in positions if p["kind"] != "king-safety" or p["exposing"] >= CHECKED]
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
    kinds = {kind: sum(p["kind"] == kind for p in positions) for kind in ("king-capture", "king-safety", "hanging-piece")}
    print(f"{len(positions)} positions from {len(games)} games: {kinds} -> {args.out}")


if __name__ == "__main__":
    main()
