"""The forward and backward passes over a range of the public tree's nodes, which
``passes.traverse`` runs over the whole tree and ``block_pass`` over each block.
``forward``: both players' reaches at each node's children from its own, under the
pass's current strategy (``PassRule``: ``sigma``, or regret matching on ``regret``);
``backward`` / ``backward_nodes``: the traverser's counterfactual values at each
node from its children's (terminals by ``showdown_pass``, chance nodes averaged over
the cards by ``chance_values``), with the regret and average updates at the
traverser's decisions (``decision_values``). Node n's rows of the reaches and values
are n - ``base`` (0: the tree-wide rows; a block's local rows otherwise); nodes marked
``in_block`` are left to the block walks, leaves to ``leaf_pass``.
``current_strategy``: regret matching over the whole tree at once."""

from __future__ import annotations

import numba as nb
import numpy as np

from .pass_arrays import FASTMATH
from .showdown_pass import compat_sums, showdown_node, terminal_children
from .tree import CHANCE, DECISION, FOLD_TERMINAL, LEAF, MATRIX_TERMINAL, SHOWDOWN


@nb.njit(cache=True, fastmath=FASTMATH)
def current_strategy(regret, kind, player, first_child, num_children, who, sigma, tmp):
    """Regret matching at the decision nodes of player ``who`` (-1: all players),
    uniform where no regret is positive. Inner loops run over hands (contiguous)."""
    H = regret.shape[1]
    zero = regret.dtype.type(0.0)  # a float64 literal would make single-precision loops double
    for n in range(kind.shape[0]):
        if kind[n] != DECISION or (who >= 0 and player[n] != who):
            continue
        f = first_child[n]
        m = num_children[n]
        for h in range(H):
            tmp[h] = 0.0
        for c in range(f, f + m):
            for h in range(H):
                tmp[h] += max(regret[c, h], zero)
        uniform = sigma.dtype.type(1.0 / m)
        for c in range(f, f + m):
            for h in range(H):
                t = tmp[h]
                sigma[c, h] = max(regret[c, h], zero) / t if t > zero else uniform


@nb.njit(cache=True, fastmath=FASTMATH)
def top_forward(tree, hands, reach0, reach1, rule, work, top_end, in_block, skip):
    """The roots' reaches (``reach0``, ``reach1``) and the forward pass over nodes
    0..top_end-1 (see forward); the caller values the leaves."""
    for h in range(hands.c1.shape[0]):
        work.reach[0, 0, h] = reach0[h]
        work.reach[1, 0, h] = reach1[h]
    forward(
        np.int64(0), top_end, np.int64(0), tree.kind, tree.player, tree.first_child, tree.num_children, tree.dealt,
        tree.slot, hands.c1, hands.c2, rule, work.reach, in_block, skip, work.tmp, np.int64(-1), work.cfv[:0],
    )  # fmt: skip


@nb.njit(cache=True, fastmath=FASTMATH)
def forward(
    lo, hi, base, kind, player, first_child, num_children, dealt, slot, c1, c2, rule, reach, in_block, skip, tmp,
    keep, kept,
):  # fmt: skip
    """Reaches below the nodes lo..hi-1 (parents come before children) under
    ``rule``'s current strategy; node n's row of ``reach`` is n - base. Nodes marked
    ``in_block`` (chance children whose block walk computes them) are left out, and
    so are their rows. So are the decisions of player ``skip`` (-1: none), whose
    rows are still current (see ``passes.run_cfr``). ``tmp``: a row of scratch. The
    regret-matched rows of player ``keep``'s decisions (-1: none) are also left in
    ``kept`` (row c - base for child c), for the backward pass (``backward_nodes``)."""
    for n in range(lo, hi):
        if in_block[n]:  # a chance child whose block's walk does it
            continue
        k = kind[n]
        if k == DECISION:
            if player[n] != skip:
                decision_reach(
                    n, slot[player[n], n] - base, base, player, first_child, num_children, rule, reach, c1.shape[0],
                    tmp, kept, player[n] == keep,
                )  # fmt: skip
        elif k == CHANCE:
            for c in range(first_child[n], first_child[n] + num_children[n]):
                if not in_block[c]:
                    dealt_reach(n, c, reach, base, reach, c - base, dealt, slot, c1, c2)


