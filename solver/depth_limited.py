"""Depth-limited subgames: the tree stops where the next round would begin, and at
each such leaf both players choose, per information set, among K continuation
strategies for the rest of the hand (Pluribus; Brown, Sandholm and Amos 2018).

The continuations are fixed strategies on a small continuation tree per leaf (the
rest of the hand after the next card: the same betting for every card), given per
hand bucket, so that one table serves all cards: ``strategy[m, k, b]`` is the
probability that continuation k takes the action into node m with a hand of bucket
b, and ``bucket[d, s, h]`` the bucket of hand h in the s-th round after the leaf
once deal d has come (a turn root: d is the river card; a flop root: d indexes the
tree's ``leaf_deals``, each a turn and a river card, and the continuation trees span
the turn and the river). A solve then learns the current round's strategy and each
player's mix of continuations at every leaf; the leaf's value to a hand is exact over
the deals (or estimated from a keyed round of them, unbiased), see
``leaf_pass.leaf_values``. From the flop the deals are a sample of the runouts (every
turn card with a few river cards), so the values are an unbiased estimate.

Nothing here knows where the continuations come from: ``bot.continuation`` makes
them from a blueprint (the blueprint, and the blueprint biased toward folding,
calling and raising).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .pass_arrays import LeafData, can_respond_fully, no_leaves, response_scratch
from .tree import CHANCE, DECISION, FOLD_TERMINAL, LEAF, SHOWDOWN, ContinuationTree, PublicTree

#: Pluribus's continuation biases: the blueprint, and its fold, call and raise
#: probabilities multiplied by this before renormalising.
BIAS_FACTOR = 5.0


@dataclass
class Continuations:
    """The continuation trees and strategies of a subgame's leaves (in the order of
    the tree's LEAF nodes), concatenated: see ``pass_arrays.LeafData``."""

    node: np.ndarray  # (L,) int64: the tree node of each leaf
    start: np.ndarray  # (L + 1,) int64
    kind: np.ndarray
    player: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    spent: np.ndarray
    stage: np.ndarray  # (nodes,) int8: rounds after the leaf's
    strategy: np.ndarray  # (nodes, K, buckets) float32
    bucket: np.ndarray  # (52 cards or deals, stages, subgame hands) int32
    board: np.ndarray  # (52 cards or deals,) int64
    cards: np.ndarray  # (C,) int64: the cards (deals) that can come
    weight: float
    group: np.ndarray  # per card (deal): its turn card from the flop, else itself

    @property
    def num_strategies(self) -> int:
        return int(self.strategy.shape[1])

    @property
    def num_leaves(self) -> int:
        return int(len(self.node))

    def memory_bytes(self, num_hands: int, float_bytes: int = 4, threads: int = 1) -> int:
        """What a solve allocates for the leaves: regrets, strategies and averages of
        both players' leaf choices, and per share of the leaves (one per thread) the
        scratch rows of one continuation tree."""
        K = self.num_strategies
        widest = int(np.diff(self.start).max()) if self.num_leaves else 0
        shares = max(1, min(threads, self.num_leaves))
        return (6 * self.num_leaves * K + shares * (2 * K * widest + K + 1)) * num_hands * float_bytes


def runout_sample(deck: list[int], board: list[int], rivers_per_turn: int, seed: int) -> np.ndarray:
    """(deals, 2): every turn card off ``board``, each with ``rivers_per_turn`` river
    cards drawn without replacement by a generator keyed by ``seed``. Every ordered
    runout is in the sample with the same probability, so leaf values over it,
    weighted by ``tree.build_tree``'s ``leaf_weight``, are unbiased."""
    left = [c for c in deck if c not in set(board)]
    if not 1 <= rivers_per_turn <= len(left) - 1:
        raise ValueError(f"rivers per turn card must be 1 to {len(left) - 1}, got {rivers_per_turn}")
    rng = np.random.default_rng(seed)
    out = []
    for d in left:
        rivers = np.array([c for c in left if c != d])
        for e in np.sort(rng.choice(rivers, size=rivers_per_turn, replace=False)):
            out.append((d, int(e)))
    return np.array(out, dtype=np.int64)


