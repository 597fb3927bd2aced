"""A spot ready to solve: the public tree, the hands still possible at its root with
both players' reaches, per showdown board the hands by strength and the sweep's card
table, and the tree cut into blocks below chance nodes (``make_subgame`` builds it
from a betting state; ``explicit_subgame`` from a small explicit game)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pokerbot.protocol.betting import BettingState

from . import ranges as rg
from .depth_limited import Continuations
from .pass_arrays import CARD_DTYPE, INDEX_DTYPE, LADDER_WIDTH, NO_CARD, BlockArrays, HandArrays, TreeArrays
from .tree import CHANCE, DECISION, FOLD_TERMINAL, SHOWDOWN, BetSizes, PublicTree, build_tree


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
    #: a depth-limited subgame's leaves (``depth_limited.attach_continuations``)
    continuations: Continuations | None = None
    # per node: a showdown or fold whose value its parent decision node computes (one sweep for both)
    at_parent: np.ndarray = field(init=False)
    # per block of the tree: the chance child above it; and the reach slots of block
    # nodes in block-local rows (see block_pass._walk_block)
    block_parent: np.ndarray = field(init=False)
    block_chance: np.ndarray = field(init=False)
    in_block: np.ndarray = field(init=False)
    local_slot: np.ndarray = field(init=False)
    # the chance nodes whose children are all blocks' chance children, and in_block
    # with them marked too (see BlockArrays)
    block_chances: np.ndarray = field(init=False)
    top_done: np.ndarray = field(init=False)
    # per board, concatenated: its positions' tie groups, then their first and their
    # second card-table slots (three runs of board_len entries at 3 * board_start;
    # see ranges.ladder); per board: the table's rows
    ladder: np.ndarray = field(init=False)
    board_rows: np.ndarray = field(init=False)
    # per block: the one board of its showdowns, whose strength order a solve keeps
    # its rows in (see block_pass._walk_block), or -1 (rows in hand order)
    block_board: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.at_parent = _terminals_at_parent(self.tree)
        self.block_parent, self.block_chance, self.in_block, self.local_slot = _block_layout(self.tree, self.slot)
        self.block_chances, self.top_done = _chances_above_blocks(self.tree, self.block_chance, self.in_block)
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

    def kernel_args(self) -> tuple[TreeArrays, HandArrays]:
        """The tree and the hands as the kernels read them (``pass_arrays``)."""
        t = self.tree
        tree = TreeArrays(
            t.kind, t.player, t.first_child, t.num_children, t.spent, t.dealt, t.board_of, self.chance_weight, self.slot
        )
        hands = HandArrays(
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
        return tree, hands

    def chance_cards(self) -> np.ndarray:
        """The cards the chance nodes above the blocks deal (the river cards of a turn
        subgame), sorted; empty when the tree has none. ValueError when those chance
        nodes deal different cards, or a chance node above the blocks has children
        that are not blocks (a pass could not sample it)."""
        t = self.tree
        top_chances = [n for n in np.nonzero(t.kind[: max(t.top_end, 0)] == CHANCE)[0] if n not in self.block_chances]
        if top_chances:
            raise ValueError(f"chance nodes {top_chances[:3]} above the blocks have children that are not blocks")
        sets = {
            tuple(sorted(int(t.dealt[c]) for c in range(t.first_child[n], t.first_child[n] + t.num_children[n])))
            for n in self.block_chances
        }
        if len(sets) > 1:
            raise ValueError("the chance nodes above the blocks deal different cards")
        return np.array(sets.pop() if sets else (), dtype=np.int64)

    def block_arrays(
        self, copies: int = 1, dtype=np.float64, card_count: int = 0, card_seed: int = 0, independent: bool = False
    ) -> BlockArrays:
        """The tree's blocks as the kernels read them, with block-local reaches and
        values for ``copies`` shares of the blocks (one per thread). ``card_count`` > 0:
        each pass walks the blocks of that many cards of the chance nodes above them
        (``BlockArrays``), going round a shuffle keyed by ``card_seed`` or drawn
        independently; at least as many as they deal is every card (0)."""
        t = self.tree
        H = self.hands.shape[0]
        nb_ = len(t.blocks)
        if card_count < 0:
            raise ValueError(f"cards a pass must be 0 (every card) or more, got {card_count}")
        cards = self.chance_cards() if card_count > 0 else np.zeros(0, dtype=np.int64)
        if card_count > 0 and len(cards) == 0:
            raise ValueError("card sampling needs chance nodes above the blocks; this tree has none")
        if card_count >= len(cards):
            card_count = 0
        if card_count > 0:
            cards = np.random.default_rng(card_seed).permutation(cards)
        work = (t.blocks[:, 1] - t.blocks[:, 0]).astype(np.int64)
        return BlockArrays(
            max(t.top_end, 0),
            t.blocks,
            self.block_parent,
            self.block_chance,
            self.in_block,
            self.local_slot,
            self.block_board,
            self.block_chances,
            self.top_done,
            np.zeros((copies, 2, t.block_rows, H), dtype=dtype),
            np.zeros((copies, t.block_rows, H), dtype=dtype),
            int(card_count),
            int(card_seed),
            bool(independent),
            cards,
            np.zeros(NO_CARD + 1),
            t.dealt[self.block_parent].astype(np.int64) if nb_ else np.zeros(0, dtype=np.int64),
            np.argsort(-work, kind="stable").astype(np.int64),
            np.zeros(nb_, dtype=np.int64),
            np.zeros(copies + 1, dtype=np.int64),
            np.zeros(nb_, dtype=np.int64),
            np.zeros(copies, dtype=np.int64),
            np.zeros((copies, t.block_rows, H), dtype=dtype),
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
    child's own, replaced by lo - 1 (block-local row 0 in ``block_pass._walk_block``, where row
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


def _chances_above_blocks(
    tree: PublicTree, block_chance: np.ndarray, in_block: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The chance nodes all of whose children are blocks' chance children (their values
    can be summed once the blocks are walked), and ``in_block`` with them marked too."""
    chances = np.unique(block_chance)
    below = [in_block[tree.first_child[n] : tree.first_child[n] + tree.num_children[n]] for n in chances]
    chances = chances[[bool(b.all()) for b in below]].astype(np.int64)
    done = in_block.copy()
    done[chances] = True
    return chances, done


