"""A series of per-hand results as mbb/hand with a 95 % interval."""

from __future__ import annotations

import math

import numpy as np

#: The normal distribution's 97.5th percentile: a 95 % interval is the mean +- Z95 standard errors.
Z95 = 1.959963984540054


def mean_interval(xs: np.ndarray) -> tuple[float, float]:
    """The mean of ``xs`` and the half-width of its 95 % interval (normal); nan where
    there are too few values (none; one for the interval)."""
    n = len(xs)
    mean = float(xs.mean()) if n else float("nan")
    half = float(Z95 * xs.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    return mean, half


def summarize(chips: np.ndarray, big_blind: int) -> dict:
    """Mean milli-big-blinds per hand and the half-width of its 95 % interval."""
    n = len(chips)
    mbb = chips / big_blind * 1000.0
    mean = float(mbb.mean()) if n else None
    if n < 2:  # no interval from fewer than two hands
        return {
            "hands": n,
            "mbb_per_hand": mean,
            "ci95": None,
            "low": None,
            "high": None,
            "total_chips": float(chips.sum()),
        }
    assert mean is not None  # n >= 2 hands
    half = mean_interval(mbb)[1]
    return {
        "hands": n,
        "mbb_per_hand": mean,
        "ci95": half,
        "low": mean - half,
        "high": mean + half,
        "total_chips": float(chips.sum()),
    }
