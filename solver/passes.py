"""The numba kernels of vector CFR+ (``cfr`` drives them): terminal values (folds by
per-card reach totals, showdowns by one sweep over the hands sorted by strength, see
``showdown_values``), the forward and backward passes over the public tree, block by block
(``_walk_block``), the safe gadget's root, and the iteration loop (``run_cfr``).

They stay in one module on purpose: numba's on-disk cache of a kernel is invalidated
when its own source file changes, not when a kernel it calls changes in another file,
so kernels that call each other live together. The pass-level kernels take their
arrays bundled in NamedTuples (``TreeArrays``, ``HandArrays``, ``PassRule``, ``Scratch``,
``BlockArrays``; ``Subgame.kernel_args`` and ``Subgame.block_arrays`` make them); the
per-node kernels take plain arrays.

Each kernel compiles once per precision (single for solves and the agent's
evaluations, double for the metrics'); a full best response below the leaves is
double-precision code only (``LeafData.response``: None in single precision prunes it).
Numba compiles a separate copy for a constant argument (typed as that literal), so
calls between kernels pass typed values (``np.int64(0)``, ``np.bool_(False)``), and
the kernels that run on threads are separate entry points (``run_cfr_parallel``,
``traverse_parallel``), so that a one-thread solve never compiles them.
"""

from __future__ import annotations

import time
from typing import Final, NamedTuple

import numba as nb
import numpy as np

from . import ranges as rg
from .keyed import keyed_draw
from .tree import CHANCE, DECISION, FOLD_TERMINAL, LEAF, MATRIX_TERMINAL, SHOWDOWN

NUM_CARDS = 52
#: Cards and hand positions used as gather indices are unsigned: numba then emits no
#: negative-index wraparound for them (measured 1.7x faster on the terminal sweeps).
CARD_DTYPE = np.uint8
INDEX_DTYPE = np.uint32
#: LLVM's fast-math flags for the kernels, without reassociation and contraction (fused
#: multiply-add): with those, the rounding of a solve depended on how the kernels were
#: compiled (inlined fresh in this process, or loaded from numba's cache), and a solver
#: pool's worker and its parent gave different strategies for the same job. Without
#: them solves are the same bit for bit however compiled, at the same speed.
FASTMATH = {"nnan", "ninf", "nsz", "arcp", "afn"}
#: ``inline=`` of a thin wrapper that only fastmath kernels call (``THIN_WRAPPERS``):
#: numba inlines it into its callers, so that the code it calls is not compiled to
#: machine code once more for it (numba compiles every kernel with all it calls).
THIN: Final = "always"
#: Card index of the missing second card of one-card hands: its totals stay zero.
NO_CARD = rg.NO_CARD  # NUM_CARDS: per-card totals have NUM_CARDS + 1 entries
#: Columns of the showdown sweep's card table (see ``ranges.ladder``).
LADDER_WIDTH = rg.LADDER_WIDTH


class TreeArrays(NamedTuple):
    """A subgame's public tree as the kernels read it (see ``Subgame`` and
    ``PublicTree``): per node its kind, actor, first child, number of children, chips
    put in (node, player), dealt card and showdown board, the chance weight, and
    ``slot[p, n]``: the row of player p's reach at node n."""

    kind: np.ndarray
    player: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    spent: np.ndarray
    dealt: np.ndarray
    board_of: np.ndarray
    chance_weight: np.ndarray
    slot: np.ndarray


class HandArrays(NamedTuple):
    """The hands of a subgame as the kernels read them (see ``Subgame``): their cards
    (``c1``, ``c2``; ``dup`` 1.0 for two-card hands), per showdown board the hands by
    strength with their cards and the sweep's card table (``orders`` .. ``board_rows``,
    concatenated, ``board_identity`` where the order is 0..H-1), an explicit game's
    payoffs, and per node whether its parent computes its terminal value."""

    c1: np.ndarray
    c2: np.ndarray
    dup: float
    orders: np.ndarray
    c1s: np.ndarray
    c2s: np.ndarray
    ladder: np.ndarray
    board_start: np.ndarray
    board_len: np.ndarray
    board_rows: np.ndarray
    board_identity: np.ndarray
    payoff: np.ndarray
    at_parent: np.ndarray


