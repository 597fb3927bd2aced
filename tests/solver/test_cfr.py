"""Vector CFR+ on river subgames: the O(n) terminal sweeps against brute force, the
values against a direct enumeration, convergence, and Kuhn poker's known value."""

import numpy as np
import pytest

from pokerbot.protocol.betting import ActionType, BettingState, apply_betting
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game, parse_gamedef
from pokerbot.solver import block_pass, cfr, pass_arrays, passes, showdown_pass
from pokerbot.solver.passes import NO_GADGET
from pokerbot.solver.showdown_pass import FOLD_OTHER_REACH, FOLD_SAME_REACH, NO_FOLD, compat_sums
from pokerbot.solver.subgame import make_subgame, showdown_scratch, to_block_order, to_hand_order
from pokerbot.solver.tree import CHANCE, DECISION, FOLD_TERMINAL, SHOWDOWN, BetSizes, abstract_actions, build_tree
from pokerbot.solver.tree_pass import current_strategy

SPOT_GAME = parse_gamedef(
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 4500 4500\nblind = 100 50\n"
    "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 13\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n"
)


def river_state(board="QsJh2h8d3c", betting="r500c/cc/cc/"):
    s = BettingState(SPOT_GAME, 0, None, parse_cards(board))
    return apply_betting(s, betting)


def test_reference_river_tree_has_the_reference_size():
    # the reference river spot: bets 25/50/100/200 % + all-in, raises 50/100 % + all-in: 44 decisions, 85 terminals
    t = build_tree(river_state(), BetSizes(bets=((0.25, 0.5, 1.0, 2.0), (0.5, 1.0)), max_raises=3))
    assert (t.num_decisions, t.num_terminals) == (44, 85)
    assert (t.first_child[t.kind == DECISION] > np.nonzero(t.kind == DECISION)[0]).all()  # parents first
    # five arrays of (nodes, hands) floats, and one block-local row of four (no chance nodes: no blocks)
    assert t.memory_bytes(1081) == (5 * t.num_nodes + 4) * 1081 * 4


def test_postflop_solver_tree_rules_give_its_tree_sizes():
    """postflop-solver's tree rules (all-in forced when the stack left after a call is
    at most 15 % of the pot, sizes within 10 % merged, no raise cap) build its trees:
    The reference river spot has 44 decisions and 85 terminals with them too, and the
    turn spot about 3,100 terminals when the 48 river showdowns after an all-in on the
    turn count once (postflop-solver deals the all-in runout inside one terminal)."""
    rules = {"force_allin": 0.15, "merge": 0.1, "max_raises": 1000}
    river = build_tree(river_state(), BetSizes(bets=((0.25, 0.5, 1.0, 2.0), (0.5, 1.0)), **rules))
    assert (river.num_decisions, river.num_terminals) == (44, 85)
    turn_sizes = {2: BetSizes(bets=((0.5,), (0.6,)), **rules), 3: BetSizes(bets=((0.5,), (0.6, 1.0)), **rules)}
    turn = build_tree(river_state("QsJh2h8d", "r500c/cc/"), turn_sizes)
    allin_runouts = sum(
        int(turn.num_children[n])
        for n in np.nonzero(turn.kind == CHANCE)[0]
        if turn.kind[turn.first_child[n]] == SHOWDOWN
    )
    assert (turn.num_decisions, turn.num_terminals, allin_runouts) == (1932, 3418, 288)
    assert turn.num_terminals - allin_runouts + allin_runouts // 48 == 3136
    # without the rules, uncapped: a raise of 60 % one step short of all-in stays
    uncapped = build_tree(
        river_state("QsJh2h8d", "r500c/cc/"), {r: BetSizes(bets=b.bets, max_raises=1000) for r, b in turn_sizes.items()}
    )
    assert uncapped.num_terminals > turn.num_terminals


def test_forced_all_in_and_merged_sizes():
    """At the river root (pot 1,000, 500 in each, 4,000 behind; raise-to totals): a bet
    of 3 pots leaves 1,000 behind, at most 15 % of the 7,000 pot after a call, so it
    becomes all-in; 2 pots leave 2,000, above 15 % of 5,000, and stay. Merging at 10 %:
    0.9 pot goes next to 1 pot ((1 + 1) / (1 + 0.9) < 1.1); 3.5 pots stays next to
    all-in (4 pots; 5 / 4.5 > 1.1)."""
    state = river_state()
    acts = lambda **kw: [str(a) for a in abstract_actions(state, BetSizes(**kw))][1:]  # noqa: E731
    assert acts(bets=((2.0, 3.0),)) == ["r2500", "r3500", "r4500"]
    assert acts(bets=((2.0, 3.0),), force_allin=0.15) == ["r2500", "r4500"]
    assert acts(bets=((0.9, 1.0, 3.5),)) == ["r1400", "r1500", "r4000", "r4500"]
    assert acts(bets=((0.9, 1.0, 3.5),), merge=0.1) == ["r1500", "r4000", "r4500"]


