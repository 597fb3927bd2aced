"""The passes of vector CFR+ and its iteration loop, the kernels ``cfr`` calls:
``traverse`` (one pass for player i over the whole tree: reaches forward, the
leaves' values, values and updates backward), ``run_cfr`` (CFR+ iterations with
alternating updates, block by block, and the safe gadget's root) and ``normalise``
(the average strategy). The kernels they run are split by kind: ``pass_arrays``
(the arrays they take, bundled in NamedTuples, and the constants they share),
``showdown_pass`` (terminal values), ``tree_pass`` (forward and backward over a range
of nodes), ``leaf_pass`` (a depth-limited tree's leaves) and ``block_pass`` (a pass
block by block below chance nodes). The pass-level kernels take their arrays bundled
(``TreeArrays``, ``HandArrays``, ``PassRule``, ``Scratch``, ``BlockArrays``,
``LeafData``); the per-node kernels take plain arrays.

A kernel's on-disk cache holds the code of every kernel it calls, in whichever of these
modules, and numba by itself notices an edit to the kernel's own file only; the cache of
every kernel of the package also carries a stamp of the sources of its layer and those
below (``kernel_cache``), so any edit to a ``*.py`` file of solver/ or protocol/ (one
of these modules or any other) compiles every solver kernel anew on its next use: no
cache to clear by hand.

Each kernel compiles once per precision (single for solves and the agent's
evaluations, double for the metrics'); a full best response below the leaves is
double-precision code only (``LeafData.response``: None in single precision prunes it).
Numba compiles a separate copy for a constant argument (typed as that literal), so
calls between kernels pass typed values (``np.int64(0)``, ``np.bool_(False)``), and
the kernels that run on threads are separate entry points (``run_cfr_parallel``,
``traverse_parallel``), so that a one-thread solve never compiles them."""

from __future__ import annotations

import time

import numba as nb
import numpy as np

from .block_pass import draw_cards, traverse_blocks, traverse_by_block
from .leaf_pass import leaf_values, leaf_values_parallel
from .pass_arrays import FASTMATH, PassRule
from .tree import DECISION
from .tree_pass import backward, top_forward


def _make_traverse(parallel_leaves: bool):
    """``traverse`` with the leaves valued one share after another, or
    (``parallel_leaves``) each share on a thread: chosen when it is made, so that the
    serial kernel never compiles the parallel one."""

    @nb.njit(cache=True, fastmath=FASTMATH)
    def traverse(i, tree, hands, reach0, reach1, rule, work, leaves):
        """One pass for player i. ``work.reach[p, s]`` is player p's reach at the nodes
        whose slot[p] is s (it changes only below p's own decisions and chance nodes).
        ``rule.update``: CFR+ regret and average updates (and the next strategy at i's
        nodes); ``rule.best_response``: the best action per hand at i's nodes. A chance
        child removes the hands holding its card (reach and value 0)."""
        n_nodes = tree.kind.shape[0]
        none = np.zeros(n_nodes, dtype=np.bool_)
        top_forward(tree, hands, reach0, reach1, rule, work, n_nodes, none, np.int64(-1))
        if parallel_leaves:
            leaf_values_parallel(leaves, i, np.int64(0), tree, hands, rule, work)
        else:
            leaf_values(leaves, i, np.int64(0), tree, hands, rule, work)
        backward(np.int64(0), n_nodes, np.int64(0), i, tree, hands, rule, work, none, np.bool_(False))

    return traverse


#: One pass over the whole tree (see ``_make_traverse``): the leaves one share after
#: another, or each share on a thread.
traverse = _make_traverse(False)
traverse_parallel = _make_traverse(True)


NO_GADGET, RESOLVE, MAXMARGIN = 0, 1, 2


@nb.njit(cache=True)
def _gadget_reach(kind, g_regret, norm, out):
    """The opponent's reach into the subgame under the gadget's current strategy:
    Resolve, per hand the probability of entering (S) rather than taking the
    alternative (T); Maxmargin, the probability of picking the hand over N(c)."""
    H = out.shape[0]
    if kind == RESOLVE:
        for c in range(H):
            t = max(g_regret[0, c], 0.0)
            e = max(g_regret[1, c], 0.0)
            out[c] = e / (t + e) if t + e > 0.0 else 0.5
    else:
        s = 0.0
        live = 0
        for c in range(H):
            if norm[c] > 0.0:
                s += max(g_regret[0, c], 0.0)
                live += 1
        for c in range(H):
            if norm[c] <= 0.0:
                out[c] = 0.0
            elif s > 0.0:
                out[c] = max(g_regret[0, c], 0.0) / s / norm[c]
            else:
                out[c] = 1.0 / live / norm[c]


@nb.njit(cache=True)
def _gadget_update(kind, g_regret, norm, alt, enter, cfv_root):
    """Regret matching+ at the gadget's root decision, given the opponent's
    counterfactual values at the subgame root (``cfv_root``) and its reach ``enter``."""
    H = cfv_root.shape[0]
    if kind == RESOLVE:
        for c in range(H):
            if norm[c] <= 0.0:
                continue
            v_t = norm[c] * alt[c]  # the alternative, counterfactually
            v_s = cfv_root[c]
            v = (1.0 - enter[c]) * v_t + enter[c] * v_s
            g_regret[0, c] = max(g_regret[0, c] + v_t - v, 0.0)
            g_regret[1, c] = max(g_regret[1, c] + v_s - v, 0.0)
    else:
        mean = 0.0
        for c in range(H):
            if norm[c] > 0.0:
                mean += enter[c] * norm[c] * (cfv_root[c] / norm[c] - alt[c])
        for c in range(H):
            if norm[c] > 0.0:
                g_regret[0, c] = max(g_regret[0, c] + cfv_root[c] / norm[c] - alt[c] - mean, 0.0)


