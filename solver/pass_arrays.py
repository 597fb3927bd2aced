"""What the kernels of vector CFR+ take, and what they share: a subgame's arrays bundled
in NamedTuples (``TreeArrays``, ``HandArrays``, ``PassRule``, ``Scratch``,
``BlockArrays``, ``LeafData``; ``Subgame.kernel_args``, ``Subgame.block_arrays`` and
``depth_limited.leaf_data`` make them), the dtypes of cards and hand positions, and
the options the kernels compile with (``FASTMATH``, ``THIN``). No kernels: the pass
modules (``showdown_pass``, ``tree_pass``, ``leaf_pass``, ``block_pass``, ``passes``)
import from here."""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np

from . import ranges as rg

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
#: ``inline=`` of a thin wrapper that only fastmath kernels call (``leaf_pass.THIN_WRAPPERS``):
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
    bits as a ``sigma`` that ``tree_pass.current_strategy`` made; else ``sigma``, and an
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
    ``block_pass._walk_block``): the nodes above them end at ``top_end``; per block its node range,
    the chance child above it and its chance node, its showdowns' one board (or -1);
    per node whether a block walk computes it and its block-local reach row; the
    chance nodes whose children are all blocks' (``block_chances``: on threads their
    values are summed by hand ranges after the blocks, ``top_done`` then marks them
    with the blocks' nodes for the top's backward pass); the block-local reaches and
    values, and the current strategy of the updating player's decisions (made in the
    forward walk, used again in the backward one), one copy per share of the blocks.

    Public chance sampling: with ``card_count`` > 0 a pass walks only the blocks below
    ``card_count`` cards of ``cards`` (the cards the block chances deal), drawn by
    ``block_pass.draw_cards`` for the pass (``leaf_pass.leaf_card``'s rule: in turn round a keyed shuffle,
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
    #: per share, the regret-matched rows of the updating player's decisions, block-local
    #: as ``block_cfv``: made by the block's forward pass, read by its backward pass
    block_strategy: np.ndarray


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
    can be valued on threads of their own (``leaf_pass.leaf_values_parallel``): no leaf's
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
