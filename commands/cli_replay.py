"""`blindchess replay FILE`: step through a saved game in the terminal.

Each turn shows the true board before the move (the sense window in brackets), what the
player sensed and saw, the move it asked for and the move it got, and any capture. Turns are
headed by the name the arbiter gives them, ``Turn(black, 2)``: the colour and how many turns
that player had before (from 0, as reconchess counts), the name that fault messages and
``blindchess playback`` use, so a turn they name is found here by searching for it. In a
terminal it waits for Enter between turns; with ``--all`` (or when output is not a terminal
or input is not one) it prints every turn, which is what scripts and tests use.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Optional, TextIO

import chess

from blindchess.arbiter.game.history import GameHistory, HistoryFormatError
from blindchess.arbiter.game.results import describe_result, player_names
from blindchess.arguments import add_command
from blindchess.command_errors import BadInputError


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "replay",
        __doc__,
        "blindchess replay games/FILE.json --all",
    )
    parser.add_argument("file", help="a game history JSON file (ours or reconchess's)")
    parser.add_argument("--all", action="store_true", help="print every turn without pausing")
    parser.add_argument("--color", choices=("white", "black"), help="show only this player's turns")
    parser.set_defaults(run=run)


def _square_name(square: Optional[int]) -> str:
    return "-" if square is None else chess.square_name(square)


def _move_text(move: Optional[chess.Move]) -> str:
    return "pass" if move is None else move.uci()


def render_board(board: chess.Board, window: frozenset[int] = frozenset()) -> str:
    """The board as text, White at the bottom, squares of `window` in brackets."""
    lines = []
    for rank in range(7, -1, -1):
        cells = []
        for file in range(8):
            square = chess.square(file, rank)
            piece = board.piece_at(square)
            symbol = "." if piece is None else piece.symbol()
            cells.append(f"[{symbol}]" if square in window else f" {symbol} ")
        lines.append((f"{rank + 1} " + "".join(cells)).rstrip())
    lines.append("  " + "".join(f" {name} " for name in chess.FILE_NAMES))
    return "\n".join(lines)


def describe_turn(history: Any, turn: Any) -> str:
    """One turn of `history` as text: board with sense window, sense result, move, capture."""
    sense_square = history.sense(turn)
    sense_result = history.sense_result(turn)
    window = frozenset(square for square, _ in sense_result)
    seen = " ".join(f"{chess.square_name(square)}:{'.' if piece is None else piece.symbol()}" for square, piece in sense_result)
    board = board_before_move(history, turn)
    lines = [
        f"== {turn}: {history.get_white_player_name() if turn.color else history.get_black_player_name()}",
        render_board(board, window),
        f"sense:    {_square_name(sense_square)}" + (f"  saw {seen}" if seen else "  (no sense)"),
    ]
    if not history.has_move(turn):
        lines.append("move:     none (the game ended before this move)")
        return "\n".join(lines)
    requested, taken, capture_square = history.move_result(turn)
    captured = None if capture_square is None else board.piece_at(capture_square)
    lines.append(f"move:     requested {_move_text(requested)}, taken {_move_text(taken)}")
    lines.append(f"capture:  {_square_name(capture_square)}" + ("" if captured is None else f" (took {captured.symbol()})"))
    return "\n".join(lines)


def board_before_move(history: Any, turn: Any) -> chess.Board:
    """The truth board when `turn`'s player moved, or would have (a game can end between sense and move).

    Without a recorded move the record still knows the position: the previous turn's result,
    or the start position before White's first turn.
    """
    if history.has_move(turn):
        board: chess.Board = history.truth_board_before_move(turn)
        return board
    previous = turn.previous
    fen = history.truth_fen_after_move(previous) if history.has_move(previous) else history.starting_fen
    board = chess.Board(fen)
    board.turn = turn.color
    return board


def replay(history: Any, out: TextIO, color: Optional[bool] = None, pause: bool = False) -> int:
    """Write every turn of `history` (of `color` only, if given) to `out`; returns the number of turns shown."""
    white, black = history.get_white_player_name(), history.get_black_player_name()
    out.write(f"{white} (white) vs {black} (black), {history.num_turns()} turns\n")
    shown = 0
    for turn in history.turns(color):
        out.write(describe_turn(history, turn) + "\n")
        shown += 1
        if pause:
            out.flush()
            if input("[Enter] next turn, q then Enter to stop: ").strip().lower() == "q":
                break
    result = describe_result(history.get_winner_color(), history.get_win_reason(), *player_names(history))
    out.write(f"result: {result}\n")
    return shown


def run(args: argparse.Namespace) -> int:
    try:
        history = GameHistory.from_file(args.file)
    except (OSError, HistoryFormatError) as error:
        raise BadInputError(f"cannot read {args.file!r}: {error}") from error
    color = None if args.color is None else args.color == "white"
    pause = not args.all and sys.stdin.isatty() and sys.stdout.isatty()
    replay(history, sys.stdout, color, pause)
    return 0
