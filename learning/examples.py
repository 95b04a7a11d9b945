"""Training examples for the posterior network, and the shard files that hold them.

An *example sequence* is one player's side of one game: the frame of every event
(:mod:`blindchess.beliefs.encoding`) and, per frame, the true board as a target
(:func:`blindchess.beliefs.encoding.relative_targets`). A *shard* is a NumPy ``.npz``
file (``numpy.savez_compressed``) of many sequences, concatenated:

=================  ===================  ==================================================
array              shape, dtype         content
=================  ===================  ==================================================
format             () str               ``"blindchess-posterior-shard"``
encoding_version   () int64             the encoding's version (a reader refuses others)
frames             (E, F) uint8         every frame of every sequence, F = FRAME_SIZE
targets            (E, 64) int8         per frame and relative square: 0 no opponent
                                        piece, 1..6 opponent pawn .. king
decision           (E,) bool            the frame is a decision point: the player is to
                                        sense (after OpponentMoved) or to move (after
                                        SenseResult)
offsets            (S + 1,) int64       sequence s is rows offsets[s]:offsets[s + 1]
game_id            (S,) str             the game (the held-out split is by game)
color              (S,) bool            the player's colour (True: White)
player, opponent   (S,) str             the bots' names (the history's player names)
=================  ===================  ==================================================

Own pieces are not predicted: they are frame planes 0-5 (see `own_squares`).
Frames compress about 30-fold (mostly zero planes): a few thousand games fit in tens of MB.
"""

from __future__ import annotations

import itertools
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Union

import chess
import numpy as np

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.observations import OpponentMoved, SenseResult
from blindchess.beliefs.encoding import ENCODING_VERSION, FRAME_SIZE, StreamEncoder, relative_targets
from blindchess.beliefs.observed_games import ObservedGame, observed_game
from blindchess.errors import BlindchessError

SHARD_FORMAT = "blindchess-posterior-shard"


class ShardError(BlindchessError, ValueError):
    """A shard file is unreadable or of another format or encoding version (the message names the file)."""


@dataclass(frozen=True)
class Sequence:
    """One player's side of one game, encoded."""

    frames: np.ndarray  # (T, F) uint8
    targets: np.ndarray  # (T, 64) int8
    decision: np.ndarray  # (T,) bool
    game_id: str
    color: bool
    player: str
    opponent: str


def encode_game(game: ObservedGame, game_id: str, names: tuple[str, str]) -> list[Sequence]:
    """Both players' sequences of a game with its true boards (`names`: White's and Black's)."""
    sequences = []
    for color in (chess.WHITE, chess.BLACK):
        encoder = StreamEncoder()
        frames, targets, decision = [], [], []
        for event, truth in zip(game.events[color], game.truth[color], strict=False):
            frame = encoder.push(event)
            if frame is None:
                continue
            frames.append(frame)
            targets.append(relative_targets(truth, color))
            decision.append(isinstance(event, (OpponentMoved, SenseResult)))
        if frames:
            player, opponent = (names[0], names[1]) if color == chess.WHITE else (names[1], names[0])
            sequences.append(
                Sequence(
                    np.stack(frames), np.stack(targets).astype(np.int8), np.array(decision),
                    game_id, bool(color), player, opponent,
                )
            )  # fmt: skip
    return sequences


def encode_history(history: GameHistory, game_id: str) -> list[Sequence]:
    """Both players' sequences of a recorded game (ours or reconchess's history format)."""
    names = (history.get_white_player_name() or "white", history.get_black_player_name() or "black")
    return encode_game(observed_game(history), game_id, names)


def read_history_files(paths: Iterable[Union[str, Path]]) -> list[Sequence]:
    """The sequences of every history file (JSON, ours or reconchess's); the file name is the game id."""
    sequences: list[Sequence] = []
    for path in paths:
        sequences += encode_history(GameHistory.from_file(str(path)), Path(path).name)
    return sequences


def write_shard(path: Union[str, Path], sequences: list[Sequence]) -> Path:
    """Write `sequences` to `path` (``.npz``) in the format of the module docstring."""
    if not sequences:
        raise ValueError(f"no sequences to write to {path}")
    lengths = [len(s.frames) for s in sequences]
    np.savez_compressed(
        path,
        format=np.array(SHARD_FORMAT),
        encoding_version=np.array(ENCODING_VERSION),
        frames=np.concatenate([s.frames for s in sequences]),
        targets=np.concatenate([s.targets for s in sequences]),
        decision=np.concatenate([s.decision for s in sequences]),
        offsets=np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
        game_id=np.array([s.game_id for s in sequences]),
        color=np.array([s.color for s in sequences]),
        player=np.array([s.player for s in sequences]),
        opponent=np.array([s.opponent for s in sequences]),
    )
    return Path(path)


def read_shard(path: Union[str, Path]) -> list[Sequence]:
    """The sequences of a shard written by `write_shard`.

    Raises:
        ShardError: the file is unreadable, truncated, of another format or another encoding version.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError, EOFError, zlib.error, zipfile.BadZipFile, KeyError) as error:
        raise ShardError(f"{path}: not a readable shard ({type(error).__name__}: {error})") from error
    if str(arrays.get("format", "")) != SHARD_FORMAT:
        raise ShardError(f"{path}: not a {SHARD_FORMAT} file")
    if int(arrays["encoding_version"]) != ENCODING_VERSION or arrays["frames"].shape[1:] != (FRAME_SIZE,):
        raise ShardError(f"{path}: encoding version {int(arrays['encoding_version'])}, this code reads {ENCODING_VERSION}")
    offsets = arrays["offsets"]
    return [
        Sequence(
            arrays["frames"][a:b], arrays["targets"][a:b], arrays["decision"][a:b],
            str(arrays["game_id"][s]), bool(arrays["color"][s]), str(arrays["player"][s]), str(arrays["opponent"][s]),
        )
        for s, (a, b) in enumerate(itertools.pairwise(offsets))
    ]  # fmt: skip


def read_shards(paths: Iterable[Union[str, Path]]) -> list[Sequence]:
    """Every sequence of every shard, in order."""
    return [sequence for path in paths for sequence in read_shard(path)]


def held_out(game_id: str, percent: int) -> bool:
    """Whether `game_id` falls in the held-out `percent` of games (by a hash of the id: stable across runs and files).

    >>> held_out("gen-7", 0), held_out("gen-7", 100)
    (False, True)
    """
    return zlib.crc32(game_id.encode()) % 100 < percent


def own_squares(frames: np.ndarray) -> np.ndarray:
    """Shape (T, 64) bool: where the player's own pieces stand in each frame (planes 0-5)."""
    own: np.ndarray = np.asarray(frames[:, : 6 * 64].reshape(-1, 6, 64).any(axis=1))
    return own