class PassRule(NamedTuple):
    """What one pass plays and updates: the current strategy ``sigma`` (node, hand),
    the regrets and average weights, the average's weight for this iteration, whether
    to update (CFR+) and whether the traverser best-responds instead of playing sigma.
    ``regret_matching``: the current strategy is regret matching on ``regret``, made
    row by row where a pass needs it (``sigma`` is not read or written), the same
    bits as a ``sigma`` that ``current_strategy`` made; else ``sigma``, and an
    updating pass writes the next strategy of the traverser's nodes into it."""

    sigma: np.ndarray
    regret: np.ndarray
    avg: np.ndarray
    weight: float
    update: bool
    best_response: bool
    regret_matching: bool
    #: ``discount[0]``, ``discount[1]``: the factors an update multiplies a node's
    #: positive and negative regrets by before adding the pass's (Discounted CFR); both
    #: 1 and ``discount[2]`` 1: CFR+ (negatives floored at 0, nothing multiplied)
    discount: np.ndarray = np.ones(3)


#: ``PassRule.discount`` of CFR+.
CFR_PLUS = np.ones(3)


class Scratch(NamedTuple):
    """A pass's working rows: ``reach[p, row]`` and ``cfv[row]`` per hand, a row of
    hands (``tmp``) and the showdown sweep's gathered reach and card table (``qs``)."""

    reach: np.ndarray
    cfv: np.ndarray
    tmp: np.ndarray
    qs: np.ndarray


class BlockArrays(NamedTuple):
    """The tree cut into blocks below chance nodes (see ``Subgame`` and
    ``_walk_block``): the nodes above them end at ``top_end``; per block its node range,
    the chance child above it and its chance node, its showdowns' one board (or -1);
    per node whether a block walk computes it and its block-local reach row; the
    chance nodes whose children are all blocks' (``block_chances``: on threads their
    values are summed by hand ranges after the blocks, ``top_done`` then marks them
    with the blocks' nodes for the top's backward pass); the block-local reaches and
    values, one copy per share of the blocks.

    Public chance sampling: with ``card_count`` > 0 a pass walks only the blocks below
    ``card_count`` cards of ``cards`` (the cards the block chances deal), drawn by
    ``draw_cards`` for the pass (``leaf_card``'s rule: in turn round a keyed shuffle,
    or keyed independent draws), and each block chance sums those children only, each
    weighted by ``card_scale[card]`` (cards / card_count per draw; 0: not drawn), an
    unbiased estimate of the sum over every card. ``block_card``: each block's card;
    ``by_work``: the blocks, the most nodes first; the pass's blocks are dealt to the
    shares greedily by nodes (``walked[walked_start[s]:walked_start[s + 1]]``: share
    s's; ``block_share``, ``share_work``: scratch). ``card_count`` 0: every block,
    share t taking blocks t, t + T, ..."""

    top_end: int
    blocks: np.ndarray
    block_parent: np.ndarray
    block_chance: np.ndarray
    in_block: np.ndarray
    local_slot: np.ndarray
    block_board: np.ndarray
    block_chances: np.ndarray
    top_done: np.ndarray
    block_reach: np.ndarray
    block_cfv: np.ndarray
    card_count: int
    card_seed: int
    cards_independent: bool
    cards: np.ndarray  # (cards,) int64
    card_scale: np.ndarray  # (NUM_CARDS + 1,) float64
    block_card: np.ndarray  # (blocks,) int64
    by_work: np.ndarray  # (blocks,) int64
    walked: np.ndarray  # (blocks,) int64
    walked_start: np.ndarray  # (shares + 1,) int64
    block_share: np.ndarray  # (blocks,) int64
    share_work: np.ndarray  # (shares,) int64


