"""A solution the agent plays from, and reading it: the solved subgame with its
strategy (``Solution``, its values and reaches computed once on demand), following a
hand's line in its tree (``walk_solution``), a solve made to answer a question
(``AnsweredSolve``), and the hand state carried between decisions (``HandState``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pokerbot.protocol.betting import Action, ActionType, BettingState
from pokerbot.solver import cfr
from pokerbot.solver.subgame import Subgame
from pokerbot.solver.tree import CHANCE, DECISION


def canonical(sub: Subgame, per_hand: np.ndarray, size: int) -> np.ndarray:
    """``per_hand`` (the subgame's hands) on all ``size`` hands of the game, 0 elsewhere."""
    out = np.zeros(size)
    out[sub.hand_index] = per_hand
    return out


#: where a decision's solution comes from when it was solved for that decision
SOLVE_KINDS = ("unsafe", "safe", "nested")


@dataclass(frozen=True)
class HandState:
    """What the agent carries through a hand between its decisions (the solution it
    plays from, the gifts, the hand's bet-size scale, the time budget, the blueprint's
    walk), as ``LibratusAgent.hand_state`` took it: opaque, to hand back to
    ``set_hand_state``."""

    fields: tuple


@dataclass
class AnsweredSolve:
    """A solve made to answer a question about a state of the current hand: the solution
    it started from (``before``, with the gifts and bet-size scale then), and what it
    made (solution, decision node, kind, the gifts after it, its log fields)."""

    before: Solution | None
    gifts_before: np.ndarray
    scale: float
    solution: Solution
    node: int
    source: str
    gifts: np.ndarray
    log: dict

    def applies(self, current: Solution | None, gifts: np.ndarray | None, scale: float) -> bool:
        """Whether a decision at that state, from ``current``, would make the same solve."""
        same_gifts = gifts is not None and np.array_equal(gifts, self.gifts_before)
        return current is self.before and same_gifts and scale == self.scale


@dataclass
class Solution:
    sub: Subgame
    strategy: np.ndarray  # (nodes, H)
    root: BettingState
    kind: str  # unsafe, safe, nested
    leaf_strategy: np.ndarray | None = None  # depth-limited: both players' continuation mixes
    #: the next round is solved anew when the hand reaches it (a sampled full-depth
    #: solution's; a depth-limited one's ends at its leaves)
    next_round_solved: bool = False
    #: a flop solution's values come from this many of its runouts (keyed by ``seed``; 0: all)
    value_deals: int = 0
    seed: int = 0
    threads: int = 1  # the values' leaves valued on that many
    _values: dict = field(default_factory=dict)

    def values(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """Counterfactual values of ``player`` at every node, and both reaches (computed
        in the solve's precision, on the kernels the solves compiled; returned in double)."""
        if player not in self._values:
            cfv, reaches = cfr.node_values(
                self.sub,
                self.strategy,
                player,
                leaf_strategy=self.leaf_strategy,
                leaf_sample=self.value_deals,
                seed=self.seed,
                threads=self.threads,
                dtype=cfr.SOLVE_DTYPE,
            )
            self._values[player] = (cfv.astype(np.float64), reaches.astype(np.float64))
        return self._values[player]

    def reaches(self) -> np.ndarray:
        """Both players' reaches at every node (no values needed: cheap at any depth)."""
        if self._values:
            return next(iter(self._values.values()))[1]
        return cfr.node_reaches(self.sub, self.strategy, dtype=cfr.SOLVE_DTYPE).astype(np.float64)

    def parents(self) -> np.ndarray:
        """Each node's parent in the solution's tree (-1 at the root)."""
        tree = self.sub.tree
        parent = np.full(tree.num_nodes, -1, dtype=np.int64)
        for n in np.nonzero(tree.num_children > 0)[0]:
            parent[tree.first_child[n] : tree.first_child[n] + tree.num_children[n]] = n
        return parent

    def round_start_node(self, node: int) -> int:
        """The first node of ``node``'s round: the chance child above it (or ``node``)."""
        parent = self.parents()
        while parent[node] >= 0 and self.sub.tree.kind[parent[node]] != CHANCE:
            node = int(parent[node])
        return node

    def reaches_at(self, node: int) -> np.ndarray:
        """Both players' reaches at ``node`` (2, H): the root's times each player's
        probabilities of its own actions on the way (the hands holding a dealt card
        are not removed)."""
        tree = self.sub.tree
        parent = self.parents()
        out = np.array(self.sub.reach, dtype=np.float64)
        n = node
        while parent[n] >= 0:
            p = parent[n]
            if tree.kind[p] == DECISION:
                out[int(tree.player[p])] *= self.strategy[n]
            n = p
        return out


def events_since(root: BettingState, state: BettingState) -> list[tuple[str, Action | int]]:
    """What happened since ``root``: ("a", action) and ("c", card) in order."""
    out: list[tuple[str, Action | int]] = []
    game = state.game
    for r in range(root.round, state.round + 1):
        start = len(root.actions[r]) if r == root.round else 0
        for a in state.actions[r][start:]:
            out.append(("a", a))
        if r < state.round:
            lo, hi = game.total_board_cards(r), game.total_board_cards(r + 1)
            for c in state.board_cards[lo:hi]:
                out.append(("c", c))
    return out


def walk_solution(sol: Solution, state: BettingState) -> tuple[int, int, int | None]:
    """Follow ``state`` in the solution's tree from its root: (node reached, the node
    before the last event followed, index of the first event the tree lacks or None)."""
    tree = sol.sub.tree
    node = 0
    parent = 0
    for i, (kind, what) in enumerate(events_since(sol.root, state)):
        k = tree.kind[node]
        f, m = int(tree.first_child[node]), int(tree.num_children[node])
        found = -1
        if kind == "c" and k == CHANCE:
            for c in range(f, f + m):
                if int(tree.dealt[c]) == what:
                    found = c
                    break
        elif kind == "a" and k == DECISION:
            assert isinstance(what, Action)  # an "a" event's
            for c in range(f, f + m):
                a = tree.actions[c]
                if a is not None and a.type is what.type and (a.type is not ActionType.RAISE or a.size == what.size):
                    found = c
                    break
        if found < 0:
            return node, parent, i
        parent, node = node, found
    return node, parent, None


def opening_bet(state: BettingState, me: int) -> tuple[int, ...]:
    """The opponent's bet that opened this round, if it did (raise-to total): a
    solve from the round's start puts it into the tree as it is."""
    first = [a for a, who in zip(state.actions[state.round], state.actors[state.round]) if who != me][:1]
    return tuple(
        a.size
        for a in first
        if a.type is ActionType.RAISE and state.game.is_nolimit and state.actions[state.round][0] == a
    )


def round_start(state: BettingState) -> BettingState:
    """The start of ``state``'s round: its line before the round, its board."""
    root = BettingState(state.game, state.hand_id)
    for r in range(state.round):
        for a in state.actions[r]:
            root.apply(a)
    root.deal_board_cards(state.board_cards[: state.game.total_board_cards(state.round)])
    return root


def opponent_raised_last(root: BettingState, state: BettingState, me: int) -> bool:
    """Whether the opponent's latest action, made after the solution's root, is a
    bet or raise (then a safe re-solve follows)."""
    for r in range(state.round, root.round - 1, -1):
        acts, actors = state.actions[r], state.actors[r]
        start = len(root.actions[r]) if r == root.round else 0
        for a, who in zip(reversed(acts[start:]), reversed(actors[start:])):
            if who != me:
                return a.type is ActionType.RAISE
    return False
