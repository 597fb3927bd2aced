"""Card abstraction: equity kernel, EMD k-means, the flop table built end to end
(covering every class), and deal bucketing consistent with play-time lookups."""

import numpy as np
import pytest

from pokerbot.blueprint_store import abstraction as ab
from pokerbot.blueprint_store.indexer import HandIndexer
from pokerbot.protocol.hand_rank import hand_strength
from pokerbot.solver import evaluator as ev


def test_canonical_board_counts():
    assert len(ab.canonical_boards((3,))) == 1755
    assert len(ab.canonical_boards((3, 1))) == 63193


def test_nearest_with_mean_pruning_equals_brute_force():
    rng = np.random.default_rng(0)
    bins = 8
    pts = np.cumsum(rng.dirichlet(np.ones(bins), 500), axis=1)
    centers = np.cumsum(rng.dirichlet(np.ones(bins), 40), axis=1)
    cm = np.array([ab.cdf_mean(c, bins) for c in centers])
    order = np.argsort(cm).astype(np.int64)
    for p in pts:
        brute = int(np.argmin(np.abs(centers - p).sum(axis=1)))
        got = ab.nearest_centre(p, ab.cdf_mean(p, bins), centers, cm, order)
        assert np.isclose(np.abs(centers[got] - p).sum(), np.abs(centers[brute] - p).sum())


def test_kmeans_emd_separates_clusters_and_orders_by_mean():
    rng = np.random.default_rng(1)
    bins = 10
    groups = []
    for peak in (1, 5, 8):  # histograms concentrated near three equities
        h = np.full((300, bins), 0.02)
        h[:, peak] += 1.0 + 0.05 * rng.random((300,))
        groups.append(np.cumsum(h / h.sum(axis=1, keepdims=True), axis=1))
    pts = np.concatenate(groups)
    centers = ab.kmeans_emd(pts, 3, 10, rng)
    means = [ab.cdf_mean(c, bins) for c in centers]
    assert means == sorted(means)
    cm = np.array(means)
    labels = np.array([ab.nearest_centre(p, ab.cdf_mean(p, bins), centers, cm, np.arange(3)) for p in pts])
    assert [len(set(labels[i * 300 : (i + 1) * 300].tolist())) for i in range(3)] == [1, 1, 1]
    assert sorted(set(labels.tolist())) == [0, 1, 2]


@pytest.fixture(scope="module")
def small_abstraction():
    """Real flop table (few runouts), dummy turn table (the same code builds both)."""
    spec = ab.CardAbstractionSpec(
        buckets=(169, 8, 8, 10), bins=6, flop_runouts=4, fit_flop_boards=40, kmeans_iterations=4
    )
    rng = np.random.default_rng(0)
    flop = ab.build_round("flop", (3,), 2, spec, spec.flop_runouts, spec.fit_flop_boards, rng, lambda s: None)
    ix = HandIndexer(ab.HOLDEM_ROUNDS)
    preflop = ix.index_many(ev.all_hole_pairs()).astype(np.uint16)
    turn = (np.arange(ix.size(2)) % 8).astype(np.uint16)
    return ab.CardAbstraction(spec, preflop, flop, turn)


def test_flop_table_covers_every_class_and_isomorphic_hands_agree(small_abstraction):
    flop = small_abstraction.flop
    assert flop.shape == (1_286_792,) and int(flop.max()) < 8
    assert len(np.unique(flop)) == 8
    # a hand and its suit-permuted image share the bucket
    rng = np.random.default_rng(2)
    for _ in range(50):
        cards = rng.choice(52, 5, replace=False).tolist()
        perm = rng.permutation(4)
        img = [(c & ~3) | int(perm[c & 3]) for c in cards]
        assert ab.hand_bucket(small_abstraction, 1, cards[:2], cards[2:]) == ab.hand_bucket(
            small_abstraction, 1, img[:2], img[2:]
        )
    # buckets are ordered by equity: aces on a low dry board above 72o there
    assert ab.hand_bucket(small_abstraction, 1, [48, 49], [0, 5, 14]) > ab.hand_bucket(
        small_abstraction, 1, [21, 3], [9, 26, 38]
    )


