"""`BeliefPlayerMixin`: keep a belief from the `Player` callbacks, for plain reconchess-style bots.

The callbacks become observation events in the arbiter's one adapter
(:class:`~blindchess.arbiter.game.observing_player.ObservingPlayer`); this mixin folds each
into ``self.belief``. A bot mixes it in before its `Player` base and implements only
``choose_sense`` and ``choose_move``; a bot that overrides a ``handle_*`` callback calls
``super()``::

    class MyBot(BeliefPlayerMixin, Player):
        def choose_sense(self, sense_actions, move_actions, seconds_left):
            ...  # read self.belief.marginals()
"""

from __future__ import annotations

from collections.abc import Callable

from blindchess.arbiter.game.observations import GameStarted, Observation
from blindchess.arbiter.game.observing_player import ObservingPlayer

from .base import Belief
from .board_set import BoardSet


class BeliefPlayerMixin(ObservingPlayer):
    """Feeds every observation event to ``self.belief`` (a fresh one each game).

    Attributes:
        belief_factory: builds a fresh belief for each game; a class, or a function wrapped in
            ``staticmethod`` when set on the class. Default: an exact `BoardSet`.
        belief: the belief of the current game, built when ``GameStarted`` arrives.
        observations: the events fed to it so far (exactly ``history.observations(color)``
            once the game is over).
    """

    belief_factory: Callable[[], Belief] = BoardSet
    belief: Belief
    observations: list[Observation]

    def observe(self, event: Observation) -> None:
        if isinstance(event, GameStarted):
            self.belief = self.belief_factory()
            self.observations = []
        self.observations.append(event)
        self.belief.update(event)
