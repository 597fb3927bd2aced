"""Vector-form CFR+ over a public tree, for all hands of both players at once.

One iteration updates each player in turn (alternating updates): a forward pass over
the tree carries the opponent's reach (and the player's own, for the average
strategy), a backward pass computes counterfactual values per hand, updates regrets
with regret matching+ (negative regrets floored at zero) and accumulates the
linearly weighted average strategy. Terminal values cost O(hands): folds use per-card
reach totals for card removal; showdowns a few passes over the hands sorted by
strength and a small table of per-card totals by tie group (see
``showdown_pass.showdown_values``).

Values are chips won over the whole hand (as the dealer pays), counterfactual: for a
hand h of player i, the sum over opponent hands j compatible with h of the opponent's
reach of j times i's payoff (averaged over the cards still to come at chance nodes).
Trees come from ``solver.tree``, the spot to solve from ``subgame``; the numba kernels
that do the work are in ``passes`` (the passes and the iteration loop) and the modules
it draws on (``pass_arrays``, ``showdown_pass``, ``tree_pass``, ``leaf_pass``,
``block_pass``); this module drives them (``solve``) and evaluates any strategy exactly
(best response, values, exploitability).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba as nb
import numpy as np

from .block_pass import traverse_blocks, traverse_by_block
from .depth_limited import leaf_data, normalised_leaf_strategy
from .pass_arrays import PassRule, Scratch, no_leaves
from .passes import (
    MAXMARGIN,
    NO_GADGET,
    RESOLVE,
    normalise,
    run_cfr,
    run_cfr_parallel,
    traverse,
    traverse_parallel,
)
from .showdown_pass import compat_sums
from .subgame import Subgame, showdown_scratch, to_block_order, to_hand_order, to_hand_order_in_place
from .tree import CHANCE, DECISION, LEAF, PublicTree

#: Solves keep regrets, strategies, reaches and values in single precision: it halves
#: the working set (the river reference tree then fits in a core's L2 cache, about 2.8x
#: faster per node); sums over hands in the terminal sweeps stay in double. Exact
#: evaluations (best response, exploitability, node values) run in double by default;
#: the agent evaluates its solutions in play in this precision (``dtype=SOLVE_DTYPE``),
#: on the kernels its solves compiled.
SOLVE_DTYPE = np.float32


class Workspace:
    """Scratch arrays of one solve (their size is what ``PublicTree.memory_bytes`` reports)."""

    def __init__(self, sub: Subgame, dtype=np.float64, rows: int | None = None) -> None:
        """``rows``: of the tree-wide reaches and values; a solve walking blocks needs
        only the nodes above them (``PublicTree.top_rows``), the default is all."""
        H = sub.hands.shape[0]
        n = sub.tree.num_nodes if rows is None else rows
        self.reach = np.zeros((2, n, H), dtype=dtype)
        self.cfv = np.zeros((n, H), dtype=dtype)
        self.tmp = np.zeros(H, dtype=dtype)
        self.qs = np.zeros(H + showdown_scratch(sub), dtype=dtype)  # a gathered reach, then showdown_values's table

    def args(self) -> Scratch:
        """The arrays as the kernels take them."""
        return Scratch(self.reach, self.cfv, self.tmp, self.qs)


@dataclass
class SolveResult:
    strategy: np.ndarray  # (nodes, H): probability of the action into each node, per hand of the actor
    iterations: int
    stopped_early: bool
    seconds: float
    exploitability: float | None = None  # chips per hand, when the caller measured it (``exploitability``)
    #: depth-limited subgames: each player's average mix of continuations per leaf and hand (2, L, K, H)
    leaf_strategy: np.ndarray | None = None


def libratus_iterations(pot: int, big_blind: int) -> int:
    """Libratus: 1,000 CFR+ iterations while at most 16 big blinds are in the pot, else 1,900."""
    return 1000 if pot <= 16 * big_blind else 1900


@dataclass
class Gadget:
    """A safe augmented subgame (the safe-nested paper; docs/design.md): ``player`` (the
    opponent) enters the subgame through a root decision against ``alt_values``,
    their expected value per hand (subgame hand order) if they do not: the
    blueprint's value (Estimated-Maxmargin), plus gifts (Reach), or a best-response
    value (Resolve, Maxmargin proper). ``kind``: "resolve" or "maxmargin". The
    subgame's reach of ``player`` is ignored: every hand may enter."""

    kind: str
    player: int
    alt_values: np.ndarray

    def code(self) -> int:
        if self.kind not in ("resolve", "maxmargin"):
            raise ValueError(f"gadget kind must be 'resolve' or 'maxmargin', got {self.kind!r}")
        return RESOLVE if self.kind == "resolve" else MAXMARGIN


