"""Action translation: mapping a bet size the abstraction lacks to its neighbours.

The pseudo-harmonic mapping (Ganzfried and Sandholm, 2013), used by Libratus and
Pluribus: with sizes as fractions of the pot, a bet x between abstraction sizes
A < x < B maps to A with probability

    f(x) = (B - x)(1 + A) / ((B - A)(1 + x))

and to B otherwise. f(A) = 1, f(B) = 0, and f = 1/2 at the pseudo-harmonic midpoint
(A + B + 2AB) / (A + B + 2). Sizes outside the abstraction's range map to the nearest
end. The deterministic variant picks the likelier neighbour.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def pseudo_harmonic_probability(a: float, b: float, x: float) -> float:
    """Probability of mapping x to the smaller size a (a <= x <= b)."""
    if not a < b:
        raise ValueError(f"need a < b, got {a}, {b}")
    if not a <= x <= b:
        raise ValueError(f"{x} is not between {a} and {b}")
    return (b - x) * (1.0 + a) / ((b - a) * (1.0 + x))


def pseudo_harmonic_midpoint(a: float, b: float) -> float:
    """The size mapped half and half: (A + B + 2AB) / (A + B + 2)."""
    return (a + b + 2.0 * a * b) / (a + b + 2.0)


def translate(x: float, sizes: Sequence[float], rng: random.Random | None = None) -> int:
    """Index into ``sizes`` (pot fractions, any order) of the size that x maps to:
    randomised pseudo-harmonic with ``rng``, deterministic (the likelier) without."""
    if not sizes:
        raise ValueError("no sizes to map to")
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    lo, hi = order[0], order[-1]
    if x <= sizes[lo]:
        return lo
    if x >= sizes[hi]:
        return hi
    for i, j in zip(order, order[1:]):
        a, b = sizes[i], sizes[j]
        if a <= x <= b:
            if a == b:
                return i
            p = pseudo_harmonic_probability(a, b, x)
            if rng is None:
                return i if p >= 0.5 else j
            return i if rng.random() < p else j
    return hi  # unreachable: x lies within the range
