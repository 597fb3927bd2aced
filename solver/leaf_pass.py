"""The leaves of a depth-limited tree (``LeafData``, built by ``depth_limited``).
``leaf_values`` takes both players' reaches at the leaves (the forward pass made
them) and writes player i's value at each leaf into its row of the values: per
continuation strategy of i, the value of playing the rest of the hand (the leaf's
continuation tree) against the other player's mix of continuations, summed over the
next cards (every card, or ``LeafData.sample`` a pass, chosen by ``leaf_card``),
then mixed by i's leaf strategy, or the best continuation when the pass
best-responds (over the whole continuation trees with ``LeafData.full_response``:
``_leaf_response``); an updating pass also updates i's leaf regrets, average and
strategy (regret matching+). ``leaf_values_parallel``: the same values bit for bit,
on numba's threads (by shares of the leaves, or by (piece, card) items)."""

from __future__ import annotations

import numba as nb
import numpy as np

from .keyed import keyed_draw
from .pass_arrays import FASTMATH, THIN
from .showdown_pass import NO_FOLD, compat_sums, showdown_values
from .tree import DECISION, FOLD_TERMINAL, SHOWDOWN


@nb.njit(cache=True)
def leaf_card(cards, sample, seed, independent, iteration, player, j):
    """The j-th next card a pass of ``player`` at ``iteration`` values the leaves on
    (``LeafData``): every card in turn (sample 0); else ``sample`` cards per pass
    going round ``cards`` (a keyed shuffle) by iteration, both players' passes of an
    iteration on the same cards, so that each player's passes see every card once in
    each round of them; or, ``independent``, keyed independent draws."""
    n = cards.shape[0]
    if sample <= 0:
        return cards[j]
    if independent:
        return cards[keyed_draw(seed, iteration * 2 + player, j, n)]
    return cards[(iteration * sample + j) % n]


@nb.njit(cache=True, fastmath=FASTMATH, inline=THIN)
def leaf_values(leaves, i, base, tree, hands, rule, work):
    """Player i's values at every leaf (rows node - base of ``cfv``), from both
    reaches there (rows slot - base of ``reach``): per continuation k of i, the
    value of playing it to the end against the other player's mix of continuations,
    averaged over the next card (every card, or ``leaves.sample`` cards per pass
    chosen by ``leaf_card``: each pass's cards are uniform over the keys, so the mean
    is unbiased),
    then mixed by i's leaf strategy (or the best k per hand when
    ``best_response``). ``update``: regret matching+ on the leaf choices of i, the
    linearly weighted average (``weight``) and i's next leaf strategy. The shares of
    leaves one after another (``leaf_values_parallel``: on threads)."""
    if leaves.node.shape[0] == 0:
        return
    for s in range(leaves.share_start.shape[0] - 1):
        _leaf_share(
            leaves, s, i, base, tree, hands, rule, work.reach, work.cfv, work.tmp, work.qs, np.bool_(False),
            leaves.response,
        )  # fmt: skip


@nb.njit(cache=True, parallel=True)
def leaf_values_parallel(leaves, i, base, tree, hands, rule, work):
    """``leaf_values`` on threads, the same values bit for bit: when the pass values
    ``item_draws`` cards a leaf (``LeafData``), the (piece, card) items on threads, each
    thread's share of them in its own scratch, then each share of the leaves values
    its tops on the pieces' values and sums its cards; else each share of the leaves
    on a thread."""
    if leaves.node.shape[0] == 0:
        return
    draws, _ = _leaf_scale(leaves)
    by_items = (
        leaves.item_draws > 0 and draws == leaves.item_draws and not (rule.best_response and leaves.full_response)
    )
    # one parallel loop, run once a phase (phase 0: the items; 1: the shares of the
    # leaves, from the items' parts when there were items): numba compiles each
    # parallel loop to machine code of its own, with everything it calls
    for phase in range(0 if by_items else 1, 2):
        tasks = (leaves.item_start.shape[0] if phase == 0 else leaves.share_start.shape[0]) - 1
        for s in nb.prange(tasks):
            tmp = np.empty_like(work.tmp)
            qs = np.empty_like(work.qs)
            if phase == 0:
                _piece_items(leaves, np.int64(s), i, base, tree, hands, rule, work.reach, tmp, qs)
            else:
                _leaf_share(leaves, np.int64(s), i, base, tree, hands, rule, work.reach, work.cfv, tmp, qs,
                            np.bool_(by_items), leaves.response)  # fmt: skip


