"""Depth-limited subgames against the full-depth tree they stand for: a depth-limited
tree whose leaves continue by fixed continuation strategies is the full tree with
those strategies played below the leaves, so its values must equal the full tree's
exactly (the full-tree evaluator is checked against brute force in test_cfr)."""

import copy
import dataclasses
import doctest

import numpy as np
import pytest

from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import parse_gamedef
from pokerbot.solver import cfr, depth_limited, leaf_pass, pass_arrays, passes, showdown_pass
from pokerbot.solver.subgame import make_subgame
from pokerbot.solver.tree import DECISION, LEAF, BetSizes, build_tree, continuation_tree

SPOT_GAME = parse_gamedef(
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 4500 4500\nblind = 100 50\n"
    "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n"
)

TURN = BetSizes(bets=((1.0,),), max_raises=1)
RIVER = BetSizes(bets=((0.5,), (1.0,)), max_raises=2)
K, B = 3, 6


def turn_state(board="QsJh2h8d", betting="r500c/cc/"):
    return apply_betting(BettingState(SPOT_GAME, 0, None, parse_cards(board)), betting)


def random_strategy(t, rng, k, buckets):
    """(nodes, k, buckets): random action probabilities at every decision of tree ``t``."""
    s = rng.random((t.num_nodes, k, buckets)) ** 3
    for d in np.nonzero(t.kind == DECISION)[0]:
        f, m = t.first_child[d], t.num_children[d]
        s[f : f + m] /= s[f : f + m].sum(axis=0, keepdims=True)
    return s


def random_continuations(sub, rng, k=K, buckets=B):
    """Per leaf: the continuation tree (the river after the leaf, with RIVER sizes)
    and random strategies per (node, k, bucket); random buckets per card and hand."""
    trees, strategies = [], []
    for n in np.nonzero(sub.tree.kind == LEAF)[0]:
        t = build_tree(leaf_state(sub, int(n)), RIVER)
        trees.append(t)
        strategies.append(random_strategy(t, rng, k, buckets))
    hands = sub_hands_all()
    buckets_by_card = rng.integers(0, buckets, size=(52, len(hands)))
    for d in range(52):
        buckets_by_card[d, (hands[:, 0] == d) | (hands[:, 1] == d)] = -1
    return trees, strategies, buckets_by_card


def sub_hands_all():
    from pokerbot.solver import ranges

    return ranges.hole_hands(SPOT_GAME)


def leaf_state(sub, node, root=None, deal=True):
    """The betting state at a leaf (from ``root``, default the turn spot's), the next
    card dealt when ``deal`` (any card off the board: a continuation tree does not
    depend on it)."""
    path = []
    t = sub.tree
    parent = {
        int(c): p for p in range(t.num_nodes) for c in range(t.first_child[p], t.first_child[p] + t.num_children[p])
    }
    n = node
    while n in parent:
        path.append(t.actions[n])
        n = parent[n]
    st = turn_state() if root is None else root
    for a in reversed(path):
        st.apply(a)
    if deal:
        card = next(c for c in range(52) if c not in st.board_cards)
        st.deal_board_cards([card])
    return st


@pytest.fixture(scope="module")
def spot():
    return make_spot()


def make_spot():
    """A turn subgame with random continuations, the full subgame, a random strategy
    and leaf mix (the same every call)."""
    rng = np.random.default_rng(3)
    state = turn_state()
    reach = rng.random((2, 1326))
    sub = make_subgame(state, {2: TURN}, reach, leaf_round=3)
    trees, strategies, buckets = random_continuations(sub, rng)
    depth_limited.attach_continuations(sub, trees, strategies, buckets)
    full = make_subgame(state, {2: TURN, 3: RIVER}, reach)
    H = sub.hands.shape[0]
    strategy = cfr.average_strategy(sub.tree, rng.random((sub.tree.num_nodes, H)))
    mix = rng.random((2, sub.continuations.num_leaves, K, H)) ** 2
    mix /= mix.sum(axis=2, keepdims=True)
    return sub, full, strategy, mix


def test_a_depth_limited_tree_stops_at_the_river_with_one_leaf_per_open_line():
    sub = make_subgame(turn_state(), {2: TURN}, leaf_round=3)
    t = sub.tree
    # check-check, check-bet-call, bet-call (a raise is all-in: the showdown follows)
    assert t.num_leaves == 3
    assert t.num_nodes < build_tree(turn_state(), {2: TURN, 3: RIVER}).num_nodes / 20
    assert (t.leaf_boards >= 0).sum() == 48
    with pytest.raises(ValueError, match="next round"):
        build_tree(turn_state(), {2: TURN}, leaf_round=2)


