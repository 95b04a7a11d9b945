"""Where bots lose material: every net loss of a piece in recorded games, by who lost it and how.

Strength between two RBC bots is mostly pieces lost to what a player did not see. This reads
finished games (a tournament or SPRT results database, or history JSON files) and lists each
*loss*: the opponent captures our piece ``P`` on square ``s`` and, counting the exchange around
it, we come out at least `threshold` pawns down::

    net = value(P) - value(what our move onto s captured, if it did) - value(the capturer, if we take it back on s next)

so a trade (rook for rook, bishop for knight) is no loss. Each loss is classified by how the
piece came to stand there:

* ``moved in``: our previous move put it on ``s`` (``slide cut short`` when we requested a longer
  slide that an unseen piece stopped, RBC's own way to lose a piece);
* ``stood``: it was on ``s`` before our previous move: the capturer came, or was there, unseen;

and by whether the capturer's square was in the window of our sense just before (``seen``).
Values are `blindchess.evaluation.values.PIECE_VALUES` (pawn 1, knight and bishop 3, rook 5,
queen 9; the king's capture ends the game and is not a material loss). Per player: games,
losses and pawns lost per game, by piece and by kind::

    python3 experiments/material_losses.py --db results/n17/sprt-60.sqlite
    python3 experiments/material_losses.py results/match/*.json --threshold 5
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chess

from blindchess.arbiter.game.history import GameHistory
from blindchess.evaluation.values import PIECE_VALUES
from blindchess.tournament.results_db import ResultStore


def _pawns(piece_type: chess.PieceType) -> int:
    return int(PIECE_VALUES[piece_type])  # whole pawns, so the tallies stay counts


@dataclass(frozen=True)
class Loss:
    """One net loss of material: `color` lost `piece` on `square` at half-turn `half_turn` (0-based)."""

    half_turn: int
    color: chess.Color
    piece: chess.PieceType
    square: chess.Square
    net: int
    kind: str  # "moved in", "slide cut short" or "stood"
    capturer_seen: bool


def material_losses(history: GameHistory, threshold: int = 3) -> list[Loss]:
    """The losses of at least `threshold` pawns in `history`, either colour, in play order.

    >>> from blindchess.arbiter import LocalGame
    >>> game = LocalGame(seconds_per_player=None)
    >>> game.start()
    >>> for uci in ["e2e4", "d7d5", "d1g4", "c8g4"]:  # the queen steps into the bishop's line
    ...     _ = game.sense(None); _ = game.move(chess.Move.from_uci(uci)); game.end_turn()
    >>> game.resign(); game.end()
    >>> [(loss.half_turn, chess.piece_name(loss.piece), loss.net, loss.kind) for loss in material_losses(game.get_game_history())]
    [(3, 'queen', 9, 'moved in')]
    """
    turns = [turn for turn in history.turns() if history.has_move(turn)]
    losses = []
    for index, turn in enumerate(turns):
        square = history.capture_square(turn)
        taken = history.taken_move(turn)
        if square is None or taken is None or index == 0:
            continue
        before = history.truth_board_before_move(turn)
        lost, capturer = before.piece_at(square), before.piece_at(taken.from_square)
        if lost is None or capturer is None:  # en passant: a pawn, never a loss worth counting
            continue
        ours = turns[index - 1]  # the loser's move just before
        our_move = history.taken_move(ours)
        moved_in = our_move is not None and our_move.to_square == square
        gained = 0
        if moved_in and history.capture_square(ours) == square:
            taken_piece = history.truth_board_before_move(ours).piece_at(square)
            gained = _pawns(taken_piece.piece_type) if taken_piece is not None else 1
        recaptured = index + 1 < len(turns) and history.capture_square(turns[index + 1]) == square
        net = _pawns(lost.piece_type) - gained - (_pawns(capturer.piece_type) if recaptured else 0)
        if net < threshold:
            continue
        window = {seen for seen, _ in history.sense_result(ours)} if history.has_sense(ours) else set()
        kind = "stood" if not moved_in else "slide cut short" if history.requested_move(ours) != our_move else "moved in"
        losses.append(Loss(index, lost.color, lost.piece_type, square, net, kind, taken.from_square in window))
    return losses


def _games(paths: list[str], db: str | None) -> Iterator[tuple[GameHistory, dict[chess.Color, str]]]:
    """Each game with its players' names: the database's labels, or the history's own names."""
    if db is not None:
        with ResultStore(db) as store:
            for row in store.rows():
                text = store.history(row.key)
                if row.ok and text:
                    yield GameHistory.from_json(text, source=f"{db}:{row.key}"), {chess.WHITE: row.white, chess.BLACK: row.black}
    for path in paths:
        history = GameHistory.from_file(path)
        names = {chess.WHITE: history.get_white_player_name() or "white", chess.BLACK: history.get_black_player_name() or "black"}
        yield history, names


def report(games: Iterator[tuple[GameHistory, dict[chess.Color, str]]], threshold: int) -> str:
    """The per-player table of `main`, as Markdown."""
    played: Counter[str] = Counter()
    tallies: dict[str, Counter[str]] = defaultdict(Counter)
    for history, names in games:
        for name in names.values():
            played[name] += 1
        for loss in material_losses(history, threshold):
            tally = tallies[names[loss.color]]
            tally["losses"] += 1
            tally["pawns"] += loss.net
            tally[chess.piece_symbol(loss.piece).upper()] += 1
            tally[f"{loss.kind}, {'seen' if loss.capturer_seen else 'unseen'}"] += 1
    kinds = [f"{kind}, {seen}" for kind in ("moved in", "slide cut short", "stood") for seen in ("seen", "unseen")]
    lines = [
        f"Net losses of at least {threshold} pawns (capturer seen or unseen in the loser's last sense window)",
        "",
        "| player | games | losses a game | pawns a game | Q | R | B | N | " + " | ".join(kinds) + " |",
        "|---|---|---|---|---|---|---|---|" + "---|" * len(kinds),
    ]
    for name in sorted(played):
        tally, games_played = tallies[name], played[name]
        lines.append(
            f"| {name} | {games_played} | {tally['losses'] / games_played:.2f} | {tally['pawns'] / games_played:.2f} | "
            + " | ".join(str(tally[piece]) for piece in "QRBN") + " | " + " | ".join(str(tally[kind]) for kind in kinds) + " |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("histories", nargs="*", help="game history JSON files (ours or reconchess's)")
    parser.add_argument("--db", help="a results database of `blindchess tournament`, `match` or `sprt` (its finished games)")
    parser.add_argument("--threshold", type=int, default=3, help="the least net loss counted, in pawns (default 3: a minor piece)")
    args = parser.parse_args(argv)
    if not args.histories and args.db is None:
        parser.error("give history files or --db")
    if args.db is not None and not Path(args.db).is_file():
        parser.error(f"no database at {args.db}")
    print(report(_games(args.histories, args.db), args.threshold))
    return 0


if __name__ == "__main__":
    sys.exit(main())