@nb.njit(cache=True, fastmath=FASTMATH)
def _forward_root(leaves, l, o, qo, bd, fw, bw, row):
    """The root of leaf l's continuation tree in one deal (``bd``: its bucket rows by
    stage; row 0 is -1 for the hands holding one of its cards): the other player's (o's)
    reach ``qo`` at the leaf times its leaf strategy for each continuation k in
    ``fw[k, 0]``, summed over k in ``bw[0, 0]`` where the root is a terminal."""
    K = fw.shape[0]
    H = qo.shape[0]
    zero = fw.dtype.type(0.0)
    row[0] = 0
    bk = bd[0]
    for k in range(K):
        for h in range(H):
            fw[k, 0, h] = qo[h] * leaves.sigma[o, l, k, h] if bk[h] >= 0 else zero
    if leaves.kind[leaves.start[l]] != DECISION:
        _sum_rows(fw, np.int64(0), bw, np.int64(0), K, H)


@nb.njit(cache=True, fastmath=FASTMATH)
def _step_row(strategy, c, tc, src, bs, fw):
    """Into the other player's decision child c (local row ``tc``) of one of its
    decisions (row ``src``): c's row of ``fw`` is the parent's times each
    continuation's probability of the action (``bs``: the buckets at the parent's
    stage, -1 for a hand that cannot be there)."""
    K = fw.shape[0]
    H = fw.shape[2]
    zero = fw.dtype.type(0.0)
    for k in range(K):
        for h in range(H):
            b = bs[h]
            fw[k, tc, h] = fw[k, src, h] * strategy[c, k, b] if b >= 0 else zero


@nb.njit(cache=True, fastmath=FASTMATH)
def _continuation_forward(leaves, nodes, lo, hi, rs, o, bd, fw, bw, row):
    """The forward pass over continuation nodes ``nodes[lo:hi]`` (increasing; each
    one's row already made when it is reached): a decision's children get theirs (below
    one of i's decisions, the parent's row; below one of o's, ``_step_row``), a terminal
    child its sum over the continuations in ``bw[0]`` (o's strategy into it applied
    inside the sum)."""
    K = fw.shape[0]
    H = fw.shape[2]
    zero = fw.dtype.type(0.0)
    for x in range(lo, hi):
        n = nodes[x]
        if leaves.kind[n] != DECISION:
            continue
        f = leaves.first_child[n]
        src = row[n - rs]
        if leaves.player[n] != o:
            summed = -1  # i's terminals here share the same sum: the first's, copied
            for c in range(f, f + leaves.num_children[n]):
                tc = c - rs
                row[tc] = src
                if leaves.kind[c] == DECISION:
                    continue
                if summed < 0:
                    _sum_rows(fw, src, bw, tc, K, H)
                    summed = tc
                else:
                    for h in range(H):
                        bw[0, tc, h] = bw[0, summed, h]
            continue
        bs = bd[leaves.stage[n]]
        for c in range(f, f + leaves.num_children[n]):
            tc = c - rs
            row[tc] = tc
            if leaves.kind[c] == DECISION:
                _step_row(leaves.strategy, c, tc, src, bs, fw)
                continue
            for h in range(H):
                bw[0, tc, h] = zero
            for k in range(K):
                for h in range(H):
                    b = bs[h]
                    bw[0, tc, h] += fw[k, src, h] * leaves.strategy[c, k, b] if b >= 0 else zero


@nb.njit(cache=True, fastmath=FASTMATH, inline=THIN)
def _continuation_sums(leaves, l, o, qo, bd, fw, bw, row, nodes):
    """The other player's (o's) reach in leaf l's continuation tree in one deal (see
    ``_forward_root``): at each decision t, per continuation in ``fw[k, row[t]]`` (a
    decision below one of i's reads its parent's row); at each terminal t, summed over
    the continuations (in k order), in ``bw[0, t]``. ``nodes``: the tree's nodes in
    order (its ``start[l]..start[l + 1] - 1``)."""
    _forward_root(leaves, l, o, qo, bd, fw, bw, row)
    _continuation_forward(leaves, nodes, np.int64(0), nodes.shape[0], leaves.start[l], o, bd, fw, bw, row)


@nb.njit(cache=True, fastmath=FASTMATH)
def _sum_rows(fw, r, bw, t, K, H):
    """bw[0, t] = the sum over k of fw[k, r], in k order."""
    zero = fw.dtype.type(0.0)
    for h in range(H):
        bw[0, t, h] = zero
    for k in range(K):
        for h in range(H):
            bw[0, t, h] += fw[k, r, h]