def brute_compat_and_showdown(sub, q, stake):
    H = len(q)
    masks = [set(h) for h in sub.hands.tolist()]
    group = np.empty(H, dtype=np.int64)
    group[sub.orders] = sub.group_ends  # equal for ties, larger is stronger
    compat = np.zeros(H)
    show = np.zeros(H)
    for h in range(H):
        for j in range(H):
            if masks[h] & masks[j]:
                continue
            compat[h] += q[j]
            if group[h] > group[j]:
                show[h] += stake * q[j]
            elif group[h] < group[j]:
                show[h] -= stake * q[j]
    return compat, show


@pytest.mark.parametrize("game", ["hunl", "hunl-straights", "leduc"])
def test_terminal_sweeps_against_brute_force(game):
    if game.startswith("hunl"):
        # a paired board with a flush (few big tie groups), and a connected one (a
        # card in many groups: a tall card table)
        sub = make_subgame(river_state("AsKs7s7d2c" if game == "hunl" else "9h8d7c6s2h"), BetSizes())
    else:  # one-card hands
        leduc = bundled_game("leduc.nolimit.2p")
        sub = make_subgame(apply_betting(BettingState(leduc, 0, None, parse_cards("Kh")), "cc/"), BetSizes())
    rng = np.random.default_rng(0)
    H = len(sub.hands)
    dense = rng.random(H)
    # CFR+ leaves most hands of a deep node with no reach: the sweep skips them, so
    # check reaches with zeros too, including whole tie groups and the strongest and
    # weakest hands without any
    sparse = dense * (rng.random(H) < 0.25)
    sparse[sub.orders[:5]] = 0.0
    sparse[sub.orders[-5:]] = 0.0
    one = np.zeros(H)
    one[sub.orders[H // 2]] = 1.0
    for q in (dense, sparse, one, np.zeros(H)):
        compat, show = brute_compat_and_showdown(sub, q, 700)
        out = np.zeros(H)
        compat_sums(q, sub.c1, sub.c2, sub.dup, out)
        assert np.allclose(out, compat)
        y = rng.random(H)
        compat_y, _ = brute_compat_and_showdown(sub, y, 700)
        layout = (sub.dup, sub.orders, sub.c1s, sub.c2s, sub.ladder, sub.board_rows[0])
        for identity in (bool(sub.board_identity[0]), False):  # False: the gathering path
            # scratch with stale values (the card table is reused from sweep to sweep)
            qs = np.full(H + showdown_scratch(sub), 5.0)
            out = np.full(H, 9.0)  # stale values from an earlier node must not survive
            showdown_pass.showdown_values(q, *layout, identity, 700, qs, out, NO_FOLD, q, 0.0, np.zeros(H), np.zeros(H))
            assert np.allclose(out, show)
            # a fold beside the showdown, with the same opponent reach and with another one
            fold = np.full(H, 9.0)
            showdown_pass.showdown_values(
                q, *layout, identity, 700, qs, out, FOLD_SAME_REACH, q, -300.0, np.zeros(H), fold
            )
            assert np.allclose(out, show) and np.allclose(fold, -300.0 * compat)
            showdown_pass.showdown_values(
                q, *layout, identity, 700, qs, out, FOLD_OTHER_REACH, y, 250.0, np.zeros(H), fold
            )
            assert np.allclose(out, show) and np.allclose(fold, 250.0 * compat_y)


def direct_values(sub, strategy, player):
    """Counterfactual values at the root by enumerating terminals and hand pairs."""
    t = sub.tree
    H = len(sub.hands)
    masks = np.array([[not (set(a) & set(b)) for b in sub.hands.tolist()] for a in sub.hands.tolist()], dtype=float)
    rank = np.empty(H)
    rank[sub.orders] = sub.group_ends  # equal for ties, larger is stronger
    parent = np.full(t.num_nodes, -1)
    for n in np.nonzero(t.kind == DECISION)[0]:
        parent[t.first_child[n] : t.first_child[n] + t.num_children[n]] = n
    out = np.zeros(H)
    for z in np.nonzero(t.kind != DECISION)[0]:
        own = np.ones(H)
        opp = sub.reach[1 - player].copy()
        c = z
        while parent[c] >= 0:
            p = parent[c]
            if t.player[p] == player:
                own *= strategy[c]
            else:
                opp *= strategy[c]
            c = p
        if t.kind[z] == FOLD_TERMINAL:
            amount = t.spent[z, t.player[z]] * (-1 if t.player[z] == player else 1)
            u = amount * masks
        else:
            stake = t.spent[z].min()
            u = stake * np.sign(rank[:, None] - rank[None, :]) * masks
        out += own * (u @ opp)
    return out


def test_values_agree_with_direct_enumeration():
    sub = make_subgame(river_state("9c8c7d2s2h"), BetSizes(bets=((0.5, 1.5), (1.0,)), max_raises=2))
    rng = np.random.default_rng(1)
    sub.reach[:] = rng.random(sub.reach.shape)
    strategy = cfr.average_strategy(sub.tree, rng.random((sub.tree.num_nodes, len(sub.hands))))
    # and one where whole lines are never taken (terminal sweeps are skipped where a
    # reach is zero for every hand): the first child of every decision node has no weight
    weights = rng.random((sub.tree.num_nodes, len(sub.hands)))
    weights[sub.tree.first_child[sub.tree.kind == DECISION]] = 0.0
    sparse = cfr.average_strategy(sub.tree, weights)
    for p in (0, 1):
        assert np.allclose(cfr.counterfactual_values(sub, strategy, p), direct_values(sub, strategy, p))
        assert np.allclose(cfr.counterfactual_values(sub, sparse, p), direct_values(sub, sparse, p))
        # scratch rows reused from a pass that did reach those lines (as inside a solve)
        work = cfr.Workspace(sub)
        for strat in (strategy, sparse):
            rule = pass_arrays.PassRule(strat, np.zeros((1, 1)), np.zeros((1, 1)), 0.0, False, False, False)
            passes.traverse(
                p, *sub.kernel_args(), sub.reach[0], sub.reach[1], rule, work.args(), pass_arrays.no_leaves()
            )
        assert np.allclose(work.cfv[0], direct_values(sub, sparse, p))
    ev0, ev1 = cfr.expected_values(sub, strategy)
    assert ev0 == pytest.approx(-ev1)
    for p in (0, 1):  # a best response is at least as good, hand by hand
        br = cfr.counterfactual_values(sub, strategy, p, best_response=True)
        assert (br >= cfr.counterfactual_values(sub, strategy, p) - 1e-9).all()


def test_cfr_plus_converges_on_a_river_spot():
    sub = make_subgame(river_state(), BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2))
    uniform = cfr.average_strategy(sub.tree, np.ones((sub.tree.num_nodes, len(sub.hands))))
    e0 = cfr.exploitability(sub, uniform)
    e = [cfr.exploitability(sub, cfr.solve(sub, n).strategy) for n in (20, 100, 400)]
    assert e0 > e[0] > e[1] > e[2] >= 0
    assert e[2] / sub.pot < 0.003  # 0.3 % of the pot
    r = cfr.solve(sub, 400)
    assert r.iterations == 400 and not r.stopped_early
    assert np.array_equal(r.strategy, cfr.solve(sub, 400).strategy)  # deterministic


def test_deadline_stops_early():
    sub = make_subgame(river_state(), BetSizes())
    r = cfr.solve(sub, 10**7, deadline=0.2)
    assert r.stopped_early and 0 < r.iterations < 10**7 and r.seconds < 2


def test_kuhn_value_is_minus_one_eighteenth():
    """Kuhn poker is one betting round with private cards: the whole game is a
    'river subgame' from the root, ranges uniform, card removal doing the deal."""
    kuhn = bundled_game("kuhn.limit.2p")
    sub = make_subgame(BettingState(kuhn), BetSizes())
    r = cfr.solve(sub, 2000)
    ev0, ev1 = cfr.expected_values(sub, r.strategy)
    assert ev0 == pytest.approx(-1 / 18, abs=1e-3) and ev1 == pytest.approx(1 / 18, abs=1e-3)
    assert cfr.exploitability(sub, r.strategy) < 1e-3


def test_libratus_iteration_rule():
    assert cfr.libratus_iterations(1600, 100) == 1000 and cfr.libratus_iterations(1601, 100) == 1900


def test_leduc_value_matches_openspiel():
    """The whole of Leduc hold'em (a chance node deals the board card): OpenSpiel's
    leduc_poker is worth -0.0856 per hand to the first player."""
    leduc = bundled_game("leduc.limit.2p")
    sub = make_subgame(BettingState(leduc), BetSizes())
    assert sub.tree.num_chance == 5
    r = cfr.solve(sub, 3000)
    ev0, ev1 = cfr.expected_values(sub, r.strategy)
    assert ev0 == pytest.approx(-0.0856, abs=1e-3) and ev0 == pytest.approx(-ev1)
    assert cfr.exploitability(sub, r.strategy) < 1e-3


def test_turn_subgame_chance_values_against_the_rivers():
    """A turn subgame where nobody bets: its value per hand is the average over the
    river cards of the river showdown values."""
    state = river_state("QsJh2h8d", "r500c/cc/")
    sizes = BetSizes(bets=((0.5,), (1.0,)), max_raises=1)
    sub = make_subgame(state, sizes)
    assert sub.tree.num_chance > 0 and len(sub.tree.boards) > 1
    # a strategy that always checks/calls: value = equity-weighted pot share
    check = np.zeros((sub.tree.num_nodes, len(sub.hands)))
    for n in np.nonzero(sub.tree.kind == DECISION)[0]:
        f = sub.tree.first_child[n]
        labels = [str(sub.tree.actions[c]) for c in range(f, f + sub.tree.num_children[n])]
        check[f + labels.index("c")] = 1.0
    got = cfr.counterfactual_values(sub, check, 0)
    rng = np.random.default_rng(3)
    from pokerbot.solver.equity import runout_equity

    for h in rng.choice(len(sub.hands), 5, replace=False):
        want = 0.0
        for j in range(len(sub.hands)):
            if set(sub.hands[h]) & set(sub.hands[j]):
                continue
            win, tie = runout_equity(
                list(sub.hands[h]), list(sub.hands[j]), list(state.board_cards), list(range(52)), 5
            )
            want += 500 * (2 * win + tie - 1)
        assert got[h] == pytest.approx(want, rel=1e-9)


def test_per_round_sizes_and_an_off_tree_root_raise():
    state = river_state("QsJh2h8d", "r500c/cc/")
    sizes = {2: BetSizes(bets=((0.5,), (0.6,)), max_raises=2), 3: BetSizes(bets=((0.5,), (0.6, 1.0)), max_raises=2)}
    t = build_tree(state, sizes)
    root_actions = [str(t.actions[c]) for c in range(t.first_child[0], t.first_child[0] + t.num_children[0])]
    assert root_actions == ["c", "r1000", "r4500"]
    t2 = build_tree(state, sizes, extra_root_raises=(1333,))
    root_actions = [str(t2.actions[c]) for c in range(t2.first_child[0], t2.first_child[0] + t2.num_children[0])]
    assert root_actions == ["c", "r1000", "r1333", "r4500"] and t2.num_nodes > t.num_nodes
    with pytest.raises(ValueError, match="not legal"):
        build_tree(state, sizes, extra_root_raises=(100,))
    with pytest.raises(ValueError, match="no bet sizes for round 3"):
        build_tree(state, {3: BetSizes()})


def test_parallel_blocks_give_the_same_solution():
    state = river_state("QsJh2h8d", "r500c/cc/")
    sizes = {2: BetSizes(bets=((1.0,), (1.0,)), max_raises=1), 3: BetSizes(bets=((1.0,), (1.0,)), max_raises=1)}
    sub = make_subgame(state, sizes)
    t = sub.tree
    assert len(t.blocks) > 40  # one per river card below each turn line that sees one
    assert t.top_end + int((t.blocks[:, 1] - t.blocks[:, 0]).sum()) == t.num_nodes
    one = cfr.solve(sub, 20, threads=1).strategy
    two = cfr.solve(sub, 20, threads=2).strategy
    assert np.allclose(one, two, rtol=1e-12, atol=1e-12)
    leduc = make_subgame(BettingState(bundled_game("leduc.limit.2p")), BetSizes())
    assert np.allclose(cfr.solve(leduc, 50, threads=2).strategy, cfr.solve(leduc, 50).strategy)


#: Six ranks: a flop subgame small enough to walk whole, whose stacks allow one pot-sized
#: bet, so that after an all-in on the flop a chance node (the turn) has chance nodes
#: (the river) as children, and blocks start at those.
SHORT_DECK_GAME = parse_gamedef(
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 1000 1000\nblind = 100 50\n"
    "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 6\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n"
)


def block_spots():
    one_bet = BetSizes(bets=((1.0,), (1.0,)), max_raises=1)
    turn = make_subgame(river_state("QsJh2h8d", "r500c/cc/"), {2: one_bet, 3: one_bet})
    flop_state = apply_betting(BettingState(SHORT_DECK_GAME, 0, None, parse_cards("KsQh9h")), "r500c/")
    flop = make_subgame(flop_state, {1: one_bet, 2: one_bet, 3: one_bet})
    return {"turn": turn, "flop": flop}


@pytest.mark.parametrize("spot", ["turn", "flop"])
def test_a_solve_keeps_tree_wide_reaches_only_above_the_blocks(spot):
    """A solve allocates reaches and values only for the nodes above the blocks
    (``top_rows``; blocks keep theirs block-local): the same iterations over full-size
    work arrays give the same average bit for bit, and the memory report counts the
    smaller arrays."""
    sub = block_spots()[spot]
    t = sub.tree
    H = len(sub.hands)
    assert 0 < t.top_rows == t.top_end < t.num_nodes
    assert t.memory_bytes(H) == (2 * t.num_nodes + 3 * t.top_end + 4 * t.block_rows) * H * 4
    # the block-local rows it counts are those a one-thread solve's blocks allocate
    blocks = sub.block_arrays(1, cfr.SOLVE_DTYPE)
    local = blocks.block_reach.nbytes + blocks.block_cfv.nbytes + blocks.block_strategy.nbytes
    assert local == 4 * t.block_rows * H * 4
    small = cfr.solve(sub, 20)
    regret, avg = (np.zeros((t.num_nodes, H), cfr.SOLVE_DTYPE) for _ in range(2))
    w = cfr.Workspace(sub, cfr.SOLVE_DTYPE)  # every node's rows
    assert w.cfv.shape[0] == t.num_nodes > cfr.Workspace(sub, cfr.SOLVE_DTYPE, t.top_rows).cfv.shape[0]
    reach = sub.reach.astype(cfr.SOLVE_DTYPE)
    g = (NO_GADGET, 0, np.zeros(H), np.zeros(H), np.zeros((2, H)), np.zeros(H, dtype=cfr.SOLVE_DTYPE))
    blocks = sub.block_arrays(1, cfr.SOLVE_DTYPE)
    leaves = pass_arrays.no_leaves(cfr.SOLVE_DTYPE)
    passes.run_cfr(
        *sub.kernel_args(), reach[0], reach[1], regret, avg, 0, 20, 0, w.args(), *g, blocks, leaves, 1.0, -1.0, -np.inf
    )
    assert np.array_equal(small.strategy, cfr.average_strategy(t, to_hand_order(sub, avg)))


def one_pass(sub, p: int, reach: np.ndarray, rule, walk: str) -> cfr.Workspace:
    """One pass for player ``p`` under ``rule`` from the roots' ``reach``, without
    leaves: over the whole tree ("whole"), block by block ("blocks"), or with the
    blocks in two ("parallel") or three ("parallel3") shares, one per thread. Its
    workspace holds the root values (``cfv``)."""
    w = cfr.Workspace(sub, cfr.SOLVE_DTYPE)
    args = (p, *sub.kernel_args(), reach[0], reach[1], rule, w.args())
    leaves = pass_arrays.no_leaves(cfr.SOLVE_DTYPE)
    if walk == "whole":
        passes.traverse(*args, leaves)
    elif walk == "blocks":
        block_pass.traverse_by_block(*args, sub.block_arrays(1, cfr.SOLVE_DTYPE), -1, leaves)
    else:  # the chance nodes above the blocks in hand ranges
        copies = 3 if walk == "parallel3" else 2
        block_pass.traverse_blocks(*args, sub.block_arrays(copies, cfr.SOLVE_DTYPE), -1, leaves)
    return w


@pytest.mark.parametrize("spot", ["turn", "flop"])
def test_a_pass_block_by_block_equals_a_pass_over_the_whole_tree(spot):
    """The solver walks each chance child and the subtree below it forward then
    backward before the next, in small block-local arrays (to keep its rows in
    cache), on one thread or in shares on several; a pass over the whole tree, forward
    then backward, must give the same regrets, averages, values at the root and next
    strategy bit for bit. The flop spot has blocks below chance children that are
    chance nodes themselves; the turn spot, showdowns as chance children.

    On the turn, the block passes keep a river block's rows in its board's strength
    order (``to_block_order``): they must equal the whole-tree pass's rows put in that
    order (up to the rounding of the fold totals, summed in another order), and the
    two block walks must agree bit for bit."""
    sub = block_spots()[spot]
    t = sub.tree
    kinds = {int(t.kind[p]) for p in sub.block_parent}
    # turn: showdowns after an all-in on the turn are blocks too (empty ones)
    assert kinds == ({DECISION, SHOWDOWN} if spot == "turn" else {DECISION, CHANCE})
    in_order = sub.block_board >= 0
    # on the turn every river block after a bet or check is kept in strength order;
    # on the flop none is (each holds the river's chance node)
    assert in_order.sum() == (int((t.kind[sub.block_parent] == DECISION).sum()) if spot == "turn" else 0)
    n, H = t.num_nodes, len(sub.hands)
    rng = np.random.default_rng(3)
    sigma = cfr.average_strategy(t, rng.random((n, H))).astype(cfr.SOLVE_DTYPE)
    start = rng.random((n, H)).astype(cfr.SOLVE_DTYPE)
    reach = sub.reach.astype(cfr.SOLVE_DTYPE)
    for p in (0, 1):
        out = []
        for walk in ("whole", "blocks", "parallel", "parallel3"):
            regret, avg, strategy = start.copy(), start.copy(), sigma.copy()  # a pass remakes p's strategy
            if walk != "whole":
                regret, avg, strategy = (to_block_order(sub, a) for a in (regret, avg, strategy))
            rule = pass_arrays.PassRule(strategy, regret, avg, 3.0, True, False, False)
            w = one_pass(sub, p, reach, rule, walk)
            out.append((regret, avg, w.cfv[0], strategy))
        for parallel in out[2:]:
            for a, b in zip(out[1], parallel):
                np.testing.assert_array_equal(a, b)
        whole = [to_block_order(sub, a) for a in (out[0][0], out[0][1])] + [out[0][2]]
        whole.append(to_block_order(sub, out[0][3]))
        for a, b in zip(whole, out[1]):
            if spot == "flop":
                np.testing.assert_array_equal(a, b)
            else:
                np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)
        assert not np.array_equal(out[0][0], start)  # the pass did update
        assert not np.array_equal(out[0][3], sigma)
        # the strategy the pass made is regret matching on its new regrets
        remade = out[0][3].copy()
        current_strategy(
            out[0][0], t.kind, t.player, t.first_child, t.num_children, p, remade, np.zeros(H, cfr.SOLVE_DTYPE)
        )
        np.testing.assert_array_equal(remade, out[0][3])


