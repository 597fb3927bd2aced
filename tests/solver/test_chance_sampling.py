"""A full-depth turn solve that walks k river cards a pass (public chance sampling,
``cfr.solve(..., chance_samples=k)``): unbiased chance values, convergence toward the
exact solve, and the same bits at any thread count."""

import numpy as np
import pytest

from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import parse_gamedef
from pokerbot.solver import block_pass, cfr, pass_arrays
from pokerbot.solver.subgame import Subgame, make_subgame
from pokerbot.solver.tree import BetSizes

#: Six ranks: a turn subgame with 20 river cards and 190 hands, small enough to solve
#: exactly in a second.
SHORT_DECK_GAME = parse_gamedef(
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 1000 1000\nblind = 100 50\n"
    "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 6\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n"
)


@pytest.fixture(scope="module")
def turn():
    state = apply_betting(BettingState(SHORT_DECK_GAME, 0, None, parse_cards("KsQh9hTc")), "r200c/cc/")
    sizes = BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2)
    sub = make_subgame(state, {2: sizes, 3: sizes})
    assert len(sub.chance_cards()) == 20 and len(sub.hands) == 190
    return sub


def biased(monkeypatch):
    """Make every sampled solve draw the first 10 river cards twice as often as the
    others while weighting each draw as if the draws were uniform."""
    made = Subgame.block_arrays

    def block_arrays(self, *args, **kwargs):
        b = made(self, *args, **kwargs)
        if not b.card_count:
            return b
        cards = np.sort(b.cards)
        return b._replace(cards=np.random.default_rng(0).permutation(np.concatenate([cards, cards[:10]])))

    monkeypatch.setattr(Subgame, "block_arrays", block_arrays)


def root_values_over_a_round(sub: Subgame, k: int, rounds: int = 1) -> np.ndarray:
    """Player 0's root values of one fixed strategy (uniform), averaged over the passes
    of ``rounds`` rounds of cards (n / k passes each), each pass on its k cards."""
    dtype = np.float64
    tree, hands = sub.kernel_args()
    blocks = sub.block_arrays(1, dtype, k, 7)
    n = len(blocks.cards)
    passes_ = rounds * n // k
    uniform = cfr.average_strategy(sub.tree, np.ones((sub.tree.num_nodes, len(sub.hands))))
    rule = pass_arrays.PassRule(uniform, np.zeros((1, 1)), np.zeros((1, 1)), 0.0, False, False, False)
    w = cfr.Workspace(sub, dtype)
    total = np.zeros(len(sub.hands))
    for t in range(passes_):
        block_pass.draw_cards(blocks, t, 0)
        block_pass.traverse_by_block(0, tree, hands, sub.reach[0], sub.reach[1], rule, w.args(), blocks, -1,
                                     pass_arrays.no_leaves(dtype))  # fmt: skip
        total += w.cfv[0]
    return total / passes_


@pytest.mark.parametrize("k", [1, 4])
def test_a_round_of_sampled_passes_values_the_root_exactly(turn, k, monkeypatch):
    """In turn round a keyed shuffle, n / k consecutive passes walk every river card
    once: their mean value at the root, each pass's chance nodes weighted n / k, is the
    exact value (every card each pass). Negative control: cards drawn unevenly but
    weighted as if evenly miss it by far more than rounding."""
    exact = cfr.counterfactual_values(turn, cfr.average_strategy(turn.tree, np.ones((turn.tree.num_nodes, 190))), 0)
    got = root_values_over_a_round(turn, k)
    scale = np.abs(exact).max()
    assert scale > 0 and np.abs(got - exact).max() < 1e-9 * scale
    biased(monkeypatch)
    wrong = root_values_over_a_round(turn, k, rounds=3)  # 30 draws a round: 3 rounds cover the biased list evenly
    assert np.abs(wrong - exact).max() > 1e-3 * scale


def test_a_sampled_solve_converges_toward_the_exact_one(turn, monkeypatch):
    """4 of the 20 river cards a pass, 1,000 iterations: under 1 % of the pot from an
    equilibrium (0.45-0.58 % over seeds 1-3 when written; the exact solve's 200
    iterations 0.07 %), where uniform play is far off. Negative control: uneven draws
    weighted as even ones stay near 3 % however long they run."""
    pot = turn.pot
    assert cfr.exploitability(turn, cfr.solve(turn, 1).strategy) / pot > 0.2
    e = [cfr.exploitability(turn, cfr.solve(turn, 1000, chance_samples=4, seed=s, average_exponent=2.0).strategy)
         for s in (1, 2)]  # fmt: skip
    assert max(e) / pot < 0.01
    biased(monkeypatch)
    wrong = cfr.solve(turn, 1000, chance_samples=4, seed=1, average_exponent=2.0)
    assert cfr.exploitability(turn, wrong.strategy) / pot > 0.02


