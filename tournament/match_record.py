"""A match's results file: one JSON line per finished game, beside the games' histories, kept as data.

``blindchess match --out DIR`` (and ``experiments/spar_strangefish.py``) append one line to
``DIR/results.jsonl`` as each game finishes, and a line to ``DIR/matches.jsonl`` once per match
(what decides its games: bots, settings, clocks, seed, under its id, a hash of them); every game's
line names its match, so that several matches may share a folder. Together with the histories
they are the match: small text files, committed as data (in ``data/matches/<match>/`` at the top
of the repository, outside the package), that

* **resume it**: ``--resume`` counts each game of the same match in the results file once, by
  its number, and plays only the others, with the seeds a full run gives them; a game that was
  being played when the run stopped has no line, so it is played again from its seeds, never
  counted twice; so is a game whose history file no longer loads, and its new line replaces the
  old one (a game's last line counts). A resume with other bots, settings, clock or seed is another match: it counts
  none of these games;
* **report it** in one command, ``blindchess match-report DIR``: the first bot's score with its
  Wilson 95% interval, each side's clock use, and each game it lost with its history file.

A line is written whole and flushed to disk before the next game is counted, so a run stopped at
any moment leaves a file whose complete lines are complete games; a torn last line is skipped
(with a warning) and its game is played again.

>>> line = GameLine(match="m", game=1, first="a", white="a", black="b", white_seed=1, black_seed=2, winner="white",
...                 reason="KING_CAPTURE", turns=40, seconds=3.5, clock_share=(0.5, 0.25), history="g.json")
>>> GameLine.from_json(line.to_json()) == line, line.score_of("a"), line.score_of("b")
(True, 1.0, 0.0)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from blindchess.code_digest import other_code_note, source_digest
from blindchess.errors import BlindchessError
from blindchess.text_tables import table

from .report import clock_use
from .spec import GameResult, GameSpec
from .stats import MatchScore, wilson_interval

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
MATCHES_FILE = "matches.jsonl"


class MatchRecordError(BlindchessError, ValueError):
    """A match folder that cannot be reported: no results file, or no finished game in it."""


@dataclass(frozen=True)
class GameLine:
    """One finished game of a match, as its line in ``results.jsonl``.

    Attributes:
        match: the match's id (`match_id` of what decides its games).
        game: its number in the match, from 1 (the seeds follow from it and the match's seed).
        first: the label of the bot named first (whose score the report gives).
        white, black: the players' labels.
        winner: ``"white"``, ``"black"`` or None (a draw).
        reason: the `WinReason` name, or None.
        seconds: the game's wall time.
        clock_share: White's and Black's share of their clocks used (see `GameResult.clock_share`).
        clock_mode: ``wall`` or ``cpu`` (what the clocks charged).
        history: the history file's name, in the match's folder.
        faults: the bots' fault messages.
        code: the digest of the code that played it (`blindchess.code_digest`); None in lines written before it was kept.
    """

    match: str
    game: int
    first: str
    white: str
    black: str
    white_seed: int
    black_seed: int
    winner: str | None
    reason: str | None
    turns: int
    seconds: float
    clock_share: tuple[float | None, float | None]
    history: str
    clock_mode: str = "wall"
    faults: tuple[str, ...] = ()
    code: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> GameLine:
        data: dict[str, Any] = json.loads(text)
        data["clock_share"] = tuple(data["clock_share"])
        data["faults"] = tuple(data.get("faults", ()))
        return cls(**data)

    def score_of(self, label: str) -> float:
        """1, 1/2 or 0 for the player `label`."""
        if self.winner is None:
            return 0.5
        return 1.0 if (self.winner == "white") == (self.white == label) else 0.0

    def share_of(self, label: str) -> float | None:
        return self.clock_share[0] if self.white == label else self.clock_share[1]


def game_line(match: tuple[str, str], number: int, spec: GameSpec, result: GameResult, history: str) -> GameLine:
    """The line of game `number` of match ``(id, first label)``, played from `spec` with `result`, its history file `history`."""
    winner = None if result.winner is None else "white" if result.winner else "black"
    return GameLine(
        match=match[0], game=number, first=match[1], white=spec.white.label, black=spec.black.label,
        white_seed=spec.white_seed, black_seed=spec.black_seed, winner=winner, reason=result.reason, turns=result.turns,
        seconds=round(result.seconds, 3), clock_share=result.clock_share, history=history, clock_mode=spec.clock_mode,
        faults=result.faults, code=source_digest(),
    )  # fmt: skip


def append_line(folder: Path, line: GameLine) -> None:
    """Append `line` to the folder's results file, flushed to disk before returning."""
    with open(folder / RESULTS_FILE, "a") as file:
        file.write(line.to_json() + "\n")
        file.flush()
        os.fsync(file.fileno())


def read_all(folder: Path) -> list[GameLine]:
    """Every whole line of the folder's results file, in order; a torn line is skipped with a warning."""
    path = folder / RESULTS_FILE
    if not path.exists():
        return []
    lines = []
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        try:
            lines.append(GameLine.from_json(text))
        except (ValueError, TypeError, KeyError) as error:
            logger.warning("%s line %d is not a whole game (%s); that game is played again", path, number, error)
    return lines


def match_id(identity: dict[str, Any]) -> str:
    """A short, stable id of a match: a hash of what decides its games (JSON, sorted keys).

    >>> match_id({"bots": ["a", "b"], "seed": 1}) == match_id({"seed": 1, "bots": ["a", "b"]})
    True
    """
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:12]