def _block_boards(sub: Subgame) -> np.ndarray:
    """Per block: the board of its showdowns where its rows can be kept in that
    board's strength order (see block_pass._walk_block): a decision node below the chance node,
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


def to_hand_order_in_place(sub: Subgame, rows: np.ndarray) -> np.ndarray:
    """``to_hand_order`` written over ``rows`` (returned): no second array of the
    tree's size, only one block's live columns at a time."""
    for lo, hi, order in _ordered_blocks(sub):
        live = rows[lo:hi, : len(order)].copy()
        rows[lo:hi] = 0
        rows[lo:hi, order] = live
    return rows


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
    leaf_round: int | None = None,
    leaf_deals: np.ndarray | None = None,
) -> Subgame:
    """Set up the subgame from ``state`` (its board known, no hole cards needed).
    ``reach``: (2, all hands) ranges over the game's canonical hands; default uniform.
    ``extra_root_raises``: raise-to totals added at the root (an off-tree bet).
    ``leaf_round``: a depth-limited subgame (see ``tree.build_tree``), whose leaves
    then need ``depth_limited.attach_continuations``; from the flop, ``leaf_deals``
    are the runouts they are valued on."""
    tree = build_tree(state, sizes, extra_root_raises, leaf_round, leaf_deals)
    game = state.game
    all_hands = rg.hole_hands(game)
    if all_hands.shape[1] > 2:
        raise ValueError("hands of more than two cards are not supported by the solver")
    live = np.nonzero(~rg.blocked_by(all_hands, tree.board))[0]
    first = None
    if len(tree.boards) == 1 and tree.boards[0] == tuple(tree.board):  # a river spot: keep hands weakest first
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


def showdown_scratch(sub: Subgame) -> int:
    """Extra entries of the ``qs`` scratch row that ``showdown_values`` keeps its card
    table in (see ``Workspace``)."""
    rows = int(sub.board_rows.max()) if len(sub.board_rows) else 0
    longest = int(sub.board_len.max()) if len(sub.board_len) else 0
    return rows * LADDER_WIDTH + longest + 3 * LADDER_WIDTH
