"""Cross-fitted control variates: unbiased by construction, near-optimal weights."""

import numpy as np

from pokerbot.bot.evaluation.control_variates import MIN_FIT_HANDS, cross_fitted


def test_cross_fitted_coefficients_never_use_the_hand_they_correct():
    """A hand's value uses coefficients fitted on the other fold only: changing its raw
    result moves its own value by exactly that much. Terms that track the result get
    coefficients near 1; pure noise, near 0."""
    rng = np.random.default_rng(5)
    n = 4000
    luck = rng.normal(0, 100, n)
    raw = 10 + luck + rng.normal(0, 10, n)
    terms = np.stack([-luck, rng.normal(0, 100, n), np.zeros(n)], axis=1)
    folds = (np.arange(n) // 2) % 2
    values, betas = cross_fitted(raw, terms, folds)
    assert np.allclose(betas[:, 0], 1, atol=0.02) and np.allclose(betas[:, 1], 0, atol=0.05)
    assert values.var() < raw.var() / 50
    moved = raw.copy()
    moved[7] += 1000
    again, _ = cross_fitted(moved, terms, folds)
    assert abs(again[7] - values[7] - 1000) < 1e-6


def test_with_too_few_samples_to_fit_every_weight_is_one():
    raw = np.arange(20.0)
    terms = np.stack([np.ones(20), -np.ones(20)], axis=1)
    values, betas = cross_fitted(raw, terms, np.arange(20) % 2)
    assert 20 < 2 * MIN_FIT_HANDS and np.all(betas == 1) and np.array_equal(values, raw)