#: How a warm start sets the regrets (``WarmStart``): "strategy", the current strategy
#: starts at the warm one; "advantage", at regret matching on its advantages.
WARM_REGRETS = ("strategy", "advantage")


@dataclass
class WarmStart:
    """Start a solve as if both players had played ``strategy`` in its first T =
    ``iterations`` iterations (a strategy-based warm start, after Brown and Sandholm,
    AAAI 2016): the average holds ``strategy`` with those iterations' weights, the
    solve goes on from iteration T + 1, and the regrets come from the actions'
    counterfactual values under ``strategy``: ``regrets`` "strategy" (the default),
    at each decision and hand T times the spread of its actions' values (best minus
    worst), divided among the actions as ``strategy`` plays them, so the current
    strategy starts at it and leaves it as advantages build up; "advantage" (Brown and
    Sandholm's), T times each action's advantage, floored at 0 as CFR+ would have kept
    it. ``strategy``: (nodes, hands) in hand order, as ``SolveResult.strategy``.
    Depth-limited subgames: ``leaf_strategy`` (2, L, K, hands), each player's mix of
    continuations (default: the first one, the unbiased blueprint), and ``deals``, the
    next cards (deals) the leaves are valued on for the values (0: every one)."""

    strategy: np.ndarray
    iterations: int
    leaf_strategy: np.ndarray | None = None
    deals: int = 0
    regrets: str = "strategy"

    def verify(self, sub: Subgame) -> None:
        """Raise ValueError unless this warm start fits ``sub``."""
        shape = (sub.tree.num_nodes, sub.hands.shape[0])
        if self.strategy.shape != shape:
            raise ValueError(f"warm-start strategy must be {shape}, got {self.strategy.shape}")
        if self.iterations < 1:
            raise ValueError(f"warm-start iterations must be at least 1, got {self.iterations}")
        if self.deals < 0:
            raise ValueError(f"warm-start deals must be 0 (every one) or more, got {self.deals}")
        if self.regrets not in WARM_REGRETS:
            raise ValueError(f"warm-start regrets must be one of {WARM_REGRETS}, got {self.regrets!r}")


def opponent_weights(sub: Subgame, player: int) -> np.ndarray:
    """N(c): for each hand c of ``player``, the reach of the other player's hands
    compatible with it (chance and the other player only)."""
    out = np.zeros(sub.hands.shape[0])
    compat_sums(sub.reach[1 - player], sub.c1, sub.c2, sub.dup, out)
    return out


