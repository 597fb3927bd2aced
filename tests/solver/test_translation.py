"""Pseudo-harmonic action translation: the formula's fixed points and midpoint, the
mapping frequencies, and out-of-range sizes."""

import random

import pytest

from pokerbot.solver.translation import pseudo_harmonic_midpoint, pseudo_harmonic_probability, translate


def test_formula_fixed_points_and_midpoint():
    assert pseudo_harmonic_probability(0.5, 1.0, 0.5) == 1.0
    assert pseudo_harmonic_probability(0.5, 1.0, 1.0) == 0.0
    for a, b in ((0.5, 1.0), (1.0, 2.0), (0.25, 4.0)):
        m = pseudo_harmonic_midpoint(a, b)
        assert a < m < b
        assert pseudo_harmonic_probability(a, b, m) == pytest.approx(0.5)
    # the Libratus supplement's example formula: (A + B + 2AB) / (A + B + 2)
    assert pseudo_harmonic_midpoint(1.0, 2.0) == pytest.approx(7 / 5)


def test_randomised_mapping_matches_the_probability():
    rng = random.Random(0)
    sizes = [2.0, 0.5, 1.0]  # any order
    x = 0.75
    p = pseudo_harmonic_probability(0.5, 1.0, x)
    hits = sum(translate(x, sizes, rng) == 1 for _ in range(20000))
    assert hits / 20000 == pytest.approx(p, abs=0.015)
    assert translate(x, sizes) == (1 if p >= 0.5 else 2)


def test_out_of_range_and_exact_sizes():
    assert translate(0.1, [0.5, 1.0]) == 0
    assert translate(9.0, [0.5, 1.0]) == 1
    assert translate(1.0, [0.5, 1.0], random.Random(1)) == 1
    with pytest.raises(ValueError):
        translate(1.0, [])
