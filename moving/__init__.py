"""Move selectors: which move to request, given a belief.

Every selector implements `MoveSelector` (see `base`), each in its own module beside it; the
move values they share with the sense planners come from `blindchess.evaluation.values`.
"""

from .base import MoveContext, MoveSelectionError, MoveSelector
from .stockfish_selector import StockfishMoveSelector

__all__ = ["MoveContext", "MoveSelectionError", "MoveSelector", "StockfishMoveSelector"]
