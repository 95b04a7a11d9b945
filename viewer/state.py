"""What a running viewer holds: the library, the belief tracks it has built, the games being played.

Kept apart from the HTTP routes (:mod:`blindchess.viewer.app`) so that tests and the
benchmark can ask the same questions the pages ask without a browser.
"""

from __future__ import annotations

import datetime
import functools
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Optional

import chess
import numpy as np

from blindchess.arbiter.game.history import GameHistory
from blindchess.beliefs.enumerated_belief import EnumeratedBelief
from blindchess.bots.registry import BOTS, make_bot, resolve_bot
from blindchess.errors import BlindchessError
from blindchess.ids import parse_game_id

from .belief_views import (
    BELIEFS,
    DEFAULT_MAX_BOARDS,
    BeliefTrack,
    PlyStats,
    UnknownBeliefError,
    belief_factory,
    belief_view,
)
from .library import GameLibrary
from .play_session import PlaySession
from .replay import check_ply, replay_document, turn_views
from .teaching_views import teaching_rules, teaching_view

COLORS = {"white": chess.WHITE, "black": chess.BLACK}

ENUMERATED = "enumerated"
"""The belief of teaching-board games: exact, enumerated with the small board's own rules."""

PLAYABLE_BOTS = ("random", "attacker", "trout", "flagship")
"""The bots the play page offers (any registered name is accepted)."""


class UnknownSessionError(BlindchessError, ValueError):
    """No game in play with this id; the message quotes it."""


def parse_color(name: str) -> chess.Color:
    """``"white"`` or ``"black"`` as a colour.

    >>> parse_color("black")
    False
    """
    if name not in COLORS:
        raise ValueError(f"color must be 'white' or 'black', not {name!r}")
    return COLORS[name]