def test_deal_buckets_match_play_time_lookups(small_abstraction):
    a = small_abstraction
    tables = ab.deal_tables(a)
    rng = np.random.default_rng(3)
    out = np.zeros((2, 4), dtype=np.int32)
    for _ in range(200):
        cards = rng.choice(52, 9, replace=False).astype(np.int64)
        outcome = ab.deal_buckets(
            cards, tables, np.empty(1326, np.int32), np.empty(32, np.int64), np.empty(6, np.int64), out
        )
        board = cards[4:].tolist()
        for p in range(2):
            hole = cards[2 * p : 2 * p + 2].tolist()
            assert [ab.hand_bucket(a, r, hole, board[:n]) for r, n in enumerate((0, 3, 4, 5))] == out[p].tolist()
        s0 = hand_strength(cards[:2].tolist() + board)
        s1 = hand_strength(cards[2:4].tolist() + board)
        assert outcome == (s0 > s1) - (s0 < s1)
    # all hands at once agree with one at a time, blocked ones -1
    board = [0, 13, 26, 39, 51]
    every = ab.hand_buckets(a, 3, board)
    pairs = ev.all_hole_pairs().tolist()
    for h in range(0, 1326, 37):
        hole = pairs[h]
        expected = -1 if set(hole) & set(board) else ab.hand_bucket(a, 3, hole, board)
        assert every[h] == expected


def test_river_bucket_is_the_equity_slice():
    board = [48, 44, 40, 36, 1]  # A K Q J of clubs and a 2
    a = ab.CardAbstraction(ab.CardAbstractionSpec(buckets=(169, 2, 2, 10)), None, None, None)
    assert ab.hand_bucket(a, 3, [32, 2], board) == 9  # the royal flush beats everything
    assert ab.hand_bucket(a, 3, [5, 10], board) <= 1  # 3d 4h: the board plays, nearly the worst


@pytest.mark.parametrize(
    "board",
    [[48, 44, 40, 36, 32], [0, 13, 26, 39, 51], [5, 18, 31, 7, 20], [12, 25, 2, 41, 30]],
    ids=["royal-flush-board", "quads", "full-house", "random"],
)
def test_every_hand_s_river_bucket_is_its_brute_force_equity_slice(board):
    """The sweep over sorted strengths gives every hand the bucket of its equity
    counted hand by hand (1,000 buckets: an off-by-one count moves a bucket)."""
    a = ab.CardAbstraction(ab.CardAbstractionSpec(buckets=(169, 2, 2, 1000)), None, None, None)
    every = ab.hand_buckets(a, 3, board)
    strengths = ev.strengths_on_board(board, *ev.hand_keys(ev.all_hole_pairs()))
    _, masks = ev.hand_keys(ev.all_hole_pairs())
    for h, hole in enumerate(ev.all_hole_pairs().tolist()):
        if set(hole) & set(board):
            assert every[h] == -1
            continue
        mine = masks[h]
        rivals = [s for s, m in zip(strengths, masks) if s >= 0 and not m & mine]
        equity = (sum(s < strengths[h] for s in rivals) + 0.5 * sum(s == strengths[h] for s in rivals)) / len(rivals)
        assert every[h] == min(int(equity * 1000), 999)


def test_spec_is_checked():
    with pytest.raises(ValueError, match="169"):
        ab.CardAbstractionSpec(buckets=(100, 2, 2, 2)).verify()
    with pytest.raises(ValueError, match="bins"):
        ab.CardAbstractionSpec(bins=1).verify()


@pytest.mark.parametrize("threads, digest", [(1, "39100b614ac6daf8"), (2, "67cbdc4c45073b63")])
def test_sampled_deals_hash_as_recorded(threads, digest):
    """MCCFR's deals (stand-in flop and turn tables; the river's buckets by equity) on a
    fixed seed and thread count: the digests recorded with the code before both players'
    river equities were summed in one sweep. A changed bucket or outcome changes them."""
    import hashlib

    deals = ab.HoldemDeals(ab.stand_in_cards((169, 200, 200, 200)), threads=threads)
    buckets, outcomes = deals.sample(5000, np.random.default_rng(7))
    assert hashlib.sha256(buckets.tobytes() + outcomes.tobytes()).hexdigest()[:16] == digest