@pytest.mark.parametrize("spot", ["turn", "flop"])
def test_a_pass_playing_regret_matching_equals_one_playing_the_stored_strategy(spot):
    """A solve's passes make the current strategy from the regrets row by row where
    they need it (``PassRule.regret_matching``) instead of reading a stored one: a pass
    must give the regrets, averages and root values of a pass playing the strategy
    ``current_strategy`` makes from the same regrets, bit for bit, over the whole tree,
    block by block and in shares on threads. Some regrets are 0 or negative (rows where
    a hand has none positive play uniformly). The strategy is made over the hands the pass walks:
    a turn block in board order holds its live hands in its first columns, and under
    ``pass_arrays.FASTMATH`` a quotient's last bit may depend on the length of its loop.
    Negative control: the stored strategy moved by one rounding step in one row gives
    another pass."""
    sub = block_spots()[spot]
    t = sub.tree
    n, H = t.num_nodes, len(sub.hands)
    rng = np.random.default_rng(5)
    start = ((rng.random((n, H)) - 0.2) * (rng.random((n, H)) < 0.6)).astype(cfr.SOLVE_DTYPE)
    reach = sub.reach.astype(cfr.SOLVE_DTYPE)
    f = int(t.first_child[0])  # the root's first action
    ordered = np.nonzero(sub.block_board >= 0)[0]
    live = set(sub.board_len[sub.block_board[ordered]].tolist())
    assert live == ({1081} if spot == "turn" else set())  # the turn's river blocks in board order
    in_order = np.zeros(n, dtype=bool)
    for lo, hi in t.blocks[ordered]:
        in_order[lo:hi] = True

    def strategy(regret: np.ndarray, width: int) -> np.ndarray:
        r = np.ascontiguousarray(regret[:, :width])
        made = np.zeros_like(r)
        current_strategy(r, t.kind, t.player, t.first_child, t.num_children, -1, made, np.zeros(width, r.dtype))
        out = np.zeros_like(regret)
        out[:, :width] = made
        return out

    for p in (0, 1):
        for walk in ("whole", "blocks", "parallel"):
            first = start if walk == "whole" else to_block_order(sub, start)
            stored = strategy(first, H)
            if walk != "whole" and live:
                stored[in_order] = strategy(first, 1081)[in_order]
            nudged = stored.copy()
            nudged[f] = np.nextafter(stored[f], np.float32(2.0))
            out = {}
            for name, sigma, matching in (
                ("matched", np.empty((0, 0), cfr.SOLVE_DTYPE), True),
                ("stored", stored, False),
                ("nudged", nudged, False),
            ):
                regret, avg = first.copy(), first.copy()
                rule = pass_arrays.PassRule(sigma.copy(), regret, avg, 3.0, True, False, matching)
                w = one_pass(sub, p, reach, rule, walk)
                out[name] = (regret, avg, w.cfv[0].copy())
            for a, b in zip(out["matched"], out["stored"], strict=True):
                np.testing.assert_array_equal(a, b)
            assert not np.array_equal(out["matched"][0], first)  # the pass did update
            assert not all(np.array_equal(a, b) for a, b in zip(out["matched"], out["nudged"], strict=True))


