"""Continuation strategies from a blueprint for depth-limited solving (Pluribus).

At each leaf of a depth-limited turn subgame (``solver.depth_limited``) both players
choose among four ways to play the river: the blueprint's river strategy, and that
strategy with its fold, call or raise probabilities multiplied by five and
renormalised. The leaf's line is mapped into the blueprint's betting tree from the
abstract node of the subgame's root by deterministic pseudo-harmonic translation
(the supplement's rule for leaves; a raise war past the tree's cap goes on from the
node where the player facing it could last raise back, as in play: ``real_play``);
the river is then played on a tree of the blueprint's own river sizes at the
leaf's real pot, each real node mapped to the abstract node its actions lead to.
Strategies are kept per river bucket, so one table serves every river card.
A flop subgame's leaves are at the turn: the four continuations play the turn and the
river the same way (the blueprint's turn and river sizes, turn and river buckets),
valued on a keyed sample of runouts.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from pokerbot.protocol.betting import CALL, Action, ActionType, BettingState
from pokerbot.solver.depth_limited import attach_continuations, biased
from pokerbot.solver.subgame import Subgame
from pokerbot.solver.tree import (
    CHANCE,
    DECISION,
    LEAF,
    ContinuationTree,
    PublicTree,
    build_tree,
    continuation_tree,
    with_round_cards,
)

from .abstraction import hand_buckets, river_bucket_table, runout_bucket_table
from .actions import pot_fraction
from .real_play import concrete_action, map_action, raise_war_node
from .store import Blueprint

#: The continuations, in the order of their index k.
CONTINUATIONS = ("blueprint", "fold-biased", "call-biased", "raise-biased")


@dataclass
class ContinuationStats:
    leaves: int = 0
    unmapped_leaves: int = 0  # leaves whose line the blueprint's tree could not follow (check/call down)
    unmapped_nodes: int = 0  # river nodes without an abstract node (check/call there)


def leaf_lines(tree: PublicTree) -> dict[int, list[Action]]:
    """Per LEAF node of ``tree``: the actions from the root to it."""
    parent = np.full(tree.num_nodes, -1)
    for n in range(tree.num_nodes):
        f, m = int(tree.first_child[n]), int(tree.num_children[n])
        if m > 0:
            parent[f : f + m] = n
    out = {}
    for leaf in np.nonzero(tree.kind == LEAF)[0]:
        line = []
        n = int(leaf)
        while parent[n] >= 0:
            a = tree.actions[n]
            assert a is not None  # every node but the root has its action
            line.append(a)
            n = int(parent[n])
        out[int(leaf)] = line[::-1]
    return out


def attach_blueprint_continuations(
    sub: Subgame, root: BettingState, view: Blueprint, root_node: int | None
) -> ContinuationStats:
    """Give the depth-limited subgame ``sub`` (from ``root``, the start of the turn, or
    of the flop) Pluribus's four continuations from ``view`` (a blueprint, or the
    extension the hand follows), whose betting tree reached ``root_node`` at ``root``
    (None: the tree could not follow the hand; every continuation then checks and
    calls down)."""
    stats = ContinuationStats()
    sizes = view.actions.sizes()
    from_flop = root.round == 1
    trees: list[PublicTree | ContinuationTree] = []
    strategies = []
    B = max(int(view.tree.buckets[3]), int(view.tree.buckets[2]) if from_flop else 0)
    for line in leaf_lines(sub.tree).values():  # in node order, as the leaves are numbered
        real = root.copy()
        real.hole_cards = [[] for _ in real.hole_cards]
        node = root_node
        path: list[int] = []  # the round's abstract decisions, for raise wars past the cap
        for a in line:
            if node is not None:
                pick = map_action(view, node, real, a, None)
                if pick is None:
                    node = raise_war_node(view, path, real, a)
                else:
                    path.append(node)
                    node = int(view.tree.first_child[node]) + pick
            real.apply(a)
        if node is not None and (view.tree.kind[node] != DECISION or int(view.tree.round[node]) != root.round + 1):
            node = None
        stats.leaves += 1
        if from_flop:
            ct = continuation_tree(real, {2: sizes[2], 3: sizes[3]})
            stats.unmapped_leaves += node is None and ct.kind[0] == DECISION  # an all-in leaf has nothing to map
            trees.append(ct)
            strategies.append(_continuation_strategy(view, ct, real, node, B, stats))
            continue
        stats.unmapped_leaves += node is None
        card = next(c for c in real.game.deck() if c not in real.board_cards)
        real.deal_board_cards([card])
        tree = build_tree(real, sizes[3])
        trees.append(tree)
        strategies.append(_continuation_strategy(view, ContinuationTree.of_round(tree), real, node, B, stats))
    if from_flop:
        buckets = _runout_buckets(view, root.board_cards, sub.tree.leaf_deals)
    else:
        buckets = river_bucket_table(view.cards, root.board_cards)
    attach_continuations(sub, trees, strategies, buckets)
    return stats


#: the last runout bucket table made, with what it was made from (a hand's flop solves
#: share one runout sample): (abstraction, board, deals, table)
_RUNOUT_TABLE: list[tuple] = []


def _runout_buckets(view: Blueprint, board: list[int], deals: np.ndarray) -> np.ndarray:
    if _RUNOUT_TABLE:
        cards, b, d, table = _RUNOUT_TABLE[0]
        if cards is view.cards and b == tuple(board) and np.array_equal(d, deals):
            return table
    table = runout_bucket_table(view.cards, board, deals)
    _RUNOUT_TABLE[:] = [(view.cards, tuple(board), deals.copy(), table)]
    return table


def _continuation_strategy(
    view: Blueprint,
    tree: ContinuationTree,
    start: BettingState,
    abstract_root: int | None,
    B: int,
    stats: ContinuationStats,
) -> np.ndarray:
    """(tree nodes, 4, B): the probability of the action into each node, per
    continuation and bucket (of the node's round)."""
    out = np.zeros((tree.num_nodes, len(CONTINUATIONS), B), dtype=np.float32)
    stack: list[Pending] = [(0, with_round_cards(start), abstract_root, ())]
    while stack:
        n, st, a_node, path = stack.pop()
        if tree.kind[n] != DECISION:
            continue
        f, m = int(tree.first_child[n]), int(tree.num_children[n])
        real_actions = [tree.actions[c] for c in range(f, f + m)]
        me = int(tree.player[n])
        played_as: list[int] = []
        if a_node is None or view.tree.kind[a_node] != DECISION or int(view.tree.round[a_node]) != st.round:
            stats.unmapped_nodes += a_node is not None
            out[f + real_actions.index(CALL)] = 1.0
        else:
            table = _biased_table(view, a_node)  # (k, 4, b)
            played_as = _real_children(view, st, me, a_node, real_actions)
            for j, r in enumerate(played_as):
                out[f + r, :, : table.shape[2]] += table[j]
        _push_children(stack, st, f, real_actions, view, a_node, path, deal=True)
    return out


#: Per blueprint (weakly: a closed one leaves): its abstract nodes' continuation tables.
_BIASED: weakref.WeakKeyDictionary[Blueprint, dict[int, np.ndarray]] = weakref.WeakKeyDictionary()


def _biased_table(view: Blueprint, node: int) -> np.ndarray:
    """(children, 4, buckets) float32: the four continuations' probabilities of each
    child of abstract decision ``node`` (made once per blueprint and node: a flop
    solve's leaves reach the same turn and river nodes many times)."""
    tables = _BIASED.setdefault(view, {})
    table = tables.get(node)
    if table is None:
        kinds = [_kind(c) for c in view.child_actions(node)]
        table = np.ascontiguousarray(biased(_bucket_strategy(view, node), kinds).transpose(2, 1, 0), dtype=np.float32)
        tables[node] = table
    return table


def _kind(a: Action) -> str:
    return "fold" if a.type is ActionType.FOLD else "call" if a.type is ActionType.CALL else "raise"


def _bucket_strategy(view: Blueprint, node: int) -> np.ndarray:
    """(buckets, children): the blueprint's average strategy at decision ``node``."""
    r = int(view.tree.round[node])
    k = int(view.tree.num_children[node])
    base = int(view.tree.slot_offset[node])
    B = int(view.tree.buckets[r])
    return np.asarray(view.strategy[base : base + B * k], dtype=np.float64).reshape(B, k)


def _real_children(
    view: Blueprint, st: BettingState, me: int, node: int, real_actions: list[Action | None]
) -> list[int]:
    """Per child of abstract ``node``: the index among ``real_actions`` of the real
    action it is played as in ``st``: the same action; for a raise the real tree lacks
    (its sizes scaled, or others than the blueprint's), the real raise nearest its pot
    fraction (all-in stays all-in); a call where the real tree has no raise."""
    raises = [
        (pot_fraction(a.size, st.spent, me), i)
        for i, a in enumerate(real_actions)
        if a is not None and a.type is ActionType.RAISE
    ]
    out = []
    for c in view.child_actions(node):
        a = concrete_action(view, st, me, node, c)
        if a in real_actions:
            out.append(real_actions.index(a))
        elif a.type is ActionType.RAISE and raises:
            x = pot_fraction(a.size, st.spent, me)
            out.append(min(raises, key=lambda fi: (abs(fi[0] - x), fi[1]))[1])
        else:
            out.append(real_actions.index(CALL))
    return out


#: A walk's pending node: (real node, its state, the abstract node it follows or None,
#: the abstract decisions on the way there, for raise wars past the cap).
Pending = tuple[int, BettingState, "int | None", tuple[int, ...]]


def _push_children(
    stack: list[Pending],
    st: BettingState,
    first: int,
    real_actions: list[Action | None],
    view: Blueprint,
    node: int | None,
    path: tuple[int, ...],
    deal: bool = False,
) -> None:
    """Push the real children of a decision (nodes ``first``.., reached from ``st`` by
    ``real_actions``), each with the abstract child of ``node`` it follows, as the
    blueprint player follows a real action (``map_action``, deterministic
    translation); a raise past the tree's cap goes on from the node its raise war goes
    on from (``raise_war_node``); else None. ``deal``: a child that starts a round gets
    its cards (any: a continuation tree leaves them out)."""
    on = path if node is None else (*path, node)
    for r, action in enumerate(real_actions):
        assert action is not None  # every child has its action
        follows = None
        if node is not None and int(view.tree.round[node]) == st.round:
            pick = map_action(view, node, st, action, None)
            if pick is not None:
                follows = int(view.tree.first_child[node]) + pick
            else:
                follows = raise_war_node(view, list(on), st, action)
        nxt = st.copy()
        nxt.apply(action)
        if deal:
            nxt = with_round_cards(nxt)
        stack.append((first + r, nxt, follows, on))


def blueprint_subgame_strategy(sub: Subgame, root: BettingState, view: Blueprint, root_node: int | None) -> np.ndarray:
    """The blueprint's strategy on the public tree of ``sub`` (from ``root``, on the
    flop or the turn, where ``view``'s tree is at ``root_node``; full depth, or
    depth-limited: the leaves are left to the continuations): (nodes, subgame
    hands), each real action taking the probability of the abstract actions played as
    it (real nodes mapped by deterministic translation, raise wars past the tree's cap
    followed as the player follows them); check/call where the blueprint's tree
    cannot follow. What exact evaluation of the blueprint in the subgame
    (``cfr.exploitability``) needs."""
    tree = sub.tree
    out = np.zeros((tree.num_nodes, sub.hands.shape[0]))
    by_board: dict[tuple[int, ...], np.ndarray] = {}

    def buckets_on(st: BettingState) -> np.ndarray:
        board = tuple(st.board_cards)
        if board not in by_board:
            by_board[board] = hand_buckets(view.cards, st.round, board)[sub.hand_index]
        return by_board[board]

    start = root.copy()
    start.hole_cards = [[] for _ in start.hole_cards]
    stack: list[Pending] = [(0, start, root_node, ())]
    while stack:
        n, st, a_node, path = stack.pop()
        f, m = int(tree.first_child[n]), int(tree.num_children[n])
        if tree.kind[n] == CHANCE:
            for c in range(f, f + m):
                nxt = st.copy()
                nxt.deal_board_cards([int(tree.dealt[c])])
                stack.append((c, nxt, a_node, path))
            continue
        if tree.kind[n] != DECISION:
            continue
        real_actions = [tree.actions[c] for c in range(f, f + m)]
        played_as: list[int] = []
        if a_node is None or view.tree.kind[a_node] != DECISION:
            out[f + real_actions.index(CALL)] = 1.0
        else:
            per_hand = _bucket_strategy(view, a_node)[np.maximum(buckets_on(st), 0)]  # (H, k)
            played_as = _real_children(view, st, int(tree.player[n]), a_node, real_actions)
            for j, r in enumerate(played_as):
                out[f + r] += per_hand[:, j]
        _push_children(stack, st, f, real_actions, view, a_node, path)
    return out
