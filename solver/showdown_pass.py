"""Terminal values, the innermost kernels of every pass. From the opponent's reach over
the hands (the hands as plain arrays of ``HandArrays``' fields), a fold's values by
per-card reach totals (``compat_sums``: per hand, the reach of the hands sharing no
card with it) and a showdown's by one sweep over the hands sorted by strength
(``showdown_values``: the stake times the compatible reach of weaker hands less that
of stronger ones; a fold beside it in the same sweep). ``showdown_node`` and
``terminal_children`` compute a tree node's (``TreeArrays``' fields) into its row of
the values. Each writes into rows the caller gives; none allocates more than a
per-card table."""

from __future__ import annotations

import numba as nb
import numpy as np

from .pass_arrays import FASTMATH, LADDER_WIDTH, NO_CARD, NUM_CARDS
from .tree import SHOWDOWN


@nb.njit(cache=True, fastmath=FASTMATH)
def _card_totals(q, c1, c2, card):
    """card[c] += the reach q of the hands holding card c (NO_CARD left at 0); returns
    the total reach. Hands with no reach are skipped (CFR+ leaves many). Over the
    hands of ``c1`` (a row may be longer: see ``block_pass._walk_block``)."""
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


#: What a showdown sweep also computes for a fold terminal beside it (see showdown_values).
NO_FOLD, FOLD_SAME_REACH, FOLD_OTHER_REACH = 0, 1, 2


@nb.njit(cache=True, fastmath=FASTMATH)
def showdown_values(
    q, dup, order, c1s, c2s, ladder, rows, identity, stake, qs, out, fold_mode, y, fold_value, ys, fold_out
):
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
    of ``qs`` (see ``Workspace``). A fold terminal under the same decision node is
    evaluated in the same call: fold_out[h] = fold_value * (compatible reach of
    ``y``), where y is ``q`` itself (FOLD_SAME_REACH: from F and F*) or another
    reach (FOLD_OTHER_REACH: its card totals are summed apart, into a per-card table
    in the arrays' precision as F is); NO_FOLD leaves fold_out alone."""
    n = order.shape[0]
    W = LADDER_WIDTH
    zero = qs.dtype.type(0.0)
    table = qs[qs.shape[0] - (rows * W + n + 3 * W) :]
    at_end = table[rows * W :]  # per group: the running reach total at its end, then K
    F = table[rows * W + n :]
    R = F[W:]
    Y = F[2 * W :]  # FOLD_OTHER_REACH: y's per-card totals
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
        _with_fold(out, fold_out, order, identity, st, at_end, gid, table, s1, s2, fold_value, dup, x_, F_all, F)
        return
    if fold_mode == FOLD_OTHER_REACH:  # y's card totals as F's, then both in one loop
        for c in range(W):
            Y[c] = zero
        y_total = 0.0
        for t in range(n):
            x = ys[t]
            if x != zero:
                Y[c1s[t]] += x
                Y[c2s[t]] += x
                y_total += x
        Y[NO_CARD] = zero
        y_all = qs.dtype.type(y_total)
        _with_fold(out, fold_out, order, identity, st, at_end, gid, table, s1, s2, fold_value, dup, ys, y_all, Y)
        return
    if identity:
        for t in range(n):
            out[t] = st * (at_end[gid[t]] - table[s1[t]] - table[s2[t]])
    else:
        for t in range(n):
            out[order[t]] = st * (at_end[gid[t]] - table[s1[t]] - table[s2[t]])


@nb.njit(cache=True, fastmath=FASTMATH)
def _with_fold(out, fold_out, order, identity, st, at_end, gid, table, s1, s2, fold_value, dup, fx, f_all, cards):
    """``showdown_values``' last loop with a fold beside the showdown: each hand's
    showdown value from its group's K and its two slots, and its fold value from the
    fold reach ``fx`` (in strength order), its total ``f_all`` and its per-card totals
    ``cards`` (a card is its slot's column), in the arrays' precision."""
    W = LADDER_WIDTH
    fv = table.dtype.type(fold_value)
    dp = table.dtype.type(dup)
    n = gid.shape[0]
    if identity:
        for t in range(n):
            a = s1[t]
            b = s2[t]
            out[t] = st * (at_end[gid[t]] - table[a] - table[b])
            fold_out[t] = fv * (dp * fx[t] + f_all - cards[a & (W - 1)] - cards[b & (W - 1)])
    else:
        for t in range(n):
            a = s1[t]
            b = s2[t]
            out[order[t]] = st * (at_end[gid[t]] - table[a] - table[b])
            fold_out[order[t]] = fv * (dp * fx[t] + f_all - cards[a & (W - 1)] - cards[b & (W - 1)])


@nb.njit(cache=True, fastmath=FASTMATH)
def showdown_node(
    n, q, out, spent, board_of, dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, qs,
    tmp, in_order,
):  # fmt: skip
    """out = the values of showdown node n against the opponent's reach ``q`` (its
    stake, on its board's hand order; ``in_order``: rows are already in that order,
    see ``block_pass._walk_block``)."""
    b = board_of[n]
    s0 = board_start[b]
    e0 = s0 + board_len[b]
    showdown_values(
        q, dup, orders[s0:e0], c1s[s0:e0], c2s[s0:e0], ladder[3 * s0 : 3 * e0], board_rows[b], board_identity[b] or
        in_order, min(spent[n, 0], spent[n, 1]), qs, out, np.int64(NO_FOLD), tmp, 0.0, tmp, tmp,
    )  # fmt: skip


@nb.njit(cache=True, fastmath=FASTMATH)
def terminal_children(
    n, base, i, kind, player, first_child, num_children, spent, board_of, slot, c1, c2, dup, orders, c1s, c2s, ladder,
    board_start, board_len, board_rows, board_identity, at_parent, reach, cfv, tmp, qs, in_order,
):  # fmt: skip
    """Values of the showdown and fold children of decision node n (those marked
    ``at_parent``) in one sweep: the fold's compatible totals come out of the
    showdown's (the same opponent reach when i acts at n, else alongside). Node m's rows
    of ``reach`` and ``cfv`` are m - base; their hands are those of ``c1``, in the
    showdown board's strength order if ``in_order`` (see ``block_pass._walk_block``)."""
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
            showdown_values(
                q, dup, orders[s0:e0], c1s[s0:e0], c2s[s0:e0], ladder[3 * s0 : 3 * e0], board_rows[b], board_identity[b]
                or in_order, stake, qs, cfv[sd - base], np.int64(NO_FOLD), q, 0.0, tmp, tmp,
            )  # fmt: skip
        else:
            mode = FOLD_SAME_REACH if slot[o, sd] == slot[o, fd] else FOLD_OTHER_REACH
            showdown_values(
                q, dup, orders[s0:e0], c1s[s0:e0], c2s[s0:e0], ladder[3 * s0 : 3 * e0], board_rows[b], board_identity[b]
                or in_order, stake, qs, cfv[sd - base], mode, reach[o, slot[o, fd] - base], fold_value, tmp, cfv[fd -
                base],
            )  # fmt: skip
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