@pytest.mark.parametrize("spot", ["river", "turn"])
def test_a_pass_reuses_the_reach_rows_of_the_player_it_updates(spot):
    """A solve's pass for player 1 right after player 0's recomputes only player 0's
    reach above the blocks (player 1's strategy has not changed since player 0's pass
    computed player 1's reach): regrets, averages, root values and next strategy must
    equal those of a pass that recomputes both, bit for bit; leaving out the wrong
    player's rows must not."""
    if spot == "river":
        sub = make_subgame(river_state("9c8c7d2s2h"), BetSizes(bets=((0.5, 1.5), (1.0,)), max_raises=2))
    else:
        sub = block_spots()["turn"]
    t = sub.tree
    n, H = t.num_nodes, len(sub.hands)
    rng = np.random.default_rng(4)
    sigma = cfr.average_strategy(t, rng.random((n, H))).astype(cfr.SOLVE_DTYPE)
    start = rng.random((n, H)).astype(cfr.SOLVE_DTYPE)
    reach = sub.reach.astype(cfr.SOLVE_DTYPE)
    out = {}
    for skip in (-1, 1, 0):
        regret, avg, strategy = (to_block_order(sub, a) for a in (start, start, sigma))
        w = cfr.Workspace(sub, cfr.SOLVE_DTYPE)
        for p, s in ((0, -1), (1, skip)):
            rule = pass_arrays.PassRule(strategy, regret, avg, 3.0, True, False, False)
            blocks = sub.block_arrays(1, cfr.SOLVE_DTYPE)
            leaves = pass_arrays.no_leaves(cfr.SOLVE_DTYPE)
            block_pass.traverse_by_block(p, *sub.kernel_args(), reach[0], reach[1], rule, w.args(), blocks, s, leaves)
        out[skip] = (regret, avg, w.cfv[0].copy(), strategy)
    for a, b in zip(out[-1], out[1]):
        np.testing.assert_array_equal(a, b)
    assert not all(np.array_equal(a, b) for a, b in zip(out[-1], out[0]))