@dataclass
class ViewerState:
    """The viewer's memory. `service` is the game server whose pages it also shows (None for `blindchess view`)."""

    library: GameLibrary
    max_boards: int = DEFAULT_MAX_BOARDS
    service: Any = None
    max_tracks: int = 8
    """Belief tracks kept (most recently used); each holds up to its checkpoint budget of boards."""
    _tracks: OrderedDict[tuple[str, bool, str], BeliefTrack] = field(default_factory=OrderedDict)
    _sessions: dict[str, PlaySession] = field(default_factory=dict)
    _owners: dict[str, Optional[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.service is not None:
            self.library.resolver = self._add_server_game

    # ------------------------------------------------------------------ replays

    def replay(self, game_id: str) -> dict[str, Any]:
        entry = self.library.entry(game_id)
        assert entry.history is not None
        document = replay_document(entry.history, entry.clocks)
        rules = teaching_rules(entry.history)
        document.update(id=game_id, label=entry.label, live=entry.live, teaching=None if rules is None else rules.game.name)
        document["result"] = entry.summary()["result"]  # in words, as the index shows it
        document["beliefs"] = [ENUMERATED] if rules is not None else list(BELIEFS)
        return document

    def check_ply(self, game_id: str, ply: int) -> None:
        """Raises `PlyOutOfRangeError` (or the library's errors) unless `ply` is a ply of the game."""
        check_ply(ply, self.library.history(game_id).num_turns())

    def track(self, game_id: str, color: chess.Color, belief: str) -> BeliefTrack:
        entry = self.library.entry(game_id)
        history = entry.history
        assert history is not None
        key = (game_id, color, belief)
        with self._lock:
            track = self._tracks.get(key)
            if track is None or entry.live:
                rules = teaching_rules(history)
                if rules is not None and belief != ENUMERATED:
                    raise UnknownBeliefError(f"a teaching-board game shows the {ENUMERATED!r} belief, not {belief!r}")
                make = belief_factory(belief, self.max_boards) if rules is None else (lambda: EnumeratedBelief(rules))
                track = BeliefTrack(history.observations(color), history.num_turns(), make)
                self._tracks[key] = track
            self._tracks.move_to_end(key)
            while len(self._tracks) > self.max_tracks:
                self._tracks.popitem(last=False)
        return track

    def belief(self, game_id: str, color: chess.Color, ply: int, belief: str, samples: int) -> dict[str, Any]:
        """The belief overlay at `ply`: marginals, size, entropy, samples, and the chart's series up to `ply`."""
        self.check_ply(game_id, ply)
        track = self.track(game_id, color, belief)
        view = belief_view(track.at(ply), color, samples)
        view["series"] = [_stats_json(s) for s in track.series(ply)]
        view["events"] = track.event_count(ply)
        return view

    def series(self, game_id: str, color: chess.Color, belief: str) -> list[Optional[dict[str, Any]]]:
        """Support size, entropy and exactness at every ply of the game (the belief followed to the end)."""
        track = self.track(game_id, color, belief)
        return [_stats_json(s) for s in track.series(track.plies)]

    def teaching(self, game_id: str, color: chess.Color, ply: int) -> dict[str, Any]:
        history = self.library.history(game_id)
        rules = teaching_rules(history)
        if rules is None:
            raise ValueError(f"game {game_id!r} is not on a teaching board")
        turns = turn_views(history)
        truth = [history.starting_fen] + [turn.fen_after for turn in turns]
        return teaching_view(history, rules, color, check_ply(ply, len(turns)), truth)

    # ------------------------------------------------------------------ play

    def new_session(
        self,
        bot_spec: str,
        color: chess.Color,
        seconds: float,
        increment: float,
        seed: Optional[int] = None,
        owner: Optional[str] = None,
    ) -> str:
        """Start a game against `bot_spec` (a registered name) for `owner` (a server's user; None: no accounts); returns its id."""
        if bot_spec not in BOTS:
            raise ValueError(f"unknown bot {bot_spec!r}; choose one of {', '.join(sorted(BOTS))}")
        if not (0 < seconds <= 24 * 3600) or not (0 <= increment <= 3600):
            raise ValueError(f"clock must be 0 < seconds <= 86400 and 0 <= increment <= 3600, got {seconds!r}, {increment!r}")
        name, cls = resolve_bot(bot_spec)
        bot = make_bot(cls, rng=np.random.default_rng(seed))
        session_id = uuid.uuid4().hex[:12]
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        label = f"play-{stamp}-{session_id[:4]}-{'you' if color else name}-vs-{name if color else 'you'}"

        def save(history: GameHistory, clocks: list[list[float]]) -> str:
            return self.library.add_history(history, label, clocks)

        session = PlaySession(bot, name, color, seconds, increment, save)
        with self._lock:
            self._sessions[session_id] = session
            self._owners[session_id] = owner
        return session_id

    def session(self, session_id: str, owner: Optional[str] = None) -> PlaySession:
        """The game `session_id` of `owner`; another's game is as unknown as a missing one (its id says nothing)."""
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None and self._owners.get(session_id) != owner:
                session = None
        if session is None:
            raise UnknownSessionError(f"no game in play with id {session_id!r}")
        return session

    # ------------------------------------------------------------------ server pages

    def _add_server_game(self, game_id: str) -> bool:
        """Register ``server-<n>`` when the server has finished game n (a replay URL opened before the server page).

        A game in progress is refused (`GameInProgress`, 403): its record is the arbiter's until it ends.
        """
        if not game_id.startswith("server-"):
            return False
        number = parse_game_id(game_id.removeprefix("server-"))  # 400 for server-01, server-+1, server-1.0
        service = self.service
        try:
            service.spectator_history(number)
        except LookupError:
            return False
        self.library.set_source(game_id, f"server game {number}", functools.partial(service.spectator_history, number), False)
        return True

    def server_overview(self, recent: int = 50) -> dict[str, Any]:
        """Leaderboard, games in progress and recent games of the attached server, each registered for replay.

        A game in progress is registered as live: its replay answers 403 until the game ends
        (`Service.spectator_history`), then shows the whole record.
        """
        service = self.service
        if service is None:
            raise LookupError("this viewer is not attached to a game server (run `blindchess serve`)")
        in_progress = service.games_in_progress()
        finished = service.recent_games(recent)
        for game, live in [(game, True) for game in in_progress] + [(game, False) for game in finished]:
            game_id = f"server-{game['id']}"
            number = int(game["id"])
            self.library.set_source(game_id, f"server game {number}", functools.partial(service.spectator_history, number), live)
            game["replay"] = game_id
        return {"leaderboard": service.ratings(), "in_progress": in_progress, "recent": finished}


def _stats_json(stats: Optional[PlyStats]) -> Optional[dict[str, Any]]:
    return None if stats is None else {"size": stats.size, "entropy": stats.entropy, "exact": stats.exact}