@nb.njit(cache=True, fastmath=FASTMATH)
def _continuation_backward(leaves, nodes, lo, hi, rs, i, bd, b, hands, bw, qsum, tmp, qs, same):
    """The backward pass over continuation nodes ``nodes[lo:hi]`` (last first): each
    one's values to player i under each of its continuations, ``bw[k, n - rs]`` (its
    children's already made; terminals from the sums of ``_continuation_forward``, on board
    ``b``): one row, and ``same`` set, where they are the same under every continuation
    of i (no decision of i below)."""
    c1, c2, dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows = hands[:10]
    H = c1.shape[0]
    K = bw.shape[0]
    zero = bw.dtype.type(0.0)
    for x in range(hi - 1, lo - 1, -1):
        n = nodes[x]
        t = n - rs
        kd = leaves.kind[n]
        if kd == FOLD_TERMINAL or kd == SHOWDOWN:
            same[t] = True
            out = bw[0, t]
            for h in range(H):
                qsum[h] = out[h]
            if kd == FOLD_TERMINAL:
                folder = leaves.player[n]
                v = leaves.spent[n, folder] * (-1.0 if folder == i else 1.0)
                compat_sums(qsum, c1, c2, dup, tmp)
                for h in range(H):
                    out[h] = v * tmp[h]
            else:
                stake = min(leaves.spent[n, 0], leaves.spent[n, 1])
                s0 = board_start[b]
                e0 = s0 + board_len[b]
                showdown_values(
                    qsum, dup, orders[s0:e0], c1s[s0:e0], c2s[s0:e0], ladder[3 * s0 : 3 * e0], board_rows[b],
                    np.bool_(False), stake, qs, out, np.int64(NO_FOLD), tmp, 0.0, tmp, tmp,
                )  # fmt: skip
            continue
        if kd != DECISION:
            continue
        f = leaves.first_child[n]
        m = leaves.num_children[n]
        mine = leaves.player[n] == i
        one = not mine
        for c in range(f, f + m):
            one = one and same[c - rs]
        same[t] = one
        rows = 1 if one else K
        bs = bd[leaves.stage[n]]
        for c in range(f, f + m):  # the first child's term written, the others' added
            tc = c - rs
            whole = not same[tc]
            for k in range(rows):
                kc = k if whole else 0
                if mine and c == f:
                    for h in range(H):
                        b2 = bs[h]
                        bw[k, t, h] = leaves.strategy[c, k, b2] * bw[kc, tc, h] if b2 >= 0 else zero
                elif mine:
                    for h in range(H):
                        b2 = bs[h]
                        if b2 >= 0:
                            bw[k, t, h] += leaves.strategy[c, k, b2] * bw[kc, tc, h]
                elif c == f:
                    for h in range(H):
                        bw[k, t, h] = bw[kc, tc, h]
                else:
                    for h in range(H):
                        bw[k, t, h] += bw[kc, tc, h]


@nb.njit(cache=True, fastmath=FASTMATH, inline=THIN)
def _piece_pass(leaves, p, rs, i, bd, b, hands, fw, bw, qsum, tmp, qs, row, same):
    """Piece p (``LeafData``) in one deal: the forward pass over its nodes (its root's
    row of ``fw`` already made), then the backward pass, leaving its root's values in
    ``bw`` and ``same``."""
    ps, pe = leaves.piece_start[p], leaves.piece_start[p + 1]
    _continuation_forward(leaves, leaves.piece_nodes, ps, pe, rs, 1 - i, bd, fw, bw, row)
    _continuation_backward(leaves, leaves.piece_nodes, ps, pe, rs, i, bd, b, hands, bw, qsum, tmp, qs, same)