def test_a_turn_solve_converges_with_rows_in_board_order():
    """A turn solve keeps each river block's rows in its board's strength order and
    puts the average strategy back in hand order at the end (``to_hand_order``): a
    strategy left in the wrong order would play river hands with another hand's
    actions and be far from equilibrium. Exploitability (exact, in hand order) must
    fall with iterations to well under 1 % of the pot."""
    sub = block_spots()["turn"]
    assert (sub.block_board >= 0).sum() > 40
    pot = sub.pot
    e = [cfr.exploitability(sub, cfr.solve(sub, k).strategy) / pot for k in (20, 300)]
    assert e[1] < e[0] / 3 and e[1] < 0.005
    # the order round trip on the live hands of each block
    rng = np.random.default_rng(5)
    a = rng.random((sub.tree.num_nodes, len(sub.hands)))
    back = to_hand_order(sub, to_block_order(sub, a))
    for b in np.nonzero(sub.block_board >= 0)[0]:
        lo, hi = sub.tree.blocks[b]
        d = sub.tree.dealt[sub.block_parent[b]]
        live = (sub.c1 != d) & (sub.c2 != d)
        np.testing.assert_array_equal(back[lo:hi][:, live], a[lo:hi][:, live])
        assert not back[lo:hi][:, ~live].any()
    top = np.ones(sub.tree.num_nodes, dtype=bool)
    for lo, hi in sub.tree.blocks[sub.block_board >= 0]:
        top[lo:hi] = False
    np.testing.assert_array_equal(back[top], a[top])