@nb.njit(cache=True, fastmath=FASTMATH)
def decision_reach(n, src, base, player, first_child, num_children, rule, reach, H, tmp, kept, keep):
    """The actor's reach at the children of decision node n (rows c - base) from its
    reach at n (row ``src``) under ``rule``'s current strategy, for the first H hands
    (``tmp``: scratch, its first H entries). ``keep`` (regret matching): the
    strategy's rows are also left in ``kept`` (rows c - base)."""
    p = player[n]
    f = first_child[n]
    m = num_children[n]
    if rule.regret_matching:
        _positive_totals(rule.regret, f, m, tmp, H)
        for c in range(f, f + m):
            if keep:
                _matched_row(rule.regret, c, m, tmp, kept[c - base], H)
                for h in range(H):
                    reach[p, c - base, h] = kept[c - base, h] * reach[p, src, h]
                continue
            _matched_row(rule.regret, c, m, tmp, reach[p, c - base], H)
            for h in range(H):
                reach[p, c - base, h] *= reach[p, src, h]
    else:
        sigma = rule.sigma
        for c in range(f, f + m):
            for h in range(H):
                reach[p, c - base, h] = reach[p, src, h] * sigma[c, h]


@nb.njit(cache=True, fastmath=FASTMATH)
def _matched_row(regret, c, m, totals, out, H):
    """``out[h]``: regret matching's probability of child c (of m) for hand h, given
    the children's positive totals (``_positive_totals``), the same bits as
    ``current_strategy``. Written to memory before it is used: an expression that
    used the quotient directly (a product with it) could be rounded otherwise under
    ``FASTMATH``'s reciprocal flag, which a stored strategy was not."""
    zero = regret.dtype.type(0.0)
    uniform = regret.dtype.type(1.0 / m)
    for h in range(H):
        t = totals[h]
        out[h] = max(regret[c, h], zero) / t if t > zero else uniform


@nb.njit(cache=True, fastmath=FASTMATH)
def _positive_totals(regret, f, m, tmp, H):
    """``tmp[h]``: the sum of the positive regrets of rows f..f+m-1, child by child
    (regret matching's denominator, summed as ``current_strategy`` sums it)."""
    zero = regret.dtype.type(0.0)
    for h in range(H):
        tmp[h] = 0.0
    for c in range(f, f + m):
        for h in range(H):
            tmp[h] += max(regret[c, h], zero)


@nb.njit(cache=True, fastmath=FASTMATH)
def dealt_reach(n, c, reach, base, out, row, dealt, slot, c1, c2):
    """Both players' reach at chance node n's child c (into ``row`` of ``out``): n's
    (rows slot - base of ``reach``), without the hands holding c's card."""
    H = c1.shape[0]
    d = dealt[c]
    for p in range(2):
        src = slot[p, n] - base
        for h in range(H):
            live = c1[h] != d and c2[h] != d
            out[p, row, h] = reach[p, src, h] if live else 0.0


@nb.njit(cache=True, fastmath=FASTMATH)
def backward(lo, hi, base, i, tree, hands, rule, work, in_block, in_order):
    """Values at the nodes hi-1..lo (see backward_nodes)."""
    kind, player, first_child, num_children, spent, dealt, board_of, chance_weight, slot = tree
    c1, c2, dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, payoff, at_parent = hands
    sigma, regret, avg, weight, update, best_response, regret_matching, discount = rule
    reach, cfv, tmp, qs = work
    backward_nodes(
        lo, hi, base, i, kind, player, first_child, num_children, spent, dealt, board_of, chance_weight, slot, c1, c2,
        dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, payoff, at_parent, sigma,
        regret, avg, weight, update, best_response, regret_matching, discount, reach, cfv, tmp, qs, in_block, in_order,
        cfv[:0],
    )  # fmt: skip


