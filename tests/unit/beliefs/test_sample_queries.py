"""The compiled row queries (`blindchess.beliefs.drawn_boards`) against their python-chess references (`BoardList`).

Beliefs come from recorded bot games (`load_records`: random, attacker and trout, so threats to
the king, captures, castling and en passant all occur): each stream is replayed into a board set
kept small by re-seeding (`sensed_beliefs`), and after every sense, with our side to move, the rows drawn by `sample_rows` must
give exactly what the reference functions give on `sample`'s boards drawn with the same seed:
threat levels, proxy move values of every move action and the pass, material, the opponent
king's square, the window grid, the selector's exposure test, and the FEN-wise merge of
duplicates. Hypothesis picks the games and the draws; a few dozen positions run in seconds.
"""

from __future__ import annotations

import chess
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from blindchess.arbiter.game.history import GameHistory
from blindchess.arbiter.game.observations import SenseResult
from blindchess.arbiter.rules.reference import move_actions
from blindchess.beliefs import BoardSet, HybridBelief
from blindchess.beliefs.board_weights import Weighted
from blindchess.beliefs.drawn_boards import Rows, RowSampler
from blindchess.beliefs.observed_games import observed_game
from blindchess.beliefs.samples import BoardList, draw
from blindchess.fixtures.recorded_games import load_records, sensed_beliefs

RECORDS = load_records()[::5]
DRAWS = 40


def check_rows_equal_reference(belief: BoardSet, seed: int) -> None:
    color = belief.color
    rows = draw(belief, DRAWS, np.random.default_rng(seed), color)
    reference = draw(belief, DRAWS, np.random.default_rng(seed), color, compiled=False)
    assert isinstance(rows, Rows) and isinstance(reference, BoardList)
    assert [board.fen() for board in rows.boards()] == [board.fen() for board in reference.boards()]
    moves: list[chess.Move | None] = [None, *move_actions(rows.boards(color)[0])]
    assert rows.threat_levels().tolist() == reference.threat_levels().tolist()
    assert np.array_equal(rows.move_values(moves), reference.move_values(moves))
    assert rows.material_balance().tolist() == reference.material_balance().tolist()
    assert rows.opponent_king_squares().tolist() == reference.opponent_king_squares().tolist()
    assert np.array_equal(rows.grid(), reference.grid())
    weights = np.random.default_rng(seed).random(DRAWS)
    assert np.array_equal(rows.exposure(moves, weights), reference.exposure(moves, weights))
    distinct, counts = rows.unique()
    expected, expected_counts = reference.unique()
    assert [board.fen() for board in distinct.boards(color)] == [board.fen() for board in expected.boards()]
    assert counts.tolist() == expected_counts.tolist()


@settings(max_examples=8, deadline=None)
@given(game=st.integers(0, len(RECORDS) - 1), white=st.booleans(), seed=st.integers(0, 2**16))
def test_rows_equal_the_python_chess_references_on_recorded_beliefs(game: int, white: bool, seed: int) -> None:
    positions = sensed_beliefs(GameHistory.from_json(RECORDS[game]["history"]), chess.WHITE if white else chess.BLACK)
    for k, belief in enumerate(positions[:: max(1, len(positions) // 6)]):
        check_rows_equal_reference(belief, seed + k)


def test_en_passant_counts_in_the_merge_only_where_we_can_capture_legally() -> None:
    # Black to move after e2e4 or after e3e4 in two steps: the same FEN unless Black could take en passant.
    quiet = chess.Board("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1")
    plain = chess.Board("4k3/8/8/8/4P3/8/8/4K3 b - - 0 1")
    takeable = chess.Board("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1")
    takeable_plain = chess.Board("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1")
    pinned = chess.Board("8/8/8/8/k2pP2R/8/8/4K3 b - e3 0 1")  # taking would leave the king on the rank of the rook
    pinned_plain = chess.Board("8/8/8/8/k2pP2R/8/8/4K3 b - - 0 1")
    for boards, merged in (([quiet, plain], 1), ([takeable, takeable_plain], 2), ([pinned, pinned_plain], 1)):
        belief = BoardSet.from_boards(chess.BLACK, boards, move_model=None)
        assert len(belief) == 2
        assert len(belief.rows(np.arange(2)).unique()[0]) == merged, boards


def test_the_board_set_draws_rows() -> None:
    belief = BoardSet.from_boards(chess.WHITE, [chess.Board()], move_model=None)
    assert isinstance(belief, RowSampler)
    assert len(belief.sample_rows(5, np.random.default_rng(1))) == 5


class ByIndex:
    """A toy prior for the weighted belief: log w(s) = 0.5 x (board index mod 3), never updated."""

    def update(self, observation: object) -> None:
        del observation

    def log_weights(self, grid: np.ndarray) -> np.ndarray:
        return 0.5 * (np.arange(len(grid)) % 3)

    def copy(self) -> ByIndex:
        return ByIndex()


def same_draws(belief: object, color: chess.Color, seed: int) -> type:
    """Check that `draw` gives the reference's boards with the same seed; return the kind it gave."""
    fast = draw(belief, DRAWS, np.random.default_rng(seed), color)  # type: ignore[arg-type]
    reference = draw(belief, DRAWS, np.random.default_rng(seed), color, compiled=False)  # type: ignore[arg-type]
    assert isinstance(reference, BoardList)
    assert [board.fen() for board in fast.boards()] == [board.fen() for board in reference.boards()]
    return type(fast)


def test_a_weighting_over_a_board_set_draws_its_rows() -> None:
    """Was: a weighted belief always took the python-chess path, even over a board set."""
    positions = sensed_beliefs(GameHistory.from_json(RECORDS[0]["history"]), chess.WHITE)
    for k, belief in enumerate(positions[::4]):
        assert same_draws(Weighted(belief, ByIndex()), chess.WHITE, k) is Rows


def test_the_hybrid_draws_rows_while_exact_and_boards_under_particles() -> None:
    """Was: the hybrid always took the python-chess path, even while it held the exact set."""
    kinds: dict[str, set[type]] = {"exact": set(), "particles": set()}
    game = observed_game(GameHistory.from_json(RECORDS[0]["history"]))
    belief = HybridBelief(switch_boards=100, particles=32, rebuild_seconds=0.01, seed=1)
    for k, event in enumerate(game.events[chess.WHITE][:30]):
        belief.update(event)
        if isinstance(event, SenseResult):
            kinds[belief.mode].add(same_draws(belief, chess.WHITE, k))
    assert kinds == {"exact": {Rows}, "particles": {BoardList}}, kinds