def test_a_public_tree_ignores_the_hole_cards_in_its_state():
    """A turn state that knows both players' cards (as a solver inside a match with both
    hands, or the agent with its own) builds the same tree as one that knows none: the
    river cards dealt must not be blocked by them."""
    from pokerbot.protocol.cards import parse_cards
    from pokerbot.protocol.gamedef import bundled_game

    game = bundled_game("holdem.nolimit.2p")
    board = parse_cards("QsJh2h8d")
    sizes = BetSizes(bets=((0.5,),), max_raises=1)
    known = BettingState(game, 0, [parse_cards("3c4c"), parse_cards("AsAd")])
    blind = BettingState(game, 0)
    for s in (known, blind):
        apply_betting(s, "r300c/cc/")
        s.deal_board_cards(board)
    a, b = build_tree(known, sizes), build_tree(blind, sizes)
    assert a.num_nodes == b.num_nodes and np.array_equal(a.dealt, b.dealt)
    assert {int(c) for c in a.dealt if c >= 0} >= set(parse_cards("3c4cAsAd"))  # hole cards are dealt on the river
    assert known.hole_cards[1] == parse_cards("AsAd")  # the caller's state is left as it was


def test_action_values_are_each_hands_expected_winnings_after_each_action():
    """On a solved Leduc subgame: at every decision of a player, its strategy's mix of a
    hand's action values times the opponent's compatible reach is the hand's
    counterfactual value there; after a fold a hand's value is minus what it put in; at
    the root, the mix averaged over the player's range is its expected value."""
    sub = make_subgame(BettingState(bundled_game("leduc.nolimit.2p")), BetSizes(bets=((1.0,),), max_raises=2))
    strategy = cfr.solve(sub, 100).strategy
    t = sub.tree
    for p in (0, 1):
        cfv, reaches = cfr.node_values(sub, strategy, p)
        checked = 0
        for n in range(t.num_nodes):
            if t.kind[n] != DECISION or t.player[n] != p:
                continue
            kids = list(range(t.first_child[n], t.first_child[n] + t.num_children[n]))
            values = cfr.action_values(sub, cfv, reaches, p, n)
            weight = np.zeros(sub.hands.shape[0])
            compat_sums(np.ascontiguousarray(reaches[1 - p, n]), sub.c1, sub.c2, sub.dup, weight)
            live = (weight > 0) & (reaches[p, n] > 0)  # hands that can be here, against some hand
            mix = (strategy[kids, :] * values).sum(axis=0)
            assert np.allclose((mix * weight)[live], cfv[n][live], atol=1e-6)
            for i, c in enumerate(kids):
                if t.actions[c].type is ActionType.FOLD:
                    assert np.allclose(values[i][live], -t.spent[c][p])
            if n == 0:
                mean = float(sub.reach[p] @ (weight * mix)) / float(sub.reach[p] @ weight)
                assert abs(mean - cfr.expected_values(sub, strategy)[p]) < 1e-9
            checked += live.any()
        assert checked > 10


