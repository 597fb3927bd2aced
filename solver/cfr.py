"""Vector-form CFR+ over a public tree, for all hands of both players at once.

One iteration updates each player in turn (alternating updates): a forward pass over
the tree carries the opponent's reach (and the player's own, for the average
strategy), a backward pass computes counterfactual values per hand, updates regrets
with regret matching+ (negative regrets floored at zero) and accumulates the
linearly weighted average strategy. Terminal values cost O(hands): folds use per-card
reach totals for card removal; showdowns a few passes over the hands sorted by
strength and a small table of per-card totals by tie group (see ``_showdown``).

Values are chips won over the whole hand (as the dealer pays), counterfactual: for a
hand h of player i, the sum over opponent hands j compatible with h of the opponent's
reach of j times i's payoff (averaged over the cards still to come at chance nodes).
Trees come from ``solver.tree``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TypeAlias

import numba as nb
import numpy as np

from pokerbot.protocol.betting import BettingState

from . import ranges as rg
from .tree import CHANCE, DECISION, FOLD_TERMINAL, MATRIX_TERMINAL, SHOWDOWN, BetSizes, PublicTree, build_tree

NUM_CARDS = 52
#: Cards and hand positions used as gather indices are unsigned: numba then emits no
#: negative-index wraparound for them (measured 1.7x faster on the terminal sweeps).
CARD_DTYPE = np.uint8
INDEX_DTYPE = np.uint32
#: Solves keep regrets, strategies, reaches and values in single precision: it halves
#: the working set (the river reference tree then fits in a core's L2 cache, about 2.8x
#: faster per node); sums over hands in the terminal sweeps stay in double. Exact
#: evaluations (best response, exploitability, node values) run in double.
SOLVE_DTYPE = np.float32
#: LLVM's fast-math flags for the kernels, without reassociation and contraction (fused
#: multiply-add): with those, the rounding of a solve depended on how the kernels were
#: compiled (inlined fresh in this process, or loaded from numba's cache), and a solver
#: pool's worker and its parent gave different strategies for the same job. Without
#: them solves are the same bit for bit however compiled, at the same speed.
FASTMATH = {"nnan", "ninf", "nsz", "arcp", "afn"}
#: Card index of the missing second card of one-card hands: its totals stay zero.
NO_CARD = rg.NO_CARD  # NUM_CARDS: per-card totals have NUM_CARDS + 1 entries
#: Columns of the showdown sweep's card table (see ``ranges.ladder``).
LADDER_WIDTH = rg.LADDER_WIDTH


@nb.njit(cache=True, fastmath=FASTMATH)
def _card_totals(q, c1, c2, card):
    """card[c] += the reach q of the hands holding card c (NO_CARD left at 0); returns
    the total reach. Hands with no reach are skipped (CFR+ leaves many). Over the
    hands of ``c1`` (a row may be longer: see _walk_block)."""
    total = 0.0
    for j in range(c1.shape[0]):
        x = q[j]
        if x != 0.0:
            total += x
            card[c1[j]] += x
            card[c2[j]] += x
    card[NO_CARD] = 0.0
    return total


@nb.njit(cache=True, fastmath=FASTMATH)
def compat_sums(q, c1, c2, dup, out):
    """out[h] = sum of q over hands sharing no card with hand h. Two-card hands
    (dup = 1) subtract h itself twice through the card totals and add it back once."""
    card = np.zeros(NUM_CARDS + 1)
    total = _card_totals(q, c1, c2, card)
    for h in range(c1.shape[0]):
        out[h] = total - card[c1[h]] - card[c2[h]] + dup * q[h]


#: What a showdown sweep also computes for a fold terminal beside it (see _showdown).
NO_FOLD, FOLD_SAME_REACH, FOLD_OTHER_REACH = 0, 1, 2


@nb.njit(cache=True, fastmath=FASTMATH)
def _showdown(q, dup, order, c1s, c2s, ladder, rows, identity, stake, qs, out, fold_mode, y, fold_value, ys, fold_out):
    """out[h] = stake * (reach of compatible weaker hands - of stronger ones), for
    the hands in ``order`` (weakest first, their cards ``c1s``/``c2s``; ``ladder``
    their tie groups, then their first and their second card-table slots, ``rows``
    the table's rows: see ``ranges.ladder``); hands not in it (dead on this board)
    get 0.

    For a hand h (cards c1, c2) of tie group g, let R[c] be the reach of the hands
    below g holding card c and R* their total reach; G, G* the same for group g and
    F, F* for all hands. Inclusion-exclusion gives weaker = R* - R[c1] - R[c2] and
    stronger = (F* - R* - G*) - (F - R - G)[c1] - (F - R - G)[c2], so the value is
    K - D[c1] - D[c2] with D = 2R + G - F and K = 2R* + G* - F*. D is kept per
    group only for the cards the group holds: column c of the card table lists the
    groups holding c, weakest first, so one pass adds each hand's reach into its
    two slots (G), a pass down the columns turns them into D (the running total is
    R; vector operations over the 64 columns), and each hand's value then reads its
    two slots and its group's K. K comes from the running total of the reach at
    each group's end. No branch depends on the tie groups' sizes (an earlier sweep
    over the groups lost about half its time to mispredicted group ends). The table
    is in the arrays' precision (single in a solve), the running total in double.

    The reach is gathered into strength order (in ``qs``) unless the order is the
    identity (a river spot: hands stored weakest first); the table lives at the end
    of ``qs`` (see ``_Work``). A fold terminal under the same decision node is
    evaluated in the same call: fold_out[h] = fold_value * (compatible reach of
    ``y``), where y is ``q`` itself (FOLD_SAME_REACH: from F and F*) or another
    reach (FOLD_OTHER_REACH: its card totals are summed apart); NO_FOLD leaves
    fold_out alone."""
    n = order.shape[0]
    W = LADDER_WIDTH
    zero = qs.dtype.type(0.0)
    table = qs[qs.shape[0] - (rows * W + n + 2 * W) :]
    at_end = table[rows * W :]  # per group: the running reach total at its end, then K
    F = table[rows * W + n :]
    R = F[W:]
    if identity:
        x_ = q
        ys = y
    else:
        for t in range(n):
            qs[t] = q[order[t]]
        x_ = qs
        if fold_mode == FOLD_OTHER_REACH:
            for t in range(n):
                ys[t] = y[order[t]]
        for h in range(out.shape[0]):  # dead hands
            out[h] = 0.0
        if fold_mode != NO_FOLD:
            for h in range(fold_out.shape[0]):
                fold_out[h] = 0.0
    if n == 0:
        return
    gid = ladder[:n]  # three contiguous runs (a 2-D slice's strides cost about 15 %)
    s1 = ladder[n : 2 * n]
    s2 = ladder[2 * n :]
    for j in range(rows * W):
        table[j] = zero
    total = 0.0
    for t in range(n):
        x = x_[t]
        if x != zero:  # hands with no reach come in runs: the branch predicts well
            table[s1[t]] += x
            table[s2[t]] += x
            total += x
        at_end[gid[t]] = total  # the last hand of a group leaves the group's end total
    for c in range(W):
        F[c] = zero
        R[c] = zero
    for k in range(rows):
        for c in range(W):
            F[c] += table[k * W + c]
    for k in range(rows):
        for c in range(W):
            g = table[k * W + c]
            r = R[c]
            table[k * W + c] = r + r + g - F[c]
            R[c] = r + g
    for k in range(rows):
        table[k * W + NO_CARD] = zero
    F[NO_CARD] = zero
    groups = np.int64(gid[n - 1]) + 1
    F_all = at_end[groups - 1]
    below = zero
    for g in range(groups):  # K = R* + (R* + G*) - F*
        end = at_end[g]
        at_end[g] = below + end - F_all
        below = end
    st = qs.dtype.type(stake)
    if fold_mode == FOLD_SAME_REACH:  # both in one loop, in the arrays' precision
        fv = qs.dtype.type(fold_value)
        dp = qs.dtype.type(dup)
        if identity:
            for t in range(n):
                a = s1[t]
                b = s2[t]
                out[t] = st * (at_end[gid[t]] - table[a] - table[b])
                fold_out[t] = fv * (dp * x_[t] + F_all - F[a & (W - 1)] - F[b & (W - 1)])
        else:
            for t in range(n):
                a = s1[t]
                b = s2[t]
                out[order[t]] = st * (at_end[gid[t]] - table[a] - table[b])
                fold_out[order[t]] = fv * (dp * x_[t] + F_all - F[a & (W - 1)] - F[b & (W - 1)])
        return
    if fold_mode == FOLD_OTHER_REACH:
        ycard = np.zeros(NUM_CARDS + 1)
        ytotal = _card_totals(ys[:n], c1s, c2s, ycard)
        for t in range(n):
            v = fold_value * (ytotal - ycard[c1s[t]] - ycard[c2s[t]] + dup * ys[t])
            if identity:
                fold_out[t] = v
            else:
                fold_out[order[t]] = v
    if identity:
        for t in range(n):
            out[t] = st * (at_end[gid[t]] - table[s1[t]] - table[s2[t]])
    else:
        for t in range(n):
            out[order[t]] = st * (at_end[gid[t]] - table[s1[t]] - table[s2[t]])


def showdown_scratch(sub: Subgame) -> int:
    """Extra entries of the ``qs`` scratch row that ``_showdown`` keeps its card
    table in (see ``_Work``)."""
    rows = int(sub.board_rows.max()) if len(sub.board_rows) else 0
    longest = int(sub.board_len.max()) if len(sub.board_len) else 0
    return rows * LADDER_WIDTH + longest + 2 * LADDER_WIDTH


@nb.njit(cache=True, fastmath=FASTMATH)
def _showdown_node(
    n,
    q,
    out,
    spent,
    board_of,
    dup,
    orders,
    c1s,
    c2s,
    ladder,
    board_start,
    board_len,
    board_rows,
    board_identity,
    qs,
    tmp,
    in_order,
):
    """out = the values of showdown node n against the opponent's reach ``q`` (its
    stake, on its board's hand order; ``in_order``: rows are already in that order,
    see _walk_block)."""
    b = board_of[n]
    s0 = board_start[b]
    e0 = s0 + board_len[b]
    _showdown(
        q,
        dup,
        orders[s0:e0],
        c1s[s0:e0],
        c2s[s0:e0],
        ladder[3 * s0 : 3 * e0],
        board_rows[b],
        board_identity[b] or in_order,
        min(spent[n, 0], spent[n, 1]),
        qs,
        out,
        NO_FOLD,
        tmp,
        0.0,
        tmp,
        tmp,
    )


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
def _traverse(
    i,
    kind,
    player,
    first_child,
    num_children,
    spent,
    dealt,
    board_of,
    chance_weight,
    slot,
    c1,
    c2,
    dup,
    orders,
    c1s,
    c2s,
    ladder,
    board_start,
    board_len,
    board_rows,
    board_identity,
    payoff,
    at_parent,
    reach0,
    reach1,
    sigma,
    regret,
    avg,
    weight,
    update,
    best_response,
    reach,
    cfv,
    tmp,
    qs,
):
    """One pass for player i. ``reach[p, s]`` is player p's reach at the nodes whose
    slot[p] is s (it changes only below p's own decisions and chance nodes). update:
    CFR+ regret and average updates (and the next strategy at i's nodes);
    best_response: the best action per hand at i's nodes. A chance child removes the
    hands holding its card (reach and value 0)."""
    n_nodes = kind.shape[0]
    H = c1.shape[0]
    for h in range(H):
        reach[0, 0, h] = reach0[h]
        reach[1, 0, h] = reach1[h]
    none = np.zeros(n_nodes, dtype=np.bool_)
    _forward(0, n_nodes, 0, kind, player, first_child, num_children, dealt, slot, c1, c2, sigma, reach, none, -1)
    _backward(
        0,
        n_nodes,
        0,
        i,
        kind,
        player,
        first_child,
        num_children,
        spent,
        dealt,
        board_of,
        chance_weight,
        slot,
        c1,
        c2,
        dup,
        orders,
        c1s,
        c2s,
        ladder,
        board_start,
        board_len,
        board_rows,
        board_identity,
        payoff,
        at_parent,
        sigma,
        regret,
        avg,
        weight,
        update,
        best_response,
        reach,
        cfv,
        tmp,
        qs,
        none,
        False,
    )


@nb.njit(cache=True, fastmath=FASTMATH)
def _walk_block(
    lo,
    hi,
    parent,
    chance,
    i,
    kind,
    player,
    first_child,
    num_children,
    spent,
    dealt,
    board_of,
    chance_weight,
    slot,
    local_slot,
    c1,
    c2,
    dup,
    orders,
    c1s,
    c2s,
    ladder,
    board_start,
    board_len,
    board_rows,
    board_identity,
    payoff,
    at_parent,
    sigma,
    regret,
    avg,
    weight,
    update,
    best_response,
    reach,
    cfv,
    block_reach,
    block_cfv,
    tmp,
    qs,
    in_block,
    board,
):
    """One block: the chance child ``parent`` of chance node ``chance`` and the
    subtree below it (nodes lo..hi-1), forward and then backward, back to back, in
    small block-local arrays that stay in cache (``block_reach``, ``block_cfv``: row 0
    is ``parent``, row m - lo + 1 block node m; ``local_slot`` the reach slots in
    those terms) instead of rows of the tree-wide arrays, which a pass over a big
    tree streams through memory. In: the chance node's reach (the top pass made it);
    out: the parent's values (the top pass reads them). The parent's own work is done
    here too, so that in parallel it runs on the block's thread.

    ``board`` >= 0: every showdown of the block is on that board, and the block's
    rows (block-local reaches and values, and the block nodes' rows of ``sigma``,
    ``regret`` and ``avg``) hold its live hands in its strength order, in their
    first ``board_len[board]`` columns: the reach is gathered into that order once
    here and the parent's values scattered back, instead of at every showdown of the
    block (see ``Subgame.block_board``, ``to_hand_order``)."""
    H = c1.shape[0]
    base = lo - 1
    if kind[parent] == SHOWDOWN:  # both all in before this card: nothing below
        # straight from the chance node's reach: the board's order leaves out the
        # hands holding the dealt card, and their values come out 0
        _showdown_node(
            parent,
            reach[1 - i, slot[1 - i, chance]],
            cfv[parent],
            spent,
            board_of,
            dup,
            orders,
            c1s,
            c2s,
            ladder,
            board_start,
            board_len,
            board_rows,
            board_identity,
            qs,
            tmp,
            False,
        )
        return
    in_order = board >= 0
    if in_order:
        s0 = board_start[board]
        e0 = s0 + board_len[board]
        perm = orders[s0:e0]
        hc1 = c1s[s0:e0]
        hc2 = c2s[s0:e0]
        for p in range(2):
            src = slot[p, chance]
            for t in range(e0 - s0):
                block_reach[p, 0, t] = reach[p, src, perm[t]]
    else:
        perm = orders[0:0]
        hc1 = c1
        hc2 = c2
        _dealt_reach(chance, parent, reach, 0, block_reach, 0, dealt, slot, c1, c2)
    Hb = hc1.shape[0]
    f = first_child[parent]
    if kind[parent] == DECISION:
        _decision_reach(parent, 0, base, player, first_child, num_children, sigma, block_reach, Hb)
    else:  # a chance node right below a chance node (both players all in); never in order
        for c in range(f, f + num_children[parent]):
            _dealt_reach(parent, c, block_reach, base, block_reach, c - base, dealt, local_slot, c1, c2)
    _forward(
        lo,
        hi,
        base,
        kind,
        player,
        first_child,
        num_children,
        dealt,
        local_slot,
        hc1,
        hc2,
        sigma,
        block_reach,
        in_block,
        -1,
    )
    _backward(
        lo,
        hi,
        base,
        i,
        kind,
        player,
        first_child,
        num_children,
        spent,
        dealt,
        board_of,
        chance_weight,
        local_slot,
        hc1,
        hc2,
        dup,
        orders,
        c1s,
        c2s,
        ladder,
        board_start,
        board_len,
        board_rows,
        board_identity,
        payoff,
        at_parent,
        sigma,
        regret,
        avg,
        weight,
        update,
        best_response,
        block_reach,
        block_cfv,
        tmp,
        qs,
        in_block,
        in_order,
    )
    if kind[parent] == DECISION:
        _terminal_children(
            parent,
            base,
            i,
            kind,
            player,
            first_child,
            num_children,
            spent,
            board_of,
            local_slot,
            hc1,
            hc2,
            dup,
            orders,
            c1s,
            c2s,
            ladder,
            board_start,
            board_len,
            board_rows,
            board_identity,
            at_parent,
            block_reach,
            block_cfv,
            tmp,
            qs,
            in_order,
        )
        _decision_values(
            parent,
            0,
            0,
            base,
            i,
            player,
            first_child,
            num_children,
            sigma,
            regret,
            avg,
            weight,
            update,
            best_response,
            block_reach,
            block_cfv,
            tmp,
            Hb,
        )
    else:
        _chance_values(parent, 0, base, first_child, num_children, dealt, chance_weight, c1, c2, block_cfv)
    if in_order:
        for h in range(H):  # the hands holding the dealt card
            cfv[parent, h] = 0.0
        for t in range(Hb):
            cfv[parent, perm[t]] = block_cfv[0, t]
    else:
        for h in range(H):
            cfv[parent, h] = block_cfv[0, h]


@nb.njit(cache=True, fastmath=FASTMATH)
def _traverse_by_block(
    i,
    kind,
    player,
    first_child,
    num_children,
    spent,
    dealt,
    board_of,
    chance_weight,
    slot,
    c1,
    c2,
    dup,
    orders,
    c1s,
    c2s,
    ladder,
    board_start,
    board_len,
    board_rows,
    board_identity,
    payoff,
    at_parent,
    reach0,
    reach1,
    sigma,
    regret,
    avg,
    weight,
    update,
    best_response,
    reach,
    cfv,
    tmp,
    qs,
    top_end,
    blocks,
    block_parent,
    block_chance,
    in_block,
    local_slot,
    block_board,
    block_reach,
    block_cfv,
    skip,
):
    """``_traverse`` block by block: the nodes above the blocks forward, each block
    forward then backward (``_walk_block``, in ``block_reach[0]`` and
    ``block_cfv[0]``), then the top backward. The same values as ``_traverse`` (blocks
    are independent and each node's arithmetic is unchanged)."""
    H = c1.shape[0]
    for h in range(H):
        reach[0, 0, h] = reach0[h]
        reach[1, 0, h] = reach1[h]
    if blocks.shape[0] == 0:
        top_end = kind.shape[0]
    _forward(0, top_end, 0, kind, player, first_child, num_children, dealt, slot, c1, c2, sigma, reach, in_block, skip)
    for b in range(blocks.shape[0]):
        _walk_block(
            blocks[b, 0],
            blocks[b, 1],
            block_parent[b],
            block_chance[b],
            i,
            kind,
            player,
            first_child,
            num_children,
            spent,
            dealt,
            board_of,
            chance_weight,
            slot,
            local_slot,
            c1,
            c2,
            dup,
            orders,
            c1s,
            c2s,
            ladder,
            board_start,
            board_len,
            board_rows,
            board_identity,
            payoff,
            at_parent,
            sigma,
            regret,
            avg,
            weight,
            update,
            best_response,
            reach,
            cfv,
            block_reach[0],
            block_cfv[0],
            tmp,
            qs,
            in_block,
            block_board[b],
        )
    _backward(
        0,
        top_end,
        0,
        i,
        kind,
        player,
        first_child,
        num_children,
        spent,
        dealt,
        board_of,
        chance_weight,
        slot,
        c1,
        c2,
        dup,
        orders,
        c1s,
        c2s,
        ladder,
        board_start,
        board_len,
        board_rows,
        board_identity,
        payoff,
        at_parent,
        sigma,
        regret,
        avg,
        weight,
        update,
        best_response,
        reach,
        cfv,
        tmp,
        qs,
        in_block,
        False,
    )


@nb.njit(cache=True, parallel=True)
def _traverse_blocks(
    i,
    kind,
    player,
    first_child,
    num_children,
    spent,
    dealt,
    board_of,
    chance_weight,
    slot,
    c1,
    c2,
    dup,
    orders,
    c1s,
    c2s,
    ladder,
    board_start,
    board_len,
    board_rows,
    board_identity,
    payoff,
    at_parent,
    reach0,
    reach1,
    sigma,
    regret,
    avg,
    weight,
    update,
    best_response,
    reach,
    cfv,
    tmp,
    qs,
    top_end,
    blocks,
    block_parent,
    block_chance,
    in_block,
    local_slot,
    block_board,
    block_reach,
    block_cfv,
    skip,
):
    """``_traverse_by_block`` with the blocks walked in parallel: share t of
    ``block_reach.shape[0]`` takes blocks t, t + T, t + 2T, ... (neighbouring blocks
    are alike in size, so strided shares balance; contiguous halves did not), in its
    own block-local arrays (``block_reach[t]``, ``block_cfv[t]``)."""
    H = c1.shape[0]
    for h in range(H):
        reach[0, 0, h] = reach0[h]
        reach[1, 0, h] = reach1[h]
    _forward(0, top_end, 0, kind, player, first_child, num_children, dealt, slot, c1, c2, sigma, reach, in_block, skip)
    T = block_reach.shape[0]
    for t in nb.prange(T):
        t_tmp = np.empty_like(tmp)
        t_qs = np.empty_like(qs)
        for b in range(t, blocks.shape[0], T):
            _walk_block(
                blocks[b, 0],
                blocks[b, 1],
                block_parent[b],
                block_chance[b],
                i,
                kind,
                player,
                first_child,
                num_children,
                spent,
                dealt,
                board_of,
                chance_weight,
                slot,
                local_slot,
                c1,
                c2,
                dup,
                orders,
                c1s,
                c2s,
                ladder,
                board_start,
                board_len,
                board_rows,
                board_identity,
                payoff,
                at_parent,
                sigma,
                regret,
                avg,
                weight,
                update,
                best_response,
                reach,
                cfv,
                block_reach[t],
                block_cfv[t],
                t_tmp,
                t_qs,
                in_block,
                block_board[b],
            )
    _backward(
        0,
        top_end,
        0,
        i,
        kind,
        player,
        first_child,
        num_children,
        spent,
        dealt,
        board_of,
        chance_weight,
        slot,
        c1,
        c2,
        dup,
        orders,
        c1s,
        c2s,
        ladder,
        board_start,
        board_len,
        board_rows,
        board_identity,
        payoff,
        at_parent,
        sigma,
        regret,
        avg,
        weight,
        update,
        best_response,
        reach,
        cfv,
        tmp,
        qs,
        in_block,
        False,
    )


@nb.njit(cache=True, fastmath=FASTMATH)
def _forward(lo, hi, base, kind, player, first_child, num_children, dealt, slot, c1, c2, sigma, reach, in_block, skip):
    """Reaches below the nodes lo..hi-1 (parents come before children); node n's
    row of ``reach`` is n - base. Nodes marked ``in_block`` (chance children whose
    block walk computes them) are left out, and so are their rows. So are the
    decisions of player ``skip`` (-1: none), whose rows are still current (see
    _run_cfr)."""
    for n in range(lo, hi):
        if in_block[n]:  # a chance child whose block's walk does it
            continue
        k = kind[n]
        if k == DECISION:
            if player[n] != skip:
                _decision_reach(
                    n, slot[player[n], n] - base, base, player, first_child, num_children, sigma, reach, c1.shape[0]
                )
        elif k == CHANCE:
            for c in range(first_child[n], first_child[n] + num_children[n]):
                if not in_block[c]:
                    _dealt_reach(n, c, reach, base, reach, c - base, dealt, slot, c1, c2)


@nb.njit(cache=True, fastmath=FASTMATH)
def _decision_reach(n, src, base, player, first_child, num_children, sigma, reach, H):
    """The actor's reach at the children of decision node n (rows c - base) from its
    reach at n (row ``src``), for the first H hands."""
    p = player[n]
    for c in range(first_child[n], first_child[n] + num_children[n]):
        for h in range(H):
            reach[p, c - base, h] = reach[p, src, h] * sigma[c, h]


@nb.njit(cache=True, fastmath=FASTMATH)
def _dealt_reach(n, c, reach, base, out, row, dealt, slot, c1, c2):
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
def _terminal_children(
    n,
    base,
    i,
    kind,
    player,
    first_child,
    num_children,
    spent,
    board_of,
    slot,
    c1,
    c2,
    dup,
    orders,
    c1s,
    c2s,
    ladder,
    board_start,
    board_len,
    board_rows,
    board_identity,
    at_parent,
    reach,
    cfv,
    tmp,
    qs,
    in_order,
):
    """Values of the showdown and fold children of decision node n (those marked
    ``at_parent``) in one sweep: the fold's compatible totals come out of the
    showdown's (the same opponent reach when i acts at n, else alongside). Node m's rows
    of ``reach`` and ``cfv`` are m - base; their hands are those of ``c1``, in the
    showdown board's strength order if ``in_order`` (see _walk_block)."""
    o = 1 - i
    H = c1.shape[0]
    sd = -1
    fd = -1
    for c in range(first_child[n], first_child[n] + num_children[n]):
        if at_parent[c]:
            if kind[c] == SHOWDOWN:
                sd = c
            else:
                fd = c
    fold_value = 0.0
    if fd >= 0:
        folder = player[fd]
        fold_value = spent[fd, folder] * (-1.0 if folder == i else 1.0)
        if not _any_nonzero(reach[o, slot[o, fd] - base], H):  # the opponent never gets here (common under CFR+)
            _zero_row(cfv, fd - base, H)
            fd = -1
    if sd >= 0 and not _any_nonzero(reach[o, slot[o, sd] - base], H):
        _zero_row(cfv, sd - base, H)
        sd = -1
    if sd >= 0:
        stake = min(spent[sd, 0], spent[sd, 1])
        b = board_of[sd]
        s0 = board_start[b]
        e0 = s0 + board_len[b]
        q = reach[o, slot[o, sd] - base]
        if fd < 0:
            _showdown(
                q,
                dup,
                orders[s0:e0],
                c1s[s0:e0],
                c2s[s0:e0],
                ladder[3 * s0 : 3 * e0],
                board_rows[b],
                board_identity[b] or in_order,
                stake,
                qs,
                cfv[sd - base],
                NO_FOLD,
                q,
                0.0,
                tmp,
                tmp,
            )
        else:
            mode = FOLD_SAME_REACH if slot[o, sd] == slot[o, fd] else FOLD_OTHER_REACH
            _showdown(
                q,
                dup,
                orders[s0:e0],
                c1s[s0:e0],
                c2s[s0:e0],
                ladder[3 * s0 : 3 * e0],
                board_rows[b],
                board_identity[b] or in_order,
                stake,
                qs,
                cfv[sd - base],
                mode,
                reach[o, slot[o, fd] - base],
                fold_value,
                tmp,
                cfv[fd - base],
            )
    elif fd >= 0:
        compat_sums(reach[o, slot[o, fd] - base], c1, c2, dup, tmp)
        for h in range(H):
            cfv[fd - base, h] = fold_value * tmp[h]


@nb.njit(cache=True)
def _any_nonzero(q, n):
    """Whether any of the first n hands has reach. Scans from the end: river hands are
    stored weakest first (and a block's in its board's strength order), and the strong
    end of a reach is rarely empty where the weak end is (at the reference river's
    showdowns, CFR+ leaves the first nonzero about 500 hands from the start and 25-30
    from the end)."""
    for h in range(n - 1, -1, -1):
        if q[h] != 0.0:
            return True
    return False


@nb.njit(cache=True)
def _zero_row(a, r, n):
    for h in range(n):
        a[r, h] = 0.0


@nb.njit(cache=True, fastmath=FASTMATH)
def _backward(
    lo,
    hi,
    base,
    i,
    kind,
    player,
    first_child,
    num_children,
    spent,
    dealt,
    board_of,
    chance_weight,
    slot,
    c1,
    c2,
    dup,
    orders,
    c1s,
    c2s,
    ladder,
    board_start,
    board_len,
    board_rows,
    board_identity,
    payoff,
    at_parent,
    sigma,
    regret,
    avg,
    weight,
    update,
    best_response,
    reach,
    cfv,
    tmp,
    qs,
    in_block,
    in_order,
):
    """Values at the nodes hi-1..lo (children before parents), with CFR+ updates; node
    n's rows of ``reach`` and ``cfv`` are n - base, over the hands of ``c1`` (in the
    showdowns' board order if ``in_order``: see _walk_block). Nodes marked
    ``in_block`` are left out (see _forward)."""
    H = c1.shape[0]
    o = 1 - i
    for n in range(hi - 1, lo - 1, -1):
        if in_block[n]:  # a chance child: its block's walk computed it
            continue
        k = kind[n]
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
            _showdown_node(
                n,
                reach[o, slot[o, n] - base],
                cfv[n - base],
                spent,
                board_of,
                dup,
                orders,
                c1s,
                c2s,
                ladder,
                board_start,
                board_len,
                board_rows,
                board_identity,
                qs,
                tmp,
                in_order,
            )
        elif k == CHANCE:
            _chance_values(n, n - base, base, first_child, num_children, dealt, chance_weight, c1, c2, cfv)
        else:
            _terminal_children(
                n,
                base,
                i,
                kind,
                player,
                first_child,
                num_children,
                spent,
                board_of,
                slot,
                c1,
                c2,
                dup,
                orders,
                c1s,
                c2s,
                ladder,
                board_start,
                board_len,
                board_rows,
                board_identity,
                at_parent,
                reach,
                cfv,
                tmp,
                qs,
                in_order,
            )
            _decision_values(
                n,
                n - base,
                slot[i, n] - base,
                base,
                i,
                player,
                first_child,
                num_children,
                sigma,
                regret,
                avg,
                weight,
                update,
                best_response,
                reach,
                cfv,
                tmp,
                H,
            )


@nb.njit(cache=True, fastmath=FASTMATH)
def _chance_values(n, row, base, first_child, num_children, dealt, chance_weight, c1, c2, cfv):
    """Values at chance node n (into ``row``): its children's (rows c - base)
    averaged over the cards each hand allows."""
    H = c1.shape[0]
    f = first_child[n]
    for h in range(H):
        cfv[row, h] = 0.0
    for c in range(f, f + num_children[n]):
        d = dealt[c]
        for h in range(H):
            if c1[h] != d and c2[h] != d:
                cfv[row, h] += cfv[c - base, h]
    for h in range(H):
        cfv[row, h] *= chance_weight[n]


@nb.njit(cache=True, fastmath=FASTMATH)
def _decision_values(
    n,
    row,
    me,
    base,
    i,
    player,
    first_child,
    num_children,
    sigma,
    regret,
    avg,
    weight,
    update,
    best_response,
    reach,
    cfv,
    tmp,
    H,
):
    """Values at decision node n (into ``row`` of ``cfv``) from its children's (rows
    c - base), with the CFR+ update at player i's nodes (``me``: i's reach row at n),
    for the first H hands."""
    f = first_child[n]
    m = num_children[n]
    if player[n] == i:
        if best_response:
            for h in range(H):
                cfv[row, h] = cfv[f - base, h]
            for c in range(f + 1, f + m):
                for h in range(H):
                    cfv[row, h] = max(cfv[row, h], cfv[c - base, h])
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
    else:
        for h in range(H):
            cfv[row, h] = 0.0
        for c in range(f, f + m):
            for h in range(H):
                cfv[row, h] += cfv[c - base, h]


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


@nb.njit(cache=True)
def _run_cfr(
    kind,
    player,
    first_child,
    num_children,
    spent,
    dealt,
    board_of,
    chance_weight,
    slot,
    c1,
    c2,
    dup,
    orders,
    c1s,
    c2s,
    ladder,
    board_start,
    board_len,
    board_rows,
    board_identity,
    payoff,
    at_parent,
    reach0,
    reach1,
    regret,
    avg,
    sigma,
    start_iteration,
    iterations,
    deadline_ns,
    reach,
    cfv,
    tmp,
    qs,
    gadget,
    g_player,
    g_alt,
    g_norm,
    g_regret,
    g_reach,
    top_end,
    blocks,
    block_parent,
    block_chance,
    in_block,
    local_slot,
    block_board,
    block_reach,
    block_cfv,
    parallel,
):
    """CFR+ iterations with alternating updates. Each decision node belongs to one
    player, so one regret array serves both. With a gadget (RESOLVE or MAXMARGIN),
    player ``g_player`` enters the subgame through it: their root reach is the
    gadget's (``g_reach``), updated after each of their passes. Returns the
    iterations done."""
    done = 0
    current_strategy(regret, kind, player, first_child, num_children, -1, sigma, tmp)
    r0 = reach0
    r1 = reach1
    for t in range(start_iteration, start_iteration + iterations):
        for i in range(2):
            # sigma is current for both players: the backward pass that updated a
            # player's regrets also made their next strategy
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
            if parallel:
                _traverse_blocks(
                    i,
                    kind,
                    player,
                    first_child,
                    num_children,
                    spent,
                    dealt,
                    board_of,
                    chance_weight,
                    slot,
                    c1,
                    c2,
                    dup,
                    orders,
                    c1s,
                    c2s,
                    ladder,
                    board_start,
                    board_len,
                    board_rows,
                    board_identity,
                    payoff,
                    at_parent,
                    r0,
                    r1,
                    sigma,
                    regret,
                    avg,
                    float(t + 1),
                    True,
                    False,
                    reach,
                    cfv,
                    tmp,
                    qs,
                    top_end,
                    blocks,
                    block_parent,
                    block_chance,
                    in_block,
                    local_slot,
                    block_board,
                    block_reach,
                    block_cfv,
                    skip,
                )
            else:
                _traverse_by_block(
                    i,
                    kind,
                    player,
                    first_child,
                    num_children,
                    spent,
                    dealt,
                    board_of,
                    chance_weight,
                    slot,
                    c1,
                    c2,
                    dup,
                    orders,
                    c1s,
                    c2s,
                    ladder,
                    board_start,
                    board_len,
                    board_rows,
                    board_identity,
                    payoff,
                    at_parent,
                    r0,
                    r1,
                    sigma,
                    regret,
                    avg,
                    float(t + 1),
                    True,
                    False,
                    reach,
                    cfv,
                    tmp,
                    qs,
                    top_end,
                    blocks,
                    block_parent,
                    block_chance,
                    in_block,
                    local_slot,
                    block_board,
                    block_reach,
                    block_cfv,
                    skip,
                )
            if gadget != NO_GADGET and i == g_player:
                _gadget_update(gadget, g_regret, g_norm, g_alt, g_reach, cfv[0])
        done += 1
        if deadline_ns > 0:
            with nb.objmode(now="int64"):
                now = time.perf_counter_ns()
            if now >= deadline_ns:
                break
    return done


# What Subgame.kernel_args returns, element by element (dup is the one float): with
# a fixed length, mypy can match the arguments after it in a kernel call to parameters.
KernelArgs: TypeAlias = tuple[
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    float,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
]


@dataclass
class Subgame:
    """A spot ready to solve: the public tree, the hands still possible at its root
    and the players' reaches over them, and per showdown board the hands by
    strength."""

    tree: PublicTree
    hands: np.ndarray  # (H, hole cards) hands not blocked by the root board
    hand_index: np.ndarray  # their indices in the game's canonical hand order
    reach: np.ndarray  # (2, H) each player's reach (range) of each hand
    c1: np.ndarray
    c2: np.ndarray  # NO_CARD for one-card hands
    dup: float  # 1.0 for two-card hands (see compat_sums), else 0.0
    slot: np.ndarray  # (2, nodes): where each player's reach at a node is kept
    chance_weight: np.ndarray  # per node: 1 / (cards that can come for a given pair of hands)
    orders: np.ndarray  # per board, concatenated: live hands weakest first
    c1s: np.ndarray  # per board, concatenated: their cards, in that order
    c2s: np.ndarray
    group_ends: np.ndarray  # per board, concatenated: one past the last tied position
    board_start: np.ndarray
    board_len: np.ndarray
    board_identity: np.ndarray  # per board: its order is 0..H-1 (no gathering needed)
    payoff: np.ndarray = field(default_factory=lambda: np.zeros((1, 1, 1)))  # explicit games only
    # per node: a showdown or fold whose value its parent decision node computes (one sweep for both)
    at_parent: np.ndarray = field(init=False)
    # per block of the tree: the chance child above it; and the reach slots of block
    # nodes in block-local rows (see _walk_block)
    block_parent: np.ndarray = field(init=False)
    block_chance: np.ndarray = field(init=False)
    in_block: np.ndarray = field(init=False)
    local_slot: np.ndarray = field(init=False)
    # per board, concatenated: its positions' tie groups, then their first and their
    # second card-table slots (three runs of board_len entries at 3 * board_start;
    # see ranges.ladder); per board: the table's rows
    ladder: np.ndarray = field(init=False)
    board_rows: np.ndarray = field(init=False)
    # per block: the one board of its showdowns, whose strength order a solve keeps
    # its rows in (see _walk_block), or -1 (rows in hand order)
    block_board: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.at_parent = _terminals_at_parent(self.tree)
        self.block_parent, self.block_chance, self.in_block, self.local_slot = _block_layout(self.tree, self.slot)
        self.block_board = _block_boards(self)
        self.ladder = np.zeros(3 * len(self.orders), dtype=np.uint16)
        self.board_rows = np.zeros(len(self.board_start), dtype=np.int64)
        for b, (s0, m) in enumerate(zip(self.board_start, self.board_len)):
            e0 = s0 + m
            rows, self.board_rows[b] = rg.ladder(self.c1s[s0:e0], self.c2s[s0:e0], self.group_ends[s0:e0])
            self.ladder[3 * s0 : 3 * e0] = rows.reshape(-1)

    @property
    def pot(self) -> int:
        return int(self.tree.spent[0].sum())

    def kernel_args(self) -> KernelArgs:
        t = self.tree
        return (
            t.kind,
            t.player,
            t.first_child,
            t.num_children,
            t.spent,
            t.dealt,
            t.board_of,
            self.chance_weight,
            self.slot,
            self.c1,
            self.c2,
            self.dup,
            self.orders,
            self.c1s,
            self.c2s,
            self.ladder,
            self.board_start,
            self.board_len,
            self.board_rows,
            self.board_identity,
            self.payoff,
            self.at_parent,
        )


def _terminals_at_parent(tree: PublicTree) -> np.ndarray:
    """The showdown and fold children of decision nodes (at most one of each there)."""
    out = np.zeros(tree.num_nodes, dtype=np.bool_)
    for n in np.nonzero(tree.kind == DECISION)[0]:
        f, m = tree.first_child[n], tree.num_children[n]
        kinds = tree.kind[f : f + m]
        for k in (SHOWDOWN, FOLD_TERMINAL):
            if (kinds == k).sum() > 1:
                raise ValueError(f"decision node {n} has more than one child of kind {k}")
        out[f : f + m] = (kinds == SHOWDOWN) | (kinds == FOLD_TERMINAL)
    return out


def _block_layout(tree: PublicTree, slot: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per block [lo, hi) of ``tree``: the chance child whose descendants it holds
    (the node whose children start at lo, or a showdown with an empty block) and
    that child's chance node; per node,
    whether it is such a chance child (its block's walk computes it, not the top
    pass); and ``slot`` with every slot that is a block's chance child, and that
    child's own, replaced by lo - 1 (block-local row 0 in ``_walk_block``, where row
    m - lo + 1 is block node m)."""
    parents = np.asarray(tree.block_roots, dtype=np.int64)
    if len(parents) != len(tree.blocks):
        raise ValueError(f"{len(tree.blocks)} blocks but {len(parents)} block roots")
    chances = np.zeros(len(tree.blocks), dtype=np.int64)
    in_block = np.zeros(tree.num_nodes, dtype=np.bool_)
    local = slot.copy()
    above = {}
    for n in np.nonzero(tree.kind == CHANCE)[0]:
        for c in range(tree.first_child[n], tree.first_child[n] + tree.num_children[n]):
            above[c] = int(n)
    for b, (lo, hi) in enumerate(tree.blocks):
        parent = int(parents[b])
        starts_below = tree.first_child[parent] == lo if tree.num_children[parent] > 0 else lo == hi
        if not starts_below or parent not in above or slot[0, parent] != parent or slot[1, parent] != parent:
            raise ValueError(f"block {b} does not start at the children of a chance child")
        chances[b] = above[parent]
        in_block[parent] = True
        rows = local[:, lo:hi]
        if ((rows < lo) & (rows != parent)).any() or (rows >= hi).any():
            raise ValueError(f"block {b} has reach slots outside itself and its chance child")
        rows[rows == parent] = lo - 1
        local[:, parent] = lo - 1
    return parents, chances, in_block, local


def _block_boards(sub: Subgame) -> np.ndarray:
    """Per block: the board of its showdowns where its rows can be kept in that
    board's strength order (see _walk_block): a decision node below the chance node,
    no chance node in the block, every showdown on one board, whose live hands are
    those without the dealt card; else -1."""
    tree = sub.tree
    out = np.full(len(tree.blocks), -1, dtype=np.int64)
    for b, (lo, hi) in enumerate(tree.blocks):
        parent = int(sub.block_parent[b])
        kinds = tree.kind[lo:hi]
        if tree.kind[parent] != DECISION or (kinds == CHANCE).any():
            continue
        boards = np.unique(tree.board_of[lo:hi][kinds == SHOWDOWN])
        if len(boards) != 1:
            continue
        board = int(boards[0])
        d = tree.dealt[parent]
        s0 = sub.board_start[board]
        order = np.sort(sub.orders[s0 : s0 + sub.board_len[board]])
        if np.array_equal(order, np.nonzero((sub.c1 != d) & (sub.c2 != d))[0]):
            out[b] = board
    return out


def _ordered_blocks(sub: Subgame):
    """(lo, hi, order) per block kept in a board's strength order: its nodes and that
    board's live hands, weakest first."""
    for b in np.nonzero(sub.block_board >= 0)[0]:
        lo, hi = sub.tree.blocks[b]
        s0 = sub.board_start[sub.block_board[b]]
        yield lo, hi, sub.orders[s0 : s0 + sub.board_len[sub.block_board[b]]]


def to_hand_order(sub: Subgame, rows: np.ndarray) -> np.ndarray:
    """A solve's per-node arrays (regret, strategy, average) with the rows of blocks
    kept in a board's strength order (``Subgame.block_board``) put back in hand
    order; hands not live on the block's board get 0. ``rows`` itself when no block
    is kept in board order (every river spot: no copy on the agent's solves)."""
    if not (sub.block_board >= 0).any():
        return rows
    out = np.array(rows, copy=True)
    for lo, hi, order in _ordered_blocks(sub):
        out[lo:hi] = 0
        out[lo:hi, order] = rows[lo:hi, : len(order)]
    return out


def to_block_order(sub: Subgame, rows: np.ndarray) -> np.ndarray:
    """The inverse of ``to_hand_order`` on the live hands (the columns past them 0)."""
    out = np.array(rows, copy=True)
    for lo, hi, order in _ordered_blocks(sub):
        out[lo:hi] = 0
        out[lo:hi, : len(order)] = rows[lo:hi][:, order]
    return out


def reach_slots(tree: PublicTree) -> np.ndarray:
    """slot[p, n]: the node at or above n where p's reach last changed (below p's
    decisions and below chance nodes); the root if nowhere."""
    slot = np.zeros((2, tree.num_nodes), dtype=np.int64)
    for n in range(tree.num_nodes):
        k = tree.kind[n]
        if k != DECISION and k != CHANCE:
            continue
        f, m = tree.first_child[n], tree.num_children[n]
        for c in range(f, f + m):
            for p in (0, 1):
                changes = k == CHANCE or tree.player[n] == p
                slot[p, c] = c if changes else slot[p, n]
    return slot


def make_subgame(
    state: BettingState,
    sizes: BetSizes | dict[int, BetSizes],
    reach: np.ndarray | None = None,
    extra_root_raises: tuple[int, ...] = (),
) -> Subgame:
    """Set up the subgame from ``state`` (its board known, no hole cards needed).
    ``reach``: (2, all hands) ranges over the game's canonical hands; default uniform.
    ``extra_root_raises``: raise-to totals added at the root (an off-tree bet)."""
    tree = build_tree(state, sizes, extra_root_raises)
    game = state.game
    all_hands = rg.hole_hands(game)
    if all_hands.shape[1] > 2:
        raise ValueError("hands of more than two cards are not supported by the solver")
    live = np.nonzero(~rg.blocked_by(all_hands, tree.board))[0]
    first = None
    if len(tree.boards) == 1:  # one showdown board (a river spot): keep hands weakest first
        order, group_end = rg.showdown_order(all_hands[live], list(tree.boards[0]))
        live = live[order]
        first = (np.arange(len(order)), group_end)
    hands = all_hands[live]
    two = hands.shape[1] == 2
    orders, ends, starts, lens = [], [], [], []
    at = 0
    for board in tree.boards:
        order, group_end = first if first is not None else rg.showdown_order(hands, list(board))
        orders.append(order)
        ends.append(group_end)
        starts.append(at)
        lens.append(len(order))
        at += len(order)
    weight = np.zeros(tree.num_nodes)
    for n in np.nonzero(tree.kind == CHANCE)[0]:
        weight[n] = 1.0 / (tree.num_children[n] - 2 * hands.shape[1])
    full = np.ones((2, len(all_hands))) if reach is None else np.asarray(reach, dtype=np.float64)
    c1 = hands[:, 0].astype(CARD_DTYPE)
    c2 = hands[:, 1].astype(CARD_DTYPE) if two else np.full(len(hands), NO_CARD, dtype=CARD_DTYPE)
    order = np.concatenate(orders).astype(INDEX_DTYPE) if orders else np.zeros(0, INDEX_DTYPE)
    return Subgame(
        tree,
        hands,
        live,
        np.ascontiguousarray(full[:, live]),
        c1,
        c2,
        1.0 if two else 0.0,
        reach_slots(tree),
        weight,
        order,
        c1[order],
        c2[order],
        np.concatenate(ends).astype(np.int64) if ends else np.zeros(0, np.int64),
        np.array(starts, dtype=np.int64),
        np.array(lens, dtype=np.int64),
        np.array([len(o) == len(hands) and bool((o == np.arange(len(o))).all()) for o in orders], dtype=np.bool_),
    )


def explicit_subgame(root, reach: np.ndarray) -> Subgame:
    """A small explicit (non-poker) game from ``tree.ExplicitNode``s: private states
    0..H-1 per player, all compatible, payoffs from the terminals' matrices;
    ``reach`` (2, H) the players' chance weights."""
    from .tree import build_explicit_tree

    tree, payoff = build_explicit_tree(root)
    H = payoff.shape[1]
    reach = np.ascontiguousarray(np.asarray(reach, dtype=np.float64))
    if reach.shape != (2, H):
        raise ValueError(f"reach must be (2, {H}), got {reach.shape}")
    none = np.full(H, NO_CARD, dtype=CARD_DTYPE)
    empty = np.zeros(0, dtype=np.int64)
    return Subgame(
        tree,
        np.zeros((H, 0), dtype=np.int64),
        np.arange(H),
        reach,
        none,
        none.copy(),
        0.0,
        reach_slots(tree),
        np.zeros(tree.num_nodes),
        np.zeros(0, INDEX_DTYPE),
        none[:0],
        none[:0],
        empty,
        empty,
        empty,
        np.zeros(0, dtype=np.bool_),
        payoff,
    )


class _Work:
    """Scratch arrays of one solve (their size is what ``PublicTree.memory_bytes`` reports)."""

    def __init__(self, sub: Subgame, dtype=np.float64, rows: int | None = None) -> None:
        """``rows``: of the tree-wide reaches and values; a solve walking blocks needs
        only the nodes above them (``PublicTree.top_rows``), the default is all."""
        H = sub.hands.shape[0]
        n = sub.tree.num_nodes if rows is None else rows
        self.reach = np.zeros((2, n, H), dtype=dtype)
        self.cfv = np.zeros((n, H), dtype=dtype)
        self.tmp = np.zeros(H, dtype=dtype)
        self.qs = np.zeros(H + showdown_scratch(sub), dtype=dtype)  # a gathered reach, then _showdown's table

    def args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return (self.reach, self.cfv, self.tmp, self.qs)


@dataclass
class SolveResult:
    strategy: np.ndarray  # (nodes, H): probability of the action into each node, per hand of the actor
    iterations: int
    stopped_early: bool
    seconds: float
    exploitability: float | None = None  # chips per hand, when the caller measured it (``exploitability``)


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


def opponent_weights(sub: Subgame, player: int) -> np.ndarray:
    """N(c): for each hand c of ``player``, the reach of the other player's hands
    compatible with it (chance and the other player only)."""
    out = np.zeros(sub.hands.shape[0])
    compat_sums(sub.reach[1 - player], sub.c1, sub.c2, sub.dup, out)
    return out


def solve(
    sub: Subgame, iterations: int, deadline: float | None = None, gadget: Gadget | None = None, threads: int = 1
) -> SolveResult:
    """Run CFR+ from scratch; ``deadline`` (seconds from now) stops early; ``gadget``
    makes it a safe (Resolve / Maxmargin) solve, else the subgame is solved as it
    stands (unsafe). ``threads`` > 1 walks the subtrees below chance nodes in parallel
    (numba's thread pool, at most that many threads); the result is the same."""
    t = sub.tree
    n, H = t.num_nodes, sub.hands.shape[0]
    # written, not only allocated: fresh pages are mapped at their first write, and on
    # a turn tree that cost (about 18,000 page faults) would otherwise land on the
    # first iterations
    regret = np.empty((n, H), dtype=SOLVE_DTYPE)
    avg = np.empty((n, H), dtype=SOLVE_DTYPE)
    sigma = np.empty((n, H), dtype=SOLVE_DTYPE)
    for a in (regret, avg, sigma):
        a.fill(0.0)
    w = _Work(sub, SOLVE_DTYPE, t.top_rows)
    t0 = time.perf_counter()
    deadline_ns = 0 if deadline is None else time.perf_counter_ns() + int(deadline * 1e9)
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
    parallel = threads > 1 and len(t.blocks) > 1
    # numba's thread pool size; numba.config sets it at run time (through globals()), out of mypy's sight
    pool_size: int = nb.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    if parallel:
        nb.set_num_threads(min(threads, pool_size))
    reach = sub.reach.astype(SOLVE_DTYPE)
    copies = min(threads, pool_size) if parallel else 1  # one per share of the blocks
    block_reach = np.zeros((copies, 2, t.block_rows, H), dtype=SOLVE_DTYPE)
    block_cfv = np.zeros((copies, t.block_rows, H), dtype=SOLVE_DTYPE)
    done = _run_cfr(
        *sub.kernel_args(),
        reach[0],
        reach[1],
        regret,
        avg,
        sigma,
        0,
        iterations,
        deadline_ns,
        *w.args(),
        *g,
        max(t.top_end, 0),
        t.blocks,
        sub.block_parent,
        sub.block_chance,
        sub.in_block,
        sub.local_slot,
        sub.block_board,
        block_reach,
        block_cfv,
        parallel,
    )
    return SolveResult(average_strategy(t, to_hand_order(sub, avg)), done, done < iterations, time.perf_counter() - t0)


def average_strategy(tree: PublicTree, avg: np.ndarray) -> np.ndarray:
    """Normalise accumulated strategy weights per decision node and hand (uniform
    where a hand never reached the node); rows of nodes below no decision stay 0."""
    avg = np.ascontiguousarray(avg)
    out = np.empty(avg.shape, dtype=np.float64)
    _normalise(tree.kind, tree.first_child, tree.num_children, avg, out)
    return out


@nb.njit(cache=True)
def _normalise(kind, first_child, num_children, avg, out):
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


def counterfactual_values(sub: Subgame, strategy: np.ndarray, player: int, best_response: bool = False) -> np.ndarray:
    """Counterfactual values at the root, per live hand of ``player``, when both play
    ``strategy`` (or ``player`` best-responds to the other's part of it)."""
    w = _Work(sub)
    _traverse(
        player,
        *sub.kernel_args(),
        sub.reach[0],
        sub.reach[1],
        np.ascontiguousarray(strategy),
        np.zeros((1, 1)),
        np.zeros((1, 1)),
        0.0,
        False,
        best_response,
        *w.args(),
    )
    return w.cfv[0].copy()


def node_values(
    sub: Subgame, strategy: np.ndarray, player: int, best_response: bool = False, root_reach: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Counterfactual values of ``player`` at every node (nodes, H), and both players'
    reaches at every node (2, nodes, H). ``root_reach`` replaces the subgame's."""
    w = _Work(sub)
    r = sub.reach if root_reach is None else root_reach
    _traverse(
        player,
        *sub.kernel_args(),
        r[0],
        r[1],
        np.ascontiguousarray(strategy),
        np.zeros((1, 1)),
        np.zeros((1, 1)),
        0.0,
        False,
        best_response,
        *w.args(),
    )
    reaches = np.stack([w.reach[p][sub.slot[p]] for p in (0, 1)])
    return w.cfv, reaches


def exploitability(sub: Subgame, strategy: np.ndarray) -> float:
    """Exploitability of ``strategy`` in chips per hand: the mean of the two players'
    best-response values (expected over the joint deal of compatible hands)."""
    joint = _joint_weight(sub)
    br = [float(sub.reach[p] @ counterfactual_values(sub, strategy, p, best_response=True)) for p in (0, 1)]
    return (br[0] + br[1]) / 2.0 / joint


def expected_values(sub: Subgame, strategy: np.ndarray) -> tuple[float, float]:
    joint = _joint_weight(sub)
    ev = [float(sub.reach[p] @ counterfactual_values(sub, strategy, p)) / joint for p in (0, 1)]
    return ev[0], ev[1]


def _joint_weight(sub: Subgame) -> float:
    compat = np.zeros(sub.hands.shape[0])
    compat_sums(sub.reach[1], sub.c1, sub.c2, sub.dup, compat)
    return float(sub.reach[0] @ compat)
