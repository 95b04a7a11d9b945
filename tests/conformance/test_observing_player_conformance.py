"""Every player built on the one callback adapter receives exactly ``history.observations(color)``.

The three players that keep a belief from the callbacks (`BeliefBot`, a bot using
`BeliefPlayerMixin`, the recon Mini-Chess bot) are subclassed here only to record what
their ``observe`` is handed; they then play seeded games on the real arbiter (8x8 for
the first two, recon Mini-Chess for the third), including games the opponent loses by
a fault mid-game, and the recorded stream must equal the history's, event for event.
"""

from __future__ import annotations

from typing import Any, Optional

import chess
import numpy as np
import pytest

from blindchess.arbiter import LocalGame, Observation, ObservingPlayer, Player, play_local_game
from blindchess.arbiter.game.observations import GameEnded, GameStarted, SenseResult
from blindchess.arbiter.types import Square
from blindchess.beliefs import BeliefPlayerMixin, BoardSet
from blindchess.bots.belief_bot import BeliefBot
from blindchess.bots.flagship_config import FAST_FLAGSHIP
from blindchess.bots.random_bot import RandomBot
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.sensing.random_planner import RandomSensePlanner
from blindchess.variants.recon import RECON_MINICHESS
from blindchess.variants.recon_bot import ReconMiniChessBot


class _Recorder:
    """Mixed in before a player: keeps every event its adapter hands to ``observe``."""

    received: list[Observation]

    def observe(self, event: Observation) -> None:
        if isinstance(event, GameStarted):
            self.received = []
        self.received.append(event)
        super().observe(event)  # type: ignore[misc]


class RecordingBeliefBot(_Recorder, BeliefBot):
    pass


class RecordingMixinBot(_Recorder, BeliefPlayerMixin, RandomBot):
    """A plain random bot (its own ``choose_sense``, not the adapter's) keeping an exact board set."""

    belief_factory = staticmethod(lambda: BoardSet(max_boards=20_000))


class RecordingReconBot(_Recorder, ReconMiniChessBot):
    pass


class FaultingRandomBot(RandomBot):
    """Raises in ``choose_move`` on its turn `fault_turn` (so it loses by RESIGN mid-turn, after sensing)."""

    def __init__(self, rng: int, fault_turn: int) -> None:
        super().__init__(rng)
        self.turns, self.fault_turn = 0, fault_turn

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        self.turns += 1
        if self.turns == self.fault_turn:
            raise RuntimeError("deliberate fault")
        return super().choose_move(move_actions, seconds_left)


def _belief_bot(seed: int) -> RecordingBeliefBot:
    selector = StockfishMoveSelector(FAST_FLAGSHIP.selector)
    return RecordingBeliefBot(lambda: BoardSet(max_boards=20_000), RandomSensePlanner(), selector, rng=seed)


def _play(player: _Recorder, color: chess.Color, opponent: Player, game: LocalGame[Any]) -> None:
    white, black = (player, opponent) if color == chess.WHITE else (opponent, player)
    _, _, history = play_local_game(white, black, game=game)  # type: ignore[arg-type]
    expected = history.observations(color)
    assert player.received == expected
    assert isinstance(expected[0], GameStarted) and isinstance(expected[-1], GameEnded)
    senses = [event for event in expected if isinstance(event, SenseResult)]
    assert senses and any(event.square is not None for event in senses)


GAMES_8X8 = [  # (seed, colour, opponent fault turn or None)
    (1, chess.WHITE, None),
    (2, chess.BLACK, None),
    (3, chess.WHITE, 3),
    (4, chess.BLACK, 2),
]


@pytest.mark.parametrize("seed, color, fault_turn", GAMES_8X8)
def test_belief_bot_receives_the_history_events(seed: int, color: chess.Color, fault_turn: Optional[int]) -> None:
    opponent = RandomBot(seed + 100) if fault_turn is None else FaultingRandomBot(seed + 100, fault_turn)
    _play(_belief_bot(seed), color, opponent, LocalGame(seconds_per_player=None, full_turn_limit=8))


@pytest.mark.parametrize("seed, color, fault_turn", GAMES_8X8)
def test_belief_mixin_receives_the_history_events(seed: int, color: chess.Color, fault_turn: Optional[int]) -> None:
    opponent = RandomBot(seed + 100) if fault_turn is None else FaultingRandomBot(seed + 100, fault_turn)
    player = RecordingMixinBot(rng=seed)
    _play(player, color, opponent, LocalGame(seconds_per_player=None, full_turn_limit=8))
    assert player.observations == player.received  # the mixin's own record is the same stream


@pytest.mark.parametrize("seed, color, fault_turn", [(5, chess.WHITE, None), (6, chess.BLACK, None), (7, chess.BLACK, 3)])
def test_recon_bot_receives_the_history_events(seed: int, color: chess.Color, fault_turn: Optional[int]) -> None:
    player = RecordingReconBot(RECON_MINICHESS, np.random.default_rng(seed), explore=0.3)
    opponent = RandomBot(seed + 100) if fault_turn is None else FaultingRandomBot(seed + 100, fault_turn)
    game: LocalGame[Any] = LocalGame(seconds_per_player=None, full_turn_limit=12, rules=RECON_MINICHESS)
    _play(player, color, opponent, game)


def test_sense_square_is_what_choose_sense_returned_even_through_super() -> None:
    """A subclass overriding ``choose_sense`` and calling ``super()``: the adapter keeps the outer answer."""

    class Inner(ObservingPlayer):
        def observe(self, event: Observation) -> None:
            self.last = event

        def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
            return chess.A1

        def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> Optional[chess.Move]:
            return None

    class Outer(Inner):
        def choose_sense(self, sense_actions: list[Square], move_actions: list[chess.Move], seconds_left: float) -> Optional[Square]:
            inner = super().choose_sense(sense_actions, move_actions, seconds_left)
            return chess.H8 if inner == chess.A1 else None

    player = Outer()
    player.handle_game_start(chess.WHITE, chess.Board(), "x")
    player.handle_opponent_move_result(False, None)
    assert player.choose_sense(list(chess.SQUARES), [], 10.0) == chess.H8
    player.handle_sense_result([])
    assert player.last == SenseResult(chess.H8, ())
    with pytest.raises(TypeError):
        ObservingPlayer()  # type: ignore[abstract]
