"""External-sampling MCCFR on Kuhn and Leduc (no abstraction): exploitability
measured exactly with the vector solver's best response, determinism, pruning,
discounting and the integer-regret floor."""

import numpy as np
import pytest

from protocol.betting import BettingState
from protocol.gamedef import bundled_game
from solver import cfr, mccfr
from solver.betting_tree import build_betting_tree
from solver.tree import DECISION, BetSizes

SIZES = BetSizes()
#: Pruning constants a short Leduc run reaches (regret units: 1/100 chip here).
LEDUC_PRUNING = dict(prune_threshold=-500_000, regret_floor=-600_000, prune_k=5_263)


def setup(name):
    game = bundled_game(name)
    deals = mccfr.LosslessDeals(game)
    tree = build_betting_tree(game, SIZES, deals.bucket_counts)
    sub = cfr.make_subgame(BettingState(game), SIZES)
    return game, deals, tree, sub


def exploitability(tree, deals, sub, solver):
    strategy = mccfr.to_public_strategy(tree, solver.average_strategy(), sub.tree, sub.hands, deals.bucket)
    return cfr.exploitability(sub, strategy)


def test_leduc_tree_has_openspiels_936_information_sets():
    _, deals, tree, _ = setup("leduc.limit.2p")
    assert deals.bucket_counts == (6, 30)
    per_round = [int(((tree.kind == DECISION) & (tree.round == r)).sum()) for r in (0, 1)]
    assert per_round == [6, 30]
    assert per_round[0] * 6 + per_round[1] * 30 == 936


def test_kuhn_converges():
    game, deals, tree, sub = setup("kuhn.limit.2p")
    solver = mccfr.MCCFR(tree, game.big_blind, seed=0)
    solver.train(deals, 200_000, batch=50_000)
    assert exploitability(tree, deals, sub, solver) < 0.005


def test_leduc_exploitability_falls_below_50_millichips():
    game, deals, tree, sub = setup("leduc.limit.2p")
    solver = mccfr.MCCFR(tree, game.big_blind, seed=1)
    solver.train(deals, 20_000)
    early = exploitability(tree, deals, sub, solver)
    solver.train(deals, 380_000, batch=50_000)
    late = exploitability(tree, deals, sub, solver)
    assert late < 0.050 < early


def test_same_seed_same_regrets_and_other_seed_differs():
    game, deals, tree, _ = setup("leduc.limit.2p")
    runs = []
    for seed in (7, 7, 8):
        solver = mccfr.MCCFR(tree, game.big_blind, seed=seed)
        solver.train(deals, 5_000, batch=1_000)
        runs.append(solver.regret.copy())
    assert np.array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


def test_pruning_skips_actions_and_does_not_hurt_at_equal_work():
    """Equal work is measured in nodes touched (deterministic, unlike seconds)."""
    game, deals, tree, sub = setup("leduc.limit.2p")
    plain = mccfr.MCCFR(tree, game.big_blind, seed=2)
    plain.train(deals, 300_000, batch=50_000)
    pruned = mccfr.MCCFR(tree, game.big_blind, mccfr.MCCFRSettings(prune_after=50_000, **LEDUC_PRUNING), seed=2)
    while pruned.nodes_touched < plain.nodes_touched:
        pruned.train(deals, 10_000)
    assert pruned.actions_pruned > 0
    assert pruned.regret.min() >= LEDUC_PRUNING["regret_floor"]
    assert exploitability(tree, deals, sub, pruned) < 1.15 * exploitability(tree, deals, sub, plain) + 0.003


def test_linear_discounting_scales_regrets_and_weights():
    game, deals, tree, sub = setup("leduc.limit.2p")
    solver = mccfr.MCCFR(tree, game.big_blind, mccfr.MCCFRSettings(discount_interval=10_000, discount_until=50_000),
                         seed=4)
    solver.train(deals, 10_000)  # the first discount is due: d = 1 / 2
    before = mccfr.MCCFR(tree, game.big_blind, seed=4)
    before.train(deals, 10_000)
    assert np.allclose(solver.phi, before.phi * 0.5, rtol=1e-6)
    assert np.abs(solver.regret - np.rint(before.regret * 0.5)).max() <= 1
    solver.train(deals, 290_000, batch=50_000)
    assert exploitability(tree, deals, sub, solver) < 0.050


def test_two_threads_converge_too():
    game, deals, tree, sub = setup("leduc.limit.2p")
    solver = mccfr.MCCFR(tree, game.big_blind, seed=5)
    solver.train(deals, 300_000, batch=50_000, threads=2)
    assert exploitability(tree, deals, sub, solver) < 0.050


def test_settings_are_checked():
    with pytest.raises(ValueError, match="C < 0 < K"):
        mccfr.MCCFRSettings(prune_threshold=5).verify()
    with pytest.raises(ValueError, match="floor"):
        mccfr.MCCFRSettings(prune_threshold=-100, regret_floor=-50).verify()
    with pytest.raises(ValueError, match="int32"):
        mccfr.MCCFRSettings(regret_floor=-3_000_000_000).verify()
    with pytest.raises(ValueError, match="too many"):
        mccfr.LosslessDeals(bundled_game("holdem.nolimit.2p"))