class LeafData(NamedTuple):
    """The leaves of a depth-limited tree and their continuation strategies (built by
    ``depth_limited``), with their regrets and scratch rows; ``no_leaves`` for a tree
    without leaves. Leaf l is tree node ``node[l]``; its continuation tree (the rest
    of the hand after the next card, the same for every card) is nodes
    ``start[l]..start[l + 1] - 1`` of the ``kind`` .. ``stage`` arrays, children by
    global index; ``stage[m]``: the rounds after the leaf's that node m is in.
    ``strategy[m, k, b]``: the probability that continuation k takes the
    action into continuation node m holding a hand of bucket b; ``bucket[d, s, h]``:
    the bucket of hand h in stage s once card (or deal) d is dealt (-1: h holds a
    card of d, or d cannot come); ``board[d]``: the subgame's showdown board for d;
    ``cards``: the cards (deals) that can come; ``weight``: the chance weight of one
    for a pair of hands.
    ``sample``: cards per solve pass (0: every card), taken in turn from ``cards``
    (then a shuffle keyed by ``seed``), or drawn independently (keyed by ``seed``)
    when ``independent``. ``group[d]``: deals sharing the cards of the stages before
    the last (from the flop: the turn card; listed together in ``cards``);
    ``full_response``: a best-responding pass responds over the whole continuation
    trees, every deal of ``cards`` (not only by choosing among the continuations),
    in ``response``'s scratch: double precision only; in single precision (solves)
    ``response`` is None and the kernels hold no code for it.
    ``regret``, ``sigma``, ``avg``: (2, leaves, K, hands) per player. The leaves are
    cut into shares (``share_leaves[share_start[s]:share_start[s + 1]]``), each with
    its own scratch (the first axis of ``forward`` .. ``response``), so that shares
    can be valued on threads of their own (``_leaf_values_parallel``): no leaf's
    values depend on another's. Each leaf's continuation tree is cut into pieces (see
    ``depth_limited.leaf_pieces``): piece p is the nodes
    ``piece_nodes[piece_start[p]:piece_start[p + 1]]`` (its root first) of leaf
    ``piece_leaf[p]``, leaf l's pieces ``leaf_piece_start[l]..leaf_piece_start[l + 1] -
    1``, and its top, the nodes of no piece, ``top_nodes[top_start[l]:top_start[l +
    1]]``; ``parent``: each node's parent (-1 at a root). On threads a pass with
    ``item_draws`` cards per leaf values (piece, card) items: share s takes the items
    ``items[item_start[s]:item_start[s + 1]]`` (item p * item_draws + j: card j of piece
    p), each into its row of ``parts`` (one row, and ``parts_same``, where its values
    are the same under every continuation), then each share of the leaves values its
    tops on them and sums its cards in order, as one thread does: the same values bit
    for bit, and a pass keeps more threads busy than it has leaves and cards
    (``item_draws`` 0: no items, leaves by shares)."""

    node: np.ndarray
    start: np.ndarray
    kind: np.ndarray
    player: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    spent: np.ndarray
    stage: np.ndarray
    strategy: np.ndarray
    bucket: np.ndarray
    board: np.ndarray
    cards: np.ndarray
    weight: float
    sample: int
    seed: int
    independent: bool
    group: np.ndarray
    full_response: bool
    regret: np.ndarray
    sigma: np.ndarray
    avg: np.ndarray
    share_start: np.ndarray  # (shares + 1,) int64
    share_leaves: np.ndarray  # (leaves,) int64
    forward: np.ndarray  # (shares, K, widest, hands)
    backward: np.ndarray  # (shares, K, widest, hands)
    values: np.ndarray  # (shares, K, hands)
    summed: np.ndarray  # (shares, hands)
    response: np.ndarray | None  # double: (shares, 3, widest, hands) with full_response, else (shares, 3, 0, 0)
    item_start: np.ndarray  # (shares + 1,) int64
    items: np.ndarray  # (pieces * item_draws,) int64
    item_draws: int
    parts: np.ndarray  # (pieces * item_draws, K, hands)
    parts_same: np.ndarray  # (pieces * item_draws,) bool
    parent: np.ndarray  # (continuation nodes,) int64
    top_start: np.ndarray  # (leaves + 1,) int64
    top_nodes: np.ndarray  # int64
    piece_start: np.ndarray  # (pieces + 1,) int64
    piece_nodes: np.ndarray  # int64
    leaf_piece_start: np.ndarray  # (leaves + 1,) int64
    piece_leaf: np.ndarray  # (pieces,) int64


def can_respond_fully(dtype) -> bool:
    """Whether passes in ``dtype`` can best-respond over the whole continuation trees
    (``LeafData.full_response``): in double precision only."""
    return np.dtype(dtype) == np.float64


def response_scratch(dtype, shape: tuple[int, ...]) -> np.ndarray | None:
    """``LeafData.response``: zeros of ``shape`` where ``can_respond_fully(dtype)``, else
    None (a solve never best-responds; the kernels it runs then hold no code for it)."""
    return np.zeros(shape, dtype=dtype) if can_respond_fully(dtype) else None


