"""Public game trees for subgame solving, from a rules state and a bet abstraction.

The tree is stored as flat arrays in depth-first preorder (a parent before its
children, children contiguous), so the solver walks it with plain loops: forward in
order for reach probabilities, backward for values. Legality, raise bounds and
payoffs all come from ``protocol.betting``.

Chance nodes deal the next board card (turn, river, Leduc's board card), one card per
node, each remaining card a child; an all-in before the last card is followed by
chance nodes down to the full board, then the showdown. Rounds that deal several
cards at once (the flop) are not expanded: a subgame starts after them (on the flop,
depth-limited, or later).

A depth-limited tree (``leaf_round``) stops where that round would begin with betting
still open: such a node is a LEAF, where each player picks a continuation strategy for
the rest of the hand (``solver.depth_limited``). From the turn, all-ins before it still
run out to the showdown; from the flop (two cards still to come) every line that
reaches the turn is a leaf, all-ins too, and the leaves are valued on a given list of
turn-and-river deals instead of every card (``leaf_deals``).
A continuation tree (``continuation_tree``) is the betting of the rest of the hand
after a leaf with the cards left out: the same for every deal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pokerbot.protocol.betting import CALL, FOLD, LIMIT_RAISE, Action, BettingState, raise_to

DECISION, FOLD_TERMINAL, SHOWDOWN, CHANCE, MATRIX_TERMINAL, LEAF = 0, 1, 2, 3, 4, 5


def node_kind(st: BettingState) -> tuple[int, int]:
    """A betting node's kind and player (-1 at showdowns): a finished hand is a fold
    terminal (player: the one who folded) or a showdown; otherwise a decision of the
    player to act. Chance nodes and leaves are the tree builders' own."""
    if st.finished:
        folded = st.folded[0] or st.folded[1]
        return (FOLD_TERMINAL, 0 if st.folded[0] else 1) if folded else (SHOWDOWN, -1)
    actor = st.current_player
    assert actor is not None  # not finished: someone is to act
    return DECISION, actor


@dataclass(frozen=True)
class BetSizes:
    """Bet and raise sizes as fractions of the pot, per raise depth.

    ``bets[d]`` (d = raises already made in this round) are fractions of the pot for
    an opening bet (d = 0) or of the pot after calling for a raise (d >= 1); the last
    list repeats for deeper raises. All-in is always offered; a size at or above the
    stack becomes all-in. ``max_raises`` caps the raises per round (then only fold and
    call). ``scale`` multiplies every size (the agent randomises it per hand).
    ``first_by_player`` optionally replaces the opening sizes (d = 0) of one player
    (by position; empty tuple: no override): the self-improver gives the opponent an
    added size while the other player keeps the blueprint's openings.

    Two rules of postflop-solver's (and PioSOLVER's) trees, off by default, so that
    its benchmark trees can be built exactly: ``force_allin`` turns a bet or raise
    into all-in when the stack behind it would be at most that fraction of the pot
    after it is called; ``merge`` drops a size whose pot fraction x is close to the
    next larger kept one y: (1 + y) / (1 + x) < 1 + merge (all-in is kept first).
    """

    bets: tuple[tuple[float, ...], ...] = ((0.5, 1.0), (1.0,))
    max_raises: int = 3
    scale: float = 1.0
    first_by_player: tuple[tuple[float, ...], ...] = ()
    force_allin: float = 0.0
    merge: float = 0.0

    def fractions(self, depth: int, player: int | None = None) -> tuple[float, ...]:
        if depth == 0 and player is not None and player < len(self.first_by_player) and self.first_by_player[player]:
            return self.first_by_player[player]
        return self.bets[min(depth, len(self.bets) - 1)]


class NodeCounts:
    """A tree's size by kind of node (``kind``: per node, the module's kind codes)."""

    kind: np.ndarray

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @property
    def num_decisions(self) -> int:
        return int((self.kind == DECISION).sum())