def solve(
    sub: Subgame,
    iterations: int,
    deadline: float | None = None,
    gadget: Gadget | None = None,
    threads: int = 1,
    card_samples: int = 0,
    seed: int = 0,
    independent_cards: bool = False,
    average_exponent: float = 1.0,
    warm_start: WarmStart | None = None,
    chance_samples: int = 0,
    discount: tuple[float, float] | None = None,
    strategy_dtype=np.float64,
) -> SolveResult:
    """Run CFR+ from scratch (or from ``warm_start``: unsafe solves only, see
    ``WarmStart``); ``deadline`` (seconds from now) stops early; ``gadget`` makes it a
    safe (Resolve / Maxmargin) solve, else the subgame is solved as it stands (unsafe).
    ``threads`` > 1 walks the subtrees below chance nodes, and values a depth-limited
    tree's leaves, in parallel (numba's thread pool, at most that many threads); the
    result is the same.
    Depth-limited subgames: ``card_samples`` > 0 values the leaves of each pass on
    that many next cards instead of every card, going round a shuffle keyed by
    ``seed`` (or drawn independently: ``independent_cards``).
    ``average_exponent``: the average strategy weighs iteration t by t to this power
    (1: CFR+'s linear average; 2: quadratic, Discounted CFR's gamma = 2).
    ``chance_samples`` > 0: each pass walks the subtrees of that many cards of the
    chance nodes above the blocks (the river of a turn subgame; public chance
    sampling, ``pass_arrays.BlockArrays``), keyed by ``seed`` and ``independent_cards`` as
    the leaves' cards; as many as they deal or more: every card. The same solve at any
    thread count. ``discount``: (alpha, beta), Discounted CFR's regrets (Brown and
    Sandholm, AAAI 2019; their default (1.5, 0), gamma being ``average_exponent``)
    instead of CFR+'s. ``strategy_dtype``: the returned strategy's precision, double
    or the solver's (``SOLVE_DTYPE``: then normalised over its own sums, which saves
    two arrays of the tree's size after the deadline; the same values, rounded).
    """
    if np.dtype(strategy_dtype) not in (np.dtype(np.float64), np.dtype(SOLVE_DTYPE)):
        raise ValueError(f"strategy_dtype is float64 or the solver's {np.dtype(SOLVE_DTYPE)}, not {strategy_dtype}")
    in_solver_precision = np.dtype(strategy_dtype) == np.dtype(SOLVE_DTYPE) != np.dtype(np.float64)
    t = sub.tree
    n, H = t.num_nodes, sub.hands.shape[0]
    # the deadline counts from here: the arrays' first writes are part of the solve
    t0 = time.perf_counter()
    deadline_ns = 0 if deadline is None else time.perf_counter_ns() + int(deadline * 1e9)
    # written, not only allocated: fresh pages are mapped at their first write, and on
    # a turn tree that cost (about 18,000 page faults) would otherwise land on the
    # first iterations
    regret = np.empty((n, H), dtype=SOLVE_DTYPE)
    avg = np.empty((n, H), dtype=SOLVE_DTYPE)
    for a in (regret, avg):
        a.fill(0.0)
    w = Workspace(sub, SOLVE_DTYPE, t.top_rows)
    if gadget is None:
        g = (NO_GADGET, 0, np.zeros(H), np.zeros(H), np.zeros((2, H)), np.zeros(H, dtype=SOLVE_DTYPE))
    else:
        alt = np.asarray(gadget.alt_values, dtype=np.float64)
        if alt.shape != (H,):
            raise ValueError(f"alt_values needs one value per subgame hand ({H}), got shape {alt.shape}")
        g = (
            gadget.code(),
            gadget.player,
            alt,
            opponent_weights(sub, gadget.player),
            np.zeros((2, H)),
            np.zeros(H, dtype=SOLVE_DTYPE),
        )
    use = usable_threads(threads)
    leaves = leaf_data(sub, SOLVE_DTYPE, card_samples, seed, independent=independent_cards, shares=use)
    parallel = use > 1 and (len(t.blocks) > 1 or max(len(leaves.share_start), len(leaves.item_start)) > 2)
    reach = sub.reach.astype(SOLVE_DTYPE)
    copies = use if parallel else 1  # one per share of the blocks
    blocks = sub.block_arrays(copies, SOLVE_DTYPE, chance_samples, seed, independent_cards)
    start = 0
    if warm_start is not None:
        if gadget is not None:
            raise ValueError("a warm start is for unsafe solves (the gadget's own regrets would start cold)")
        warm_start.verify(sub)
        warm_up_regrets(
            sub,
            warm_start,
            reach,
            regret,
            avg,
            w,
            blocks._replace(card_count=0),
            parallel,
            leaves,
            average_exponent,
            use,
        )
        start = warm_start.iterations
    done = (run_cfr_parallel if parallel else run_cfr)(
        *sub.kernel_args(), reach[0], reach[1], regret, avg, start, iterations, deadline_ns, w.args(), *g,
        blocks, leaves, float(average_exponent), *verified_discount(discount),
    )  # fmt: skip
    if in_solver_precision:  # normalised where it was summed
        strategy = average_strategy(t, to_hand_order_in_place(sub, avg), in_place=True)
    else:
        strategy = average_strategy(t, to_hand_order(sub, avg))
    return SolveResult(
        strategy,
        done,
        done < iterations,
        time.perf_counter() - t0,
        leaf_strategy=None if sub.continuations is None else normalised_leaf_strategy(leaves.avg),
    )