@nb.njit(cache=True, fastmath=FASTMATH)
def backward_nodes(
    lo, hi, base, i, kind, player, first_child, num_children, spent, dealt, board_of, chance_weight, slot, c1, c2, dup,
    orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, payoff, at_parent, sigma, regret, avg,
    weight, update, best_response, regret_matching, discount, reach, cfv, tmp, qs, in_block, in_order, kept,
):  # fmt: skip
    """Values at the nodes hi-1..lo (children before parents), with CFR+ updates; node
    n's rows of ``reach`` and ``cfv`` are n - base, over the hands of ``c1`` (in the
    showdowns' board order if ``in_order``: see ``block_pass._walk_block``). Nodes marked
    ``in_block`` are left out (see forward). ``kept`` with rows: the current strategy of
    i's decisions is read from it (rows c - base), as the forward pass left it."""
    H = c1.shape[0]
    o = 1 - i
    for n in range(hi - 1, lo - 1, -1):
        if in_block[n]:  # a chance child: its block's walk computed it
            continue
        k = kind[n]
        if k == LEAF:  # leaf_pass.leaf_values computed it
            continue
        if k == FOLD_TERMINAL:
            if at_parent[n]:
                continue
            compat_sums(reach[o, slot[o, n] - base], c1, c2, dup, tmp)
            folder = player[n]
            v = spent[n, folder] * (-1.0 if folder == i else 1.0)
            for h in range(H):
                cfv[n - base, h] = v * tmp[h]
        elif k == MATRIX_TERMINAL:  # explicit games: payoff[n, c, h] to player 0
            q = reach[o, slot[o, n] - base]
            for h in range(H):
                v = 0.0
                for j in range(H):
                    v += (payoff[n, h, j] if i == 0 else -payoff[n, j, h]) * q[j]
                cfv[n - base, h] = v
        elif k == SHOWDOWN:
            if at_parent[n]:
                continue
            showdown_node(
                n, reach[o, slot[o, n] - base], cfv[n - base], spent, board_of, dup, orders, c1s, c2s, ladder,
                board_start, board_len, board_rows, board_identity, qs, tmp, in_order,
            )  # fmt: skip
        elif k == CHANCE:
            chance_values(
                n, n - base, base, np.int64(0), H, first_child, num_children, dealt, chance_weight, c1, c2, cfv
            )  # fmt: skip
        else:
            terminal_children(
                n, base, i, kind, player, first_child, num_children, spent, board_of, slot, c1, c2, dup, orders, c1s,
                c2s, ladder, board_start, board_len, board_rows, board_identity, at_parent, reach, cfv, tmp, qs,
                in_order,
            )  # fmt: skip
            decision_values(
                n, n - base, slot[i, n] - base, base, i, player, first_child, num_children, sigma, regret, avg, weight,
                update, best_response, regret_matching, discount, reach, cfv, tmp, qs, H, kept,
            )  # fmt: skip


@nb.njit(cache=True, fastmath=FASTMATH)
def chance_values(n, row, base, lo, hi, first_child, num_children, dealt, chance_weight, c1, c2, cfv):
    """Values at chance node n (into ``row``) of hands lo..hi-1: its children's (rows
    c - base) averaged over the cards each hand allows. Each hand's sum runs over the
    children in order, whatever the range: the same bits however the hands are cut."""
    f = first_child[n]
    zero = cfv.dtype.type(0.0)  # adding it leaves a sum's bits as skipping would, and lets the loop vectorise
    for h in range(lo, hi):
        cfv[row, h] = zero
    for c in range(f, f + num_children[n]):
        d = dealt[c]
        for h in range(lo, hi):
            cfv[row, h] += cfv[c - base, h] if c1[h] != d and c2[h] != d else zero
    for h in range(lo, hi):
        cfv[row, h] *= chance_weight[n]


