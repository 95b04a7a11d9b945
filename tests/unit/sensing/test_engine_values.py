"""`sensing/engine_values.py`: windows valued by Stockfish's values of the moves chosen after them.

Real Stockfish at the planner's shallow depth, on real board sets (`BoardSet`) whose only
uncertainty is placed by hand, so which window matters is known by construction.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import chess
import chess.engine
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blindchess.arbiter import LocalGame, play_local_game
from blindchess.arbiter.rules.reference import move_actions
from blindchess.beliefs.board_set import BoardSet
from blindchess.bots.flagship import FlagshipBot
from blindchess.bots.flagship_config import CONFIGS, FAST_FLAGSHIP, configure
from blindchess.bots.random_bot import RandomBot
from blindchess.config_tree import ConfigError
from blindchess.evaluation.request_values import searched_value
from blindchess.evaluation.stockfish import Engine
from blindchess.sensing import (
    EngineValueSensePlanner,
    EngineValueSettings,
    SenseContext,
    ValueOfInformationSensePlanner,
)
from blindchess.sensing.base import SensePlanError
from blindchess.sensing.windows import WINDOWS

ALL_SQUARES = list(chess.SQUARES)
KNIGHTS = ("b4", "c4", "c5", "d5")
"""Where a black knight may stand in `_back_rank`: uncertain (2 bits), harmless, and no window sees a rook too."""


def _back_rank(rooks: tuple[str, ...] = ("d8", "h5"), knights: tuple[str, ...] = KNIGHTS) -> tuple[BoardSet, SenseContext]:
    """Black's rook guards its back rank from d8 or stands on h5, where it guards nothing; a knight stands on one of
    `knights`. Material is level. Where the rook is on h5, a1a8 mates; where it is on d8, a1a8 loses the rook."""
    own = "6k1/5ppp/8/8/8/7P/5PP1/R1N3K1 w - - 0 1"
    boards = []
    for rook in rooks:
        for knight in knights:
            board = chess.Board(own)
            board.set_piece_at(chess.parse_square(rook), chess.Piece(chess.ROOK, chess.BLACK))
            board.set_piece_at(chess.parse_square(knight), chess.Piece(chess.KNIGHT, chess.BLACK))
            boards.append(board)
    return BoardSet.from_boards(chess.WHITE, boards), SenseContext(chess.WHITE, move_actions=tuple(move_actions(chess.Board(own))))


@pytest.fixture(scope="module")
def planner() -> Iterator[EngineValueSensePlanner]:
    """Every board's engine move a candidate: the tests are about valuing windows, not about finding candidates."""
    made = EngineValueSensePlanner(EngineValueSettings(engine_boards=8))
    yield made
    made.close()


def test_engine_values_sense_the_mate_the_proxy_cannot_see(planner: EngineValueSensePlanner) -> None:
    # Only the rook's square decides whether a1a8 mates or hangs the rook; the proxy sees no capture either way and
    # looks at the knight (2 bits against 1), the engine looks at d8 or h5.
    for seed in range(3):
        belief, context = _back_rank()
        proxy = ValueOfInformationSensePlanner().choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), context)
        square = planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), context)
        assert proxy is not None and not {chess.D8, chess.H5} & set(WINDOWS[proxy]), chess.square_name(proxy or 0)
        assert square is not None and {chess.D8, chess.H5} & set(WINDOWS[square]), chess.square_name(square or 0)
        values = planner.last
        assert values is not None and chess.Move.from_uci("a1a8") in values.moves
        assert values.windows[square] > values.windows[proxy] + planner.settings.margin


def test_both_planners_sense_a_queen_that_hangs_on_some_boards(planner: EngineValueSensePlanner) -> None:
    # Black's queen stands on d5, where our queen takes it, or safe on a8; the knight's square is as uncertain.
    own = "4k3/8/8/8/8/8/5PPP/3Q2K1 w - - 0 1"
    boards = []
    for queen in ("d5", "a8"):
        for knight in ("h6", "g5"):
            board = chess.Board(own)
            board.set_piece_at(chess.parse_square(queen), chess.Piece(chess.QUEEN, chess.BLACK))
            board.set_piece_at(chess.parse_square(knight), chess.Piece(chess.KNIGHT, chess.BLACK))
            boards.append(board)
    context = SenseContext(chess.WHITE, move_actions=tuple(move_actions(chess.Board(own))))
    for seed in range(2):
        belief = BoardSet.from_boards(chess.WHITE, boards)
        proxy = ValueOfInformationSensePlanner().choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), context)
        square = planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), context)
        for chosen in (proxy, square):
            assert chosen is not None and {chess.D5, chess.A8} & set(WINDOWS[chosen]), chess.square_name(chosen or 0)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rooks=st.lists(st.sampled_from(["d8", "h5", "e6", "b7"]), min_size=1, max_size=3, unique=True),
    knights=st.lists(st.sampled_from(KNIGHTS), min_size=1, max_size=4, unique=True),
    seed=st.integers(0, 2**16),
)
def test_a_window_is_never_worth_less_than_not_sensing(
    planner: EngineValueSensePlanner, rooks: list[str], knights: list[str], seed: int
) -> None:
    # Knowing more cannot lower the expected value of the best choice: V(c) >= V(none) for every window. V(c) is
    # also recomputed here from the table, grouping the boards by what the window shows on each.
    belief, context = _back_rank(tuple(rooks), tuple(knights))
    planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), context)
    values = planner.last
    assert values is not None
    weighted = values.weights[:, None] * values.table
    assert values.no_sense == pytest.approx(weighted.sum(axis=0).max())
    for centre, value in values.windows.items():
        assert value >= values.no_sense - 1e-12
        groups: dict[tuple[object, ...], np.ndarray] = {}
        for row, board in enumerate(values.boards):
            seen = tuple(board.piece_at(square) for square in WINDOWS[centre])
            groups[seen] = groups.get(seen, 0) + weighted[row]
        assert value == pytest.approx(sum(float(np.max(total)) for total in groups.values()))


