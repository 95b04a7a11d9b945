"""The flagship's own move rule, for the rollout planner to play forward: its selector at a fixed depth on fewer boards.

The rollout planner (:mod:`blindchess.sensing.rollouts`) asks which move the bot would choose on
each posterior a sense could leave. The answer should be the bot's own rule, so it is the bot's
`StockfishMoveSelector` with the bot's settings, made cheap enough to run dozens of times a sense:
every search at `RolloutSettings.rule_depth` on `RolloutSettings.rule_boards` boards (a fixed-depth
selector also decides the same way whatever the machine's load). It keeps its own engines.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Optional

import chess
import numpy as np

from blindchess.arbiter.types import Color
from blindchess.beliefs.base import Belief
from blindchess.moving.base import MoveContext
from blindchess.moving.selector_config import SelectorConfig
from blindchess.moving.stockfish_selector import StockfishMoveSelector
from blindchess.sensing.rollouts import RolloutSettings


class SelectorMoveRule:
    """A `blindchess.sensing.rollouts.MoveRule`: `selector`'s settings at the rollouts' fixed depth and board count."""

    def __init__(self, selector: SelectorConfig, rollouts: RolloutSettings) -> None:
        boards = rollouts.rule_boards
        config = dataclasses.replace(
            selector, boards=boards, max_boards=boards, min_boards=min(selector.min_boards, boards),
            search=dataclasses.replace(selector.search, depth=rollouts.rule_depth),
        )  # fmt: skip
        self.selector = StockfishMoveSelector(config)

    def choose(self, belief: Belief, moves: Sequence[chess.Move], rng: np.random.Generator, color: Color) -> Optional[chess.Move]:
        return self.selector.choose_move(belief, list(moves), math.inf, rng, MoveContext(color))

    def pids(self) -> list[int]:
        return self.selector.pool.pids()

    def close(self) -> None:
        self.selector.close()
