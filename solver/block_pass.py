"""A pass block by block: below its last chance nodes the tree is cut into blocks (a
chance child and its subtree: ``BlockArrays``), each walked forward then backward in
small block-local rows that stay in cache (``_walk_block``), between the forward and
the backward pass over the nodes above them (``tree_pass``). ``traverse_by_block``
(one thread) and ``traverse_blocks`` (the blocks in shares on numba's threads) take
``passes.traverse``'s arguments, the blocks, and the player whose reach is still
current, and compute the same values and updates. With public chance sampling
(``BlockArrays.card_count`` > 0) a pass walks only the blocks of the cards
``draw_cards`` drew for it, each weighted so that the chance nodes' sums stay
unbiased."""

from __future__ import annotations

import numba as nb
import numpy as np

from .leaf_pass import leaf_card, leaf_values, leaf_values_parallel
from .pass_arrays import FASTMATH, Scratch
from .showdown_pass import showdown_node, terminal_children
from .tree import DECISION, SHOWDOWN
from .tree_pass import (
    backward,
    backward_nodes,
    chance_values,
    dealt_reach,
    decision_reach,
    decision_values,
    forward,
    top_forward,
)


@nb.njit(cache=True, fastmath=FASTMATH)
def _walk_block(b, i, tree, hands, rule, top, work, blocks, kept):
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
    ``to_hand_order``). ``kept``: block-local rows (as ``work.cfv``'s) for the
    current strategy of i's decisions, made by the forward walk and read by the
    backward one instead of being made twice."""
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
        showdown_node(
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
        dealt_reach(chance, parent, reach, np.int64(0), block_reach, np.int64(0), dealt, slot, c1, c2)
    Hb = hc1.shape[0]
    f = first_child[parent]
    if kind[parent] == DECISION:
        decision_reach(
            parent, np.int64(0), base, player, first_child, num_children, rule, block_reach, Hb, tmp, kept,
            player[parent] == i,
        )  # fmt: skip
    else:  # a chance node right below a chance node (both players all in); never in order
        for c in range(f, f + num_children[parent]):
            dealt_reach(parent, c, block_reach, base, block_reach, c - base, dealt, local_slot, c1, c2)
    forward(
        lo, hi, base, kind, player, first_child, num_children, dealt, local_slot, hc1, hc2, rule, block_reach,
        in_block, np.int64(-1), tmp, np.int64(i), kept,
    )  # fmt: skip
    backward_nodes(
        lo, hi, base, i, kind, player, first_child, num_children, spent, dealt, board_of, chance_weight, local_slot,
        hc1, hc2, dup, orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, payoff, at_parent,
        sigma, regret, avg, weight, update, best_response, regret_matching, discount, block_reach, block_cfv, tmp, qs,
        in_block, in_order, kept,
    )  # fmt: skip
    if kind[parent] == DECISION:
        terminal_children(
            parent, base, i, kind, player, first_child, num_children, spent, board_of, local_slot, hc1, hc2, dup,
            orders, c1s, c2s, ladder, board_start, board_len, board_rows, board_identity, at_parent, block_reach,
            block_cfv, tmp, qs, in_order,
        )  # fmt: skip
        decision_values(
            parent, np.int64(0), np.int64(0), base, i, player, first_child, num_children, sigma, regret, avg, weight,
            update, best_response, regret_matching, discount, block_reach, block_cfv, tmp, qs, Hb, kept,
        )  # fmt: skip
    else:
        chance_values(
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
    """``passes.traverse`` block by block: the nodes above the blocks forward, each
    block forward then backward (``_walk_block``, in ``blocks.block_reach[0]`` and
    ``blocks.block_cfv[0]``), then the top backward. The same values as ``traverse``
    (blocks are independent and each node's arithmetic is unchanged)."""
    top_end = blocks.top_end if blocks.blocks.shape[0] > 0 else tree.kind.shape[0]
    top_forward(tree, hands, reach0, reach1, rule, work, top_end, blocks.in_block, skip)
    leaf_values(leaves, i, np.int64(0), tree, hands, rule, work)
    share = Scratch(blocks.block_reach[0], blocks.block_cfv[0], work.tmp, work.qs)
    if blocks.card_count > 0:  # the pass's cards only (see BlockArrays), then their chance nodes
        for j in range(blocks.walked_start[blocks.walked_start.shape[0] - 1]):
            _walk_block(blocks.walked[j], i, tree, hands, rule, work, share, blocks, blocks.block_strategy[0])
        for n in blocks.block_chances:
            _sampled_chance_values(
                n, n, np.int64(0), np.int64(0), hands.c1.shape[0], tree.first_child, tree.num_children, tree.dealt,
                tree.chance_weight, hands.c1, hands.c2, work.cfv, blocks.card_scale,
            )  # fmt: skip
        backward(np.int64(0), top_end, np.int64(0), i, tree, hands, rule, work, blocks.top_done, np.bool_(False))
        return
    for b in range(blocks.blocks.shape[0]):
        _walk_block(b, i, tree, hands, rule, work, share, blocks, blocks.block_strategy[0])
    backward(np.int64(0), top_end, np.int64(0), i, tree, hands, rule, work, blocks.in_block, np.bool_(False))


@nb.njit(cache=True, parallel=True)
def traverse_blocks(i, tree, hands, reach0, reach1, rule, work, blocks, skip, leaves):
    """``traverse_by_block`` with the blocks walked in parallel: share t of
    ``block_reach.shape[0]`` takes blocks t, t + T, t + 2T, ... (neighbouring blocks
    are alike in size, so strided shares balance; contiguous halves did not), in its
    own block-local arrays and scratch rows; the leaves' shares too
    (``leaf_values_parallel``)."""
    top_end = blocks.top_end if blocks.blocks.shape[0] > 0 else tree.kind.shape[0]
    top_forward(tree, hands, reach0, reach1, rule, work, top_end, blocks.in_block, skip)
    leaf_values_parallel(leaves, i, np.int64(0), tree, hands, rule, work)
    T = blocks.block_reach.shape[0]
    sampled = blocks.card_count > 0
    for t in nb.prange(T):
        share = Scratch(blocks.block_reach[t], blocks.block_cfv[t], np.empty_like(work.tmp), np.empty_like(work.qs))
        if sampled:  # the share's blocks of the pass's cards (see BlockArrays)
            for j in range(blocks.walked_start[t], blocks.walked_start[t + 1]):
                _walk_block(blocks.walked[j], i, tree, hands, rule, work, share, blocks, blocks.block_strategy[t])
        else:
            for b in range(np.int64(t), blocks.blocks.shape[0], T):
                _walk_block(b, i, tree, hands, rule, work, share, blocks, blocks.block_strategy[t])
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
            chance_values(
                n, n, np.int64(0), H * s // T, H * (s + 1) // T, tree.first_child, tree.num_children, tree.dealt,
                tree.chance_weight, hands.c1, hands.c2, work.cfv,
            )  # fmt: skip
    backward(np.int64(0), top_end, np.int64(0), i, tree, hands, rule, work, blocks.top_done, np.bool_(False))


@nb.njit(cache=True, fastmath=FASTMATH)
def _sampled_chance_values(n, row, base, lo, hi, first_child, num_children, dealt, chance_weight, c1, c2, cfv, scale):
    """``chance_values`` over the children whose card the pass drew (``scale[card]`` >
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