def test_the_searched_values_are_kept_by_position_for_the_selector(planner: EngineValueSensePlanner) -> None:
    belief, context = _back_rank(("h5",), ("c4",))
    planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(0), context)
    values = planner.last
    assert values is not None and values.limit == chess.engine.Limit(depth=planner.settings.depth)
    mated = chess.Board("R5k1/5ppp/8/7r/2n5/7P/5PP1/2N3K1 b - - 1 1")
    after, value = values.searched[mated.epd()]
    assert after.epd() == mated.epd() and value > 0.99  # the mate, for White
    with Engine() as engine:
        for key, (board, kept) in list(values.searched.items())[:5]:
            assert key == board.epd() and kept == pytest.approx(searched_value(engine, board, chess.WHITE, values.limit), abs=0.2)


def test_a_budget_too_small_for_the_engine_gets_the_proxy_planners_answer() -> None:
    planner = EngineValueSensePlanner(EngineValueSettings(min_boards=8))
    belief, context = _back_rank()
    tiny = SenseContext(chess.WHITE, move_actions=context.move_actions, budget=0.01)
    for seed in range(3):
        square = planner.choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), tiny)
        alone = ValueOfInformationSensePlanner().choose_sense(belief, ALL_SQUARES, 60.0, np.random.default_rng(seed), tiny)
        assert square == alone and planner.last is None
    assert planner.fallbacks == 3 and planner._engine is None  # no engine was even started
    assert planner.affordable_boards(0.01) < 8 <= planner.affordable_boards(10.0) == planner.settings.boards


def test_the_flagship_selects_the_planner_and_its_settings_by_name() -> None:
    config = configure(CONFIGS["flagship"], {"planner": {"name": "engine-values", "engine": {"depth": 4}}})
    built = config.planner.build()
    assert isinstance(built, EngineValueSensePlanner) and built.settings.depth == 4
    assert built.proxy.settings.threat_boost == config.planner.threat_boost
    assert CONFIGS["flagship"].planner.name == "evoi"  # the default stays
    with pytest.raises(ConfigError, match=r"planner\.engine\.depth: depth must be >= 1, got 0"):
        configure(CONFIGS["flagship"], {"planner": {"engine": {"depth": 0}}})
    with pytest.raises(SensePlanError, match=r"budget_share must be in \(0, 1\], got 1\.5"):
        EngineValueSettings(budget_share=1.5)


def test_a_budget_the_searches_overrun_keeps_the_likeliest_boards_valued_by_then() -> None:
    # No time at all: the valuing stops at `min_boards` boards (of the 8), and they are the likeliest of those drawn.
    planner = EngineValueSensePlanner(EngineValueSettings(min_boards=3))
    belief, context = _back_rank()
    moves, centres = list(context.move_actions), list(chess.SQUARES)
    every = planner.values(belief, moves, centres, 48, np.random.default_rng(5), chess.WHITE)
    cut = planner.values(belief, moves, centres, 48, np.random.default_rng(5), chess.WHITE, seconds=0.0)
    kept = planner.settings.min_boards
    assert len(every.boards) > kept == len(cut.boards)
    assert [board.fen() for board in cut.boards] == [board.fen() for board in every.boards[:kept]]
    assert np.all(np.diff(every.weights) <= 1e-12) and cut.weights == pytest.approx(every.weights[:kept] / every.weights[:kept].sum())
    assert all(value >= cut.no_sense - 1e-12 for value in cut.windows.values())
    planner.close()


def test_a_belief_bot_stops_the_planners_engine_at_the_end_of_each_game() -> None:
    """The planner kept its Stockfish after the game, and the next test's process found it among its children."""
    config = configure(FAST_FLAGSHIP, {"planner": {"name": "engine-values"}})
    bot = FlagshipBot(rng=5, config=config)
    planner = bot.sense_planner
    assert isinstance(planner, EngineValueSensePlanner)
    started: list[int] = []
    choose = planner.choose_sense

    def recording(*args: Any, **kwargs: Any) -> Optional[int]:
        square = choose(*args, **kwargs)
        if planner._engine is not None and planner._engine.pid is not None:
            started.append(planner._engine.pid)
        return square

    planner.choose_sense = recording  # type: ignore[method-assign]
    play_local_game(bot, RandomBot(rng=6), LocalGame(full_turn_limit=3))
    assert started, "the planner never searched: the test checks nothing"
    assert planner._engine is not None and planner._engine.pid is None  # stopped, not merely forgotten
    assert not Path(f"/proc/{started[-1]}").exists() or "Z" in Path(f"/proc/{started[-1]}/stat").read_text().split()[2]