@dataclass
class PublicTree(NodeCounts):
    kind: np.ndarray  # int8 per node: DECISION, FOLD_TERMINAL, SHOWDOWN, CHANCE, LEAF
    player: np.ndarray  # int8: acting player at decisions, the folder at fold terminals, -1 else
    first_child: np.ndarray  # int32
    num_children: np.ndarray  # int32
    spent: np.ndarray  # int64 (nodes, 2): chips each player has put in over the hand
    dealt: np.ndarray  # int64: the card a chance node's child deals, else -1
    board_of: np.ndarray  # int64: showdowns: index into ``boards`` of their full board, else -1
    boards: list[tuple[int, ...]] = field(default_factory=list)  # the full boards of the showdowns
    actions: list[Action | None] = field(default_factory=list)  # the action leading to each node
    board: tuple[int, ...] = ()  # the public board at the root
    #: Nodes [top_end, n) are the subtrees below the children of the topmost chance
    #: nodes, one contiguous block each ([start, end) rows of ``blocks``; the chance
    #: child above block b is ``block_roots[b]``; a showdown right below a chance node,
    #: after an all-in, is the root of an empty block); they are independent within a
    #: pass, so a solver may walk them in parallel.
    top_end: int = -1
    blocks: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    block_roots: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: Depth-limited trees: per card, the index into ``boards`` of the root board
    #: completed by that card (the leaves' showdowns), -1 for cards on the board; empty
    #: in trees without leaves. With two cards to come: per deal of ``leaf_deals``.
    leaf_boards: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: Depth-limited trees with two cards to come: the (turn, river) deals the leaves
    #: are valued on, (deals, 2); empty otherwise.
    leaf_deals: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    #: Depth-limited trees: what one card (or deal) of the leaves' weighs for a pair
    #: of hands, scaled up when ``leaf_deals`` are a sample of the deals; 0 otherwise.
    leaf_weight: float = 0.0

    @property
    def num_terminals(self) -> int:
        return int(((self.kind == FOLD_TERMINAL) | (self.kind == SHOWDOWN) | (self.kind == MATRIX_TERMINAL)).sum())

    @property
    def num_leaves(self) -> int:
        return int((self.kind == LEAF).sum())

    @property
    def num_chance(self) -> int:
        return int((self.kind == CHANCE).sum())

    def memory_bytes(self, num_hands: int, float_bytes: int = 4, threads: int = 1) -> int:
        """What a vector CFR+ solve over ``num_hands`` hands allocates: regrets and
        average per node and hand (the current strategy is made from the regrets where
        a pass needs it), both players' reaches and values per node above the blocks
        (``top_rows``), all in single precision in solves, and per thread the
        block-local reaches, values and kept strategy of the largest block (see
        ``block_pass._walk_block``)."""
        return (2 * self.num_nodes + 3 * self.top_rows + 4 * threads * self.block_rows) * num_hands * float_bytes

    @property
    def top_rows(self) -> int:
        """Rows of a solve's tree-wide reaches and values: the nodes above the blocks
        (the blocks' own rows are block-local, and their chance children are above
        them), or every node in a tree without blocks."""
        return self.top_end if len(self.blocks) else self.num_nodes

    @property
    def block_rows(self) -> int:
        """Rows of a block-local array: the largest block and the chance child above it."""
        return 1 + int((self.blocks[:, 1] - self.blocks[:, 0]).max()) if len(self.blocks) else 1


def sizes_for_round(sizes: BetSizes | dict[int, BetSizes], round_: int) -> BetSizes:
    """The abstraction of a round: one for all rounds, or one per 0-based round."""
    if isinstance(sizes, dict):
        if round_ not in sizes:
            raise ValueError(f"no bet sizes for round {round_ + 1}")
        return sizes[round_]
    return sizes