#: Discounted CFR's (alpha, beta) as Brown and Sandholm recommend them (gamma = 2 is
#: ``average_exponent``).
DCFR = (1.5, 0.0)


def verified_discount(discount: tuple[float, float] | None) -> tuple[float, float]:
    """``run_cfr``'s (alpha, beta) for ``solve``'s ``discount`` (None: CFR+, alpha -1)."""
    if discount is None:
        return -1.0, -np.inf
    alpha, beta = (float(x) for x in discount)
    if not alpha >= 0.0 or np.isnan(beta):
        raise ValueError(f"Discounted CFR needs alpha >= 0 and a beta (-inf: floored), got {discount}")
    return alpha, beta


def warm_pass_leaves(sub, leaves, deals: int, shares: int):
    """``leaves`` (the solve's ``LeafData``) for a pass that values ``deals`` cards a
    leaf: its (piece, card) items made for that many (on many threads whole trees of
    ``deals`` cards would leave threads idle), over the solve's own cards, regrets,
    mixes, averages and scratch; where they would need more scratch than the solve has,
    the solve's leaves valued by shares. The same values either way."""
    own = leaf_data(sub, leaves.regret.dtype, deals, leaves.seed, independent=leaves.independent, shares=shares)
    if own.forward.shape[0] > leaves.forward.shape[0]:
        return leaves._replace(sample=deals)
    return own._replace(
        cards=leaves.cards, regret=leaves.regret, sigma=leaves.sigma, avg=leaves.avg, forward=leaves.forward,
        backward=leaves.backward, values=leaves.values, summed=leaves.summed, response=leaves.response,
    )  # fmt: skip


