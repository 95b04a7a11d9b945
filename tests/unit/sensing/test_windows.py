"""The vectorised window outcomes agree with an obviously-correct per-board dictionary count."""

from __future__ import annotations

from collections import defaultdict

import chess
import numpy as np
import pytest

from blindchess.sensing.windows import WINDOWS, WindowOutcomes, undominated


def slow_statistics(grid: np.ndarray, weights: np.ndarray, centre: int) -> tuple[float, float]:
    """(entropy in bits, expected size) of sensing at `centre`, by a dictionary over window tuples."""
    mass: dict[tuple[int, ...], float] = defaultdict(float)
    count: dict[tuple[int, ...], int] = defaultdict(int)
    for row, weight in zip(grid, weights, strict=True):
        key = tuple(int(row[s]) for s in WINDOWS[centre])
        mass[key] += weight
        count[key] += 1
    entropy = -sum(p * np.log2(p) for p in mass.values() if p > 0)
    return float(entropy), float(sum(mass[k] * count[k] for k in mass))


def random_grid(rng: np.random.Generator, n: int, varying: int, alphabet: int) -> np.ndarray:
    grid = np.tile(rng.integers(0, 13, size=64, dtype=np.uint8), (n, 1))
    for square in rng.choice(64, size=varying, replace=False):
        grid[:, square] = rng.integers(0, alphabet, size=n, dtype=np.uint8)
    return grid


@pytest.mark.parametrize("seed", range(6))
def test_entropies_and_expected_sizes_match_the_slow_count(seed: int) -> None:
    rng = np.random.default_rng(seed)
    grid = random_grid(rng, n=int(rng.integers(1, 400)), varying=int(rng.integers(0, 40)), alphabet=int(rng.integers(2, 14)))
    weights = rng.random(len(grid))
    weights /= weights.sum()
    centres = list(chess.SQUARES)
    outcomes = WindowOutcomes(grid, centres)
    entropies, sizes = outcomes.entropies(weights), outcomes.expected_sizes(weights)
    pruned = outcomes.entropies(weights, prune=True)
    for i, centre in enumerate(centres):
        entropy, size = slow_statistics(grid, weights, centre)
        assert entropies[i] == pytest.approx(entropy, abs=1e-9)
        assert sizes[i] == pytest.approx(size, rel=1e-9)
    assert pruned.max() == pytest.approx(entropies.max(), abs=1e-12)
    assert set(np.flatnonzero(pruned >= pruned.max() - 1e-9)) == set(np.flatnonzero(entropies >= entropies.max() - 1e-9))


def test_large_label_ranges_are_compressed_not_overflowed() -> None:
    rng = np.random.default_rng(9)
    grid = np.zeros((300, 64), dtype=np.uint8)
    grid[:, WINDOWS[chess.E4]] = rng.integers(0, 13, size=(300, 9), dtype=np.uint8)  # 13^9 possible outcomes
    weights = np.full(300, 1 / 300)
    outcomes = WindowOutcomes(grid, [chess.E4])
    assert outcomes.entropy(0, weights) == pytest.approx(slow_statistics(grid, weights, chess.E4)[0], abs=1e-9)


def test_only_inner_windows_are_undominated_and_edges_survive_without_their_neighbour() -> None:
    assert undominated(chess.SQUARES) == [s for s in chess.SQUARES if 0 < chess.square_file(s) < 7 and 0 < chess.square_rank(s) < 7]
    assert undominated([chess.A1, chess.H8]) == [chess.A1, chess.H8]
    assert undominated([chess.A1, chess.B2]) == [chess.B2]