def abstract_actions(state: BettingState, sizes: BetSizes) -> list[Action]:
    """The actions of the abstraction at ``state``: fold when legal, call, then raise-to
    totals for the pot fractions of its raise depth plus all-in (ascending, duplicates
    and out-of-range sizes clamped to the legal bounds), or the fixed limit raise."""
    out = []
    if state.can_fold():
        out.append(FOLD)
    out.append(CALL)
    bounds = state.raise_bounds()
    if bounds is None or state.num_raises() >= sizes.max_raises:
        return out
    if not state.game.is_nolimit:  # the one fixed raise
        out.append(LIMIT_RAISE)
        return out
    lo, hi = bounds
    p = state.current_player
    assert p is not None  # a raise is possible, so the hand is open
    to_call = state.max_spent - state.spent[p]
    base = state.pot + to_call  # the pot after calling (the pot itself for a bet)
    targets = set()
    for f in sizes.fractions(state.num_raises(), p):
        to = min(max(state.max_spent + int(round(f * sizes.scale * base)), lo), hi)
        if sizes.force_allin > 0.0:
            called_pot = base + 2 * (to - state.max_spent)
            if hi <= to + int(round(called_pot * sizes.force_allin)):
                to = hi
        targets.add(to)
    targets.add(hi)  # all-in
    ordered = sorted(targets)
    if sizes.merge > 0.0:
        ordered = _merged(ordered, state.max_spent, base, sizes.merge)
    out.extend(raise_to(t) for t in ordered)
    return out


def _merged(targets: list[int], offset: int, pot: int, merge: float) -> list[int]:
    """Raise-to totals (ascending) without those close to a larger kept one: from the
    largest down, keep x when (1 + y) / (1 + x) > 1 + merge for the last kept y, with
    x and y the raises' pot fractions (PioSOLVER's rule, as postflop-solver applies it)."""
    kept: list[int] = []
    for t in reversed(targets):
        x = (t - offset) / pot
        if not kept or (1.0 + (kept[-1] - offset) / pot) / (1.0 + x) > 1.0 + merge:
            kept.append(t)
    return kept[::-1]