def continuation_tree_ok(tree: PublicTree | ContinuationTree) -> None:
    """A continuation tree has decisions, folds and showdowns only (the cards left out)."""
    bad = set(np.unique(tree.kind).tolist()) - {DECISION, FOLD_TERMINAL, SHOWDOWN}
    if bad:
        raise ValueError(f"a continuation tree holds only decisions, folds and showdowns (found kinds {sorted(bad)})")


def attach_continuations(
    sub, trees: Sequence[PublicTree | ContinuationTree], strategies: list[np.ndarray], buckets: np.ndarray
) -> None:
    """Give a depth-limited subgame ``sub`` (a ``subgame.Subgame``) its leaves'
    continuations: per leaf (in node order) its continuation tree (a one-round
    ``PublicTree`` from the turn; from the flop a ``tree.continuation_tree`` over the
    turn and river) and a (tree nodes, K, buckets) table of action probabilities (row
    m: the action into node m; rows of each decision's children sum to 1 per k and
    bucket). ``buckets``: from the turn (52, hands), ``buckets[d, h]`` the bucket of
    the game's canonical hand h after card d (-1 where h holds d); from the flop
    (deals, 2, hands), per deal of ``sub.tree.leaf_deals`` the bucket on the turn and
    on the river (-1 in both where h holds either card)."""
    tree = sub.tree
    leaves = np.nonzero(tree.kind == LEAF)[0]
    if len(trees) != len(leaves) or len(strategies) != len(leaves):
        raise ValueError(f"{len(leaves)} leaves, but {len(trees)} trees and {len(strategies)} strategies")
    if not len(leaves):
        raise ValueError("the subgame has no leaves (build it with leaf_round)")
    K = {s.shape[1] for s in strategies}
    B = {s.shape[2] for s in strategies}
    if len(K) != 1 or len(B) != 1:
        raise ValueError("every leaf needs the same number of continuations and buckets")
    nb = B.pop()
    buckets = np.asarray(buckets)
    two = len(tree.leaf_deals) > 0
    if two:
        if buckets.shape[:2] != (len(tree.leaf_deals), 2) or buckets.max() >= nb:
            raise ValueError(f"buckets must be ({len(tree.leaf_deals)} deals, 2 rounds, hands) with values below {nb}")
    else:
        if buckets.ndim != 2 or buckets.shape[0] != 52 or buckets.max() >= nb:
            raise ValueError(f"buckets must be (52 cards, hands) with values below {nb}")
        buckets = buckets[:, None, :]
    starts = [0]
    names = ("kind", "player", "first_child", "num_children", "spent", "stage")
    parts: dict[str, list[np.ndarray]] = {k: [] for k in names}
    for t, s in zip(trees, strategies):
        ct = t if isinstance(t, ContinuationTree) else ContinuationTree.of_round(t)
        continuation_tree_ok(ct)
        if s.shape[0] != ct.num_nodes:
            raise ValueError(f"a strategy table has {s.shape[0]} rows for a tree of {ct.num_nodes} nodes")
        if int(ct.stage.max()) >= buckets.shape[1]:
            raise ValueError("a continuation tree spans more rounds than the buckets")
        off = starts[-1]
        parts["kind"].append(ct.kind)
        parts["player"].append(ct.player)
        parts["first_child"].append(np.where(ct.num_children > 0, ct.first_child + off, -1).astype(np.int32))
        parts["num_children"].append(ct.num_children)
        parts["spent"].append(ct.spent)
        parts["stage"].append(ct.stage)
        starts.append(off + ct.num_nodes)
    cards = np.arange(len(tree.leaf_deals)) if two else np.nonzero(tree.leaf_boards >= 0)[0]
    sub.continuations = Continuations(
        node=leaves.astype(np.int64),
        start=np.array(starts, dtype=np.int64),
        kind=np.concatenate(parts["kind"]).astype(np.int8),
        player=np.concatenate(parts["player"]).astype(np.int8),
        first_child=np.concatenate(parts["first_child"]).astype(np.int32),
        num_children=np.concatenate(parts["num_children"]).astype(np.int32),
        spent=np.concatenate(parts["spent"]).astype(np.int64),
        stage=np.concatenate(parts["stage"]).astype(np.int8),
        strategy=np.ascontiguousarray(np.concatenate(strategies).astype(np.float32)),
        bucket=np.ascontiguousarray(buckets[:, :, sub.hand_index].astype(np.int32)),
        board=tree.leaf_boards.astype(np.int64),
        cards=cards.astype(np.int64),
        weight=float(tree.leaf_weight),
        group=(tree.leaf_deals[:, 0] if two else np.arange(52)).astype(np.int64),
    )


