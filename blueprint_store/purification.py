"""Fold-call-bet purification of a blueprint's strategy (Brown, Ganzfried and
Sandholm, AAMAS 2015; the Libratus paper's "no subgame solving" baseline plays its
blueprint so on the third and fourth rounds).

The actions are grouped into fold, check or call, and bet or raise (every size,
all-in included); the group with the largest total probability is played with
probability one (a tie goes to the less aggressive group), and within the bet group
the sizes keep their relative probabilities (docs/evaluation.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pokerbot.protocol.betting import Action, ActionType

#: The groups, least aggressive first (a tie goes to the first).
GROUPS = (ActionType.FOLD, ActionType.CALL, ActionType.RAISE)


def fold_call_bet(probs: np.ndarray, actions: Sequence[Action]) -> np.ndarray:
    """``probs`` (..., len(actions)) purified: per row, the likeliest group of
    ``actions`` (fold, check/call, bet/raise) played with probability one, its bet
    sizes in proportion to their probabilities. Rows that sum to zero stay zero."""
    p = np.asarray(probs, dtype=np.float64)
    kinds = np.array([GROUPS.index(a.type) for a in actions])
    totals = np.stack([p[..., kinds == g].sum(axis=-1) for g in range(len(GROUPS))], axis=-1)
    chosen = np.argmax(totals, axis=-1)  # the first of equal totals: the less aggressive
    keep = kinds == chosen[..., None]
    kept = np.where(keep, p, 0.0)
    total = kept.sum(axis=-1, keepdims=True)
    return np.divide(kept, total, out=np.zeros_like(kept), where=total > 0)
