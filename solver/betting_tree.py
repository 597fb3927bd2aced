"""The abstract betting tree of a whole hand, without cards: what a blueprint is
trained over.

Nodes are public betting states reached by the action abstraction (``tree.BetSizes``
per round, legality and bounds from ``protocol.betting``); a round ends where the
betting closes and the next round's first decision follows directly (the cards are
handled by the card abstraction, not by chance nodes here). Flat arrays, depth-first
preorder, children contiguous, like ``tree.PublicTree``. Each decision node owns a
block of ``buckets[round] * actions`` slots in the regret and strategy arrays
(``slot_offset``), so an information set is (node, bucket).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pokerbot.protocol.betting import Action, BettingState
from pokerbot.protocol.gamedef import GameDef

from .tree import DECISION, BetSizes, NodeCounts, abstract_actions, node_kind, sizes_for_round


@dataclass
class BettingTree(NodeCounts):
    kind: np.ndarray  # int8: DECISION, FOLD_TERMINAL, SHOWDOWN
    player: np.ndarray  # int8: the actor at decisions, the folder at fold terminals, -1 at showdowns
    round: np.ndarray  # int8: the betting round of the node (0-based)
    first_child: np.ndarray  # int32, -1 at terminals
    num_children: np.ndarray  # int32
    spent: np.ndarray  # int64 (nodes, 2)
    slot_offset: np.ndarray  # int64: first regret slot of a decision node, -1 else
    num_slots: int
    buckets: tuple[int, ...]  # buckets per round the slots were laid out for
    actions: list[Action | None] = field(default_factory=list)  # the action into each node
    betting: list[str] = field(default_factory=list)  # ACPC betting string of each node

    def memory_bytes(self, regret_bytes: int = 4, strategy_bytes: int = 4) -> int:
        """Regrets plus average-strategy weights, one of each per slot."""
        return self.num_slots * (regret_bytes + strategy_bytes)


def build_betting_tree(game: GameDef, sizes: BetSizes | dict[int, BetSizes], buckets: tuple[int, ...]) -> BettingTree:
    """The betting tree of ``game`` from the first action, with ``sizes`` (one
    abstraction for every round, or one per 0-based round) and ``buckets`` card
    classes per round (for the slot layout)."""
    if len(buckets) != game.num_rounds or min(buckets) < 1:
        raise ValueError(f"need a positive bucket count for each of the {game.num_rounds} rounds, got {buckets}")

    kind: list[int] = []
    player: list[int] = []
    rnd: list[int] = []
    first: list[int] = []
    count: list[int] = []
    spent: list[tuple[int, int]] = []
    labels: list[Action | None] = []
    betting: list[str] = []

    def add(st: BettingState, label: Action | None) -> int:
        k, p = node_kind(st)
        kind.append(k)
        player.append(p)
        rnd.append(st.round)
        first.append(-1)
        count.append(0)
        spent.append((st.spent[0], st.spent[1]))
        labels.append(label)
        betting.append(st.betting_string())
        return len(kind) - 1

    root_state = BettingState(game)
    root = add(root_state, None)
    stack = [(root, root_state)]
    while stack:
        node, st = stack.pop()
        if kind[node] != DECISION:
            continue
        children = []
        for a in abstract_actions(st, sizes_for_round(sizes, st.round)):
            child = st.copy()
            child.apply(a)
            children.append((child, a))
        first[node] = len(kind)
        count[node] = len(children)
        placed = [(add(child, a), child) for child, a in children]
        stack.extend(reversed(placed))
    kind_a = np.array(kind, dtype=np.int8)
    round_a = np.array(rnd, dtype=np.int8)
    count_a = np.array(count, dtype=np.int32)
    offset = np.full(len(kind), -1, dtype=np.int64)
    at = 0
    for n in np.nonzero(kind_a == DECISION)[0]:
        offset[n] = at
        at += buckets[round_a[n]] * int(count_a[n])
    return BettingTree(
        kind=kind_a,
        player=np.array(player, dtype=np.int8),
        round=round_a,
        first_child=np.array(first, dtype=np.int32),
        num_children=count_a,
        spent=np.array(spent, dtype=np.int64),
        slot_offset=offset,
        num_slots=at,
        buckets=tuple(buckets),
        actions=labels,
        betting=betting,
    )
