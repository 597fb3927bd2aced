"""Export a solved small game as an OpenSpiel policy: information-state string to
action probabilities, so that OpenSpiel can evaluate it (exploitability, best
responses) independently of our code.

The caller passes the loaded OpenSpiel game (this module does not import OpenSpiel)
and a map from OpenSpiel's card ids to ours. How OpenSpiel's actions map
to ours is the caller's ``action_map`` (``leduc_poker``: 0 fold, 1 call, 2 raise;
``kuhn_poker``: 0 pass = check or fold, 1 bet = bet or call).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pokerbot.protocol.betting import Action, ActionType

from .cfr import Subgame
from .tree import CHANCE, DECISION, PublicTree


def _action_into(t: PublicTree, c: int) -> Action:
    a = t.actions[c]
    assert a is not None  # only the root has no action into it
    return a


def _child_for(sub: Subgame, node: int, want: ActionType) -> int:
    t = sub.tree
    f, m = t.first_child[node], t.num_children[node]
    for c in range(f, f + m):
        if _action_into(t, c).type is want:
            return c
    raise KeyError(f"no {want.name} action at node {node}")


def export_policy(
    sub: Subgame,
    strategy: np.ndarray,
    os_game,
    card_map: Callable[[int], int],
    action_map: Callable[[list[ActionType], int], ActionType],
) -> dict[str, list[tuple[int, float]]]:
    """Walk OpenSpiel's game tree alongside ours and read our strategy at every
    decision: {information state string: [(OpenSpiel action, probability), ...]}.

    ``action_map(our_action_types, os_action)`` says which of our actions (those
    legal at our node) an OpenSpiel action is."""
    hand_of = {tuple(int(c) for c in h): i for i, h in enumerate(sub.hands.tolist())}
    t = sub.tree
    policy: dict[str, list[tuple[int, float]]] = {}

    def walk(os_state, node: int, holes: list[list[int]]) -> None:
        if os_state.is_terminal():
            return
        if os_state.is_chance_node():
            for action, _ in os_state.chance_outcomes():
                card = card_map(action)
                child = os_state.child(action)
                dealt = sum(len(h) for h in holes)
                need = sub.hands.shape[1] * 2
                if dealt < need:  # private cards go to player 0, then player 1
                    p = 0 if len(holes[0]) < sub.hands.shape[1] else 1
                    new = [list(h) for h in holes]
                    new[p].append(card)
                    walk(child, node, new)
                else:  # a board card: our chance node's child dealing it
                    if t.kind[node] != CHANCE:
                        raise ValueError(f"OpenSpiel deals a board card where our node {node} is not a chance node")
                    f, m = t.first_child[node], t.num_children[node]
                    match = [c for c in range(f, f + m) if t.dealt[c] == card]
                    walk(child, match[0], holes)
            return
        if t.kind[node] != DECISION:
            raise ValueError(f"OpenSpiel has a decision where our node {node} is not one")
        p = os_state.current_player()
        if p != t.player[node]:
            raise ValueError(f"player {p} acts in OpenSpiel, {t.player[node]} in our node {node}")
        h = hand_of[tuple(sorted(holes[p]))]
        key = os_state.information_state_string(p)
        probs = []
        children = []
        ours = [_action_into(t, c).type for c in range(t.first_child[node], t.first_child[node] + t.num_children[node])]
        for action in os_state.legal_actions():
            c = _child_for(sub, node, action_map(ours, action))
            probs.append((action, float(strategy[c, h])))
            children.append((action, c))
        total = sum(pr for _, pr in probs)
        policy[key] = [(a, pr / total) for a, pr in probs]
        for action, c in children:
            walk(os_state.child(action), c, holes)

    walk(os_game.new_initial_state(), 0, [[], []])
    return policy
