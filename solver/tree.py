"""Public game trees for subgame solving, from a rules state and a bet abstraction.

The tree is stored as flat arrays in depth-first preorder (a parent before its
children, children contiguous), so the solver walks it with plain loops: forward in
order for reach probabilities, backward for values. Legality, raise bounds and
payoffs all come from ``protocol.betting``.

This module builds trees within the current betting round of the last round (river
subgames); chance nodes for later rounds are the next step (see the solver issue).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from protocol.betting import CALL, FOLD, LIMIT_RAISE, Action, BettingState, raise_to

DECISION, FOLD_TERMINAL, SHOWDOWN = 0, 1, 2


@dataclass(frozen=True)
class BetSizes:
    """Bet and raise sizes as fractions of the pot, per raise depth.

    ``bets[d]`` (d = raises already made in this round) are fractions of the pot for
    an opening bet (d = 0) or of the pot after calling for a raise (d >= 1); the last
    list repeats for deeper raises. All-in is always offered; a size at or above the
    stack becomes all-in. ``max_raises`` caps the raises per round (then only fold and
    call). ``scale`` multiplies every size (the agent randomises it per hand).
    """

    bets: tuple[tuple[float, ...], ...] = ((0.5, 1.0), (1.0,))
    max_raises: int = 3
    scale: float = 1.0

    def fractions(self, depth: int) -> tuple[float, ...]:
        return self.bets[min(depth, len(self.bets) - 1)]


@dataclass
class PublicTree:
    kind: np.ndarray  # int8 per node: DECISION, FOLD_TERMINAL, SHOWDOWN
    player: np.ndarray  # int8: acting player at decisions, the folder at fold terminals, -1 else
    first_child: np.ndarray  # int32
    num_children: np.ndarray  # int32
    spent: np.ndarray  # int64 (nodes, 2): chips each player has put in over the hand
    actions: list[Action] = field(default_factory=list)  # the action leading to each node (root: None)
    board: tuple[int, ...] = ()

    @property
    def num_nodes(self) -> int:
        return len(self.kind)

    @property
    def num_decisions(self) -> int:
        return int((self.kind == DECISION).sum())

    @property
    def num_terminals(self) -> int:
        return int((self.kind != DECISION).sum())

    def memory_bytes(self, num_hands: int, float_bytes: int = 8) -> int:
        """What a vector CFR+ solve over ``num_hands`` hands allocates: regrets,
        average and current strategy, both players' reaches, values and fold totals,
        each per node and hand."""
        return 7 * self.num_nodes * num_hands * float_bytes


def _actions(state: BettingState, sizes: BetSizes) -> list[Action]:
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
    to_call = state.max_spent - state.spent[p]
    targets = set()
    for f in sizes.fractions(state.num_raises()):
        base = state.pot + to_call  # the pot after calling (the pot itself for a bet)
        to = state.max_spent + int(round(f * sizes.scale * base))
        targets.add(min(max(to, lo), hi))
    targets.add(hi)  # all-in
    out.extend(raise_to(t) for t in sorted(targets))
    return out


def build_tree(state: BettingState, sizes: BetSizes) -> PublicTree:
    """The public tree of the rest of the current round of ``state``, which must be
    in the game's last round (a river subgame)."""
    game = state.game
    if state.finished:
        raise ValueError("the hand is over")
    if state.round != game.num_rounds - 1:
        raise ValueError("trees with later rounds (chance nodes) are not built yet; start on the last round")
    kind: list[int] = []
    player: list[int] = []
    first: list[int] = []
    count: list[int] = []
    spent: list[tuple[int, int]] = []
    labels: list[Action | None] = []

    def add(st: BettingState, label: Action | None) -> int:
        i = len(kind)
        if st.finished:
            folded = st.folded[0] or st.folded[1]
            kind.append(FOLD_TERMINAL if folded else SHOWDOWN)
            player.append((0 if st.folded[0] else 1) if folded else -1)
        else:
            kind.append(DECISION)
            player.append(st.current_player)
        first.append(-1)
        count.append(0)
        spent.append((st.spent[0], st.spent[1]))
        labels.append(label)
        return i

    # Depth-first, children contiguous: place a node's children, then recurse.
    root = add(state, None)
    stack = [(root, state)]
    while stack:
        node, st = stack.pop()
        if kind[node] != DECISION:
            continue
        acts = _actions(st, sizes)
        first[node] = len(kind)
        count[node] = len(acts)
        children = []
        for a in acts:
            child = st.copy()
            child.apply(a)
            children.append((add(child, a), child))
        stack.extend(reversed(children))
    return PublicTree(
        kind=np.array(kind, dtype=np.int8),
        player=np.array(player, dtype=np.int8),
        first_child=np.array(first, dtype=np.int32),
        num_children=np.array(count, dtype=np.int32),
        spent=np.array(spent, dtype=np.int64),
        actions=labels,
        board=tuple(state.visible_board()),
    )
