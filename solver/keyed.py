"""Keyed random numbers: a draw that depends only on its key (splitmix64), never on
what was drawn before. Processes that must make the same random choice without
talking (the shards of a sharded MCCFR run, both players' passes of a sampled solve)
draw with the same key."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def keyed_hash(seed, a, b):
    """64 well-mixed bits from the key (seed, a, b)."""
    x = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(a) * np.uint64(0xBF58476D1CE4E5B9)
    x = x + np.uint64(b) * np.uint64(0x94D049BB133111EB) + np.uint64(0x632BE59BD9B4E019)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@nb.njit(cache=True)
def keyed_draw(seed, a, b, n):
    """A number in 0..n-1 from the key (seed, a, b)."""
    return np.int64(keyed_hash(seed, a, b) % np.uint64(n))


@nb.njit(cache=True)
def keyed_uniform(seed, a, b):
    """A number in [0, 1) from the key (seed, a, b) (53 bits)."""
    return np.float64(keyed_hash(seed, a, b) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