def no_leaves(dtype=np.float64) -> LeafData:
    """The LeafData of a tree without leaves (kernels then skip leaf work)."""
    z8 = np.zeros(0, dtype=np.int8)
    z32 = np.zeros(0, dtype=np.int32)
    z64 = np.zeros(0, dtype=np.int64)
    return LeafData(
        z64, np.zeros(1, dtype=np.int64), z8, z8.copy(), z32, z32.copy(), np.zeros((0, 2), dtype=np.int64), z8.copy(),
        np.zeros((0, 1, 1), dtype=np.float32), np.zeros((52, 1, 0), dtype=np.int32), np.full(52, -1, dtype=np.int64),
        z64.copy(), 0.0, 0, 0, False, z64.copy(), False, np.zeros((2, 0, 1, 0), dtype=dtype),
        np.zeros((2, 0, 1, 0), dtype=dtype), np.zeros((2, 0, 1, 0), dtype=dtype), np.zeros(2, dtype=np.int64),
        z64.copy(), np.zeros((1, 1, 1, 0), dtype=dtype), np.zeros((1, 1, 1, 0), dtype=dtype),
        np.zeros((1, 1, 0), dtype=dtype), np.zeros((1, 0), dtype=dtype), response_scratch(dtype, (1, 3, 0, 0)),
        np.zeros(1, dtype=np.int64), z64.copy(), 0, np.zeros((0, 1, 0), dtype=dtype), np.zeros(0, dtype=np.bool_),
        z64.copy(), np.zeros(1, dtype=np.int64), z64.copy(), np.zeros(1, dtype=np.int64), z64.copy(),
        np.zeros(1, dtype=np.int64), z64.copy(),
    )  # fmt: skip


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


@nb.njit(cache=True, fastmath=FASTMATH)
def _showdown_node(
    n, q, out, spent, board_of, dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, qs,
    tmp, in_order,
):  # fmt: skip
    """out = the values of showdown node n against the opponent's reach ``q`` (its
    stake, on its board's hand order; ``in_order``: rows are already in that order,
    see _walk_block)."""
    b = board_of[n]
    s0 = board_start[b]
    e0 = s0 + board_len[b]
    showdown_values(
        q, dup, orders[s0:e0], c1s[s0:e0], c2s[s0:e0], ladder[3 * s0 : 3 * e0], board_rows[b], board_identity[b] or
        in_order, min(spent[n, 0], spent[n, 1]), qs, out, np.int64(NO_FOLD), tmp, 0.0, tmp, tmp,
    )  # fmt: skip


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
def _top_forward(tree, hands, reach0, reach1, rule, work, top_end, in_block, skip):
    """The roots' reaches (``reach0``, ``reach1``) and the forward pass over nodes
    0..top_end-1 (see _forward); the caller values the leaves."""
    for h in range(hands.c1.shape[0]):
        work.reach[0, 0, h] = reach0[h]
        work.reach[1, 0, h] = reach1[h]
    _forward(
        np.int64(0), top_end, np.int64(0), tree.kind, tree.player, tree.first_child, tree.num_children, tree.dealt,
        tree.slot, hands.c1, hands.c2, rule, work.reach, in_block, skip, work.tmp,
    )  # fmt: skip


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
        _top_forward(tree, hands, reach0, reach1, rule, work, n_nodes, none, np.int64(-1))
        if parallel_leaves:
            _leaf_values_parallel(leaves, i, np.int64(0), tree, hands, rule, work)
        else:
            _leaf_values(leaves, i, np.int64(0), tree, hands, rule, work)
        _backward(np.int64(0), n_nodes, np.int64(0), i, tree, hands, rule, work, none, np.bool_(False))

    return traverse


#: One pass over the whole tree (see ``_make_traverse``): the leaves one share after
#: another, or each share on a thread.
traverse = _make_traverse(False)
traverse_parallel = _make_traverse(True)


