"""Helpers around safe subgame solving (the solve itself is ``cfr.solve`` with a
``cfr.Gadget``): the alternative payoffs the gadget is given, the gifts vector, and
the margins a safe solve is judged by.

All values are expected chips per opponent hand (the notation v1(c) of docs/design.md),
i.e. counterfactual values divided by N(c), the weight of the opponent's hand c
from our reach and chance.
"""

from __future__ import annotations

import numpy as np

from . import cfr
from .subgame import Subgame


def update_gifts(gifts: np.ndarray, value_before: np.ndarray, value_after_action: np.ndarray) -> np.ndarray:
    """Algorithm 2, line 12 of the Libratus supplement: after the opponent takes an
    action a where each hand c had value v(c) before acting and v(c, a) for a, its
    gift grows by v(c) - v(c, a) (what the opponent gave up by choosing a)."""
    return gifts + (np.asarray(value_before) - np.asarray(value_after_action))


def offtree_alt_values(values_by_action: list[np.ndarray], gifts: np.ndarray | None = None) -> np.ndarray:
    """The inexpensive method for an off-tree opponent action: the alternative payoff
    of each hand is the best value the opponent had among the abstraction's actions
    (plus gifts)."""
    best = np.max(np.stack([np.asarray(v) for v in values_by_action]), axis=0)
    return best if gifts is None else best + gifts


def expected_per_hand(cfv: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Counterfactual values over N(c): expected values per hand (0 where N(c) = 0)."""
    return np.divide(cfv, weights, out=np.zeros_like(cfv, dtype=np.float64), where=weights > 0)


def margins(sub: Subgame, strategy: np.ndarray, opponent: int, alt_values: np.ndarray) -> np.ndarray:
    """alt_values(c) - (the opponent's best-response value of hand c in the subgame
    against our part of ``strategy``), for the hands with N(c) > 0."""
    n = cfr.opponent_weights(sub, opponent)
    br = cfr.counterfactual_values(sub, strategy, opponent, best_response=True)
    live = n > 0
    return (np.asarray(alt_values) - expected_per_hand(br, n))[live]
