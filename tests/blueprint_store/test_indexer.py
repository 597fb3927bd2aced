"""The suit-isomorphic indexer: exact class counts, bijection onto 0..size-1, and
agreement with the definition (same index exactly when a suit permutation maps one
hand onto the other)."""

import itertools

import numba as nb
import numpy as np
import pytest

from pokerbot.blueprint_store.indexer import BINOM, HandIndexer, IndexerError, index_one

HOLDEM = HandIndexer((2, 3, 1, 1))
ROUND_CARDS = (2, 5, 6, 7)


def test_class_counts_are_exact():
    assert [HOLDEM.size(r) for r in range(4)] == [169, 1_286_792, 55_190_538, 2_428_287_420]


def test_hole_cards_make_169_classes_covering_the_range():
    hands = np.array(list(itertools.combinations(range(52), 2)))
    idx = HOLDEM.index_many(hands)
    assert sorted(set(idx.tolist())) == list(range(169))
    # pairs 6 combos each, suited 4, offsuit 12
    counts = np.bincount(idx)
    assert sorted(set(counts.tolist())) == [4, 6, 12]
    assert (counts == 6).sum() == 13 and (counts == 4).sum() == 78 and (counts == 12).sum() == 78


def permute(hand, perm):
    return [(c & ~3) | perm[c & 3] for c in hand]


def canonical_by_brute_force(hand, rounds):
    """The lexicographically smallest per-round-sorted image over all 24 suit permutations."""
    bounds = np.cumsum((0,) + (2, 3, 1, 1)[:rounds])
    best = None
    for perm in itertools.permutations(range(4)):
        img = permute(hand, perm)
        key = tuple(tuple(sorted(img[bounds[r] : bounds[r + 1]])) for r in range(rounds))
        best = key if best is None or key < best else best
    return best


@pytest.mark.parametrize("rnd", [0, 1, 2, 3])
def test_round_trip_and_isomorphism_on_random_hands(rnd):
    rng = np.random.default_rng(rnd)
    n = ROUND_CARDS[rnd]
    hands = np.array([rng.choice(52, n, replace=False) for _ in range(3000)])
    idx = HOLDEM.index_many(hands)
    assert ((idx >= 0) & (idx < HOLDEM.size(rnd))).all()
    for hand, i in zip(hands[:400].tolist(), idx[:400].tolist()):
        rep = HOLDEM.unindex(rnd, i)
        assert HOLDEM.index(rep) == i
        # the representative is a suit permutation of the hand, round by round
        assert canonical_by_brute_force(rep, rnd + 1) == canonical_by_brute_force(hand, rnd + 1)
        # and any suit permutation of the hand, with each round's cards in any order, has the same index
        perm = rng.permutation(4)
        img = permute(hand, perm)
        bounds = np.cumsum((0,) + (2, 3, 1, 1)[: rnd + 1])
        shuffled = [c for r in range(rnd + 1) for c in rng.permutation(img[bounds[r] : bounds[r + 1]])]
        assert HOLDEM.index(shuffled) == i
    # different classes by the definition never share an index
    keys = {}
    for hand, i in zip(hands.tolist(), idx.tolist()):
        canon = canonical_by_brute_force(hand, rnd + 1)
        assert keys.setdefault(i, canon) == canon


@nb.njit(cache=True)
def _count_all_flops(round_end, keys, offsets, binom, seen):
    hand = np.zeros(5, dtype=np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        if c == a or c == b or d == a or d == b or e == a or e == b:
                            continue
                        hand[0] = a
                        hand[1] = b
                        hand[2] = c
                        hand[3] = d
                        hand[4] = e
                        seen[index_one(hand, round_end, 2, keys, offsets, binom)] += 1


@pytest.mark.slow  # exhaustive, about 13 s; the other indexer tests sample
def test_every_hole_and_flop_maps_onto_the_whole_range():
    """All 25,989,600 (hole, flop) deals: every flop class is hit, none outside."""
    t = HOLDEM.tables[1]
    seen = np.zeros(HOLDEM.size(1), dtype=np.int64)
    _count_all_flops(HOLDEM.round_end(1), t.keys, t.offsets, BINOM, seen)
    assert seen.sum() == 1326 * 19600
    assert (seen > 0).all()
    # a class's deals number 1326*19600 / classes on average; each is a suit-orbit, at most 24 deals
    assert seen.max() <= 24


def test_bad_input_is_refused_clearly():
    with pytest.raises(IndexerError, match="repeated"):
        HOLDEM.index([0, 0])
    with pytest.raises(IndexerError, match="whole number of rounds"):
        HOLDEM.index([0, 1, 2])
    with pytest.raises(IndexerError, match="0..51"):
        HOLDEM.index([0, 52])
    with pytest.raises(IndexerError, match="not in 0..168"):
        HOLDEM.unindex(0, 169)
    with pytest.raises(IndexerError, match="round 4"):
        HOLDEM.size(4)
    with pytest.raises(IndexerError):
        HandIndexer(())