def test_the_average_weighs_iteration_t_by_t_to_the_exponent():
    """One iteration at a time: the regrets (so the iterates) do not depend on the
    averaging, and what iteration t adds to the average with t^2 weights is t times
    what it adds with linear weights."""
    sub = make_subgame(river_state("QsJh2h8d5c", "r500c/cc/cc/"), BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2))
    t, H = sub.tree, len(sub.hands)
    reach = sub.reach.astype(cfr.SOLVE_DTYPE)
    g = (NO_GADGET, 0, np.zeros(H), np.zeros(H), np.zeros((2, H)), np.zeros(H, dtype=cfr.SOLVE_DTYPE))
    runs = {}
    for exponent in (1.0, 2.0):
        regret, avg = (np.zeros((t.num_nodes, H), cfr.SOLVE_DTYPE) for _ in range(2))
        w = cfr.Workspace(sub, cfr.SOLVE_DTYPE, t.top_rows)
        blocks, leaves = sub.block_arrays(1, cfr.SOLVE_DTYPE), pass_arrays.no_leaves(cfr.SOLVE_DTYPE)
        steps = []
        for it in range(6):
            before = avg.astype(np.float64)
            passes.run_cfr(
                *sub.kernel_args(), reach[0], reach[1], regret, avg, it, 1, 0, w.args(), *g, blocks, leaves,
                exponent, -1.0, -np.inf,
            )  # fmt: skip
            steps.append((regret.copy(), avg.astype(np.float64) - before))
        runs[exponent] = steps
    for it, ((r1, d1), (r2, d2)) in enumerate(zip(runs[1.0], runs[2.0], strict=True)):
        assert np.array_equal(r1, r2)
        np.testing.assert_allclose(d2, (it + 1) * d1, rtol=1e-4, atol=1e-3 * (it + 1) ** 2)
        assert np.abs(d1).max() > 0
    linear = cfr.solve(sub, 6)
    assert np.array_equal(linear.strategy, cfr.solve(sub, 6, average_exponent=1.0).strategy)
    assert not np.allclose(linear.strategy, cfr.solve(sub, 6, average_exponent=2.0).strategy)