def build_tree(
    state: BettingState,
    sizes: BetSizes | dict[int, BetSizes],
    extra_root_raises: tuple[int, ...] = (),
    leaf_round: int | None = None,
    leaf_deals: np.ndarray | None = None,
) -> PublicTree:
    """The public tree of the rest of the hand from ``state`` (no hole cards needed;
    the board dealt so far is ``state``'s). ``sizes`` is one abstraction for every
    round or one per round (by 0-based round). ``extra_root_raises`` adds raise-to
    totals to the root's actions (an opponent's off-tree bet; illegal ones are
    refused). ``leaf_round``: stop at the start of that round where both players can
    still bet (LEAF nodes); it must be the round after the root's and deal one card.
    When a round follows the leaves' (a flop root), every line reaching it is a leaf
    and ``leaf_deals`` ((deals, 2): turn and river cards, off the board and distinct)
    are the runouts the leaves are valued on."""
    game = state.game
    if leaf_round is not None and (leaf_round != state.round + 1 or game.num_board_cards[leaf_round] != 1):
        raise ValueError(f"leaves must start the next round and deal one card (round {leaf_round + 1})")
    two_to_come = leaf_round is not None and leaf_round + 1 < game.num_rounds
    if two_to_come:
        assert leaf_round is not None  # two_to_come says so
        if leaf_round + 2 < game.num_rounds:
            raise ValueError("depth-limited leaves are valued on at most two cards to come")
        leaf_deals = np.asarray(leaf_deals if leaf_deals is not None else np.zeros((0, 2)), dtype=np.int64)
        used = set(state.board_cards)
        if leaf_deals.ndim != 2 or leaf_deals.shape[1] != 2 or not len(leaf_deals):
            raise ValueError("a depth-limited tree with two cards to come needs leaf_deals, (deals, 2) cards")
        for d, e in leaf_deals.tolist():
            if d == e or d in used or e in used or not (0 <= d < 52 and 0 <= e < 52):
                raise ValueError(f"deal ({d}, {e}) must be two distinct cards off the board")
    elif leaf_deals is not None:
        raise ValueError("leaf_deals are for depth-limited trees with two cards to come")
    for to in extra_root_raises:
        if not state.can_apply(raise_to(to)):
            raise ValueError(f"raise to {to} is not legal at the root ({state.betting_string()!r})")

    def sizes_for(st: BettingState) -> BetSizes:
        return sizes_for_round(sizes, st.round)

    if state.finished:
        raise ValueError("the hand is over")
    if any(state.hole_cards):  # a public tree: hole cards play no part, and must not block the cards dealt
        state = state.copy()
        state.hole_cards = [[] for _ in state.hole_cards]
    if len(state.board_cards) != game.total_board_cards(state.round):
        raise ValueError("the state's board must hold exactly the cards of the rounds reached")
    for r in range(state.round + 1, game.num_rounds):
        if game.num_board_cards[r] > 1:
            raise ValueError(
                f"round {r + 1} deals {game.num_board_cards[r]} cards at once; "
                "subgames must start after such rounds (on the turn or later)"
            )
    kind: list[int] = []
    player: list[int] = []
    first: list[int] = []
    count: list[int] = []
    spent: list[tuple[int, int]] = []
    dealt: list[int] = []
    board_of: list[int] = []
    boards: dict[tuple[int, ...], int] = {}
    labels: list[Action | None] = []

    def needs_card(st: BettingState) -> bool:
        return len(st.board_cards) < game.total_board_cards(st.round)

    def add(st: BettingState, label: Action | None, card: int = -1) -> int:
        i = len(kind)
        b = -1
        at_leaf_round = (
            leaf_round is not None
            and st.round >= leaf_round  # an all-in jumps to the last round
            and len(st.board_cards) == game.total_board_cards(leaf_round - 1)
        )
        if at_leaf_round and (two_to_come or (st.round == leaf_round and st.raise_bounds() is not None)):
            kind.append(LEAF)
            player.append(-1)
        elif needs_card(st):
            kind.append(CHANCE)
            player.append(-1)
        else:
            k, p = node_kind(st)
            kind.append(k)
            player.append(p)
            if k == SHOWDOWN:
                b = boards.setdefault(tuple(st.board_cards), len(boards))
        first.append(-1)
        count.append(0)
        spent.append((st.spent[0], st.spent[1]))
        dealt.append(card)
        board_of.append(b)
        labels.append(label)
        return i

    # Depth-first, children contiguous: place a node's children, then recurse.
    root = add(state, None)
    stack = [(root, state)]
    deck = game.deck()
    while stack:
        node, st = stack.pop()
        children: list[tuple[BettingState, Action | None, int]] = []
        if kind[node] == DECISION:
            acts = abstract_actions(st, sizes_for(st))
            if node == root and extra_root_raises:
                acts = acts + [raise_to(to) for to in extra_root_raises if raise_to(to) not in acts]
                acts.sort(key=lambda a: (a.type, a.size))
            for a in acts:
                child = st.copy()
                child.apply(a)
                children.append((child, a, -1))
        elif kind[node] == CHANCE:
            used = set(st.board_cards)
            for c in deck:
                if c not in used:
                    child = st.copy()
                    child.deal_board_cards([c])
                    children.append((child, labels[node], c))
        else:
            continue
        first[node] = len(kind)
        count[node] = len(children)
        placed = [(add(child, a, c), child) for child, a, c in children]
        stack.extend(reversed(placed))
    leaf_boards = np.zeros(0, dtype=np.int64)
    deals = np.zeros((0, 2), dtype=np.int64)
    leaf_weight = 0.0
    left = len(deck) - len(state.board_cards)  # cards that can come
    hc = game.num_hole_cards
    if LEAF in kind and two_to_come:
        assert leaf_deals is not None  # checked above
        deals = leaf_deals
        leaf_boards = np.array(
            [boards.setdefault((*state.board_cards, *sorted(x)), len(boards)) for x in deals.tolist()], dtype=np.int64
        )
        # of the left * (left - 1) deals, (left - 2 hc)(left - 2 hc - 1) miss a pair of hands
        leaf_weight = left * (left - 1) / len(deals) / ((left - 2 * hc) * (left - 2 * hc - 1))
    elif LEAF in kind:
        leaf_boards = np.full(52, -1, dtype=np.int64)
        for c in deck:
            if c not in state.board_cards:
                leaf_boards[c] = boards.setdefault((*state.board_cards, c), len(boards))
        leaf_weight = 1.0 / (left - 2 * hc)
    return _in_blocks(
        PublicTree(
            kind=np.array(kind, dtype=np.int8),
            player=np.array(player, dtype=np.int8),
            first_child=np.array(first, dtype=np.int32),
            num_children=np.array(count, dtype=np.int32),
            spent=np.array(spent, dtype=np.int64),
            dealt=np.array(dealt, dtype=np.int64),
            board_of=np.array(board_of, dtype=np.int64),
            boards=sorted(boards, key=boards.__getitem__),
            actions=labels,
            board=tuple(state.board_cards),
            leaf_boards=leaf_boards,
            leaf_deals=deals,
            leaf_weight=leaf_weight,
        )
    )