@nb.njit(cache=True, fastmath=FASTMATH)
def _walk_block(b, i, tree, hands, rule, top, work, blocks):
    """Block b of ``blocks``: the chance child ``parent`` of chance node ``chance`` and the
    subtree below it (nodes lo..hi-1), forward and then backward, back to back, in
    small block-local arrays that stay in cache (``work.reach``, ``work.cfv``: row 0
    is ``parent``, row m - lo + 1 block node m; ``blocks.local_slot`` the reach
    slots in those terms) instead of rows of the tree-wide arrays (``top.reach``,
    ``top.cfv``), which a pass over a big tree streams through memory. In: the
    chance node's reach (the top pass made it); out: the parent's values (the top
    pass reads them). The parent's own work is done here too, so that in parallel it
    runs on the block's thread.

    ``board`` (``blocks.block_board[b]``) >= 0: every showdown of the block is on that
    board, and the block's rows (block-local reaches and values, and the block
    nodes' rows of ``sigma``, ``regret`` and ``avg``) hold its live hands in its
    strength order, in their first ``board_len[board]`` columns: the reach is
    gathered into that order once here and the parent's values scattered back,
    instead of at every showdown of the block (see ``Subgame.block_board``,
    ``to_hand_order``)."""
    kind, player, first_child, num_children, spent, dealt, board_of, chance_weight, slot = tree
    c1, c2, dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, payoff, at_parent = hands
    sigma, regret, avg, weight, update, best_response, regret_matching, discount = rule
    block_reach, block_cfv, tmp, qs = work
    reach, cfv = top.reach, top.cfv
    lo, hi = blocks.blocks[b, 0], blocks.blocks[b, 1]
    parent, chance, board = blocks.block_parent[b], blocks.block_chance[b], blocks.block_board[b]
    local_slot, in_block = blocks.local_slot, blocks.in_block
    H = c1.shape[0]
    base = lo - 1
    if kind[parent] == SHOWDOWN:  # both all in before this card: nothing below
        # straight from the chance node's reach: the board's order leaves out the
        # hands holding the dealt card, and their values come out 0
        q = reach[1 - i, slot[1 - i, chance]]
        _showdown_node(
            parent, q, cfv[parent], spent, board_of, dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows,
            board_identity, qs, tmp, np.bool_(False)
        )  # fmt: skip
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
        _dealt_reach(chance, parent, reach, np.int64(0), block_reach, np.int64(0), dealt, slot, c1, c2)
    Hb = hc1.shape[0]
    f = first_child[parent]
    if kind[parent] == DECISION:
        _decision_reach(parent, np.int64(0), base, player, first_child, num_children, rule, block_reach, Hb, tmp)
    else:  # a chance node right below a chance node (both players all in); never in order
        for c in range(f, f + num_children[parent]):
            _dealt_reach(parent, c, block_reach, base, block_reach, c - base, dealt, local_slot, c1, c2)
    _forward(
        lo, hi, base, kind, player, first_child, num_children, dealt, local_slot, hc1, hc2, rule, block_reach,
        in_block, np.int64(-1), tmp,
    )  # fmt: skip
    _backward_nodes(
        lo, hi, base, i, kind, player, first_child, num_children, spent, dealt, board_of, chance_weight, local_slot,
        hc1, hc2, dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, payoff, at_parent,
        sigma, regret, avg, weight, update, best_response, regret_matching, discount, block_reach, block_cfv, tmp, qs,
        in_block, in_order,
    )  # fmt: skip
    if kind[parent] == DECISION:
        _terminal_children(
            parent, base, i, kind, player, first_child, num_children, spent, board_of, local_slot, hc1, hc2, dup,
            orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, at_parent, block_reach,
            block_cfv, tmp, qs, in_order,
        )  # fmt: skip
        _decision_values(
            parent, np.int64(0), np.int64(0), base, i, player, first_child, num_children, sigma, regret, avg, weight,
            update, best_response, regret_matching, discount, block_reach, block_cfv, tmp, qs, Hb,
        )  # fmt: skip
    else:
        _chance_values(
            parent, np.int64(0), base, np.int64(0), H, first_child, num_children, dealt, chance_weight, c1, c2,
            block_cfv,
        )  # fmt: skip
    if in_order:
        for h in range(H):  # the hands holding the dealt card
            cfv[parent, h] = 0.0
        for t in range(Hb):
            cfv[parent, perm[t]] = block_cfv[0, t]
    else:
        for h in range(H):
            cfv[parent, h] = block_cfv[0, h]