def warm_up_regrets(
    sub, warm, reach, regret, avg, work, blocks, parallel, leaves, average_exponent, shares: int = 1
) -> None:
    """Fill a solve's ``regret`` and ``avg`` (and its leaves' regrets, averages and
    current mixes) as ``warm`` says (``WarmStart``): one pass per player with both
    playing the warm strategy gives each action's advantage (its CFR+ update from an
    offset large enough that nothing is floored), then the regrets are set from them.
    ``shares``: the solve's threads (the passes' leaves in (piece, deal) items as the
    solve's own, see ``warm_pass_leaves``)."""
    fixed = np.ascontiguousarray(to_block_order(sub, warm.strategy).astype(SOLVE_DTYPE))
    c = sub.continuations
    if c is not None:
        mix = warm.leaf_strategy
        if mix is None:
            mix = np.zeros(leaves.sigma.shape)
            mix[:, :, 0] = 1.0
        elif mix.shape != leaves.sigma.shape:
            raise ValueError(f"warm-start leaf strategy must be {leaves.sigma.shape}, got {mix.shape}")
    # |a counterfactual value| <= the most a player can lose times the other's reach
    spent = max(int(sub.tree.spent.max()), int(leaves.spent.max()) if c is not None else 0)
    offset = 4.0 * spent * float(reach.sum(axis=1).max())
    regret.fill(offset)
    leaves.regret.fill(offset)
    if parallel and c is not None:
        pass_leaves = warm_pass_leaves(sub, leaves, warm.deals, shares)
    else:
        pass_leaves = leaves._replace(sample=warm.deals)
    tree, hands = sub.kernel_args()
    for i in range(2):
        if c is not None:
            leaves.sigma[:] = mix  # the other player's mix, which player 0's pass moved
        rule = PassRule(fixed.copy(), regret, avg, 1.0, True, False, False)
        if parallel:
            traverse_blocks(i, tree, hands, reach[0], reach[1], rule, work.args(), blocks, -1, pass_leaves)
        else:
            traverse_by_block(i, tree, hands, reach[0], reach[1], rule, work.args(), blocks, -1, pass_leaves)
    T = SOLVE_DTYPE(warm.iterations)
    tiny = SOLVE_DTYPE(1e-30)
    weights = SOLVE_DTYPE(np.sum(np.arange(1, warm.iterations + 1, dtype=np.float64) ** average_exponent))
    avg *= weights
    regret -= SOLVE_DTYPE(offset)
    t = sub.tree
    for n in np.nonzero(t.kind == DECISION)[0]:
        f, m = int(t.first_child[n]), int(t.num_children[n])
        adv = regret[f : f + m]
        if warm.regrets == "strategy":
            regret[f : f + m] = (T * (adv.max(axis=0) - adv.min(axis=0)) + tiny) * fixed[f : f + m]
        else:
            regret[f : f + m] = T * np.maximum(adv, 0)
    if c is not None:
        leaves.avg[:] *= weights
        adv = leaves.regret - SOLVE_DTYPE(offset)
        if warm.regrets == "strategy":
            leaves.regret[:] = (T * (adv.max(axis=2, keepdims=True) - adv.min(axis=2, keepdims=True)) + tiny) * mix
        else:
            leaves.regret[:] = T * np.maximum(adv, 0)
        leaves.sigma[:] = normalised_leaf_strategy(leaves.regret)  # regret matching


def usable_threads(threads: int) -> int:
    """How many of ``threads`` numba's pool has (at least 1); numba's parallel
    regions then use that many."""
    # numba's thread pool size; numba.config sets it at run time (through globals()), out of mypy's sight
    pool_size: int = nb.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    use = max(1, min(threads, pool_size))
    if use > 1:
        nb.set_num_threads(use)
    return use


def average_strategy(tree: PublicTree, avg: np.ndarray, in_place: bool = False) -> np.ndarray:
    """Normalise accumulated strategy weights per decision node and hand (uniform
    where a hand never reached the node); rows of nodes below no decision stay 0.
    In double; ``in_place``: written over ``avg`` (returned) in its own precision,
    each value the double one rounded (the bits of ``average_strategy(tree,
    avg).astype(avg.dtype)``), with no array of the tree's size allocated."""
    avg = np.ascontiguousarray(avg)
    out = avg if in_place else np.empty(avg.shape, dtype=np.float64)
    normalise(tree.kind, tree.first_child, tree.num_children, avg, out)
    return out


def evaluation_pass(
    sub: Subgame,
    strategy: np.ndarray,
    player: int,
    best_response: bool,
    root_reach: np.ndarray,
    leaf_strategy: np.ndarray | None,
    full_response: bool = False,
    leaf_sample: int = 0,
    seed: int = 0,
    with_leaves: bool = True,
    threads: int = 1,
    dtype=np.float64,
) -> Workspace:
    """One pass of ``player`` with no update, from both players' ``root_reach``: its
    workspace holds the values and reaches at every node, in ``dtype`` (double, or
    ``SOLVE_DTYPE``: the solver's precision and most of its kernels).
    ``leaf_sample``: value the leaves on that many cards (deals) of a shuffle keyed by
    ``seed`` (an unbiased estimate; 0: every one). ``with_leaves`` False: no leaf
    values (the reaches are still exact). ``threads``: the leaves valued on that many
    (the values are the same)."""
    w = Workspace(sub, dtype)
    none = np.zeros((1, 1), dtype=dtype)
    rule = PassRule(np.ascontiguousarray(strategy, dtype=dtype), none, none.copy(), 0.0, False, best_response, False)
    use = usable_threads(threads) if with_leaves else 1
    if with_leaves:
        leaves = leaf_data(sub, dtype, leaf_sample, seed, leaf_strategy, full_response=full_response, shares=use)
    else:
        leaves = no_leaves(dtype)
    parallel = use > 1 and max(len(leaves.share_start), len(leaves.item_start)) > 2
    reach = np.ascontiguousarray(root_reach, dtype=dtype)
    kernel = traverse_parallel if parallel else traverse
    kernel(player, *sub.kernel_args(), reach[0], reach[1], rule, w.args(), leaves)
    return w


