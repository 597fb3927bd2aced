"""Issue 8's first acceptance item, measured exactly on no-limit Leduc: against an
opponent that always opens the first round with one off-tree size x, one improvement
run (type 1: re-solve with x; type 2: add the pseudo-harmonic midpoint of x's gap)
lowers what a best-responding x-opener wins against us, both as the agent does it now
(one extension per opponent position, only the opponent's openings changed) and as it
did before (both players' openings changed), while an improvement in a gap the
opponent never uses changes nothing. Plus the pieces the measure rests on. Small
abstraction and iteration counts keep it to a few seconds; everything is
deterministic."""

import numpy as np
import pytest

from experiments import improvement_experiment as ie
from experiments import subgame_experiments as se
from pokerbot.protocol.betting import ActionType
from pokerbot.solver import cfr
from pokerbot.solver import ranges as rg

pytestmark = pytest.mark.slow  # experiments' checks, about 30 s together on 2 cores

#: The default base (first raises of 1/2, 1 and 2 pot: gaps 1/2-1 and 1-2), fewer
#: second-round raises and CFR+ iterations than the script's run.
SETUP = ie.ImprovementSetup(later_raises=2, iterations=400, nested_iterations=0, reference_iterations=0)
X = 0.75
#: mbb/h each improvement must win back at least, of the ~70 mbb/h translation concedes.
MARGIN_MBB = 30.0


@pytest.fixture(scope="module")
def result() -> ie.Result:
    results, _ = ie.run(SETUP, (X,))
    return results[0]


def test_one_improvement_run_lowers_exploitability_against_x(result):
    before, floor = result.row(ie.BEFORE), result.row(ie.FLOOR)
    assert before.vs_x_mean > floor.vs_x_mean + MARGIN_MBB  # translation does leave something to win back
    for name in (ie.TYPE1, ie.TYPE2, ie.TYPE1_BOTH, ie.TYPE2_BOTH):
        after = result.row(name)
        assert after.vs_x_mean < before.vs_x_mean - MARGIN_MBB, (name, after, before)
        assert after.vs_x_mean < 0.5 * before.vs_x_mean, (name, after, before)
        # no seat pays for it (the x-opener is the opponent in either seat)
        assert all(a <= b + 1e-6 for a, b in zip(after.vs_x, before.vs_x)), (name, after, before)
        # the opponent's other sizes still meet the blueprint: the whole game improves too
        assert after.full_mean < before.full_mean - MARGIN_MBB
        # the x-opener can always decline to open, and those lines are the blueprint's
        assert all(a >= f - 1e-9 for a, f in zip(after.vs_x, floor.vs_x)), (name, after, floor)


def test_keeping_our_openings_does_not_cost_type1_against_x(result):
    """Type 1 as the agent does it now (per opponent position, our openings the
    blueprint's) is no worse against x than re-solving both players' openings, in the
    mean and in the seat where we act first (the one with the range mismatch). Here it
    is better by 1.5 mbb/h; in the script's full run (2,000 iterations) the two are
    within 0.6 mbb/h of each other in that seat, and at x = 5/7 per position is worse by
    0.04 mbb/h, so this guards this setup, not a general law. Type 2 is not asserted:
    in the full run per position is worse at 0.75 and 0.6 pot."""
    after, before = result.row(ie.TYPE1), result.row(ie.TYPE1_BOTH)
    assert after.vs_x_mean <= before.vs_x_mean + 1e-9, (after, before)
    assert after.vs_x[0] <= before.vs_x[0] + 1e-9, (after, before)


def test_an_improvement_in_another_gap_changes_nothing_against_x(result):
    """Type 2 for the 1-2 pot gap (x' = 1.4) leaves x's translation, hence our whole
    strategy in the evaluation game, as it was."""
    before, control = result.row(ie.BEFORE), result.row(ie.CONTROL)
    assert "x' = 1.400" in control.method
    assert control.vs_x == pytest.approx(before.vs_x, abs=1e-9)
    assert control.full == pytest.approx(before.full, abs=1e-9)


def test_type2_maps_x_mostly_to_the_added_size(result):
    assert result.gap == (0.5, 1.0)
    assert result.midpoint == pytest.approx((0.5 + 1.0 + 2 * 0.5 * 1.0) / (0.5 + 1.0 + 2))
    # 0.75 lies between x' = 5/7 and 1: x' with probability (1 - 0.75)(1 + 5/7) / ((1 - 5/7)(1 + 0.75)) = 6/7
    assert dict(ie.translation_weights(X, [0.5, result.midpoint, 1.0])) == pytest.approx({1: 6 / 7, 2: 1 / 7})
    assert ie.translation_weights(result.midpoint, [0.5, result.midpoint, 1.0]) == [(1, 1.0)]


def test_translation_weights_follow_translate():
    assert dict(ie.translation_weights(0.75, [1.0, 0.5])) == pytest.approx({1: 3 / 7, 0: 4 / 7})
    assert ie.translation_weights(0.3, [0.5, 1.0]) == [(0, 1.0)]
    assert ie.translation_weights(3.0, [0.5, 1.0]) == [(1, 1.0)]
    assert ie.translation_weights(0.5, [0.5, 1.0]) == [(0, 1.0)]


@pytest.fixture(scope="module")
def small():
    """A quick blueprint of a smaller base (1/2 and 1 pot, one first-round raise) and its
    evaluation game with x."""
    setup = ie.ImprovementSetup(first_raises=(0.5, 1.0), first_round_raises=1, later_raises=2, iterations=100)
    game, base, _ = ie.solve_base(setup)
    return setup, game, base, se.whole_game(game, setup.evaluation(X))