@nb.njit(cache=True, fastmath=FASTMATH)
def traverse_by_block(i, tree, hands, reach0, reach1, rule, work, blocks, skip, leaves):
    """``traverse`` block by block: the nodes above the blocks forward, each block
    forward then backward (``_walk_block``, in ``blocks.block_reach[0]`` and
    ``blocks.block_cfv[0]``), then the top backward. The same values as ``traverse``
    (blocks are independent and each node's arithmetic is unchanged)."""
    top_end = blocks.top_end if blocks.blocks.shape[0] > 0 else tree.kind.shape[0]
    _top_forward(tree, hands, reach0, reach1, rule, work, top_end, blocks.in_block, skip)
    _leaf_values(leaves, i, np.int64(0), tree, hands, rule, work)
    share = Scratch(blocks.block_reach[0], blocks.block_cfv[0], work.tmp, work.qs)
    if blocks.card_count > 0:  # the pass's cards only (see BlockArrays), then their chance nodes
        for j in range(blocks.walked_start[blocks.walked_start.shape[0] - 1]):
            _walk_block(blocks.walked[j], i, tree, hands, rule, work, share, blocks)
        for n in blocks.block_chances:
            _sampled_chance_values(
                n, n, np.int64(0), np.int64(0), hands.c1.shape[0], tree.first_child, tree.num_children, tree.dealt,
                tree.chance_weight, hands.c1, hands.c2, work.cfv, blocks.card_scale,
            )  # fmt: skip
        _backward(np.int64(0), top_end, np.int64(0), i, tree, hands, rule, work, blocks.top_done, np.bool_(False))
        return
    for b in range(blocks.blocks.shape[0]):
        _walk_block(b, i, tree, hands, rule, work, share, blocks)
    _backward(np.int64(0), top_end, np.int64(0), i, tree, hands, rule, work, blocks.in_block, np.bool_(False))


@nb.njit(cache=True, parallel=True)
def traverse_blocks(i, tree, hands, reach0, reach1, rule, work, blocks, skip, leaves):
    """``traverse_by_block`` with the blocks walked in parallel: share t of
    ``block_reach.shape[0]`` takes blocks t, t + T, t + 2T, ... (neighbouring blocks
    are alike in size, so strided shares balance; contiguous halves did not), in its
    own block-local arrays and scratch rows; the leaves' shares too
    (``_leaf_values_parallel``)."""
    top_end = blocks.top_end if blocks.blocks.shape[0] > 0 else tree.kind.shape[0]
    _top_forward(tree, hands, reach0, reach1, rule, work, top_end, blocks.in_block, skip)
    _leaf_values_parallel(leaves, i, np.int64(0), tree, hands, rule, work)
    T = blocks.block_reach.shape[0]
    sampled = blocks.card_count > 0
    for t in nb.prange(T):
        share = Scratch(blocks.block_reach[t], blocks.block_cfv[t], np.empty_like(work.tmp), np.empty_like(work.qs))
        if sampled:  # the share's blocks of the pass's cards (see BlockArrays)
            for j in range(blocks.walked_start[t], blocks.walked_start[t + 1]):
                _walk_block(blocks.walked[j], i, tree, hands, rule, work, share, blocks)
        else:
            for b in range(np.int64(t), blocks.blocks.shape[0], T):
                _walk_block(b, i, tree, hands, rule, work, share, blocks)
    # the chance nodes above the blocks, each cut into T ranges of hands (one thread
    # would otherwise sum 48 children per node while the others wait)
    H = hands.c1.shape[0]
    C = blocks.block_chances.shape[0]
    for j in nb.prange(C * T):
        n = blocks.block_chances[j // T]
        s = j % T
        if sampled:
            _sampled_chance_values(
                n, n, np.int64(0), H * s // T, H * (s + 1) // T, tree.first_child, tree.num_children, tree.dealt,
                tree.chance_weight, hands.c1, hands.c2, work.cfv, blocks.card_scale,
            )  # fmt: skip
        else:
            _chance_values(
                n, n, np.int64(0), H * s // T, H * (s + 1) // T, tree.first_child, tree.num_children, tree.dealt,
                tree.chance_weight, hands.c1, hands.c2, work.cfv,
            )  # fmt: skip
    _backward(np.int64(0), top_end, np.int64(0), i, tree, hands, rule, work, blocks.top_done, np.bool_(False))


@nb.njit(cache=True, fastmath=FASTMATH)
def _forward(
    lo, hi, base, kind, player, first_child, num_children, dealt, slot, c1, c2, rule, reach, in_block, skip, tmp
):  # fmt: skip
    """Reaches below the nodes lo..hi-1 (parents come before children) under
    ``rule``'s current strategy; node n's row of ``reach`` is n - base. Nodes marked
    ``in_block`` (chance children whose block walk computes them) are left out, and
    so are their rows. So are the decisions of player ``skip`` (-1: none), whose
    rows are still current (see run_cfr). ``tmp``: a row of scratch."""
    for n in range(lo, hi):
        if in_block[n]:  # a chance child whose block's walk does it
            continue
        k = kind[n]
        if k == DECISION:
            if player[n] != skip:
                _decision_reach(
                    n, slot[player[n], n] - base, base, player, first_child, num_children, rule, reach, c1.shape[0], tmp
                )
        elif k == CHANCE:
            for c in range(first_child[n], first_child[n] + num_children[n]):
                if not in_block[c]:
                    _dealt_reach(n, c, reach, base, reach, c - base, dealt, slot, c1, c2)


@nb.njit(cache=True, fastmath=FASTMATH)
def _decision_reach(n, src, base, player, first_child, num_children, rule, reach, H, tmp):
    """The actor's reach at the children of decision node n (rows c - base) from its
    reach at n (row ``src``) under ``rule``'s current strategy, for the first H hands
    (``tmp``: scratch, its first H entries)."""
    p = player[n]
    f = first_child[n]
    m = num_children[n]
    if rule.regret_matching:
        _positive_totals(rule.regret, f, m, tmp, H)
        for c in range(f, f + m):
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
    n, base, i, kind, player, first_child, num_children, spent, board_of, slot, c1, c2, dup, orders, c1s, c2s, ladder,
    board_start, board_len, board_rows, board_identity, at_parent, reach, cfv, tmp, qs, in_order,
):  # fmt: skip
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
def _leaf_values(leaves, i, base, tree, hands, rule, work):
    """Player i's values at every leaf (rows node - base of ``cfv``), from both
    reaches there (rows slot - base of ``reach``): per continuation k of i, the
    value of playing it to the end against the other player's mix of continuations,
    averaged over the next card (every card, or ``leaves.sample`` cards per pass
    chosen by ``leaf_card``: each pass's cards are uniform over the keys, so the mean
    is unbiased),
    then mixed by i's leaf strategy (or the best k per hand when
    ``best_response``). ``update``: regret matching+ on the leaf choices of i, the
    linearly weighted average (``weight``) and i's next leaf strategy. The shares of
    leaves one after another (``_leaf_values_parallel``: on threads)."""
    if leaves.node.shape[0] == 0:
        return
    for s in range(leaves.share_start.shape[0] - 1):
        _leaf_share(
            leaves, s, i, base, tree, hands, rule, work.reach, work.cfv, work.tmp, work.qs, np.bool_(False),
            leaves.response,
        )  # fmt: skip