@nb.njit(cache=True, fastmath=FASTMATH)
def _leaf_deal(leaves, l, i, d, j, base, tree, hands, reach, fw, bw, qsum, tmp, qs, from_parts):
    """Player i's values under each of its continuations at leaf l in deal d:
    ``bw[k, 0, h]`` (valid for the hands that do not hold a card of d), in the scratch
    rows ``fw``, ``bw``, ``qsum``, ``tmp``, ``qs``: the forward pass over the leaf's
    top, its pieces (``_piece_pass``; ``from_parts``: their values read from the rows of
    ``leaves.parts`` of the pass's card j), then the backward pass over the top. A node
    with none of i's decisions below it is worth the same under every continuation of
    i: its value is kept once, in ``bw[0, t]``."""
    o = 1 - i
    K = leaves.sigma.shape[2]
    H = bw.shape[2]
    node = leaves.node[l]
    rs = leaves.start[l]
    R = leaves.start[l + 1] - rs
    qo = reach[o, tree.slot[o, node] - base]
    bd = leaves.bucket[d]
    b = leaves.board[d]
    row = np.empty(R, dtype=np.int64)
    same = np.empty(R, dtype=np.bool_)  # the same value under every continuation of i
    ts, te = leaves.top_start[l], leaves.top_start[l + 1]
    if te > ts or not from_parts:
        _forward_root(leaves, l, o, qo, bd, fw, bw, row)
    _continuation_forward(leaves, leaves.top_nodes, ts, te, rs, o, bd, fw, bw, row)
    for p in range(leaves.leaf_piece_start[l], leaves.leaf_piece_start[l + 1]):
        if not from_parts:
            _piece_pass(leaves, p, rs, i, bd, b, hands, fw, bw, qsum, tmp, qs, row, same)
            continue
        it = p * leaves.item_draws + j
        tc = leaves.piece_nodes[leaves.piece_start[p]] - rs
        same[tc] = leaves.parts_same[it]
        for k in range(1 if same[tc] else K):
            for h in range(H):
                bw[k, tc, h] = leaves.parts[it, k, h]
    _continuation_backward(leaves, leaves.top_nodes, ts, te, rs, i, bd, b, hands, bw, qsum, tmp, qs, same)
    if same[0]:
        for k in range(1, K):
            for h in range(H):
                bw[k, 0, h] = bw[0, 0, h]


@nb.njit(cache=True, fastmath=FASTMATH)
def _piece_item(leaves, it, i, iteration, base, tree, hands, reach, fw, bw, qsum, tmp, qs):
    """Item ``it`` (piece p, the pass's card j; ``LeafData``): the other player's reach
    down the path from its leaf's root to the piece, then ``_piece_pass``, its root's
    values into row ``it`` of ``leaves.parts`` (one row where ``parts_same``)."""
    o = 1 - i
    K = leaves.sigma.shape[2]
    H = bw.shape[2]
    draws = leaves.item_draws
    p = it // draws
    j = it - p * draws
    d = leaf_card(leaves.cards, leaves.sample, leaves.seed, leaves.independent, iteration, i, j)
    l = leaves.piece_leaf[p]
    rs = leaves.start[l]
    R = leaves.start[l + 1] - rs
    qo = reach[o, tree.slot[o, leaves.node[l]] - base]
    bd = leaves.bucket[d]
    row = np.empty(R, dtype=np.int64)
    same = np.empty(R, dtype=np.bool_)
    _forward_root(leaves, l, o, qo, bd, fw, bw, row)
    top = leaves.piece_nodes[leaves.piece_start[p]]
    depth = 0
    m = top
    while m != rs:
        depth += 1
        m = leaves.parent[m]
    path = np.empty(depth + 1, dtype=np.int64)
    m = top
    for x in range(depth, -1, -1):
        path[x] = m
        m = leaves.parent[m]
    for x in range(depth):
        n, c = path[x], path[x + 1]
        if leaves.player[n] == o:
            row[c - rs] = c - rs
            _step_row(leaves.strategy, c, c - rs, row[n - rs], bd[leaves.stage[n]], fw)
        else:
            row[c - rs] = row[n - rs]
    _piece_pass(leaves, p, rs, i, bd, leaves.board[d], hands, fw, bw, qsum, tmp, qs, row, same)
    tc = top - rs
    leaves.parts_same[it] = same[tc]
    for k in range(1 if same[tc] else K):
        for h in range(H):
            leaves.parts[it, k, h] = bw[k, tc, h]


@nb.njit(cache=True, fastmath=FASTMATH)
def _piece_items(leaves, s, i, base, tree, hands, rule, reach, tmp, qs):
    """The (piece, card) items of share s (``_piece_item``), in its scratch."""
    iteration = np.int64(rule.weight)
    for x in range(leaves.item_start[s], leaves.item_start[s + 1]):
        _piece_item(leaves, leaves.items[x], i, iteration, base, tree, hands, reach, leaves.forward[s],
                    leaves.backward[s], leaves.summed[s], tmp, qs)  # fmt: skip