def counterfactual_values(
    sub: Subgame,
    strategy: np.ndarray,
    player: int,
    best_response: bool = False,
    leaf_strategy: np.ndarray | None = None,
    full_response: bool = False,
    threads: int = 1,
    dtype=np.float64,
) -> np.ndarray:
    """Counterfactual values at the root, per live hand of ``player``, when both play
    ``strategy`` (or ``player`` best-responds to the other's part of it). In a
    depth-limited subgame both mix continuations by ``leaf_strategy`` (default
    uniform); a best response picks the best continuation per hand at each leaf, or,
    ``full_response``, best-responds over the continuation trees (exactly, over the
    tree's deals: every card from the turn; from the flop, every runout when the tree
    was built with them all) to the other's mix. ``threads``, ``dtype``: as
    ``evaluation_pass``."""
    w = evaluation_pass(
        sub, strategy, player, best_response, sub.reach, leaf_strategy, full_response, threads=threads, dtype=dtype
    )
    return w.cfv[0].copy()


def node_values(
    sub: Subgame,
    strategy: np.ndarray,
    player: int,
    best_response: bool = False,
    root_reach: np.ndarray | None = None,
    leaf_strategy: np.ndarray | None = None,
    leaf_sample: int = 0,
    seed: int = 0,
    threads: int = 1,
    dtype=np.float64,
) -> tuple[np.ndarray, np.ndarray]:
    """Counterfactual values of ``player`` at every node (nodes, H), and both players'
    reaches at every node (2, nodes, H), in ``dtype``. ``root_reach`` replaces the
    subgame's; ``leaf_strategy`` as in ``counterfactual_values``; ``leaf_sample``,
    ``seed``, ``threads`` and ``dtype`` as in ``evaluation_pass`` (a depth-limited flop
    subgame's values from a few runouts)."""
    w = evaluation_pass(
        sub,
        strategy,
        player,
        best_response,
        sub.reach if root_reach is None else root_reach,
        leaf_strategy,
        leaf_sample=leaf_sample,
        seed=seed,
        threads=threads,
        dtype=dtype,
    )
    reaches = np.stack([w.reach[p][sub.slot[p]] for p in (0, 1)])
    return w.cfv, reaches


def best_response_with_leaf_values(
    sub: Subgame, strategy: np.ndarray, player: int, leaf_values: dict[int, np.ndarray], follow: bool = False
) -> np.ndarray:
    """Counterfactual values per live hand of ``player`` at every node (nodes, H) when
    it best-responds to the other's part of ``strategy`` in a depth-limited tree whose
    LEAF nodes are valued from elsewhere: ``leaf_values[leaf node]`` (H,), the
    player's counterfactual values there (already weighted by the other's reach at
    the leaf, as from ``counterfactual_values`` of a subgame rooted there). How a best
    response is scored against a strategy that plays a later round by something other
    than continuations, e.g. a round solved anew when it comes. ``follow``: the
    player plays its own part of ``strategy`` in this tree instead (what a best
    response gains below the leaves alone)."""
    t = sub.tree
    leaves = [int(n) for n in np.nonzero(t.kind == LEAF)[0]]
    if set(leaves) != set(leaf_values):
        raise ValueError("leaf_values must hold every leaf of the tree and nothing else")
    w = evaluation_pass(sub, strategy, player, True, sub.reach, None, with_leaves=False)
    cfv = w.cfv.copy()
    above = t.kind == LEAF  # the leaves and the nodes with a leaf below them
    for leaf in leaves:
        cfv[leaf] = leaf_values[leaf]
    for n in range(t.num_nodes - 1, -1, -1):
        f, m = int(t.first_child[n]), int(t.num_children[n])
        if t.kind[n] == LEAF or not m:
            continue
        mine = t.kind[n] == DECISION and int(t.player[n]) == player
        if not above[f : f + m].any() and not (follow and mine):
            continue
        above[n] = True
        if t.kind[n] == CHANCE:
            raise ValueError("a leaf below a chance node is not supported")
        kids = cfv[f : f + m]
        if not mine:
            cfv[n] = kids.sum(axis=0)
        elif follow:
            cfv[n] = (strategy[f : f + m] * kids).sum(axis=0)
        else:
            cfv[n] = kids.max(axis=0)
    return cfv