#: The most memory (bytes) the (piece, card) items' values may take (``LeafData.parts``);
#: a pass with more values its leaves by shares (the same values, fewer threads busy).
MAX_ITEM_BYTES = 256 * 2**20
#: On threads, where whole trees would leave threads idle (a share of less than BUSY
#: of the busiest share's work, on average), a continuation tree is cut into pieces
#: until no item holds more than 1/PIECES_A_SHARE of a thread's work a pass
#: (``piece_bound``).
BUSY = 0.9
PIECES_A_SHARE = 4
#: ... but no smaller than this: a piece repeats the reach along its path, a few rows.
MIN_PIECE_NODES = 16


@dataclass(frozen=True)
class LeafPieces:
    """Each leaf's continuation tree cut into pieces valued apart (``leaf_pieces``):
    leaf l's pieces are ``leaf_piece_start[l]..leaf_piece_start[l + 1] - 1``, piece p
    the nodes ``piece_nodes[piece_start[p]:piece_start[p + 1]]`` (increasing, its root
    first), of leaf ``piece_leaf[p]``; the leaf's top, the nodes of no piece, is
    ``top_nodes[top_start[l]:top_start[l + 1]]`` (increasing; empty when the one piece is
    the whole tree). Nodes are the continuation nodes' global indices; ``parent[m]``
    is -1 at a tree's root."""

    parent: np.ndarray
    top_start: np.ndarray
    top_nodes: np.ndarray
    piece_start: np.ndarray
    piece_nodes: np.ndarray
    leaf_piece_start: np.ndarray
    piece_leaf: np.ndarray

    @property
    def num_pieces(self) -> int:
        return int(len(self.piece_leaf))

    def piece_sizes(self) -> np.ndarray:
        return np.diff(self.piece_start)

    def top_sizes(self) -> np.ndarray:
        return np.diff(self.top_start)


@contextmanager
def whole_trees() -> Iterator[None]:
    """Inside it ``leaf_data`` never cuts a tree into pieces, on any number of threads
    (``BUSY`` 0): to time what the pieces buy. The solves are the same bits either way."""
    global BUSY
    saved = BUSY
    BUSY = 0.0
    try:
        yield
    finally:
        BUSY = saved