@nb.njit(cache=True, fastmath=FASTMATH)
def _leaf_scale(leaves):
    """(cards a pass values at each leaf, the factor on their sum)."""
    ncards = leaves.cards.shape[0]
    if leaves.sample <= 0:
        return ncards, leaves.weight
    return leaves.sample, leaves.weight * ncards / leaves.sample


@nb.njit(cache=True, fastmath=FASTMATH)
def _leaf_finish(leaves, l, i, base, tree, rule, reach, cfv, vals, scale):
    """Leaf l's value for player i from ``vals`` (its continuations' values summed over
    the pass's cards, scaled here by ``scale``): the mix by i's leaf strategy (or the
    best continuation when ``rule.best_response``), and with ``rule.update`` regret
    matching+ on i's leaf choices, the weighted average and the next leaf strategy."""
    slot = tree.slot
    weight, update, best_response = rule.weight, rule.update, rule.best_response
    H = vals.shape[1]
    K = vals.shape[0]
    zero = cfv.dtype.type(0.0)
    node = leaves.node[l]
    row = node - base
    sg = leaves.sigma[i, l]
    sc = cfv.dtype.type(scale)
    for h in range(H):
        best = vals[0, h] * sc
        mixed = zero
        for k in range(K):
            x = vals[k, h] * sc
            vals[k, h] = x
            mixed += sg[k, h] * x
            if x > best:
                best = x
        cfv[row, h] = best if best_response else mixed
    if update:
        rg_ = leaves.regret[i, l]
        av = leaves.avg[i, l]
        me = reach[i, slot[i, node] - base]
        w = av.dtype.type(weight)
        for h in range(H):
            total = zero
            for k in range(K):
                r = rg_[k, h] + vals[k, h] - cfv[row, h]
                r = r if r > zero else zero
                rg_[k, h] = r
                av[k, h] += w * me[h] * sg[k, h]
                total += r
            for k in range(K):
                sg[k, h] = rg_[k, h] / total if total > zero else sg.dtype.type(1.0 / K)


@nb.njit(cache=True, fastmath=FASTMATH)
def _leaf_share(leaves, s, i, base, tree, hands, rule, reach, cfv, tmp, qs, from_parts, responses):
    """``leaf_values`` for the leaves of share s, in its scratch and ``tmp``, ``qs``:
    each leaf's cards summed in pass order, then ``_leaf_finish`` (``from_parts``: the
    pieces' values from ``leaves.parts``, see ``_leaf_deal``); a full best response
    (``_leaf_response``) in ``responses`` (``leaves.response``; None: numba compiles
    this kernel without that branch)."""
    if responses is not None:  # an argument typed None: the branch is pruned before typing
        if rule.best_response and leaves.full_response:
            _leaf_response(leaves, s, i, base, tree, hands, reach, cfv, tmp, qs, responses)
            return
    H = hands.c1.shape[0]
    K = leaves.sigma.shape[2]
    fw = leaves.forward[s]
    bw = leaves.backward[s]
    vals = leaves.values[s]
    zero = cfv.dtype.type(0.0)
    draws, scale = _leaf_scale(leaves)
    iteration = np.int64(rule.weight)
    for x_ in range(leaves.share_start[s], leaves.share_start[s + 1]):
        l = leaves.share_leaves[x_]
        for k in range(K):
            for h in range(H):
                vals[k, h] = zero
        whole = from_parts and leaves.top_start[l + 1] == leaves.top_start[l]  # one piece: its values are the leaf's
        for j in range(draws):
            d = leaf_card(leaves.cards, leaves.sample, leaves.seed, leaves.independent, iteration, i, j)
            bk = leaves.bucket[d, 0]  # the deal's mask: -1 for hands holding one of its cards
            if whole:
                it = leaves.leaf_piece_start[l] * leaves.item_draws + j
                one = leaves.parts_same[it]
                for k in range(K):
                    part = leaves.parts[it, 0 if one else k]
                    for h in range(H):
                        if bk[h] >= 0:
                            vals[k, h] += part[h]
                continue
            _leaf_deal(leaves, l, i, d, np.int64(j), base, tree, hands, reach, fw, bw, leaves.summed[s], tmp, qs,
                       from_parts)  # fmt: skip
            for k in range(K):
                for h in range(H):
                    if bk[h] >= 0:
                        vals[k, h] += bw[k, 0, h]
        _leaf_finish(leaves, l, i, base, tree, rule, reach, cfv, vals, scale)