def _in_blocks(tree: PublicTree) -> PublicTree:
    """Renumber the nodes: first those at or above the children of the topmost chance
    nodes, then each child's descendants as one contiguous block. Parents still come
    before children and siblings stay contiguous (filtering keeps both)."""
    n = tree.num_nodes
    parent = np.full(n, -1)
    for p in range(n):
        if tree.num_children[p] > 0:
            parent[tree.first_child[p] : tree.first_child[p] + tree.num_children[p]] = p
    owner = np.full(n, -1)  # the chance child whose block holds the node
    top_chance_child = np.zeros(n, dtype=bool)
    for v in range(1, n):  # parents first: owners are known when children are seen
        p = parent[v]
        if owner[p] >= 0:
            owner[v] = owner[p]
        elif top_chance_child[p]:
            owner[v] = p
        elif tree.kind[p] == CHANCE:
            top_chance_child[v] = True
    top = [v for v in range(n) if owner[v] < 0]
    order = list(top)
    blocks = []
    members: dict[int, list[int]] = {}
    for v in range(n):
        if owner[v] >= 0:
            members.setdefault(int(owner[v]), []).append(v)
    roots = []
    for c in top:
        if c in members or (top_chance_child[c] and tree.kind[c] == SHOWDOWN):
            blocks.append((len(order), len(order) + len(members.get(c, []))))
            roots.append(c)
            order.extend(members.get(c, []))
    new = np.empty(n, dtype=np.int64)
    new[np.array(order)] = np.arange(n)
    idx = np.array(order)
    first = np.where(tree.num_children[idx] > 0, new[np.maximum(tree.first_child[idx], 0)], -1).astype(np.int32)
    return PublicTree(
        kind=tree.kind[idx],
        player=tree.player[idx],
        first_child=first,
        num_children=tree.num_children[idx],
        spent=tree.spent[idx],
        dealt=tree.dealt[idx],
        board_of=tree.board_of[idx],
        boards=tree.boards,
        actions=[tree.actions[v] for v in order],
        board=tree.board,
        top_end=len(top),
        blocks=np.array(blocks, dtype=np.int64).reshape(-1, 2),
        block_roots=new[np.array(roots, dtype=np.int64)],
        leaf_boards=tree.leaf_boards,
        leaf_deals=tree.leaf_deals,
        leaf_weight=tree.leaf_weight,
    )


@dataclass
class ContinuationTree(NodeCounts):
    """The betting of the rest of the hand after a depth-limited leaf, cards left out
    (the same tree serves every deal): decisions, folds and showdowns in preorder,
    children contiguous; ``stage`` per node: rounds since the leaf's (0: the next
    round, 1: the one after). ``actions``: the action into each node (None at the
    root)."""

    kind: np.ndarray
    player: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    spent: np.ndarray
    stage: np.ndarray
    actions: list[Action | None]

    @classmethod
    def of_round(cls, tree: PublicTree) -> ContinuationTree:
        """A one-round public tree (decisions, folds, showdowns) as a continuation tree."""
        return cls(
            tree.kind,
            tree.player,
            tree.first_child,
            tree.num_children,
            tree.spent,
            np.zeros(tree.num_nodes, dtype=np.int8),
            list(tree.actions),
        )


def with_round_cards(st: BettingState) -> BettingState:
    """A copy of ``st`` with any board cards its round still needs dealt: the lowest
    cards off the board (a continuation tree leaves the cards out, and the betting
    does not depend on which)."""
    st = st.copy()
    game = st.game
    while not st.finished and len(st.board_cards) < game.total_board_cards(st.round):
        used = set(st.board_cards)
        st.deal_board_cards([next(c for c in game.deck() if c not in used)])
    return st


