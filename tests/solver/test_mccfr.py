"""External-sampling MCCFR on Kuhn and Leduc (no abstraction): exploitability
measured exactly with the vector solver's best response, determinism, pruning,
discounting and the integer-regret floor."""

import numpy as np
import pytest

from pokerbot.protocol.betting import ActionType, BettingState, apply_betting
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver import cfr, mccfr
from pokerbot.solver import ranges as rg
from pokerbot.solver.betting_tree import build_betting_tree
from pokerbot.solver.subgame import make_subgame
from pokerbot.solver.tree import DECISION, BetSizes

SIZES = BetSizes()
#: Pruning constants a short Leduc run reaches (regret units: 1/100 chip here).
LEDUC_PRUNING = dict(prune_threshold=-500_000, regret_floor=-600_000, prune_k=5_263)


def setup(name):
    game = bundled_game(name)
    deals = mccfr.LosslessDeals(game)
    tree = build_betting_tree(game, SIZES, deals.bucket_counts)
    sub = make_subgame(BettingState(game), SIZES)
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
    solver = mccfr.MCCFR(
        tree, game.big_blind, mccfr.MCCFRSettings(discount_interval=10_000, discount_until=50_000), seed=4
    )
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


#: A first-move strategy far from equilibrium: the probability of checking per
#: first-round bucket (Leduc's six private cards).
SKEWED_CHECKS = np.array([1.0, 0.2, 1.0, 0.2, 0.1, 0.9])


def check_subgame(game, deals, checks):
    """Leduc after the first player's check, that player's range its check
    probabilities, the other's uniform: what a solve below a frozen first move must
    be an equilibrium of."""
    hands = rg.hole_hands(game)
    reach = np.ones((2, len(hands)))
    reach[0] = [checks[deals.bucket(0, tuple(h), ())] for h in hands.tolist()]
    return make_subgame(apply_betting(BettingState(game), "c"), SIZES, reach=reach)


def test_a_kept_root_action_solves_the_subtree_for_the_frozen_range():
    game, deals, tree, _ = setup("leduc.limit.2p")
    root = [tree.actions[c] for c in range(tree.first_child[0], tree.first_child[0] + tree.num_children[0])]
    check = [a.type for a in root].index(ActionType.CALL)
    sub = check_subgame(game, deals, SKEWED_CHECKS)
    below = int(tree.first_child[0]) + check

    def in_subgame(solver):
        s = mccfr.to_public_strategy(tree, solver.average_strategy(), sub.tree, sub.hands, deals.bucket, root=below)
        return cfr.exploitability(sub, s)

    kept = mccfr.MCCFR(tree, game.big_blind, seed=3)
    kept.keep_root_action(check, SKEWED_CHECKS)
    kept.train(deals, 300_000, batch=50_000)
    whole = mccfr.MCCFR(tree, game.big_blind, seed=3)
    whole.train(deals, 300_000, batch=50_000)
    # measured 0.018 kept; 0.38 for the whole-game solve (its range below the check is
    # its own equilibrium's), 0.24 if the second player's samples ignore the frozen range
    assert in_subgame(kept) < 0.05
    assert in_subgame(whole) > 0.2
    # the root's other action was never trained
    m = int(tree.num_children[0])
    slots = kept.regret[tree.slot_offset[0] : tree.slot_offset[0] + deals.bucket_counts[0] * m]
    assert not slots.any()
    stack, untrained = [int(tree.first_child[0]) + 1 - check], 0
    while stack:  # everything below the bet
        n = stack.pop()
        if tree.kind[n] == DECISION:
            m = int(tree.num_children[n])
            size = deals.bucket_counts[tree.round[n]] * m
            assert not kept.regret[tree.slot_offset[n] : tree.slot_offset[n] + size].any()
            assert not kept.phi[tree.slot_offset[n] : tree.slot_offset[n] + size].any()
            untrained += 1
            stack += range(int(tree.first_child[n]), int(tree.first_child[n]) + m)
    assert untrained > 10


def test_a_kept_root_action_is_checked():
    game, deals, tree, _ = setup("kuhn.limit.2p")
    solver = mccfr.MCCFR(tree, game.big_blind)
    b = deals.bucket_counts[0]
    with pytest.raises(ValueError, match="no action 2"):
        solver.keep_root_action(2, np.ones(b))
    with pytest.raises(ValueError, match="one reach probability per root bucket"):
        solver.keep_root_action(0, np.ones(b + 1))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        solver.keep_root_action(0, np.full(b, 1.5))
    with pytest.raises(ValueError, match="no bucket"):
        solver.keep_root_action(0, np.zeros(b))


def test_settings_are_checked():
    with pytest.raises(ValueError, match="C < 0 < K"):
        mccfr.MCCFRSettings(prune_threshold=5).verify()
    with pytest.raises(ValueError, match="floor"):
        mccfr.MCCFRSettings(prune_threshold=-100, regret_floor=-50).verify()
    with pytest.raises(ValueError, match="int32"):
        mccfr.MCCFRSettings(regret_floor=-3_000_000_000).verify()
    with pytest.raises(ValueError, match="too many"):
        mccfr.LosslessDeals(bundled_game("holdem.nolimit.2p"))


def test_one_thread_training_is_the_same_bit_for_bit_as_recorded():
    """Leduc on one thread, with pruning and linear discounting in the run: the regrets
    and weights hash as recorded on 2026-11-27 (at 28a57c2, before the large preset's
    changes to how the arrays are allocated and the strategy stored). Another seed gives
    another hash."""
    import hashlib

    game = bundled_game("leduc.nolimit.2p")
    deals = mccfr.LosslessDeals(game)
    tree = build_betting_tree(game, BetSizes(), deals.bucket_counts)
    settings = mccfr.MCCFRSettings(
        prune_after=1000, prune_threshold=-3000.0, regret_floor=-3100, prune_k=100.0, discount_interval=500,
        discount_until=1500,
    )  # fmt: skip

    def digest(seed: int) -> str:
        s = mccfr.MCCFR(tree, game.big_blind, settings, seed=seed)
        s.train(deals, 3000, batch=700)
        return hashlib.sha256(s.regret.tobytes() + s.phi.tobytes()).hexdigest()[:16]

    assert digest(7) == "964119d88255ede2"
    assert digest(8) != "964119d88255ede2"