def test_the_same_sampled_solve_at_any_thread_count(turn):
    """The blocks of a pass's cards are dealt to the threads by size, each chance node
    sums its drawn children in child order: one and two threads give the same bits.
    Control: another seed (other cards each pass) gives other bits, so the comparison
    can tell solves apart."""
    one = cfr.solve(turn, 60, chance_samples=3, seed=5, threads=1)
    two = cfr.solve(turn, 60, chance_samples=3, seed=5, threads=2)
    np.testing.assert_array_equal(one.strategy, two.strategy)
    independent = [cfr.solve(turn, 60, chance_samples=3, seed=5, threads=t, independent_cards=True) for t in (1, 2)]
    np.testing.assert_array_equal(independent[0].strategy, independent[1].strategy)
    assert not np.array_equal(one.strategy, independent[0].strategy)
    other = cfr.solve(turn, 60, chance_samples=3, seed=6, threads=2)
    assert not np.array_equal(one.strategy, other.strategy)


def test_draws_deal_the_pass_s_blocks_to_the_shares_by_size(turn):
    """Each pass's blocks are exactly those of its cards, each on one share, the shares'
    node counts within the largest block of each other (greedy by size)."""
    blocks = turn.block_arrays(3, np.float32, 2, 1)
    for t in range(5):
        block_pass.draw_cards(blocks, t, 0)
        drawn = set(np.nonzero(blocks.card_scale)[0].tolist())
        assert len(drawn) == 2 and np.allclose(blocks.card_scale[list(drawn)], 10.0)
        walked = blocks.walked[: blocks.walked_start[-1]]
        assert sorted(walked.tolist()) == sorted(b for b in range(len(blocks.blocks)) if blocks.block_card[b] in drawn)
        size = blocks.blocks[:, 1] - blocks.blocks[:, 0] + 1
        loads = [int(size[blocks.walked[blocks.walked_start[s] : blocks.walked_start[s + 1]]].sum()) for s in range(3)]
        assert max(loads) - min(loads) <= size[walked].max()


def test_every_card_or_more_is_the_exact_solve(turn):
    """k at least the cards the chance nodes deal is the exact solve, bit for bit; bad
    counts and trees without chance nodes are errors."""
    np.testing.assert_array_equal(cfr.solve(turn, 5, chance_samples=20).strategy, cfr.solve(turn, 5).strategy)
    with pytest.raises(ValueError, match="0 \\(every card\\) or more"):
        turn.block_arrays(1, np.float32, -1)
    river = apply_betting(BettingState(SHORT_DECK_GAME, 0, None, parse_cards("KsQh9hTcJd")), "r200c/cc/cc/")
    with pytest.raises(ValueError, match="needs chance nodes above the blocks"):
        cfr.solve(make_subgame(river, BetSizes()), 5, chance_samples=2)


#: Sampled solves at several thread counts in a process whose numba pool has 8 threads
#: (more than this machine may have: the shares are what is tested).
THREAD_COUNTS_SCRIPT = """
import hashlib, sys
sys.path.insert(0, sys.argv[1])
from test_chance_sampling import turn
from pokerbot.solver import cfr
sub = turn.__wrapped__()
for threads in (1, 2, 3, 8):
    h = hashlib.sha256()
    for samples, independent in ((1, False), (3, False), (3, True), (0, False)):
        r = cfr.solve(sub, 20, chance_samples=samples, seed=3, threads=threads, independent_cards=independent)
        h.update(r.strategy.tobytes())
    print(threads, h.hexdigest())
"""


@pytest.mark.slow  # a second process compiles the parallel kernels for an 8-thread pool
def test_sampled_solves_bit_for_bit_at_1_2_3_and_8_threads():
    """One card a pass leaves 8 threads with a few blocks each pass (one per turn line
    that sees the river); 3 cards with more: every thread count gives the same bits."""
    import os

    from conftest import digests_on_8_threads

    digests = digests_on_8_threads(THREAD_COUNTS_SCRIPT, os.path.dirname(__file__), timeout=900)
    assert len(digests) == 4 and len(set(digests.values())) == 1, digests


def test_a_strategy_in_the_solver_s_precision_is_the_double_one_rounded(turn):
    """``strategy_dtype=SOLVE_DTYPE`` normalises over the solve's own sums, in place
    (the blocks kept in board order put back in hand order first): the same bits as the
    double strategy rounded, for a sampled and an exact solve."""
    from pokerbot.solver.subgame import to_hand_order, to_hand_order_in_place

    assert (turn.block_board >= 0).any()  # the in-place reordering is exercised
    rows = np.random.default_rng(5).random((turn.tree.num_nodes, len(turn.hands))).astype(cfr.SOLVE_DTYPE)
    assert np.array_equal(to_hand_order_in_place(turn, rows.copy()), to_hand_order(turn, rows))
    for k in (3, 0):
        double = cfr.solve(turn, 30, chance_samples=k, seed=2, average_exponent=2.0, discount=cfr.DCFR)
        single = cfr.solve(
            turn, 30, chance_samples=k, seed=2, average_exponent=2.0, discount=cfr.DCFR, strategy_dtype=cfr.SOLVE_DTYPE
        )
        assert single.strategy.dtype == cfr.SOLVE_DTYPE and single.iterations == double.iterations
        assert np.array_equal(single.strategy, double.strategy.astype(cfr.SOLVE_DTYPE))
    with pytest.raises(ValueError, match="strategy_dtype"):
        cfr.solve(turn, 1, strategy_dtype=np.float16)
