"""blindchess: a toolkit for Reconnaissance Blind Chess and its sibling variants.

The subpackages follow the flow of information in a game:

- :mod:`blindchess.arbiter` runs games and emits typed observation events;
- :mod:`blindchess.beliefs` turns those events into a distribution over hidden boards;
- :mod:`blindchess.sensing` chooses where to sense from a belief;
- :mod:`blindchess.bots` composes beliefs, planners and move selectors into players.

The version is stated once, in pyproject.toml; `__version__` reads it from the installed
metadata, so an editable install, a wheel and ``blindchess --version`` cannot disagree.
"""

import importlib.metadata

__version__ = importlib.metadata.version("blindchess")
