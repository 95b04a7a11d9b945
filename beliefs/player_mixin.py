"""`BeliefPlayerMixin`: feed a belief from the seven `Player` callbacks, for plain reconchess-style bots.

Each callback becomes the observation event the arbiter would have emitted (see
:mod:`blindchess.arbiter.observations`) and goes to ``self.belief.update``. A bot
mixes it in before `Player` and implements only ``choose_sense`` and
``choose_move``; a bot that overrides a ``handle_*`` callback calls ``super()``::

    class MyBot(BeliefPlayerMixin, Player):
        def choose_sense(self, sense_actions, move_actions, seconds_left):
            ...  # read self.belief.marginals()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

import chess

from blindchess.arbiter.observations import GameEnded, GameStarted, MoveResult, Observation, OpponentMoved, SenseResult
from blindchess.arbiter.types import Color, Square, WinReason

from .base import Belief
from .board_set import BoardSet


def sense_centre(window: list[tuple[Square, Optional[chess.Piece]]]) -> Optional[Square]:
    """The square a (possibly edge-clipped) 3x3 sense window was centred on; None for an empty window.

    >>> sense_centre([(chess.A2, None), (chess.B2, None), (chess.A1, None), (chess.B1, None)]) == chess.A1
    True
    """
    if not window:
        return None

    def middle(values: set[int]) -> int:
        low, high = min(values), max(values)
        if len(values) == 3:
            return low + 1
        if len(values) == 2:
            return low if low == 0 else high  # clipped at an edge: the centre is on the edge
        return low

    files = {chess.square_file(s) for s, _ in window}
    ranks = {chess.square_rank(s) for s, _ in window}
    return chess.square(middle(files), middle(ranks))


class BeliefPlayerMixin:
    """Turns `Player` callbacks into observation events for ``self.belief``.

    Attributes:
        belief_factory: builds a fresh belief for each game; a class, or a function wrapped in
            ``staticmethod`` when set on the class. Default: an exact `BoardSet`.
        belief: the belief of the current game, built in ``handle_game_start``.
        observations: the events fed to it so far.
    """

    belief_factory: Callable[[], Belief] = BoardSet
    belief: Belief
    observations: list[Observation]

    def _feed(self, event: Observation) -> None:
        self.observations.append(event)
        self.belief.update(event)

    def handle_game_start(self, color: Color, board: chess.Board, opponent_name: str) -> None:
        self.belief = self.belief_factory()
        self.observations = []
        self._feed(GameStarted(color, board.fen(en_passant="fen"), opponent_name))

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[Square]) -> None:
        self._feed(OpponentMoved(capture_square if captured_my_piece else None))

    def handle_sense_result(self, sense_result: list[tuple[Square, Optional[chess.Piece]]]) -> None:
        self._feed(SenseResult(sense_centre(sense_result), tuple(sense_result)))

    def handle_move_result(
        self,
        requested_move: Optional[chess.Move],
        taken_move: Optional[chess.Move],
        captured_opponent_piece: bool,
        capture_square: Optional[Square],
    ) -> None:
        self._feed(MoveResult(requested_move, taken_move, capture_square if captured_opponent_piece else None))

    def handle_game_end(self, winner_color: Optional[Color], win_reason: Optional[WinReason], game_history: Any) -> None:
        self._feed(GameEnded(winner_color, win_reason))