def leaf_pieces(start: np.ndarray, first_child: np.ndarray, num_children: np.ndarray, bound: int) -> LeafPieces:
    """The continuation trees (``start``: leaf l's nodes are ``start[l]..start[l + 1] -
    1``, children after their parents) cut into pieces of at most ``bound`` nodes: a
    tree of at most ``bound`` nodes is one piece; a larger one's top is its nodes whose
    subtrees are larger, with their childless children, and its pieces are the subtrees
    of the top's other children. A piece's values need only its own nodes and the path
    above it; the top's need the pieces'.

    >>> p = leaf_pieces(np.array([0, 5]), np.array([1, 3, -1, -1, -1]), np.array([2, 2, 0, 0, 0]), 3)
    >>> p.top_nodes.tolist(), p.piece_nodes.tolist()
    ([0, 2], [1, 3, 4])
    """
    if bound < 1:
        raise ValueError(f"a piece holds at least one node, got a bound of {bound}")
    start = np.asarray(start, dtype=np.int64)
    N = int(start[-1])
    L = len(start) - 1
    fc = np.asarray(first_child, dtype=np.int64)
    nc = np.asarray(num_children, dtype=np.int64)
    has = np.nonzero(nc > 0)[0]
    counts = nc[has]
    within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    parent = np.full(N, -1, dtype=np.int64)
    parent[np.repeat(fc[has], counts) + within] = np.repeat(has, counts)
    leaf_of = np.repeat(np.arange(L), np.diff(start))
    if bound >= int(np.diff(start).max(initial=0)):  # every tree whole
        each = np.arange(L + 1, dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        return LeafPieces(parent, np.zeros(L + 1, dtype=np.int64), none, start.copy(), np.arange(N), each, each[:-1])
    # depth by levels (a parent comes before its children), then subtree sizes from the deepest up
    depth = np.zeros(N, dtype=np.int64)
    below = parent >= 0
    while True:
        nxt = np.where(below, depth[np.maximum(parent, 0)] + 1, 0)
        if np.array_equal(nxt, depth):
            break
        depth = nxt
    size = np.ones(N, dtype=np.int64)
    for d in range(int(depth.max(initial=0)), 0, -1):
        at = np.nonzero(depth == d)[0]
        size += np.bincount(parent[at], weights=size[at], minlength=N).astype(np.int64)
    up_size = np.where(below, size[np.maximum(parent, 0)], bound + 1)
    roots = np.nonzero((size <= bound) & (~below | ((nc > 0) & (up_size > bound))))[0]
    owner = np.full(N, -1, dtype=np.int64)  # a node's piece (in node order: leaf by leaf), -1 in the top
    owner[roots] = np.arange(len(roots))
    for d in range(1, int(depth.max(initial=0)) + 1):
        at = np.nonzero((depth == d) & (owner < 0))[0]
        owner[at] = owner[parent[at]]
    nodes = np.arange(N, dtype=np.int64)
    in_piece = owner >= 0
    P = len(roots)
    piece_nodes = nodes[in_piece][np.argsort(owner[in_piece], kind="stable")]
    piece_start = np.concatenate([[0], np.cumsum(np.bincount(owner[in_piece], minlength=P))]).astype(np.int64)
    top_nodes = nodes[~in_piece]
    top_start = np.concatenate([[0], np.cumsum(np.bincount(leaf_of[~in_piece], minlength=L))]).astype(np.int64)
    piece_leaf = leaf_of[roots].astype(np.int64)
    leaf_piece_start = np.concatenate([[0], np.cumsum(np.bincount(piece_leaf, minlength=L))]).astype(np.int64)
    return LeafPieces(parent, top_start, top_nodes, piece_start, piece_nodes, leaf_piece_start, piece_leaf)


def piece_bound(sizes: np.ndarray, draws: int, shares: int) -> int:
    """The most nodes a piece may hold on ``shares`` threads valuing ``draws`` cards a
    leaf a pass: the largest tree (no cut) where whole trees keep the threads busy (the
    busiest share of ``leaf_items`` at most 1/``BUSY`` of the mean), else so that no
    (piece, card) item is more than 1/``PIECES_A_SHARE`` of a thread's work (and at
    least ``MIN_PIECE_NODES``).

    >>> piece_bound(np.array([429, 197, 1]), 1, 2)
    79
    >>> piece_bound(np.array([429, 197, 1]), 1, 16)
    16
    >>> piece_bound(np.array([429, 393, 393, 357]), 1, 2)
    429
    """
    largest = max(1, int(np.max(sizes, initial=1)))
    if shares <= 1 or not len(sizes):
        return largest
    work = np.repeat(np.asarray(sizes), draws)
    busiest = busiest_share(work, *leaf_items(sizes, draws, shares))
    total = int(work.sum())
    if total >= BUSY * shares * busiest:
        return largest
    return min(largest, max(MIN_PIECE_NODES, -(-total // (PIECES_A_SHARE * shares))))


def pass_balance(
    start: np.ndarray, first_child: np.ndarray, num_children: np.ndarray, draws: int, shares: int
) -> float:
    """How much faster than one thread the leaves' part of a pass can go on ``shares``
    threads, valuing ``draws`` cards a leaf, by the work model the shares are cut by (a
    node's work: one unit): the whole work over the busiest share's items (cut as
    ``leaf_data`` cuts them) plus the busiest share's tops, which wait for the items.
    Static arithmetic: memory traffic, the pieces' repeated paths and the threads'
    meeting are left out.

    >>> pass_balance(np.array([0, 3, 6]), np.array([1, -1, -1, 4, -1, -1]), np.array([2, 0, 0, 2, 0, 0]), 1, 2)
    2.0
    """
    sizes = np.diff(start)
    if shares <= 1 or not len(sizes):
        return 1.0
    pieces = leaf_pieces(start, first_child, num_children, piece_bound(sizes, draws, shares))
    busiest = busiest_share(np.repeat(pieces.piece_sizes(), draws), *leaf_items(pieces.piece_sizes(), draws, shares))
    top_busiest = busiest_share(pieces.top_sizes() * draws, *leaf_shares(sizes, shares))
    return float(sizes.sum() * draws / (busiest + top_busiest))


def busiest_share(work: np.ndarray, start: np.ndarray, members: np.ndarray) -> int:
    """The most work (``work[m]`` per member m) in one share of ``leaf_shares``'s or
    ``leaf_items``'s cut (share s: ``members[start[s]:start[s + 1]]``).

    >>> busiest_share(np.array([5, 1, 4, 2]), *leaf_shares(np.array([5, 1, 4, 2]), 2))
    6
    """
    return max(int(work[members[a:b]].sum()) for a, b in zip(start[:-1], start[1:]))


def leaf_data(
    sub,
    dtype=np.float64,
    sample: int = 0,
    seed: int = 0,
    leaf_strategy: np.ndarray | None = None,
    independent: bool = False,
    full_response: bool = False,
    shares: int = 1,
) -> LeafData:
    """The kernels' LeafData for ``sub`` in ``dtype``: fresh regrets, the uniform
    leaf strategy (or ``leaf_strategy``, (2, L, K, hands)), zero averages; ``no_leaves``
    when the subgame has none. ``sample`` cards per pass (0: every card), in turn
    from a keyed shuffle or, ``independent``, drawn independently. ``full_response``:
    best responses range over the whole continuation trees (every card or deal; double
    precision only).
    ``shares``: for as many threads: (piece, card) items in that many shares of about
    equal work (``leaf_pieces``, ``leaf_items``), where their values fit in
    ``MAX_ITEM_BYTES``, else the leaves cut into that many shares (``leaf_shares``)."""
    c = getattr(sub, "continuations", None)
    if c is None:
        return no_leaves(dtype)
    H = sub.hands.shape[0]
    K = c.num_strategies
    L = c.num_leaves
    widest = int(np.diff(c.start).max())
    if leaf_strategy is None:
        sigma = np.full((2, L, K, H), 1.0 / K, dtype=dtype)
    else:
        sigma = np.ascontiguousarray(np.asarray(leaf_strategy, dtype=dtype))
        if sigma.shape != (2, L, K, H):
            raise ValueError(f"leaf strategy must be (2, {L}, {K}, {H}), got {sigma.shape}")
    if sample < 0:
        raise ValueError("sample must be 0 (every card) or a positive number of cards")
    if full_response and sample != 0:
        raise ValueError("a full best response below the leaves takes every card (sample 0)")
    if full_response and not can_respond_fully(dtype):
        raise ValueError("a full best response below the leaves is computed in double precision (float64)")
    cards = c.cards if sample == 0 else np.random.default_rng(seed).permutation(c.cards)
    if full_response and (np.diff(c.group[cards]) != 0).sum() != len(np.unique(c.group[cards])) - 1:
        raise ValueError("the deals of a turn card must be listed together")
    sizes = np.diff(c.start)
    draws = len(cards) if sample == 0 else sample
    pieces = leaf_pieces(c.start, c.first_child, c.num_children, piece_bound(sizes, draws, shares))
    P = pieces.num_pieces
    item_draws = draws if shares > 1 and P * draws * K * H * np.dtype(dtype).itemsize <= MAX_ITEM_BYTES else 0
    if item_draws:
        item_start, items = leaf_items(pieces.piece_sizes(), item_draws, shares)
    else:  # whole trees
        pieces = leaf_pieces(c.start, c.first_child, c.num_children, max(1, int(sizes.max())))
        P = pieces.num_pieces
        item_start, items = np.zeros(1, np.int64), sizes[:0]
    # whole leaves (and after items, their tops on the pieces' values: about as large)
    share_start, share_leaves = leaf_shares(sizes, shares)
    T = max(len(share_start), len(item_start)) - 1
    return LeafData(
        c.node,
        c.start,
        c.kind,
        c.player,
        c.first_child,
        c.num_children,
        c.spent,
        c.stage,
        c.strategy,
        c.bucket,
        c.board,
        cards,
        float(c.weight),
        int(sample),
        int(seed),
        bool(independent),
        c.group,
        bool(full_response),
        np.zeros((2, L, K, H), dtype=dtype),
        sigma,
        np.zeros((2, L, K, H), dtype=dtype),
        share_start,
        share_leaves,
        np.zeros((T, K, widest, H), dtype=dtype),
        np.zeros((T, K, widest, H), dtype=dtype),
        np.zeros((T, K, H), dtype=dtype),
        np.zeros((T, H), dtype=dtype),
        response_scratch(dtype, (T, 3, widest, H) if full_response else (T, 3, 0, 0)),
        item_start,
        items.astype(np.int64),
        int(item_draws),
        np.zeros((P * item_draws, K, H), dtype=dtype),
        np.zeros(P * item_draws, dtype=np.bool_),
        pieces.parent,
        pieces.top_start,
        pieces.top_nodes,
        pieces.piece_start,
        pieces.piece_nodes,
        pieces.leaf_piece_start,
        pieces.piece_leaf,
    )


def leaf_shares(sizes: np.ndarray, shares: int) -> tuple[np.ndarray, np.ndarray]:
    """Leaves cut into at most ``shares`` shares (one per leaf at most) of about equal
    work, a leaf's work taken as the size of its continuation tree (``sizes``): the
    largest first, each to the lightest share so far. Returns (share_start, leaves),
    share s holding ``leaves[share_start[s]:share_start[s + 1]]`` in increasing order.

    >>> leaf_shares(np.array([5, 1, 4, 2]), 2)
    (array([0, 2, 4]), array([0, 1, 2, 3]))
    >>> leaf_shares(np.array([3]), 4)
    (array([0, 1]), array([0]))
    """
    if shares < 1:
        raise ValueError(f"shares must be at least 1, got {shares}")
    L = len(sizes)
    T = max(1, min(shares, L))
    load = [0] * T
    members: list[list[int]] = [[] for _ in range(T)]
    for leaf in sorted(range(L), key=lambda x: (-int(sizes[x]), x)):
        s = min(range(T), key=lambda x: (load[x], x))
        members[s].append(leaf)
        load[s] += int(sizes[leaf])
    start = np.cumsum([0] + [len(m) for m in members]).astype(np.int64)
    order = np.array([x for m in members for x in sorted(m)], dtype=np.int64)
    return start, order


def leaf_items(sizes: np.ndarray, draws: int, shares: int) -> tuple[np.ndarray, np.ndarray]:
    """(piece, card) items, piece p's ``draws`` cards as items p * draws + j, cut into
    at most ``shares`` shares of about equal work as ``leaf_shares`` cuts leaves (an
    item's work: its piece's size in nodes, ``sizes``): (item_start, items), each
    share's items in increasing order.

    >>> leaf_items(np.array([5, 1]), 2, 2)
    (array([0, 2, 4]), array([0, 2, 1, 3]))
    """
    if draws < 1:
        raise ValueError(f"a leaf values at least one card a pass, got {draws}")
    return leaf_shares(np.repeat(np.asarray(sizes), draws), shares)


def normalised_leaf_strategy(avg: np.ndarray) -> np.ndarray:
    """Average leaf choices (2, L, K, H) normalised per hand (uniform where a hand
    never reached the leaf)."""
    avg = np.asarray(avg, dtype=np.float64)
    total = avg.sum(axis=2, keepdims=True)
    K = avg.shape[2]
    return np.where(total > 0, avg / np.where(total > 0, total, 1.0), 1.0 / K)


def biased(probabilities: np.ndarray, kinds: list[str], factor: float = BIAS_FACTOR) -> np.ndarray:
    """Pluribus's four continuations from one strategy: ``probabilities`` (..., actions)
    per row; ``kinds[a]`` is "fold", "call" or "raise" for action a. Returns (..., 4,
    actions): unchanged, then the fold, call and raise actions multiplied by
    ``factor`` and renormalised (a row without such an action stays as it was)."""
    p = np.asarray(probabilities, dtype=np.float64)
    out = [p]
    for what in ("fold", "call", "raise"):
        mult = np.array([factor if k == what else 1.0 for k in kinds])
        q = p * mult
        s = q.sum(axis=-1, keepdims=True)
        out.append(np.where(s > 0, q / np.where(s > 0, s, 1.0), p))
    return np.stack(out, axis=-2)


def full_depth_strategy(sub, strategy: np.ndarray, leaf_strategy: np.ndarray, full_sub) -> np.ndarray:
    """The strategy a depth-limited solution plays in the full-depth subgame: its
    own rows above the leaves, and below leaf l after card d, for each player's hand
    h, the behavioural form of h's mix of continuations (at a node reached by
    continuations k with probabilities W_k, action a is taken with probability
    sum_k mix_k W_k p_k(a) / sum_k mix_k W_k). ``full_sub`` is the subgame of the
    same root and hands whose tree continues each leaf by its continuation tree (the
    next round's bet sizes the continuations were made for; from the flop, the turn's
    and the river's, and then ``sub.tree.leaf_deals`` must hold every runout); exact
    evaluation there (``cfr.exploitability``) measures what the depth-limited
    solution commits to."""
    c: Continuations = sub.continuations
    dl, full = sub.tree, full_sub.tree
    if not np.array_equal(sub.hand_index, full_sub.hand_index):
        raise ValueError("the two subgames must be over the same hands")
    out = np.zeros((full.num_nodes, sub.hands.shape[0]))
    leaf_index = {int(n): i for i, n in enumerate(c.node)}
    mix = np.asarray(leaf_strategy, dtype=np.float64)
    deals = {(int(d), int(e)): x for x, (d, e) in enumerate(dl.leaf_deals.tolist())}
    # from the flop: a hand's turn bucket, the same in every deal of the turn card (-1 only where it holds the card)
    turn_bucket = np.full((52, sub.hands.shape[0]), -1, dtype=np.int64)
    for (d, _), x in deals.items():
        turn_bucket[d] = np.maximum(turn_bucket[d], c.bucket[x, 0])

    def buckets_at(m: int, card: int, deal: int) -> np.ndarray:
        if not deals:
            return c.bucket[card, 0]
        if c.stage[m] == 0:
            return turn_bucket[card]
        return c.bucket[deal, 1]

    def below(fn: int, m: int, card: int, deal: int, leaf: int, weights: np.ndarray) -> None:
        k = full.kind[fn]
        if k == CHANCE:  # the river after a turn line (from the flop): the continuation tree leaves cards out
            if not deals:
                raise ValueError(f"full node {fn} deals a card the continuation trees do not expect")
            for ch in range(int(full.first_child[fn]), int(full.first_child[fn]) + int(full.num_children[fn])):
                x = deals.get((card, int(full.dealt[ch])))
                if x is None:
                    raise ValueError(f"deal ({card}, {int(full.dealt[ch])}) is not among the tree's leaf_deals")
                below(ch, m, card, x, leaf, weights)
            return
        if k != DECISION:
            if k != c.kind[m] or (k == SHOWDOWN) != (c.kind[m] == SHOWDOWN):
                raise ValueError(f"full node {fn} does not match continuation node {m}")
            return
        if c.kind[m] != DECISION or full.num_children[fn] != c.num_children[m] or full.player[fn] != c.player[m]:
            raise ValueError(f"full node {fn} does not match continuation node {m}")
        p = int(full.player[fn])
        b = buckets_at(m, card, deal)
        live = b >= 0
        w = mix[p, leaf] * weights[p]  # (K, H)
        den = w.sum(axis=0)
        f, cm = int(full.first_child[fn]), int(c.first_child[m])
        for j in range(int(full.num_children[fn])):
            probs = np.where(live, c.strategy[cm + j][:, np.maximum(b, 0)], 0.0)  # (K, H)
            num = (w * probs).sum(axis=0)
            out[f + j] = np.where(den > 0, num / np.where(den > 0, den, 1.0), probs[0])
            nxt = weights.copy()
            nxt[p] = weights[p] * probs
            below(f + j, cm + j, card, deal, leaf, nxt)

    def walk(fn: int, dn: int) -> None:
        kd = dl.kind[dn]
        if kd == LEAF:
            if full.kind[fn] != CHANCE:
                raise ValueError(f"leaf {dn} is not a chance node ({fn}) in the full tree")
            leaf = leaf_index[dn]
            start = int(c.start[leaf])
            for ch in range(int(full.first_child[fn]), int(full.first_child[fn]) + int(full.num_children[fn])):
                K = c.num_strategies
                below(ch, start, int(full.dealt[ch]), -1, leaf, np.ones((2, K, sub.hands.shape[0])))
            return
        if kd != DECISION:
            return
        if full.kind[fn] != DECISION or full.num_children[fn] != dl.num_children[dn]:
            raise ValueError(f"node {dn} of the depth-limited tree does not match node {fn} of the full tree")
        f, d0 = int(full.first_child[fn]), int(dl.first_child[dn])
        for j in range(int(dl.num_children[dn])):
            if full.actions[f + j] != dl.actions[d0 + j]:
                raise ValueError(f"the trees' actions differ below node {dn}")
            out[f + j] = strategy[d0 + j]
            walk(f + j, d0 + j)

    walk(0, 0)
    return out