@nb.njit(cache=True, fastmath=FASTMATH)
def _best_or_sum(values, t, first, count, mine):
    """Row ``t`` of ``values``, per hand: the largest of rows first..first+count-1 (the
    decision is the best responder's, ``mine``), else their sum."""
    for h in range(values.shape[1]):
        best = values[first, h]
        for c in range(first + 1, first + count):
            x = values[c, h]
            if mine:
                best = x if x > best else best
            else:
                best += x
        values[t, h] = best


@nb.njit(cache=True, fastmath=FASTMATH)
def _leaf_response(leaves, s, i, base, tree, hands, reach, cfv, tmp, qs, responses):
    """Player i's best-response values at every leaf over the whole continuation
    trees (not only a choice among the continuations), against the other player's
    mix of continuations, exact over every deal of ``leaves.cards``: a decision of
    i in the last stage maximises per deal; one in an earlier stage (from the flop:
    the turn) maximises the sum over the deals of its ``group``, which i cannot tell
    apart there. Deals of a group are consecutive in ``cards``. The leaves of share s,
    in its scratch (and ``responses[s]``: ``leaves.response``)."""
    slot = tree.slot
    c1, c2, dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows = hands[:10]
    H = c1.shape[0]
    o = 1 - i
    S = leaves.bucket.shape[1]
    fw = leaves.forward[s]
    q = responses[s, 0]
    v = responses[s, 1]
    acc = responses[s, 2]
    total = leaves.summed[s]
    zero = cfv.dtype.type(0.0)
    ncards = leaves.cards.shape[0]
    for x_ in range(leaves.share_start[s], leaves.share_start[s + 1]):
        l = leaves.share_leaves[x_]
        node = leaves.node[l]
        rs = leaves.start[l]
        R = leaves.start[l + 1] - rs
        row = np.empty(R, dtype=np.int64)
        nodes = np.arange(rs, rs + R)
        qo = reach[o, slot[o, node] - base]
        for h in range(H):
            total[h] = zero
        for j in range(ncards):
            d = leaves.cards[j]
            if j == 0 or leaves.group[d] != leaves.group[leaves.cards[j - 1]]:
                for t in range(R):
                    for h in range(H):
                        acc[t, h] = zero
            bd = leaves.bucket[d]
            bk = bd[0]
            _continuation_sums(leaves, l, o, qo, bd, fw, responses[s], row, nodes)  # q: the terminals' rows
            b = leaves.board[d]
            for t in range(R - 1, -1, -1):  # i's values in this deal: terminals and last-stage decisions
                n = rs + t
                kd = leaves.kind[n]
                if kd == FOLD_TERMINAL:
                    folder = leaves.player[n]
                    val = leaves.spent[n, folder] * (-1.0 if folder == i else 1.0)
                    compat_sums(q[t], c1, c2, dup, tmp)
                    for h in range(H):
                        v[t, h] = val * tmp[h]
                elif kd == SHOWDOWN:
                    stake = min(leaves.spent[n, 0], leaves.spent[n, 1])
                    s0 = board_start[b]
                    e0 = s0 + board_len[b]
                    for h in range(H):
                        v[t, h] = zero
                    showdown_values(
                        q[t], dup, orders[s0:e0], c1s[s0:e0], c2s[s0:e0], ladder[3 * s0 : 3 * e0], board_rows[b],
                        np.bool_(False), stake, qs, v[t], np.int64(NO_FOLD), tmp, 0.0, tmp, tmp,
                    )  # fmt: skip
                elif kd == DECISION and leaves.stage[n] == S - 1:
                    _best_or_sum(v, t, leaves.first_child[n] - rs, leaves.num_children[n], leaves.player[n] == i)
                else:
                    continue
                for h in range(H):
                    if bk[h] >= 0:
                        acc[t, h] += v[t, h]
            last = j == ncards - 1 or leaves.group[leaves.cards[j + 1]] != leaves.group[d]
            if not last:
                continue
            for t in range(R - 1, -1, -1):  # the group's earlier-stage decisions, on the sums over its deals
                n = rs + t
                if leaves.kind[n] != DECISION or leaves.stage[n] == S - 1:
                    continue
                _best_or_sum(acc, t, leaves.first_child[n] - rs, leaves.num_children[n], leaves.player[n] == i)
            for h in range(H):
                total[h] += acc[0, h]
        row = node - base
        sc = cfv.dtype.type(leaves.weight)
        for h in range(H):
            cfv[row, h] = total[h] * sc


#: The kernels marked ``inline=THIN``: they have no machine code of their own.
THIN_WRAPPERS = (leaf_values, _continuation_sums, _piece_pass)