def node_reaches(
    sub: Subgame, strategy: np.ndarray, root_reach: np.ndarray | None = None, dtype=np.float64
) -> np.ndarray:
    """Both players' reaches at every node (2, nodes, H) when they play ``strategy``
    (one forward pass; no values, so a depth-limited tree's leaves cost nothing), in
    ``dtype`` (as in ``evaluation_pass``)."""
    w = evaluation_pass(
        sub, strategy, 0, False, sub.reach if root_reach is None else root_reach, None, with_leaves=False, dtype=dtype
    )
    return np.stack([w.reach[p][sub.slot[p]] for p in (0, 1)])


def action_values(sub: Subgame, cfv: np.ndarray, reaches: np.ndarray, player: int, node: int) -> np.ndarray:
    """Per hand of ``player``, its expected winnings in the hand (chips) after each of
    its actions at its decision ``node`` (children x hands), from ``node_values``'s
    counterfactual values and reaches: the children's values divided by the reach of
    the opponent's hands compatible with it at ``node``, which the player's own action
    does not change (0 where no such hand is)."""
    weight = np.zeros(sub.hands.shape[0])
    compat_sums(np.ascontiguousarray(reaches[1 - player, node]), sub.c1, sub.c2, sub.dup, weight)
    first, count = int(sub.tree.first_child[node]), int(sub.tree.num_children[node])
    out = np.zeros((count, sub.hands.shape[0]))
    for i in range(count):
        np.divide(cfv[first + i], weight, out=out[i], where=weight > 0)
    return out


def exploitability(
    sub: Subgame,
    strategy: np.ndarray,
    leaf_strategy: np.ndarray | None = None,
    full_response: bool = False,
    threads: int = 1,
    dtype=np.float64,
) -> float:
    """Exploitability of ``strategy`` in chips per hand: the mean of the two players'
    best-response values (expected over the joint deal of compatible hands). In a
    depth-limited subgame the best response chooses among the continuations only,
    or, ``full_response``, responds over the rest of the hand to the mix of
    continuations ``leaf_strategy`` commits to (see ``counterfactual_values``; the
    leaves valued on ``threads``). The passes in ``dtype`` (``evaluation_pass``; the
    sums in double)."""
    joint = joint_weight(sub)
    br = []
    for p in (0, 1):
        values = counterfactual_values(sub, strategy, p, True, leaf_strategy, full_response, threads, dtype)
        br.append(float(sub.reach[p] @ values))
    return (br[0] + br[1]) / 2.0 / joint


def expected_values(sub: Subgame, strategy: np.ndarray, leaf_strategy: np.ndarray | None = None) -> tuple[float, float]:
    joint = joint_weight(sub)
    ev = [
        float(sub.reach[p] @ counterfactual_values(sub, strategy, p, leaf_strategy=leaf_strategy)) / joint
        for p in (0, 1)
    ]
    return ev[0], ev[1]


def joint_weight(sub: Subgame) -> float:
    """The total weight of the compatible pairs of hands the subgame deals (chance and
    both ranges): what values summed over hand pairs are divided by for a mean."""
    compat = np.zeros(sub.hands.shape[0])
    compat_sums(sub.reach[1], sub.c1, sub.c2, sub.dup, compat)
    return float(sub.reach[0] @ compat)