@nb.njit(cache=True, fastmath=FASTMATH)
def decision_values(
    n, row, me, base, i, player, first_child, num_children, sigma, regret, avg, weight, update, best_response,
    regret_matching, discount, reach, cfv, tmp, scratch, H, kept,
):  # fmt: skip
    """Values at decision node n (into ``row`` of ``cfv``) from its children's (rows
    c - base), with the CFR+ update at player i's nodes (``me``: i's reach row at n),
    for the first H hands; the current strategy as ``PassRule`` says
    (``regret_matching``: from ``regret``, else ``sigma``; ``kept`` with rows: regret
    matching's rows as ``forward`` kept them). ``tmp``, ``scratch``: rows of at least H."""
    f = first_child[n]
    m = num_children[n]
    if player[n] != i:
        for h in range(H):
            cfv[row, h] = 0.0
        for c in range(f, f + m):
            for h in range(H):
                cfv[row, h] += cfv[c - base, h]
    elif best_response:
        for h in range(H):
            cfv[row, h] = cfv[f - base, h]
        for c in range(f + 1, f + m):
            for h in range(H):
                cfv[row, h] = max(cfv[row, h], cfv[c - base, h])
    elif regret_matching:
        _matched_values(
            f, m, row, me, base, i, regret, avg, weight, update, discount, reach, cfv, tmp, scratch, H, kept
        )
    else:
        for h in range(H):
            cfv[row, h] = 0.0
        for c in range(f, f + m):
            for h in range(H):
                cfv[row, h] += sigma[c, h] * cfv[c - base, h]
        if update:
            # the next strategy here too, while the rows are in cache (what
            # _strategy would compute before the other player's pass)
            # in the arrays' own precision: a float64 weight or literal would make
            # these loops double (about 2x slower in single precision)
            zero = regret.dtype.type(0.0)
            w = avg.dtype.type(weight)
            for h in range(H):
                tmp[h] = 0.0
            for c in range(f, f + m):
                for h in range(H):
                    r = regret[c, h] + cfv[c - base, h] - cfv[row, h]
                    r = r if r > zero else zero
                    regret[c, h] = r
                    avg[c, h] += w * reach[i, me, h] * sigma[c, h]
                    tmp[h] += r  # as _strategy: the same rounding
            uniform = sigma.dtype.type(1.0 / m)
            for c in range(f, f + m):
                for h in range(H):
                    t = tmp[h]
                    sigma[c, h] = regret[c, h] / t if t > zero else uniform


@nb.njit(cache=True, fastmath=FASTMATH)
def _matched_values(f, m, row, me, base, i, regret, avg, weight, update, discount, reach, cfv, tmp, scratch, H, kept):
    """``decision_values`` at one of player i's decisions (children f..f+m-1) playing
    regret matching on ``regret``: each child's probabilities made into a row of
    ``scratch`` while the rows are in cache (or, where ``kept`` has rows, read from
    its row c - base, where the forward pass left them), used for the values and the
    average, then (``update``) the regrets: CFR+'s, or discounted as ``discount`` says
    (``PassRule``). No strategy is stored in the tree: the arrays a pass streams are
    the regrets and the average."""
    zero = regret.dtype.type(0.0)
    w = avg.dtype.type(weight)  # the arrays' own precision (see decision_values)
    use_kept = kept.shape[0] > 0
    if not use_kept:
        _positive_totals(regret, f, m, tmp, H)
    for h in range(H):
        cfv[row, h] = 0.0
    for c in range(f, f + m):
        if use_kept:
            sr = kept[c - base]
        else:
            sr = scratch
            _matched_row(regret, c, m, tmp, sr, H)
        for h in range(H):
            cfv[row, h] += sr[h] * cfv[c - base, h]
        if update:
            for h in range(H):
                avg[c, h] += w * reach[i, me, h] * sr[h]
    if update and discount[2] == 1.0 and discount[0] == 1.0 and discount[1] == 1.0:
        for c in range(f, f + m):
            for h in range(H):
                r = regret[c, h] + cfv[c - base, h] - cfv[row, h]
                regret[c, h] = r if r > zero else zero
    elif update:
        up = regret.dtype.type(discount[0])
        down = regret.dtype.type(discount[1])
        floor = discount[2] == 1.0
        for c in range(f, f + m):
            for h in range(H):
                r = regret[c, h]
                r = (r * up if r > zero else r * down) + cfv[c - base, h] - cfv[row, h]
                regret[c, h] = r if r > zero or not floor else zero
