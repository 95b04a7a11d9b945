"""Move selectors: which move to request, given a belief.

Every selector implements `MoveSelector` (see `base`), each in its own module beside it; the
move values they share with the sense planners come from `blindchess.evaluation.values`.
"""

from .base import MoveContext, MoveSelectionError, MoveSelector, SearchRule
from .selector_config import SelectorConfig
from .stockfish_selector import StockfishMoveSelector

__all__ = ["MoveContext", "MoveSelectionError", "MoveSelector", "SearchRule", "SelectorConfig", "StockfishMoveSelector"]
