"""`blindchess playback FILE BOT COLOR`: re-feed a bot the game it played, to reproduce a crash.

The recorded game is replayed move for move through a fresh `LocalGame`; on COLOR's turns the
bot gets exactly the callbacks it got in the game (the same observations, in the same order)
and is asked for its sense and move, which are compared with the recorded ones; the recorded
actions are what is played. The opponent is never consulted. An exception in the bot is shown
with its traceback and the turn it happened on.

Unlike reconchess's `rc-playback`, the bot is called on its own turns only (rc-playback also
asks it to choose senses and moves on the opponent's turns), and the last turn is replayed too.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, Optional

import chess

from blindchess.arbiter import LocalGame, OpponentMoved, Player
from blindchess.arbiter.game.history import GameHistory, HistoryFormatError, Turn
from blindchess.arbiter.game.loading import PlayerLoadError
from blindchess.arguments import add_command
from blindchess.bots.registry import BotConstructionError, make_bot, resolve_bot
from blindchess.command_errors import BadInputError


def add_parser(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "playback",
        __doc__,
        "blindchess playback games/FILE.json random white --seed 1835504127",
    )
    parser.add_argument("file", help="a game history JSON file")
    parser.add_argument("bot", help="the bot: short name, module or file")
    parser.add_argument("color", choices=("white", "black"), help="the colour the bot played")
    parser.add_argument("--seed", type=int, help="seed for the bot's randomness")
    parser.set_defaults(run=run)


@dataclass
class PlaybackReport:
    """What a playback found: turns fed, disagreements with the record, and the bot's exception if any."""

    turns: int = 0
    sense_mismatches: list[str] = field(default_factory=list)
    move_mismatches: list[str] = field(default_factory=list)
    error: Optional[str] = None


def _name(action: Any) -> str:
    """A sense square or move as a chess player writes it (anything else, e.g. a bad type, as repr)."""
    if action is None:
        return "none"
    if isinstance(action, chess.Move):
        return action.uci()
    if isinstance(action, int) and action in chess.SQUARES:
        return chess.square_name(action)
    return repr(action)


def playback(history: Any, player: Player, color: chess.Color) -> PlaybackReport:
    """Feed `player` (playing `color`) the game in `history`; report mismatches and any exception."""
    report = PlaybackReport()
    # Start where the recorded game started; no clock and no draw limits: the record says when it ended.
    start_fen = history.starting_fen  # White's first position when it moved, else the standard one (see GameHistory)
    game = LocalGame(seconds_per_player=None, reversible_moves_limit=None, full_turn_limit=None, starting_fen=start_fen)
    opponent_name = history.get_black_player_name() if color == chess.WHITE else history.get_white_player_name()
    stage = "handle_game_start"
    turn = None
    try:
        player.handle_game_start(color, chess.Board(start_fen), opponent_name)
        game.start()
        for turn in history.turns():
            mine = turn.color == color
            sense_actions, move_actions = game.sense_actions(), game.move_actions()
            assert sense_actions is not None and move_actions is not None, "the record has a turn, so the game runs"
            capture_square = game.opponent_move_results()
            if mine:
                report.turns += 1
                stage = "handle_opponent_move_result"
                player.handle_opponent_move_result(capture_square is not None, capture_square)
                stage = "choose_sense"
                chosen_sense = player.choose_sense(list(sense_actions), list(move_actions), game.get_seconds_left())
            if not history.has_sense(turn):
                break  # the game ended in this sense phase (a crash or a timeout there)
            stage = "replaying the recorded sense"
            recorded_sense = history.sense(turn)
            sense_result = game.sense(recorded_sense)
            if mine:
                if chosen_sense != recorded_sense:
                    report.sense_mismatches.append(f"{turn}: chose {_name(chosen_sense)}, recorded {_name(recorded_sense)}")
                stage = "handle_sense_result"
                player.handle_sense_result(sense_result)
                stage = "choose_move"
                chosen_move = player.choose_move(list(move_actions), game.get_seconds_left())
            if not history.has_move(turn):
                break  # the game ended in this move phase
            stage = "replaying the recorded move"
            recorded_move = history.requested_move(turn)
            requested, taken, capture_square = game.move(recorded_move)
            if mine:
                if chosen_move != recorded_move:
                    report.move_mismatches.append(f"{turn}: chose {_name(chosen_move)}, recorded {_name(recorded_move)}")
                stage = "handle_move_result"
                player.handle_move_result(requested, taken, capture_square is not None, capture_square)
            game.end_turn()
        else:
            turn = _unrecorded_turn(history, color)
            if turn is not None:
                report.turns += 1
                capture_square = game.opponent_move_results()
                stage = "handle_opponent_move_result"
                player.handle_opponent_move_result(capture_square is not None, capture_square)
                stage = "choose_sense"
                player.choose_sense(list(game.sense_actions() or []), list(game.move_actions() or []), game.get_seconds_left())
        turn = None
        stage = "handle_game_end"
        player.handle_game_end(history.get_winner_color(), history.get_win_reason(), history)
    except Exception:
        where = "" if turn is None else f" on {turn}"
        report.error = f"{type(player).__name__}: exception in {stage}{where}:\n{traceback.format_exc()}"
    return report


def _unrecorded_turn(history: Any, color: chess.Color) -> Optional[Turn]:
    """The turn `color` was told began but never sensed in (it crashed or ran out of time there), if any.

    The file has no record of such a turn; `GameHistory.observations` says whether it began.
    """
    announced = sum(isinstance(event, OpponentMoved) for event in history.observations(color))
    recorded = history.num_turns(color)
    return Turn(color, recorded) if announced > recorded else None


def run(args: argparse.Namespace) -> int:
    color = chess.WHITE if args.color == "white" else chess.BLACK
    try:
        name, player_class = resolve_bot(args.bot)
        player = make_bot(player_class, args.seed)
    except (PlayerLoadError, BotConstructionError) as error:
        raise BadInputError(str(error)) from error
    try:
        history = GameHistory.from_file(args.file)
    except (OSError, HistoryFormatError) as error:
        raise BadInputError(f"cannot read {args.file!r}: {error}") from error
    report = playback(history, player, color)
    for line in report.sense_mismatches:
        sys.stdout.write(f"sense differs  {line}\n")
    for line in report.move_mismatches:
        sys.stdout.write(f"move differs   {line}\n")
    sys.stdout.write(
        f"{name} as {args.color}: {report.turns} turns fed, {len(report.sense_mismatches)} senses and "
        f"{len(report.move_mismatches)} moves differ from the record\n"
    )
    if report.error is not None:
        sys.stdout.write(report.error)
        return 1
    return 0
