"""blindchess: a toolkit for Reconnaissance Blind Chess and its sibling variants.

The subpackages follow the flow of information in a game:

- :mod:`blindchess.arbiter` runs games and emits typed observation events;
- :mod:`blindchess.beliefs` turns those events into a distribution over hidden boards;
- :mod:`blindchess.sensing` chooses where to sense from a belief;
- :mod:`blindchess.bots` composes beliefs, planners and move selectors into players.
"""

__version__ = "0.1.0"