@nb.njit(cache=True, parallel=True)
def _leaf_values_parallel(leaves, i, base, tree, hands, rule, work):
    """``_leaf_values`` on threads, the same values bit for bit: when the pass values
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
    """``_leaf_values`` for the leaves of share s, in its scratch and ``tmp``, ``qs``:
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
def _backward(lo, hi, base, i, tree, hands, rule, work, in_block, in_order):
    """Values at the nodes hi-1..lo (see _backward_nodes)."""
    kind, player, first_child, num_children, spent, dealt, board_of, chance_weight, slot = tree
    c1, c2, dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, payoff, at_parent = hands
    sigma, regret, avg, weight, update, best_response, regret_matching, discount = rule
    reach, cfv, tmp, qs = work
    _backward_nodes(
        lo, hi, base, i, kind, player, first_child, num_children, spent, dealt, board_of, chance_weight, slot, c1, c2,
        dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, payoff, at_parent, sigma,
        regret, avg, weight, update, best_response, regret_matching, discount, reach, cfv, tmp, qs, in_block, in_order,
    )  # fmt: skip


@nb.njit(cache=True, fastmath=FASTMATH)
def _backward_nodes(
    lo, hi, base, i, kind, player, first_child, num_children, spent, dealt, board_of, chance_weight, slot, c1, c2, dup,
    orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, payoff, at_parent, sigma, regret, avg,
    weight, update, best_response, regret_matching, discount, reach, cfv, tmp, qs, in_block, in_order,
):  # fmt: skip
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
        if k == LEAF:  # _leaf_values computed it
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
            _showdown_node(
                n, reach[o, slot[o, n] - base], cfv[n - base], spent, board_of, dup, orders, c1s, c2s, ladder,
                board_start, board_len, board_rows, board_identity, qs, tmp, in_order,
            )  # fmt: skip
        elif k == CHANCE:
            _chance_values(
                n, n - base, base, np.int64(0), H, first_child, num_children, dealt, chance_weight, c1, c2, cfv
            )  # fmt: skip
        else:
            _terminal_children(
                n, base, i, kind, player, first_child, num_children, spent, board_of, slot, c1, c2, dup, orders, c1s,
                c2s, ladder, board_start, board_len, board_rows, board_identity, at_parent, reach, cfv, tmp, qs,
                in_order,
            )  # fmt: skip
            _decision_values(
                n, n - base, slot[i, n] - base, base, i, player, first_child, num_children, sigma, regret, avg, weight,
                update, best_response, regret_matching, discount, reach, cfv, tmp, qs, H,
            )  # fmt: skip