def start_match(folder: Path, identity: dict[str, Any]) -> str:
    """Add the match's identity to the folder's ``matches.jsonl`` (for whoever reads the data later) if new; its id."""
    ident = match_id(identity)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / MATCHES_FILE
    known = path.read_text().splitlines() if path.exists() else []
    if not any(json.loads(line).get("match") == ident for line in known if line.strip()):
        with open(path, "a") as file:
            file.write(json.dumps({"match": ident, **identity}, sort_keys=True) + "\n")
    return ident


def finished_games(folder: Path, ident: str) -> dict[int, GameLine]:
    """The games of match `ident` recorded in `folder`, by number; a game's last line counts (see `read_all`)."""
    return {line.game: line for line in read_all(folder) if line.match == ident}


@dataclass
class MatchReport:
    """What ``blindchess match-report`` prints, from a folder's results."""

    first: str
    second: str
    games: list[GameLine] = field(default_factory=list)

    def text(self, folder: Path) -> str:
        scores = [line.score_of(self.first) for line in self.games]
        score = MatchScore(wins=scores.count(1.0), draws=scores.count(0.5), losses=scores.count(0.0))
        low, high = wilson_interval(score.points, score.games)
        modes = sorted({line.clock_mode for line in self.games})
        rows = [
            f"{self.first} vs {self.second}: {score.wins} - {score.losses} - {score.draws} (wins - losses - draws) over"
            f" {score.games} games, score {score.fraction:.3f} (Wilson 95% interval {low:.3f}-{high:.3f}); clocks: {', '.join(modes)}",
        ]
        note = other_code_note(str(folder), [line.code for line in self.games])
        if note is not None:
            rows.append(f"note: {note}")
        for label in (self.first, self.second):
            shares = [share for line in self.games if (share := line.share_of(label)) is not None]
            if shares:
                rows.append(clock_use(label, shares))
        lost = [line for line in self.games if line.score_of(self.first) == 0.0]
        if lost:
            rows += ["", f"games {self.first} lost:"]
            body = [
                [line.game, "white" if line.white == self.first else "black", line.reason or "-", line.turns,
                 _shares(line), str(folder / line.history)]
                for line in lost
            ]  # fmt: skip
            rows.append(table(["game", "as", "reason", "turns", "clock used w/b", "record"], body))
        return "\n".join(rows)


def _shares(line: GameLine) -> str:
    return " / ".join("-" if share is None else f"{share:.0%}" for share in line.clock_share)


def reports(folder: Path) -> list[MatchReport]:
    """One report per match recorded in `folder`, in the order their first lines appear.

    Raises:
        MatchRecordError: no results file, or no finished game in it.
    """
    if not (folder / RESULTS_FILE).exists():
        raise MatchRecordError(f"{folder} holds no {RESULTS_FILE}: play a match into it with blindchess match --out {folder}")
    matches: dict[str, MatchReport] = {}
    for line in read_all(folder):
        matches.setdefault(line.match, MatchReport(line.first, line.black if line.white == line.first else line.white))
    if not matches:
        raise MatchRecordError(f"{folder}/{RESULTS_FILE} holds no finished game yet")
    for ident, found in matches.items():
        found.games = sorted(finished_games(folder, ident).values(), key=lambda line: line.game)
    return list(matches.values())