def test_values_equal_the_full_tree_with_the_continuations_played_below_the_leaves(spot):
    sub, full, strategy, mix = spot
    full_strategy = depth_limited.full_depth_strategy(sub, strategy, mix, full)
    for p in (0, 1):
        dl = cfr.counterfactual_values(sub, strategy, p, leaf_strategy=mix)
        ref = cfr.counterfactual_values(full, full_strategy, p)
        np.testing.assert_allclose(dl, ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
    # negative control: the full tree with another mix at the leaves has other values
    other = depth_limited.full_depth_strategy(sub, strategy, mix[:, :, ::-1], full)
    assert not np.allclose(cfr.counterfactual_values(full, other, 1), dl, rtol=1e-3)


def test_a_best_response_among_continuations_is_bounded_by_the_full_best_response(spot):
    sub, full, strategy, mix = spot
    full_strategy = depth_limited.full_depth_strategy(sub, strategy, mix, full)
    for p in (0, 1):
        plain = cfr.counterfactual_values(sub, strategy, p, leaf_strategy=mix)
        br = cfr.counterfactual_values(sub, strategy, p, best_response=True, leaf_strategy=mix)
        full_br = cfr.counterfactual_values(full, full_strategy, p, best_response=True)
        tol = 1e-9 * np.abs(full_br).max()
        assert (br >= plain - tol).all() and (br <= full_br + tol).all()
        assert (br > plain + 1.0).any() and (full_br > br + 1.0).any()


def test_a_best_response_over_given_leaf_values_agrees_with_the_pass_that_made_them(spot):
    """Given the leaves' own values (here a full response below them), the best
    response above them is the evaluation pass's, node for node; a wrong leaf value
    moves the root's. Told to follow the strategy above the leaves, the values are
    the strategy's own."""
    sub, _, strategy, mix = spot
    leaves = np.nonzero(sub.tree.kind == LEAF)[0]
    for p in (0, 1):
        w = cfr.evaluation_pass(sub, strategy, p, True, sub.reach, mix, full_response=True)
        given = {int(n): w.cfv[n].copy() for n in leaves}
        got = cfr.best_response_with_leaf_values(sub, strategy, p, given)
        np.testing.assert_allclose(got, w.cfv, rtol=1e-12, atol=1e-9)
        given[int(leaves[0])] += 1e6
        moved = cfr.best_response_with_leaf_values(sub, strategy, p, given)[0] - w.cfv[0]
        assert moved.max() > 1.0
        # following its own strategy above the leaves, the player gets the strategy's values
        own = cfr.evaluation_pass(sub, strategy, p, False, sub.reach, mix)
        given = {int(n): own.cfv[n].copy() for n in leaves}
        got = cfr.best_response_with_leaf_values(sub, strategy, p, given, follow=True)
        np.testing.assert_allclose(got, own.cfv, rtol=1e-12, atol=1e-9)
        assert (cfr.best_response_with_leaf_values(sub, strategy, p, given)[0] > own.cfv[0] + 1.0).any()
    with pytest.raises(ValueError, match="every leaf"):
        cfr.best_response_with_leaf_values(sub, strategy, 0, {int(leaves[0]): w.cfv[leaves[0]]})


@pytest.mark.parametrize("independent", [False, True])
def test_sampled_cards_estimate_the_leaf_values_without_bias(spot, independent):
    """One card per pass (in turn from a keyed shuffle, or drawn independently): the
    mean over many keys is the exact value (the root's expected value within four
    standard errors); a draw scaled as if the card were one of 44 rather than 48
    would be biased well outside that (control)."""
    sub, _, strategy, mix = spot
    H = sub.hands.shape[0]
    exact = float(sub.reach[0] @ cfr.counterfactual_values(sub, strategy, 0, leaf_strategy=mix))
    draws = []
    for seed in range(300):
        w = cfr.Workspace(sub)
        leaves = depth_limited.leaf_data(sub, sample=1, seed=seed, leaf_strategy=mix, independent=independent)
        rule = pass_arrays.PassRule(strategy, np.zeros((1, 1)), np.zeros((1, 1)), float(seed + 1), False, False, False)
        passes.traverse(0, *sub.kernel_args(), sub.reach[0], sub.reach[1], rule, w.args(), leaves)
        draws.append(float(sub.reach[0] @ w.cfv[0]))
    draws = np.array(draws)
    se = draws.std(ddof=1) / np.sqrt(len(draws))
    assert abs(draws.mean() - exact) < 4 * se
    assert abs(draws.mean() * 44 / 48 - exact) > 4 * se
    assert len(np.unique(draws)) > 40  # the keys do draw different cards
    assert H == 1128


def test_solving_lowers_the_exploitability_within_the_continuations_and_repeats_bit_for_bit(spot):
    sub, _, _, _ = spot
    pot = sub.pot
    results = {}
    for its, samples in ((5, 0), (150, 0), (150, 2), (150, -2)):
        r = cfr.solve(sub, its, card_samples=abs(samples), seed=7, independent_cards=samples < 0)
        results[(its, samples)] = 100 * cfr.exploitability(sub, r.strategy, r.leaf_strategy) / pot
    assert results[(150, 0)] < results[(5, 0)] / 3
    assert results[(150, 2)] < results[(5, 0)] / 2 and results[(150, -2)] < results[(5, 0)] / 2
    again = cfr.solve(sub, 20, card_samples=2, seed=7)
    once = cfr.solve(sub, 20, card_samples=2, seed=7)
    np.testing.assert_array_equal(again.strategy, once.strategy)
    np.testing.assert_array_equal(again.leaf_strategy, once.leaf_strategy)
    other = cfr.solve(sub, 20, card_samples=2, seed=8)
    assert not np.array_equal(other.strategy, once.strategy)
    drawn = cfr.solve(sub, 20, card_samples=2, seed=7, independent_cards=True)
    assert not np.array_equal(drawn.strategy, once.strategy)


@pytest.mark.parametrize("which", ["turn", "flop"])
def test_leaves_valued_on_two_threads_solve_bit_for_bit_as_on_one(spot, flop_spot, which):
    """Leaf values in shares of the leaves (threads of their own when numba has two)
    change nothing: each leaf's arithmetic is the same wherever it runs."""
    sub = spot[0] if which == "turn" else flop_spot[0]
    leaves = depth_limited.leaf_data(sub, shares=2)
    sizes = np.diff(sub.continuations.start)
    start, order = leaves.share_start, leaves.share_leaves
    assert len(start) == 3 and sorted(order.tolist()) == list(range(sub.continuations.num_leaves))
    loads = [int(sizes[order[start[s] : start[s + 1]]].sum()) for s in (0, 1)]
    assert abs(loads[0] - loads[1]) <= sizes.max()  # balanced to within one leaf
    for samples in (0, 2):
        one = cfr.solve(sub, 12, card_samples=samples, seed=3)
        two = cfr.solve(sub, 12, card_samples=samples, seed=3, threads=2)
        np.testing.assert_array_equal(one.strategy, two.strategy)
        np.testing.assert_array_equal(one.leaf_strategy, two.leaf_strategy)
    # evaluation too: values, full best responses below the leaves, a few runouts' values
    strategy, mix = (spot[2], spot[3]) if which == "turn" else (flop_spot[2], flop_spot[3])
    for threads in (1, 2):
        got = (
            cfr.exploitability(sub, strategy, mix, full_response=True, threads=threads),
            cfr.node_values(sub, strategy, 1, leaf_strategy=mix, leaf_sample=3, seed=2, threads=threads)[0],
        )
        if threads == 1:
            first = got
    assert got[0] == first[0]
    np.testing.assert_array_equal(got[1], first[1])
    assert doctest.testmod(depth_limited).failed == 0
    with pytest.raises(ValueError, match="shares"):
        depth_limited.leaf_data(sub, shares=0)


#: Solves and values at several thread counts in a process whose numba pool has 8
#: threads (more than this machine may have: the shares are what is tested).
THREAD_COUNTS_SCRIPT = """
import hashlib, sys
sys.path.insert(0, sys.argv[1])
from test_depth_limited import make_spot
from pokerbot.solver import cfr
sub, _, strategy, mix = make_spot()
for threads in (1, 2, 3, 8):
    h = hashlib.sha256()
    for samples in (3, 1, 0):  # one card a pass: pieces on 8 threads (3 leaves)
        r = cfr.solve(sub, 10, card_samples=samples, seed=3, threads=threads)
        h.update(r.strategy.tobytes()); h.update(r.leaf_strategy.tobytes())
    h.update(cfr.node_values(sub, strategy, 0, leaf_strategy=mix, leaf_sample=5, seed=2, threads=threads)[0].tobytes())
    print(threads, h.hexdigest())
"""


@pytest.mark.slow  # a second process compiles the parallel kernels for an 8-thread pool
def test_leaf_items_solve_bit_for_bit_at_any_thread_count(spot, monkeypatch):
    """(piece, card) items on threads (k cards a pass and the trees cut into pieces keep
    threads busy with fewer leaves than threads) sum each leaf's cards in the order one
    thread does, each on its tops' values as one thread makes them: solves and
    values are the same bit for bit at 1, 2, 3 and 8 threads, and the same as the
    leaves valued by shares. Negative control: the same cards summed in another order
    give other bits, so the comparison would catch an order that depends on threads."""
    import os

    from conftest import digests_on_8_threads

    sub = spot[0]
    leaves = depth_limited.leaf_data(sub, sample=3, shares=8)
    L = sub.continuations.num_leaves
    assert L < 8 and leaves.item_draws == 3 and len(leaves.item_start) == 9  # more threads than leaves
    P = len(leaves.piece_leaf)  # (piece, card) items: the trees cut, 9 whole-tree items leaving shares idle
    assert P > L and sorted(leaves.items.tolist()) == list(range(3 * P))
    digests = digests_on_8_threads(THREAD_COUNTS_SCRIPT, os.path.dirname(__file__), timeout=600)
    assert len(digests) == 4 and len(set(digests.values())) == 1, digests
    items = cfr.solve(sub, 10, card_samples=3, seed=3, threads=2)
    monkeypatch.setattr(depth_limited, "MAX_ITEM_BYTES", 0)  # no room for items: the leaves by shares
    assert depth_limited.leaf_data(sub, sample=3, shares=2).item_draws == 0
    shares = cfr.solve(sub, 10, card_samples=3, seed=3, threads=2)
    np.testing.assert_array_equal(items.strategy, shares.strategy)
    np.testing.assert_array_equal(items.leaf_strategy, shares.leaf_strategy)
    # the control: every card each pass (sample 0), in reverse order
    import dataclasses

    forward = cfr.solve(sub, 10, seed=3)
    backward_sub = copy.copy(sub)
    backward_sub.continuations = dataclasses.replace(sub.continuations, cards=sub.continuations.cards[::-1].copy())
    backward = cfr.solve(backward_sub, 10, seed=3)
    assert not np.array_equal(forward.strategy, backward.strategy)
    np.testing.assert_allclose(forward.strategy, backward.strategy, atol=1e-4)  # the same solve up to rounding


def test_pluribus_biases_multiply_one_kind_of_action_and_renormalise():
    p = np.array([[0.2, 0.5, 0.3], [0.0, 1.0, 0.0]])
    out = depth_limited.biased(p, ["fold", "call", "raise"])
    assert out.shape == (2, 4, 3)
    np.testing.assert_allclose(out[:, 0], p)
    np.testing.assert_allclose(out[0, 1], np.array([1.0, 0.5, 0.3]) / 1.8)
    np.testing.assert_allclose(out[0, 3], np.array([0.2, 0.5, 1.5]) / 2.2)
    np.testing.assert_allclose(out[1, 1:], [[0.0, 1.0, 0.0]] * 3)  # nothing to bias toward
    np.testing.assert_allclose(out.sum(axis=-1), 1.0)


@pytest.mark.parametrize("sample", [1, 4])
def test_each_player_s_passes_go_round_every_card(spot, sample):
    """In turn: each player's passes over 48 / sample consecutive iterations value
    the leaves on every one of the 48 cards exactly once (not half of them each, as
    when the round advanced per pass and the players alternated)."""
    sub = spot[0]
    leaves = depth_limited.leaf_data(sub, sample=sample, seed=5)
    for player in (0, 1):
        for start in (1, 30):
            seen = [
                leaf_pass.leaf_card(leaves.cards, sample, 5, False, t, player, j)
                for t in range(start, start + 48 // sample)
                for j in range(sample)
            ]
            assert sorted(seen) == sorted(leaves.cards.tolist())
    drawn = {leaf_pass.leaf_card(leaves.cards, 1, 5, True, t, 1, 0) for t in range(200)}
    assert len(drawn) > 40


# ---------------------------------------------------------------- from the flop
# A 20-card deck keeps the full-depth flop tree (turn and river) small enough to
# evaluate exactly; the depth-limited tree stops at the turn and its continuations
# span the turn and the river.
SMALL_GAME = parse_gamedef(
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 3000 3000\nblind = 100 50\n"
    "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 5\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n"
)
FLOP = BetSizes(bets=((1.0,),), max_raises=1)
LATER = {2: BetSizes(bets=((1.0,),), max_raises=1), 3: BetSizes(bets=((0.5,), (1.0,)), max_raises=2)}


def flop_state():
    return apply_betting(BettingState(SMALL_GAME, 0, None, [32, 37, 42]), "r300c/")


def all_runouts(state):
    left = [c for c in SMALL_GAME.deck() if c not in state.board_cards]
    return np.array([(d, e) for d in left for e in left if d != e], dtype=np.int64)


def flop_subgame(deals, reach, rng, k=K, buckets=B):
    """A depth-limited flop subgame over ``deals`` with random two-round continuations;
    turn buckets depend on the turn card only (the full tree decides on the turn
    before the river is known), river buckets on both cards."""
    sub = make_subgame(flop_state(), {1: FLOP}, reach, leaf_round=2, leaf_deals=deals)
    trees, strategies = [], []
    for n in np.nonzero(sub.tree.kind == LEAF)[0]:
        t = continuation_tree(leaf_state(sub, int(n), flop_state(), deal=False), LATER)
        trees.append(t)
        strategies.append(random_strategy(t, rng, k, buckets))
    hands = ranges_hole_hands(SMALL_GAME)
    turn = rng.integers(0, buckets, size=(52, len(hands)))
    river = rng.integers(0, buckets, size=(52, 52, len(hands)))
    table = np.zeros((len(deals), 2, len(hands)), dtype=np.int64)
    for x, (d, e) in enumerate(deals.tolist()):
        table[x, 0], table[x, 1] = turn[d], river[d, e]
        table[x, :, np.isin(hands, [d, e]).any(axis=1)] = -1
    depth_limited.attach_continuations(sub, trees, strategies, table)
    return sub


def ranges_hole_hands(game):
    from pokerbot.solver import ranges

    return ranges.hole_hands(game)


@pytest.fixture(scope="module")
def flop_spot():
    rng = np.random.default_rng(11)
    reach = rng.random((2, len(ranges_hole_hands(SMALL_GAME))))
    deals = all_runouts(flop_state())
    sub = flop_subgame(deals, reach, np.random.default_rng(5))
    full = make_subgame(flop_state(), {1: FLOP, **LATER}, reach)
    H = sub.hands.shape[0]
    strategy = cfr.average_strategy(sub.tree, rng.random((sub.tree.num_nodes, H)))
    mix = rng.random((2, sub.continuations.num_leaves, K, H)) ** 2
    mix /= mix.sum(axis=2, keepdims=True)
    return sub, full, strategy, mix, reach


def test_a_flop_tree_stops_at_the_turn_on_every_line_all_ins_too():
    deals = all_runouts(flop_state())
    t = build_tree(flop_state(), {1: FLOP}, leaf_round=2, leaf_deals=deals)
    # check-check, check-bet-call, bet-call, and the two all-ins called
    assert t.num_leaves == 5 and t.num_chance == 0
    assert sorted(int(t.spent[n][0]) for n in np.nonzero(t.kind == LEAF)[0]) == [300, 900, 900, 3000, 3000]
    assert len(t.leaf_boards) == len(deals) == 17 * 16 and len(t.boards) == 17 * 16 // 2
    assert t.leaf_weight == pytest.approx(1 / (13 * 12))
    with pytest.raises(ValueError, match="leaf_deals"):
        build_tree(flop_state(), {1: FLOP}, leaf_round=2)
    with pytest.raises(ValueError, match="distinct cards off the board"):
        build_tree(flop_state(), {1: FLOP}, leaf_round=2, leaf_deals=np.array([[32, 33]]))


def test_a_flop_subgame_on_one_runout_keeps_the_hands_the_runout_blocks():
    """The runout is where the leaves are valued, not the board: a hand holding the
    turn or river card of the only deal is still dealt on the flop (it was dropped,
    as if the runout were the board, when one deal left one showdown board)."""
    deals = all_runouts(flop_state())
    one = make_subgame(flop_state(), {1: FLOP}, leaf_round=2, leaf_deals=deals[:1])
    two = make_subgame(flop_state(), {1: FLOP}, leaf_round=2, leaf_deals=deals[:2])
    assert sorted(one.hand_index.tolist()) == sorted(two.hand_index.tolist())
    blocked = [h for h in one.hands.tolist() if set(h) & set(deals[0].tolist())]
    assert blocked  # the case this is about


def test_flop_values_equal_the_full_tree_with_two_round_continuations_below_the_leaves(flop_spot):
    sub, full, strategy, mix, _ = flop_spot
    full_strategy = depth_limited.full_depth_strategy(sub, strategy, mix, full)
    for p in (0, 1):
        dl = cfr.counterfactual_values(sub, strategy, p, leaf_strategy=mix)
        ref = cfr.counterfactual_values(full, full_strategy, p)
        np.testing.assert_allclose(dl, ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
        br = cfr.counterfactual_values(sub, strategy, p, best_response=True, leaf_strategy=mix)
        full_br = cfr.counterfactual_values(full, full_strategy, p, best_response=True)
        tol = 1e-9 * np.abs(full_br).max()
        assert (br >= dl - tol).all() and (br <= full_br + tol).all()
    # negative controls: another mix at the leaves; river buckets read on the turn
    other = depth_limited.full_depth_strategy(sub, strategy, mix[:, :, ::-1], full)
    assert not np.allclose(cfr.counterfactual_values(full, other, 1), dl, rtol=1e-3)
    c = sub.continuations
    saved = c.stage.copy()
    try:
        c.stage[:] = 1
        wrong = cfr.counterfactual_values(sub, strategy, 1, leaf_strategy=mix)
    finally:
        c.stage[:] = saved
    assert not np.allclose(wrong, dl, rtol=1e-3)


def test_runout_samples_partitioning_the_runouts_average_to_the_exact_values(flop_spot):
    """Four disjoint samples of 68 runouts, each weighted as a sample of the 272: their
    mean values are the exact values (the weight is right); every sample alone is off."""
    _, _, _, _, reach = flop_spot
    deals = all_runouts(flop_state())
    order = np.random.default_rng(2).permutation(len(deals))
    exact_sub = flop_subgame(deals, reach, np.random.default_rng(5))
    H = exact_sub.hands.shape[0]
    rng = np.random.default_rng(9)
    strategy = cfr.average_strategy(exact_sub.tree, rng.random((exact_sub.tree.num_nodes, H)))
    mix = np.full((2, exact_sub.continuations.num_leaves, K, H), 1.0 / K)
    exact = cfr.counterfactual_values(exact_sub, strategy, 0, leaf_strategy=mix)
    parts = []
    for q in range(4):
        part = deals[np.sort(order[q::4])]
        # the same continuation tables: rebuild with the same generator state
        sub = flop_subgame(part, reach, np.random.default_rng(5))
        parts.append(cfr.counterfactual_values(sub, strategy, 0, leaf_strategy=mix))
    np.testing.assert_allclose(np.mean(parts, axis=0), exact, rtol=1e-9, atol=1e-9 * np.abs(exact).max())
    assert not np.allclose(parts[0], exact, rtol=1e-2)


def test_a_runout_sample_takes_every_turn_card_with_distinct_rivers_keyed_by_its_seed():
    state = flop_state()
    a = depth_limited.runout_sample(SMALL_GAME.deck(), state.board_cards, 3, seed=4)
    assert a.shape == (17 * 3, 2)
    assert sorted(set(a[:, 0].tolist())) == sorted(c for c in SMALL_GAME.deck() if c not in state.board_cards)
    assert len({tuple(x) for x in a.tolist()}) == len(a) and (a[:, 0] != a[:, 1]).all()
    assert not np.isin(a, state.board_cards).any()
    np.testing.assert_array_equal(a, depth_limited.runout_sample(SMALL_GAME.deck(), state.board_cards, 3, seed=4))
    assert not np.array_equal(a, depth_limited.runout_sample(SMALL_GAME.deck(), state.board_cards, 3, seed=5))


@pytest.mark.parametrize("which", ["turn", "flop"])
def test_a_full_response_below_the_leaves_is_the_full_tree_s_best_response(spot, flop_spot, which):
    """Best responses over the whole continuation trees (the exact exploitability of
    what a depth-limited solution commits to) equal the full tree's; a response that
    may see the river card on the turn (every runout its own group) gains more."""
    sub, full, strategy, mix = spot if which == "turn" else flop_spot[:4]
    full_strategy = depth_limited.full_depth_strategy(sub, strategy, mix, full)
    for p in (0, 1):
        ours = cfr.counterfactual_values(sub, strategy, p, True, mix, full_response=True)
        ref = cfr.counterfactual_values(full, full_strategy, p, best_response=True)
        np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
    assert cfr.exploitability(sub, strategy, mix, full_response=True) == pytest.approx(
        cfr.exploitability(full, full_strategy), rel=1e-9
    )
    assert cfr.exploitability(sub, strategy, mix, full_response=True) > cfr.exploitability(sub, strategy, mix)
    if which == "flop":
        c = sub.continuations
        saved = c.group.copy()
        try:
            c.group[:] = np.arange(len(c.group))  # the river seen before the turn's decisions
            peeking = cfr.counterfactual_values(sub, strategy, 0, True, mix, full_response=True)
        finally:
            c.group[:] = saved
        ref = cfr.counterfactual_values(full, full_strategy, 0, best_response=True)
        assert (peeking >= ref - 1e-6).all() and (peeking > ref + 1.0).any()
    with pytest.raises(ValueError, match="every card"):
        depth_limited.leaf_data(sub, sample=1, full_response=True)


def test_reaches_need_no_leaf_values_and_values_may_come_from_a_few_runouts(flop_spot):
    sub, _, strategy, mix, _ = flop_spot
    values, reaches = cfr.node_values(sub, strategy, 1, leaf_strategy=mix)
    np.testing.assert_array_equal(cfr.node_reaches(sub, strategy), reaches)
    n = len(sub.tree.leaf_deals)
    every, _ = cfr.node_values(sub, strategy, 1, leaf_strategy=mix, leaf_sample=n, seed=3)
    np.testing.assert_allclose(every, values, rtol=1e-9, atol=1e-9 * np.abs(values).max())
    few = [cfr.node_values(sub, strategy, 1, leaf_strategy=mix, leaf_sample=8, seed=s)[0][0] for s in range(3)]
    assert not np.allclose(few[0], values[0], rtol=1e-3) and not np.allclose(few[0], few[1], rtol=1e-3)
    # keyed: the same seed, the same runouts
    np.testing.assert_array_equal(
        few[2], cfr.node_values(sub, strategy, 1, leaf_strategy=mix, leaf_sample=8, seed=2)[0][0]
    )


def own_reach(sub, strategy, player):
    """(nodes, hands): ``player``'s own reach at every node of ``sub`` playing ``strategy``."""
    t = sub.tree
    out = np.zeros((t.num_nodes, sub.hands.shape[0]))
    out[0] = sub.reach[player]
    for n in range(t.num_nodes):  # parents come before their children
        for c in range(t.first_child[n], t.first_child[n] + t.num_children[n]):
            mine = t.kind[n] == DECISION and t.player[n] == player
            out[c] = out[n] * (strategy[c] if mine else 1.0)
    return out


@pytest.mark.parametrize("regrets", cfr.WARM_REGRETS)
def test_a_warm_start_sets_regrets_from_the_strategy_s_advantages(spot, regrets):
    """As if both players had played the warm strategy (and leaf mix) for T
    iterations, against exact evaluation passes in double precision: each average
    weight is the player's reach times the strategy times the iterations' weights
    (1 + 4 + ... + T^2); each regret T times the action's counterfactual advantage,
    floored at 0 ("advantage"), or T times the spread of the actions' values at the
    decision, spread as the strategy plays ("strategy"); leaves alike, per
    continuation, and their current mix is regret matching on those regrets."""
    sub, _, strategy, mix = spot
    t, H = sub.tree, sub.hands.shape[0]
    T, exponent = 7, 2.0
    weights = sum(x**exponent for x in range(1, T + 1))
    regret, avg = (np.zeros((t.num_nodes, H), cfr.SOLVE_DTYPE) for _ in range(2))
    leaves = depth_limited.leaf_data(sub, cfr.SOLVE_DTYPE)
    work = cfr.Workspace(sub, cfr.SOLVE_DTYPE, t.top_rows)
    warm = cfr.WarmStart(strategy, T, leaf_strategy=mix, deals=0, regrets=regrets)
    reach = sub.reach.astype(cfr.SOLVE_DTYPE)
    blocks = sub.block_arrays(1, cfr.SOLVE_DTYPE)
    cfr.warm_up_regrets(sub, warm, reach, regret, avg, work, blocks, False, leaves, exponent)
    c = sub.continuations

    def want_regrets(values, baseline, played, axis):
        if regrets == "advantage":
            return T * np.maximum(values - baseline, 0.0)
        return T * (values.max(axis=axis, keepdims=True) - values.min(axis=axis, keepdims=True)) * played

    checked = 0
    for p in range(2):
        cfv = cfr.evaluation_pass(sub, strategy, p, False, sub.reach, mix).cfv
        mine = own_reach(sub, strategy, p)
        tol = 1e-3 * T * np.abs(cfv).max()
        for n in np.nonzero((t.kind == DECISION) & (t.player == p))[0]:
            kids = slice(t.first_child[n], t.first_child[n] + t.num_children[n])
            want = want_regrets(cfv[kids], cfv[n], strategy[kids], 0)
            np.testing.assert_allclose(regret[kids], want, rtol=1e-3, atol=tol)
            np.testing.assert_allclose(avg[kids], weights * mine[n] * strategy[kids], rtol=1e-3, atol=1e-6 * weights)
            checked += bool((want > tol).any())
        values = []
        for k in range(K):
            pure = mix.copy()
            pure[p] = 0.0
            pure[p, :, k] = 1.0
            values.append(cfr.evaluation_pass(sub, strategy, p, False, sub.reach, pure).cfv[c.node])
        values = np.array(values).transpose(1, 0, 2)  # (L, K, H)
        mixed = (mix[p] * values).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(leaves.regret[p], want_regrets(values, mixed, mix[p], 1), rtol=1e-3, atol=tol)
        at_leaf = weights * mine[c.node][:, None, :] * mix[p]
        np.testing.assert_allclose(leaves.avg[p], at_leaf, rtol=1e-3, atol=1e-6 * weights)
        total = leaves.regret[p].sum(axis=1, keepdims=True)
        matched = np.where(total > 0, leaves.regret[p] / np.where(total > 0, total, 1), 1.0 / K)
        np.testing.assert_allclose(leaves.sigma[p], matched, rtol=1e-5)
    assert checked > 5


@pytest.mark.slow  # about 25 s on 2 cores
def test_a_warm_start_resumes_where_its_strategy_left_off(spot, flop_spot):
    """No further iteration: the solve's average is the warm strategy wherever the
    acting player reaches. From a long solve's strategy a short solve stays about as
    good, well below a cold solve of the same length. Threads change nothing; a safe
    solve or a strategy of the wrong shape is refused."""
    sub = spot[0]
    t = sub.tree
    long = cfr.solve(sub, 300)
    back = cfr.solve(sub, 0, warm_start=cfr.WarmStart(long.strategy, 300, long.leaf_strategy, regrets="strategy"))
    assert back.iterations == 0
    for n in np.nonzero(t.kind == DECISION)[0]:
        f, m = t.first_child[n], t.num_children[n]
        live = own_reach(sub, long.strategy, int(t.player[n]))[n] > 1e-9
        np.testing.assert_allclose(back.strategy[f : f + m][:, live], long.strategy[f : f + m][:, live], atol=1e-5)
    pot = sub.pot

    def expl(r):
        return 100 * cfr.exploitability(sub, r.strategy, r.leaf_strategy) / pot

    cold = expl(cfr.solve(sub, 10))
    warm = {
        regrets: expl(cfr.solve(sub, 10, warm_start=cfr.WarmStart(long.strategy, 300, long.leaf_strategy, 0, regrets)))
        for regrets in cfr.WARM_REGRETS
    }
    # the current strategy starting at the warm one, held by its regrets, stays about
    # as good; starting at regret matching on the advantages it does not
    assert warm["strategy"] < 1.5 * expl(long) < warm["advantage"] < cold
    flop = flop_spot[0]
    start = cfr.WarmStart(flop_spot[2], 20, flop_spot[3], deals=3, regrets="strategy")
    one = cfr.solve(flop, 8, card_samples=1, seed=4, warm_start=start)
    two = cfr.solve(flop, 8, card_samples=1, seed=4, warm_start=start, threads=2)
    np.testing.assert_array_equal(one.strategy, two.strategy)
    np.testing.assert_array_equal(one.leaf_strategy, two.leaf_strategy)
    with pytest.raises(ValueError, match="unsafe"):
        cfr.solve(sub, 5, gadget=cfr.Gadget("maxmargin", 1, np.zeros(sub.hands.shape[0])), warm_start=start)
    with pytest.raises(ValueError, match="strategy must be"):
        cfr.solve(sub, 5, warm_start=start)


# ---------------------------------------------------------------- pieces of a leaf
def check_pieces(c, pieces, bound):
    """Every continuation node in exactly one piece or its leaf's top; a piece is a
    whole subtree (its root first, nodes increasing) of at most ``bound`` nodes; the
    top holds its nodes' parents, and a top decision's children are top nodes or piece
    roots."""
    N = len(c.kind)
    owner = np.full(N, -2)
    for p in range(pieces.num_pieces):
        nodes = pieces.piece_nodes[pieces.piece_start[p] : pieces.piece_start[p + 1]]
        leaf = pieces.piece_leaf[p]
        assert pieces.leaf_piece_start[leaf] <= p < pieces.leaf_piece_start[leaf + 1]
        assert len(nodes) <= bound and (np.diff(nodes) > 0).all()
        assert c.start[leaf] <= nodes[0] and nodes[-1] < c.start[leaf + 1]
        assert (owner[nodes] == -2).all()
        owner[nodes] = p
        for n in nodes[1:]:  # below the root only the root's descendants
            assert owner[pieces.parent[n]] == p
    for leaf in range(c.num_leaves):
        top = pieces.top_nodes[pieces.top_start[leaf] : pieces.top_start[leaf + 1]]
        assert (owner[top] == -2).all()
        owner[top] = -1
        for n in top:
            assert n == c.start[leaf] or pieces.parent[n] in top
    assert (owner >= -1).all()  # nothing left out
    for n in pieces.top_nodes:
        for ch in range(c.first_child[n], c.first_child[n] + c.num_children[n]):
            assert owner[ch] == -1 or pieces.piece_nodes[pieces.piece_start[owner[ch]]] == ch


def test_leaf_pieces_partition_each_continuation_tree_into_subtrees(flop_spot):
    c = flop_spot[0].continuations
    sizes = np.diff(c.start)
    whole = depth_limited.leaf_pieces(c.start, c.first_child, c.num_children, int(sizes.max()))
    check_pieces(c, whole, int(sizes.max()))
    assert whole.num_pieces == c.num_leaves and len(whole.top_nodes) == 0
    for bound in (1, 3, 10, int(sizes.max()) - 1):
        pieces = depth_limited.leaf_pieces(c.start, c.first_child, c.num_children, bound)
        check_pieces(c, pieces, bound)
        assert pieces.num_pieces > c.num_leaves or bound == 1
    # the bound: whole trees where they keep the threads busy, else pieces of a share's 1/PIECES_A_SHARE
    assert depth_limited.piece_bound(sizes, 1, 1) == sizes.max()
    assert depth_limited.piece_bound(np.full(8, 50), 1, 4) == 50
    assert depth_limited.piece_bound(np.array([300] + [10] * 10), 1, 4) == 400 // (4 * depth_limited.PIECES_A_SHARE)
    assert depth_limited.piece_bound(np.array([300] + [10] * 10), 1, 64) == depth_limited.MIN_PIECE_NODES
    with pytest.raises(ValueError, match="at least one node"):
        depth_limited.leaf_pieces(c.start, c.first_child, c.num_children, 0)
    # a control: a check that lets a node go missing fails
    short = np.maximum(whole.piece_start - 1, 0)
    broken = dataclasses.replace(whole, piece_nodes=whole.piece_nodes[1:], piece_start=short)
    with pytest.raises(AssertionError):
        check_pieces(c, broken, int(sizes.max()))


def cut_finely(monkeypatch, parts=16):
    """Cut the continuation trees on two threads as finely as on many: pieces of at
    most 1/``parts`` of a thread's work, wherever whole trees would do."""
    monkeypatch.setattr(depth_limited, "BUSY", 2.0)
    monkeypatch.setattr(depth_limited, "PIECES_A_SHARE", parts)


@pytest.mark.parametrize("which", ["turn", "flop"])
def test_pieces_on_threads_solve_bit_for_bit_as_one_thread_and_value_exactly(spot, flop_spot, which, monkeypatch):
    """Continuation trees cut into pieces valued as items on threads, then their
    leaves' tops: the same solves (warm-started too, its passes valuing more cards) and
    values bit for bit as one thread valuing whole trees, and (from the flop) the full
    tree's exact values. Negative controls: pieces
    that leave a node out, and (from the flop, where pieces lie deeper) a path from the
    leaf's root that skips the decisions above a piece, give other bits."""
    sub = spot[0] if which == "turn" else flop_spot[0]
    strategy, mix = (spot[2], spot[3]) if which == "turn" else (flop_spot[2], flop_spot[3])
    warm = cfr.WarmStart(strategy, 20, leaf_strategy=None, deals=3)  # its passes: three cards a leaf
    one = [cfr.solve(sub, 8, card_samples=k, seed=3) for k in (1, 3)]
    one += [cfr.solve(sub, 4, card_samples=k, seed=3, warm_start=warm) for k in (1, 0)]
    cut_finely(monkeypatch)
    leaves = depth_limited.leaf_data(sub, sample=1, shares=2)
    assert leaves.item_draws == 1 and len(leaves.piece_leaf) > sub.continuations.num_leaves
    assert len(leaves.top_nodes) > 0 and sorted(leaves.items.tolist()) == list(range(len(leaves.piece_leaf)))
    warm_leaves = cfr.warm_pass_leaves(sub, leaves, 3, 2)
    assert warm_leaves.item_draws == 3 and warm_leaves.regret is leaves.regret and warm_leaves.cards is leaves.cards
    two = [cfr.solve(sub, 8, card_samples=k, seed=3, threads=2) for k in (1, 3)]
    two += [cfr.solve(sub, 4, card_samples=k, seed=3, warm_start=warm, threads=2) for k in (1, 0)]
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a.strategy, b.strategy)
        np.testing.assert_array_equal(a.leaf_strategy, b.leaf_strategy)
    for p in (0, 1):
        values = [cfr.counterfactual_values(sub, strategy, p, leaf_strategy=mix, threads=t) for t in (1, 2)]
        np.testing.assert_array_equal(values[0], values[1])
    if which == "flop":
        full = flop_spot[1]
        ref = cfr.counterfactual_values(full, depth_limited.full_depth_strategy(sub, strategy, mix, full), 1)
        np.testing.assert_allclose(values[1], ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
        # a full best response below the leaves (its own passes by shares, the others' values by pieces)
        gaps = [cfr.exploitability(sub, strategy, mix, full_response=True, threads=t) for t in (1, 2)]
        assert gaps[0] == gaps[1]
    cut = depth_limited.leaf_pieces

    def skipping(start, first_child, num_children, bound):  # the path straight from the leaf's root
        pieces = cut(start, first_child, num_children, bound)
        roots = pieces.piece_nodes[pieces.piece_start[:-1]]
        parent = pieces.parent.copy()
        parent[roots] = np.where(parent[roots] >= 0, start[pieces.piece_leaf], -1)
        return dataclasses.replace(pieces, parent=parent)

    def dropping(start, first_child, num_children, bound):  # each piece's last node left out
        pieces = cut(start, first_child, num_children, bound)
        sizes = np.diff(pieces.piece_start)
        keep = np.ones(len(pieces.piece_nodes), dtype=bool)
        keep[pieces.piece_start[1:][sizes > 1] - 1] = False
        starts = np.concatenate([[0], np.cumsum(sizes - (sizes > 1))])
        return dataclasses.replace(pieces, piece_nodes=pieces.piece_nodes[keep], piece_start=starts)

    for control in (dropping, skipping) if which == "flop" else (dropping,):  # the turn's pieces hang off the root
        monkeypatch.setattr(depth_limited, "leaf_pieces", control)
        wrong = cfr.solve(sub, 8, card_samples=1, seed=3, threads=2)
        assert not np.array_equal(wrong.leaf_strategy, one[0].leaf_strategy), control.__name__


def test_whole_trees_turns_the_cut_off_and_back(flop_spot):
    sub = flop_spot[0]
    L = sub.continuations.num_leaves
    assert len(depth_limited.leaf_data(sub, sample=1, shares=16).piece_leaf) > L
    with depth_limited.whole_trees():
        assert len(depth_limited.leaf_data(sub, sample=1, shares=16).piece_leaf) == L
    with pytest.raises(RuntimeError), depth_limited.whole_trees():
        raise RuntimeError
    assert depth_limited.BUSY == 0.9 and len(depth_limited.leaf_data(sub, sample=1, shares=16).piece_leaf) > L


def test_a_full_response_below_the_leaves_is_double_precision_only(spot):
    """Single-precision passes (solves, the agent's evaluations) carry no scratch for a
    full best response below the leaves (``LeafData.response`` None: numba compiles them
    without that code, see ``tests/bot/test_bench_compile.py``), so asking one for it is
    an error; in double precision it is there and responds over the continuation trees
    (more than choosing among the continuations)."""
    sub, _, strategy, mix = spot
    assert depth_limited.leaf_data(sub, cfr.SOLVE_DTYPE).response is None
    assert pass_arrays.no_leaves(cfr.SOLVE_DTYPE).response is None
    assert depth_limited.leaf_data(sub, np.float64, full_response=True).response is not None
    with pytest.raises(ValueError, match="double precision"):
        cfr.counterfactual_values(sub, strategy, 0, True, mix, full_response=True, dtype=cfr.SOLVE_DTYPE)
    for p in (0, 1):
        full = cfr.counterfactual_values(sub, strategy, p, True, mix, full_response=True)
        choice = cfr.counterfactual_values(sub, strategy, p, True, mix)
        assert (full >= choice - 1e-9 * np.abs(choice).max()).all() and (full > choice + 1e-6).any()


def test_single_precision_values_are_the_double_ones_rounded(spot):
    """The agent evaluates its solutions in the solve's precision (``dtype=SOLVE_DTYPE``):
    node values, reaches, best responses and a full subgame's exploitability must match
    the double-precision ones to single precision's rounding (a wrongly cast strategy,
    reach or leaf mix would be off by far more); sampled leaf values too, on the same
    keyed cards."""
    sub, full, strategy, mix = spot
    f32 = cfr.SOLVE_DTYPE
    for p in (0, 1):
        for sample in (0, 2):
            v64, r64 = cfr.node_values(sub, strategy, p, leaf_strategy=mix, leaf_sample=sample, seed=4)
            v32, r32 = cfr.node_values(sub, strategy, p, leaf_strategy=mix, leaf_sample=sample, seed=4, dtype=f32)
            assert v32.dtype == f32 and r32.dtype == f32
            scale = np.abs(v64).max()
            assert scale > 0 and np.abs(v32 - v64).max() <= 1e-5 * scale
            np.testing.assert_allclose(r32, r64, rtol=1e-5, atol=1e-7)
        b64 = cfr.counterfactual_values(sub, strategy, p, True, mix)
        b32 = cfr.counterfactual_values(sub, strategy, p, True, mix, dtype=f32)
        assert np.abs(b32 - b64).max() <= 1e-5 * np.abs(b64).max()
        assert not np.allclose(b64, cfr.counterfactual_values(sub, strategy, p, False, mix))  # a response differs
    np.testing.assert_allclose(cfr.node_reaches(sub, strategy, dtype=f32), cfr.node_reaches(sub, strategy), rtol=1e-5)
    r = cfr.solve(full, 5)
    e64, e32 = cfr.exploitability(full, r.strategy), cfr.exploitability(full, r.strategy, dtype=f32)
    assert e64 > 0 and abs(e32 - e64) <= 1e-5 * full.pot


def test_the_thin_wrappers_have_no_machine_code_of_their_own(spot):
    """The pass's thin wrappers are inlined into their callers (so that the code they
    call is not compiled once more for each): solves and best responses through them,
    on one thread and on two, leave them uncompiled."""
    sub, _, strategy, mix = spot
    for threads in (1, 2):
        cfr.solve(sub, 2, card_samples=1, seed=1, threads=threads)
        for p in (0, 1):
            cfr.counterfactual_values(sub, strategy, p, best_response=True, leaf_strategy=mix, threads=threads)
    assert leaf_pass.THIN_WRAPPERS and all(k.signatures == [] for k in leaf_pass.THIN_WRAPPERS)
    # negative control: a kernel the pass reaches, not inlined, has its machine code
    assert showdown_pass.compat_sums.signatures
    if cfr.usable_threads(2) > 1:  # the threaded passes ran
        assert passes.run_cfr_parallel.signatures and passes.traverse_parallel.signatures
