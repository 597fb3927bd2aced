"""Hand strength as the ACPC dealer ranks it: the definition, in plain Python.

The dealer's ranking works on any set of cards (one card in Kuhn, two in Leduc, five
to seven in hold'em): the usual categories, high card < pair < two pair < trips <
straight < flush < full house < quads < straight flush, each needing the number of
cards it names (a flush or straight needs five), then the best kickers up to five
cards in all. The category order is the same for every deck, as in the reference.

``hand_strength`` is the rules' definition and is used by the dealer and the betting
state machine for showdowns. The solver's numba evaluator is built from the same
definition (``hand_strength_from_counts`` and ``flush_strength``) and must agree
with it; keep the two in step by changing only this module.

A strength is an int: category << 20, then up to five ranks in 4-bit fields, most
significant first. Larger is better; equal strengths split the pot.
"""

from __future__ import annotations

from collections.abc import Sequence

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
CATEGORY_NAMES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
CATEGORY_SHIFT = 20
NUM_RANKS = 13


def _pack(category: int, ranks: Sequence[int]) -> int:
    value = category
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def category_of(strength: int) -> int:
    return strength >> CATEGORY_SHIFT


def _straight_top(rank_mask: int) -> int:
    """Top rank of the best straight in a 13-bit rank set, or -1. A-2-3-4-5 counts
    (its top is the 5)."""
    for top in range(12, 3, -1):
        run = 0b11111 << (top - 4)
        if rank_mask & run == run:
            return top
    wheel = (1 << 12) | 0b1111
    if rank_mask & wheel == wheel:
        return 3
    return -1


def _top_ranks(rank_mask: int, n: int) -> list[int]:
    out: list[int] = []
    for r in range(12, -1, -1):
        if len(out) == n:
            break
        if rank_mask >> r & 1:
            out.append(r)
    return out


def flush_strength(rank_mask: int) -> int:
    """Strength of a hand whose suited cards (five or more) have this rank set."""
    top = _straight_top(rank_mask)
    if top >= 0:
        return _pack(STRAIGHT_FLUSH, [top])
    return _pack(FLUSH, _top_ranks(rank_mask, 5))


def hand_strength_from_counts(counts: Sequence[int]) -> int:
    """Strength of a hand with no flush, given how many cards of each rank it has."""
    n = sum(counts)
    quads = [r for r in range(12, -1, -1) if counts[r] == 4]
    trips = [r for r in range(12, -1, -1) if counts[r] == 3]
    pairs = [r for r in range(12, -1, -1) if counts[r] == 2]
    present = 0
    for r in range(NUM_RANKS):
        if counts[r]:
            present |= 1 << r

    def kickers(excluded: Sequence[int], k: int) -> list[int]:
        mask = present
        for r in excluded:
            mask &= ~(1 << r)
        return _top_ranks(mask, k)

    if quads:
        q = quads[0]
        return _pack(QUADS, [q] + kickers([q], min(1, n - 4)))
    if trips and (len(trips) >= 2 or pairs):
        t = trips[0]
        second = max(trips[1:] + pairs)
        return _pack(FULL_HOUSE, [t, second])
    top = _straight_top(present)
    if top >= 0:
        return _pack(STRAIGHT, [top])
    if trips:
        t = trips[0]
        return _pack(TRIPS, [t] + kickers([t], min(2, n - 3)))
    if len(pairs) >= 2:
        hi, lo = pairs[0], pairs[1]
        return _pack(TWO_PAIR, [hi, lo] + kickers([hi, lo], min(1, n - 4)))
    if pairs:
        p = pairs[0]
        return _pack(PAIR, [p] + kickers([p], min(3, n - 2)))
    return _pack(HIGH_CARD, _top_ranks(present, min(5, n)))


def hand_strength(cards: Sequence[int]) -> int:
    """Strength of the best hand made from ``cards`` (hole and board together)."""
    counts = [0] * NUM_RANKS
    suit_masks = [0, 0, 0, 0]
    for c in cards:
        counts[c >> 2] += 1
        suit_masks[c & 3] |= 1 << (c >> 2)
    best = hand_strength_from_counts(counts)
    for mask in suit_masks:
        if mask.bit_count() >= 5:
            best = max(best, flush_strength(mask))
    return best


_FIELDS = (5, 4, 3, 3, 1, 5, 2, 2, 1)  # ranks that a five-card hand of each category names


def describe(strength: int) -> str:
    """Human-readable category and ranks, e.g. ``'pair: Q K 9 7'`` (for hands of
    fewer than five cards the unused kicker fields show as 2)."""
    ranks = "23456789TJQKA"
    cat = category_of(strength)
    fields = [(strength >> (16 - 4 * i)) & 15 for i in range(_FIELDS[cat])]
    return f"{CATEGORY_NAMES[cat]}: " + " ".join(ranks[f] for f in fields)