def test_without_extensions_the_walk_is_translation(small):
    setup, game, base, large = small
    for us in (0, 1):
        ours = ie.ExtensionWalk(game, large, setup.base, base, (), us).run()
        theirs = se.TranslationWalk(game, large, setup.base, base, us).run()
        np.testing.assert_allclose(ours, theirs, atol=1e-12)


def test_best_response_values_give_the_exploitability(small):
    """The per-seat measure agrees with ``cfr.exploitability``, and restricting nothing
    changes nothing."""
    setup, game, base, large = small
    seats = [ie.ExtensionWalk(game, large, setup.base, base, (), us).run() for us in (0, 1)]
    mean = (ie.best_response_value(large, seats[0], 1) + ie.best_response_value(large, seats[1], 0)) / 2
    assert mean == pytest.approx(cfr.exploitability(large, se.seat_profile(large, seats)), abs=1e-9)
    same, idx = ie.restrict(large, set())
    assert np.array_equal(np.sort(idx), np.arange(large.tree.num_nodes))  # every node, in its own layout
    assert ie.best_response_value(same, seats[0][idx], 1) == pytest.approx(
        ie.best_response_value(large, seats[0], 1), abs=1e-9
    )


def test_the_x_only_game(small):
    """Only x is left among the x-opener's first raises (no other size, no all-in), and
    the other player has every opening but x; the rest of the tree is untouched."""
    setup, game, base, large = small
    for opp in (0, 1):
        sub, idx = ie.x_only_game(game, large, X, opp)
        t = sub.tree
        for who in (0, 1):
            nodes = ie.opening_nodes(game, t, who)
            assert len(nodes) == 1
            n, st = nodes[0]
            raises = [t.actions[c].size for c in se.children_of(t, n) if t.actions[c].type is ActionType.RAISE]
            full = [
                large.tree.actions[c].size
                for c in se.children_of(large.tree, idx[n])
                if large.tree.actions[c].type is ActionType.RAISE
            ]
            x_to = se.target(st, X)
            if who == opp:
                assert raises == [x_to]
            else:
                assert x_to in full and x_to not in raises and len(raises) == len(full) - 1
        for k in range(t.num_nodes):  # every kept node is the same node of the evaluation game
            assert t.actions[k] == large.tree.actions[idx[k]] and t.kind[k] == large.tree.kind[idx[k]]


def test_per_position_extensions(small):
    """An extension for the opponent in one position gives that player the new opening
    sizes and the other the base's, and it is used only when the raiser is in that
    position: with the opponent in the other one, our strategy is plain translation."""
    setup, game, base, large = small
    e = ie.type1_extension(game, setup, X, opponent=1)
    assert e.opening_sizes == (X,) and e.used_against(1) and not e.used_against(0)
    t = e.solved.sub.tree
    for who, want in ((0, setup.first_raises), (1, (X,))):
        for n, st in ie.opening_nodes(game, t, who):
            raises = sorted(t.actions[c].size for c in se.children_of(t, n) if t.actions[c].type is ActionType.RAISE)
            assert raises == sorted({se.target(st, f) for f in want} | {st.raise_bounds()[1]}), (who, raises)
    both = ie.type1_extension(game, setup, X)
    assert both.opponent is None and both.used_against(0) and both.used_against(1)
    # we are seat 1 and the opponent opens from position 0: the extension for position 1 is not ours to use
    ours = ie.ExtensionWalk(game, large, setup.base, base, (e,), 1).run()
    plain = ie.ExtensionWalk(game, large, setup.base, base, (), 1).run()
    np.testing.assert_array_equal(ours, plain)
    # in the other seat it is used, and changes our answer to x
    assert not np.array_equal(
        ie.ExtensionWalk(game, large, setup.base, base, (e,), 0).run(),
        ie.ExtensionWalk(game, large, setup.base, base, (), 0).run(),
    )


def test_kept_first_move_extension(small):
    """The diagnostic extension with our first move kept: its tree starts after our
    check with the opponent's new openings, our range there is the blueprint's
    (probability of checking each hand) and the opponent's uniform, and it is used only
    at an opening after that check."""
    setup, game, base, large = small
    T = base.sub.tree
    check = next(c for c in se.children_of(T, 0) if T.actions[c] == ie.CALL)
    e = ie.kept_first_move(game, setup, base, "type1", X, (X,))
    assert e.opponent == 1 and e.start == (ie.CALL,) and e.opening_sizes == (X,)
    assert e.used_against(1, [ie.CALL]) and not e.used_against(0, [])
    t = e.solved.sub.tree
    assert int(t.player[0]) == 1
    raises = [t.actions[c].size for c in se.children_of(t, 0) if t.actions[c].type is ActionType.RAISE]
    assert len(raises) == 2  # x and all-in
    sub = e.solved.sub
    size = rg.hole_hands(game).shape[0]
    np.testing.assert_allclose(
        se.in_canonical_order(sub, sub.reach[0], size),
        se.in_canonical_order(base.sub, base.reaches()[0, check], size),
        atol=1e-12,
    )
    assert sub.reach[1] == pytest.approx(np.ones(sub.hands.shape[0]))
    assert 0 < sub.reach[0].min() < 1  # we check some hands only sometimes (aces)
    # it changes our answer to x only in the seat where we act first
    for us, changed in ((0, True), (1, False)):
        walk = ie.ExtensionWalk(game, large, setup.base, base, (e,), us).run()
        plain = ie.ExtensionWalk(game, large, setup.base, base, (), us).run()
        assert (not np.array_equal(walk, plain)) == changed
