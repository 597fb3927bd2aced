"""Control variates with coefficients fitted on other data, so they stay unbiased.

An estimate ``raw`` of a mean can be corrected by terms of expectation zero (AIVAT's
corrections, LBR's baseline terms, or the difference of two unbiased estimates of the
same quantity). Adding each term with weight 1 is unbiased but adds the term's noise
where it does not track ``raw``; the least-squares weights remove the most variance but,
fitted on the same samples, bias the result slightly. Fitting them on one half of the
samples and applying them to the other (cross-fitting) keeps every sample's weights
independent of that sample: unbiased, and close to the best weights.
"""

from __future__ import annotations

import numpy as np

#: Hands a fold needs before its coefficients are fitted (fewer: every coefficient is 1).
MIN_FIT_HANDS = 100


def cross_fitted(
    raw: np.ndarray,
    terms: np.ndarray,
    folds: np.ndarray,
    min_fit: int = MIN_FIT_HANDS,
    bounds: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Control variates with fitted coefficients that stay unbiased: per hand, ``raw``
    plus ``terms`` (hands x kinds, each column of expectation 0) weighted by the least-
    squares coefficients fitted on the hands of the other fold (``folds``: 0 or 1 per
    hand), so that no hand's coefficients depend on that hand. Returns the per-hand
    values and the coefficients (fold x kind). A kind that does not track the result
    gets a coefficient near 0 instead of adding its noise; one that tracks it, near 1.
    With fewer than ``min_fit`` hands to fit on, the coefficients are 1; ``bounds``
    clips each coefficient (with one kind, the best coefficient within them)."""
    betas = np.ones((2, terms.shape[1]))
    values = raw + terms.sum(axis=1)
    for fold in (0, 1):
        fit, use = folds != fold, folds == fold
        if fit.sum() >= min_fit and use.any():
            centred = terms[fit] - terms[fit].mean(axis=0)
            target = raw[fit] - raw[fit].mean()
            beta, *_ = np.linalg.lstsq(centred, -target, rcond=None)
            if bounds is not None:
                beta = np.clip(beta, *bounds)
            betas[fold] = beta
            values[use] = raw[use] + terms[use] @ beta
    return values, betas