def _make_run_cfr(parallel: bool):
    """``run_cfr`` with the blocks (and a depth-limited tree's leaves) walked on one
    thread, or (``parallel``) in shares on numba's threads: chosen when it is made, so
    that the one-thread kernel never compiles the parallel one."""

    @nb.njit(cache=True)
    def run_cfr(
        tree, hands, reach0, reach1, regret, avg, start_iteration, iterations, deadline_ns, work, gadget, g_player,
        g_alt, g_norm, g_regret, g_reach, blocks, leaves, average_exponent, discount_alpha, discount_beta,
    ):  # fmt: skip
        """CFR+ iterations with alternating updates, block by block (``blocks``; on
        numba's threads in ``run_cfr_parallel``). Each decision node belongs to one
        player, so one regret array serves both; the current strategy is regret
        matching on it, made where a pass needs it (``PassRule.regret_matching``). With a gadget (RESOLVE or MAXMARGIN),
        player ``g_player`` enters the subgame through it: their root reach is the
        gadget's (``g_reach``), updated after each of their passes. With a deadline
        (``deadline_ns``, on ``time.perf_counter_ns``), no iteration starts that would
        end past it if it took half again as long as the last one. The average strategy
        weighs iteration t (from 1) by t ** ``average_exponent``. ``discount_alpha`` >= 0:
        Discounted CFR's regrets instead of CFR+'s, iteration t's update first multiplying
        a positive regret by t^alpha / (t^alpha + 1) and a negative one by t^beta /
        (t^beta + 1) (``discount_beta``; -inf: negatives floored at 0, as CFR+).
        Returns the iterations done."""
        done = 0
        no_sigma = np.empty((0, 0), dtype=regret.dtype)  # the rule's strategy comes from the regrets
        r0 = reach0
        r1 = reach1
        last = np.int64(0)
        if deadline_ns > 0:
            with nb.objmode(started="int64"):
                started = time.perf_counter_ns()
            last = started
        discount = np.ones(3)
        for t in range(start_iteration, start_iteration + iterations):
            weight = float(t + 1)
            if average_exponent != 1.0:
                weight = weight**average_exponent
            if discount_alpha >= 0.0:
                up = weight if average_exponent == discount_alpha else float(t + 1) ** discount_alpha
                discount[0] = up / (up + 1.0)
                floored = discount_beta == -np.inf
                down = 0.0 if floored else float(t + 1) ** discount_beta
                discount[1] = 1.0 if floored else down / (down + 1.0)
                discount[2] = 1.0 if floored else 0.0
            rule = PassRule(no_sigma, regret, avg, weight, True, False, True, discount)
            for i in range(2):
                # the top forward pass recomputes only the opponent's reach: player i's
                # strategy has not changed since the previous pass computed i's reach
                # (the other player's pass), and neither has a gadget's root reach for i
                # (it changes after i's own pass); the first pass computes both
                skip = -1 if t == start_iteration and i == 0 else i
                if gadget != NO_GADGET:
                    _gadget_reach(gadget, g_regret, g_norm, g_reach)
                    if g_player == 0:
                        r0 = g_reach
                    else:
                        r1 = g_reach
                if blocks.card_count > 0:
                    draw_cards(blocks, t, i)
                if parallel:
                    traverse_blocks(i, tree, hands, r0, r1, rule, work, blocks, skip, leaves)
                else:
                    traverse_by_block(i, tree, hands, r0, r1, rule, work, blocks, skip, leaves)
                if gadget != NO_GADGET and i == g_player:
                    _gadget_update(gadget, g_regret, g_norm, g_alt, g_reach, work.cfv[0])
            done += 1
            if deadline_ns > 0:
                with nb.objmode(now="int64"):
                    now = time.perf_counter_ns()
                # stop when another iteration half again as long as this one would end past the deadline
                # (a busy machine's iterations vary)
                if now + (now - last) * 3 // 2 >= deadline_ns:
                    break
                last = now
        return done

    return run_cfr


#: The solve's iteration loop (see ``_make_run_cfr``): on one thread, or in parallel.
run_cfr = _make_run_cfr(False)
run_cfr_parallel = _make_run_cfr(True)


@nb.njit(cache=True)
def normalise(kind, first_child, num_children, avg, out):
    """``average_strategy``'s kernel (a loop over the decision nodes in Python took
    about 70 ms on the turn reference tree); sums in double, child by child. Writes
    every row of ``out``."""
    H = avg.shape[1]
    total = np.zeros(H)
    out[0, :] = 0.0
    for n in range(kind.shape[0]):
        if kind[n] != DECISION:  # its children (if any) are dealt cards, not actions
            for c in range(first_child[n], first_child[n] + num_children[n]):
                out[c, :] = 0.0
            continue
        f = first_child[n]
        m = num_children[n]
        for h in range(H):
            total[h] = 0.0
        for c in range(f, f + m):
            for h in range(H):
                total[h] += np.float64(avg[c, h])
        for c in range(f, f + m):
            for h in range(H):
                out[c, h] = np.float64(avg[c, h]) / total[h] if total[h] > 0 else 1.0 / m
