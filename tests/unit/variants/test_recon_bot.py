"""The recon Mini-Chess bot's sensing score against a slow reference."""

from __future__ import annotations

import math

import numpy as np

from blindchess.variants.recon import RECON_MINICHESS
from blindchess.variants.recon_bot import window_entropies


def test_packed_window_entropies_equal_a_dictionary_count() -> None:
    rng = np.random.default_rng(0)
    grid = rng.integers(0, 13, size=(200, 64)).astype(np.uint8)
    grid[100:] = grid[:100]  # repeated boards: groups with more than one member
    weights = rng.random(200)
    weights /= weights.sum()
    windows = tuple(RECON_MINICHESS.geometry.window(square) for square in RECON_MINICHESS.geometry.squares)
    reference = []
    for window in windows:
        mass: dict[tuple[int, ...], float] = {}
        for row, weight in zip(grid, weights, strict=True):
            key = tuple(int(row[s]) for s in window)
            mass[key] = mass.get(key, 0.0) + weight
        reference.append(-sum(p * math.log2(p) for p in mass.values()))
    assert np.allclose(window_entropies(grid, weights, windows), reference)
    assert np.allclose(window_entropies(grid[:1], np.ones(1), windows), 0.0)
