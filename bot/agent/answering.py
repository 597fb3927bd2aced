"""Answering from a solution: the strategy the agent plays at a decision node (each
hand's row normalised, purified when the agent purifies), the action it samples for its
own hand, and its answer for every hand with each action's value (the strategy API)."""

from __future__ import annotations

import numpy as np

from pokerbot.blueprint_store.purification import fold_call_bet
from pokerbot.bot.agent.solution import Solution
from pokerbot.bot.players.strategy_query import HANDS, ActionProbabilities, merge_columns
from pokerbot.protocol.betting import CALL, FOLD, Action, ActionType, BettingState
from pokerbot.solver import cfr
from pokerbot.solver.keyed import pick


def node_actions(sol: Solution, node: int) -> list[Action]:
    """The actions of decision ``node``'s children, in order."""
    tree = sol.sub.tree
    f, m = int(tree.first_child[node]), int(tree.num_children[node])
    actions = [a for a in tree.actions[f : f + m] if a is not None]
    assert len(actions) == m  # only the root has no action into it
    return actions


def played_rows(sol: Solution, node: int, rows: list[int] | slice, purify: bool) -> np.ndarray:
    """(len(rows), children): the strategy played at ``node`` for the subgame's hands
    ``rows``: each row normalised (uniform where it sums to 0), purified (fold-call-bet)
    when ``purify``."""
    tree = sol.sub.tree
    f, m = int(tree.first_child[node]), int(tree.num_children[node])
    block = np.asarray(sol.strategy[f : f + m, rows], dtype=np.float64).T
    sums = block.sum(axis=-1, keepdims=True)
    block = np.where(sums > 0, block / np.where(sums > 0, sums, 1.0), 1.0 / m)
    return fold_call_bet(block, node_actions(sol, node)) if purify else block


def as_played(action: Action, state: BettingState) -> Action:
    """A fold where checking is free is played as the check."""
    if action.type is ActionType.FOLD:
        return FOLD if state.can_fold() else CALL
    return action


def sample_action(sol: Solution, node: int, state: BettingState, me: int, purify: bool, u: float) -> Action:
    """The action for our hand at ``node`` (``state``'s hole cards of ``me``), drawn
    with ``u`` in [0, 1) from the strategy as played (uniform for a hand the subgame
    lacks)."""
    hole = tuple(sorted(state.hole_cards[me]))
    index = {tuple(h): i for i, h in enumerate(sol.sub.hands.tolist())}.get(hole)
    m = len(node_actions(sol, node))
    probs = played_rows(sol, node, [index], purify)[0] if index is not None else np.full(m, 1.0 / m)
    return as_played(node_actions(sol, node)[pick(probs, u)], state)


def answer_at(sol: Solution, node: int, state: BettingState, seat: int, purify: bool) -> ActionProbabilities:
    """What the agent plays at ``node`` with every hand (the game's hands; 0 for those
    the subgame lacks), with each action's value for each hand."""
    actions = node_actions(sol, node)
    m = len(actions)
    probs = np.zeros((len(HANDS), m))
    probs[sol.sub.hand_index] = played_rows(sol, node, slice(None), purify)
    cfv, reaches = sol.values(seat)
    values = np.zeros((len(HANDS), m))
    values[sol.sub.hand_index] = cfr.action_values(sol.sub, cfv, reaches, seat, node).T
    shown = [CALL if a.type is ActionType.FOLD and not state.can_fold() else a for a in actions]
    return merge_columns(shown, probs, values)