def test_discounted_cfr_multiplies_each_regret_by_its_sign_s_factor():
    """Discounted CFR (``discount=(alpha, beta)``): iteration t's update first multiplies
    a positive regret by t^alpha / (t^alpha + 1) and a negative one by t^beta / (t^beta +
    1), then adds the pass's regret, with no floor. From the same regrets, the first
    player's update with (1.5, 0) at t = 4 differs from one whose factors are 1 (alpha =
    beta = 30 in single precision) by exactly the regrets times (8/9 - 1) where positive
    and (1/2 - 1) where negative. CFR+ floors what DCFR keeps negative (control), and the
    DCFR solve converges on the turn spot."""
    sub = block_spots()["turn"]
    t, H = sub.tree, len(sub.hands)
    reach = sub.reach.astype(cfr.SOLVE_DTYPE)
    g = (NO_GADGET, 0, np.zeros(H), np.zeros(H), np.zeros((2, H)), np.zeros(H, dtype=cfr.SOLVE_DTYPE))
    start = (np.random.default_rng(4).standard_normal((t.num_nodes, H)) * 1e6).astype(cfr.SOLVE_DTYPE)
    out = {}
    for key, (alpha, beta) in {"one": (30.0, 30.0), "dcfr": (1.5, 0.0), "cfr+": (-1.0, -np.inf)}.items():
        regret, avg = start.copy(), np.zeros((t.num_nodes, H), cfr.SOLVE_DTYPE)
        w = cfr.Workspace(sub, cfr.SOLVE_DTYPE, t.top_rows)
        blocks, leaves = sub.block_arrays(1, cfr.SOLVE_DTYPE), pass_arrays.no_leaves(cfr.SOLVE_DTYPE)
        passes.run_cfr(
            *sub.kernel_args(), reach[0], reach[1], regret, avg, 3, 1, 0, w.args(), *g, blocks, leaves, 2.0, alpha,
            beta,
        )  # fmt: skip
        out[key] = to_hand_order(sub, regret)
    rows = np.zeros(t.num_nodes, dtype=bool)
    for n in np.nonzero((t.kind == DECISION) & (t.player == 0))[0]:
        rows[t.first_child[n] : t.first_child[n] + t.num_children[n]] = True
    r0 = to_hand_order(sub, start)[rows]
    live = to_hand_order(sub, np.ones_like(start))[rows] > 0  # hands a block in board order keeps
    factor = np.where(r0 > 0, 8.0 / 9.0, 0.5) - 1.0
    got = (out["dcfr"] - out["one"])[rows]
    rounding = 1e-5 * np.abs(out["one"]).max()  # single-precision sums of values this large
    assert np.median(np.abs(r0 * factor)) > 100 * rounding
    np.testing.assert_allclose(got[live], (r0 * factor)[live], rtol=1e-4, atol=rounding)
    assert (out["dcfr"][rows][live] < 0).any() and not (out["cfr+"][rows][live] < 0).any()
    pot = sub.pot
    e = [
        cfr.exploitability(sub, cfr.solve(sub, k, average_exponent=2.0, discount=cfr.DCFR).strategy) for k in (20, 200)
    ]
    assert e[1] < e[0] / 3 and e[1] / pot < 0.005
    with pytest.raises(ValueError, match="alpha >= 0"):
        cfr.solve(sub, 1, discount=(-1.0, 0.0))