def continuation_tree(state: BettingState, sizes: BetSizes | dict[int, BetSizes]) -> ContinuationTree:
    """The continuation tree from ``state``, a leaf's state (its board that of the
    round before the leaf's): each round's betting by ``sizes``, the next round's
    below every line that reaches it, down to folds and showdowns."""
    st0 = state.copy()
    st0.hole_cards = [[] for _ in st0.hole_cards]
    start = st0.round
    kind: list[int] = []
    player: list[int] = []
    first: list[int] = []
    count: list[int] = []
    spent: list[tuple[int, int]] = []
    stage: list[int] = []
    labels: list[Action | None] = []
    states: list[BettingState] = []

    def add(st: BettingState, label: Action | None) -> int:
        st = with_round_cards(st)
        k, p = node_kind(st)
        kind.append(k)
        player.append(p)
        first.append(-1)
        count.append(0)
        spent.append((st.spent[0], st.spent[1]))
        stage.append(st.round - start)
        labels.append(label)
        states.append(st)
        return len(kind) - 1

    stack = [add(st0, None)]
    while stack:
        node = stack.pop()
        if kind[node] != DECISION:
            continue
        st = states[node]
        acts = abstract_actions(st, sizes_for_round(sizes, st.round))
        first[node] = len(kind)
        count[node] = len(acts)
        placed = []
        for a in acts:
            child = st.copy()
            child.apply(a)
            placed.append(add(child, a))
        stack.extend(reversed(placed))
    return ContinuationTree(
        np.array(kind, dtype=np.int8),
        np.array(player, dtype=np.int8),
        np.array(first, dtype=np.int32),
        np.array(count, dtype=np.int32),
        np.array(spent, dtype=np.int64).reshape(-1, 2),
        np.array(stage, dtype=np.int8),
        labels,
    )


@dataclass
class ExplicitNode:
    """A node of a small explicit game (not poker): a decision of ``player`` with
    ``children`` {action label: node}, or a terminal with ``payoff[c][h]``, player 0's
    winnings when player 0 holds private state c and player 1 holds h."""

    player: int = -1
    children: dict = field(default_factory=dict)
    payoff: list | None = None


def build_explicit_tree(root: ExplicitNode) -> tuple[PublicTree, np.ndarray]:
    """Flatten an explicit game into a PublicTree (decisions and matrix terminals)
    plus the payoff matrices (nodes, H, H). Lets the safe-solving examples of the
    papers (Coin Toss) run through the same solver."""
    nodes: list[ExplicitNode] = []
    labels: list = []
    first: list[int] = []
    count: list[int] = []
    nodes.append(root)
    labels.append(None)
    first.append(-1)
    count.append(0)
    stack = [0]
    while stack:
        n = stack.pop()
        node = nodes[n]
        if node.payoff is not None:
            continue
        first[n] = len(nodes)
        count[n] = len(node.children)
        placed = []
        for label, child in node.children.items():
            placed.append(len(nodes))
            nodes.append(child)
            labels.append(label)
            first.append(-1)
            count.append(0)
        stack.extend(reversed(placed))
    size = max(max(len(x.payoff), len(x.payoff[0])) for x in nodes if x.payoff is not None)
    payoff = np.zeros((len(nodes), size, size))
    for i, x in enumerate(nodes):
        if x.payoff is not None:
            m = np.asarray(x.payoff, dtype=np.float64)
            payoff[i, : m.shape[0], : m.shape[1]] = m
    kind = np.array([MATRIX_TERMINAL if x.payoff is not None else DECISION for x in nodes], dtype=np.int8)
    n = len(nodes)
    tree = PublicTree(
        kind=kind,
        player=np.array([x.player if x.payoff is None else -1 for x in nodes], dtype=np.int8),
        first_child=np.array(first, dtype=np.int32),
        num_children=np.array(count, dtype=np.int32),
        spent=np.zeros((n, 2), dtype=np.int64),
        dealt=np.full(n, -1, dtype=np.int64),
        board_of=np.full(n, -1, dtype=np.int64),
        boards=[],
        actions=labels,
    )
    return tree, payoff