@nb.njit(cache=True, fastmath=FASTMATH)
def _chance_values(n, row, base, lo, hi, first_child, num_children, dealt, chance_weight, c1, c2, cfv):
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
def _sampled_chance_values(n, row, base, lo, hi, first_child, num_children, dealt, chance_weight, c1, c2, cfv, scale):
    """``_chance_values`` over the children whose card the pass drew (``scale[card]`` >
    0), each weighted by its ``scale``: an unbiased estimate of every child's sum when
    the cards are drawn uniformly (see ``BlockArrays``). The same bits however the
    hands are cut."""
    f = first_child[n]
    zero = cfv.dtype.type(0.0)
    for h in range(lo, hi):
        cfv[row, h] = zero
    for c in range(f, f + num_children[n]):
        d = dealt[c]
        if scale[d] == 0.0:
            continue
        w = cfv.dtype.type(scale[d])
        for h in range(lo, hi):
            cfv[row, h] += w * cfv[c - base, h] if c1[h] != d and c2[h] != d else zero
    for h in range(lo, hi):
        cfv[row, h] *= chance_weight[n]


@nb.njit(cache=True)
def draw_cards(blocks, iteration, player):
    """The cards a sampled pass (``BlockArrays.card_count`` > 0) of ``player`` at
    ``iteration`` walks, into ``card_scale``, and its blocks dealt to the shares: each
    block, most nodes first, to the share with the fewest nodes so far (the first of
    them on a tie); each share's blocks in block order. Which blocks a share walks
    never changes a value: blocks are independent."""
    k = blocks.card_count
    n = blocks.cards.shape[0]
    scale = blocks.card_scale
    scale[:] = 0.0
    for j in range(k):
        scale[leaf_card(blocks.cards, k, blocks.card_seed, blocks.cards_independent, iteration, player, j)] += n / k
    T = blocks.walked_start.shape[0] - 1
    blocks.share_work[:] = 0
    for b in blocks.by_work:
        if scale[blocks.block_card[b]] == 0.0:
            blocks.block_share[b] = -1
            continue
        s = 0
        for u in range(1, T):
            if blocks.share_work[u] < blocks.share_work[s]:
                s = u
        blocks.block_share[b] = s
        blocks.share_work[s] += blocks.blocks[b, 1] - blocks.blocks[b, 0] + 1
    at = 0
    for s in range(T):
        blocks.walked_start[s] = at
        for b in range(blocks.blocks.shape[0]):
            if blocks.block_share[b] == s:
                blocks.walked[at] = b
                at += 1
    blocks.walked_start[T] = at


@nb.njit(cache=True, fastmath=FASTMATH)
def _decision_values(
    n, row, me, base, i, player, first_child, num_children, sigma, regret, avg, weight, update, best_response,
    regret_matching, discount, reach, cfv, tmp, scratch, H,
):  # fmt: skip
    """Values at decision node n (into ``row`` of ``cfv``) from its children's (rows
    c - base), with the CFR+ update at player i's nodes (``me``: i's reach row at n),
    for the first H hands; the current strategy as ``PassRule`` says
    (``regret_matching``: from ``regret``, else ``sigma``). ``tmp``, ``scratch``: rows
    of at least H."""
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
        _matched_values(f, m, row, me, base, i, regret, avg, weight, update, discount, reach, cfv, tmp, scratch, H)
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
def _matched_values(f, m, row, me, base, i, regret, avg, weight, update, discount, reach, cfv, tmp, sr, H):
    """``_decision_values`` at one of player i's decisions (children f..f+m-1) playing
    regret matching on ``regret``: each child's probabilities made into ``sr`` (a row
    of scratch) while the rows are in cache, used for the values and the average, then
    (``update``) the regrets: CFR+'s, or discounted as ``discount`` says (``PassRule``).
    No strategy is stored: the arrays a pass streams are the regrets and the average."""
    zero = regret.dtype.type(0.0)
    w = avg.dtype.type(weight)  # the arrays' own precision (see _decision_values)
    _positive_totals(regret, f, m, tmp, H)
    for h in range(H):
        cfv[row, h] = 0.0
    for c in range(f, f + m):
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


#: The kernels marked ``inline=THIN``: they have no machine code of their own.
THIN_WRAPPERS = (_leaf_values, _continuation_sums, _piece_pass)
