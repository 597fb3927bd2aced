"""What a strategy would do with every hand: the white-box query behind LBR and AIVAT.

``query(strategy, state, seat)`` answers, for a decision of ``seat`` in ``state`` (the
public betting and board; the hole cards in ``state`` are ignored), the probability of
each legal action for every one of the 1,326 hole-card pairs in canonical order
(``HANDS``), zero rows for pairs that share a card with the board. Actions are the
concrete ones the strategy would send: raises carry their raise-to totals.

A query is a pure question: it does not change what the strategy later does in the
real hand (strategies that keep state for the hand snapshot and restore it), and the
same strategy with the same seed gives the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pokerbot.blueprint_store.real_play import BlueprintPlay
from pokerbot.protocol.betting import CALL, Action, ActionType, BettingState
from pokerbot.solver.evaluator import all_hole_pairs

#: The 1,326 hole-card pairs in canonical order: row h of every answer is HANDS[h].
HANDS = all_hole_pairs()


class QueryError(ValueError):
    """A query that cannot be answered (not the seat's turn, a finished hand, a
    strategy that cannot say what it would do with every hand)."""


@dataclass(frozen=True)
class ActionProbabilities:
    """A strategy's answer at one decision.

    ``actions``: the distinct legal actions it may take; ``probabilities[h, i]``: the
    probability that it takes ``actions[i]`` holding ``HANDS[h]`` (rows sum to 1, or
    to 0 for pairs that share a card with the board). ``raise_range``: when set, the
    raise among ``actions`` stands for a raise-to total drawn uniformly from that
    closed range (the random bot), not for its own size alone. ``values[h, i]``: when
    the strategy has them (a solve's counterfactual values), its own estimate of what
    it wins in the whole hand (chips) holding ``HANDS[h]`` after ``actions[i]``; AIVAT
    may use them as a value function.
    """

    actions: tuple[Action, ...]
    probabilities: np.ndarray
    raise_range: tuple[int, int] | None = None
    values: np.ndarray | None = None

    def probability_of(self, action: Action) -> np.ndarray:
        """Per hand, the probability of taking ``action`` exactly (the likelihood a
        Bayes update of the strategy's range needs); zeros for an action it never takes."""
        if self.raise_range is not None and action.type is ActionType.RAISE:
            lo, hi = self.raise_range
            i = next(i for i, a in enumerate(self.actions) if a.type is ActionType.RAISE)
            inside = lo <= action.size <= hi
            return self.probabilities[:, i] / (hi - lo + 1) if inside else np.zeros(len(HANDS))
        if action in self.actions:
            return self.probabilities[:, self.actions.index(action)].copy()
        return np.zeros(len(HANDS))


_HAND_INDEX = {(int(a), int(b)): i for i, (a, b) in enumerate(HANDS.tolist())}


def hand_index(cards: list[int]) -> int:
    """The row of a hole pair in ``HANDS`` (and in every answer)."""
    a, b = sorted(int(c) for c in cards)
    return _HAND_INDEX[(a, b)]


def live_hands(board: list[int]) -> np.ndarray:
    """Per hand, whether it shares no card with ``board``."""
    if not board:
        return np.ones(len(HANDS), dtype=bool)
    blocked = np.zeros(52, dtype=bool)
    blocked[np.asarray(board, dtype=np.int64)] = True
    return ~(blocked[HANDS[:, 0]] | blocked[HANDS[:, 1]])


def same_for_every_hand(state: BettingState, actions: list[Action], weights: list[float]) -> ActionProbabilities:
    """The answer of a strategy that ignores its cards: ``weights`` (renormalised) over
    ``actions`` for every live hand; equal actions merged."""
    total = sum(weights)
    if total <= 0:
        raise QueryError("a strategy's weights must not all be zero")
    row = np.array(weights, dtype=np.float64) / total
    return merge_columns(actions, np.where(live_hands(state.board_cards)[:, None], row[None, :], 0.0))


def merge_columns(
    actions: list[Action], probabilities: np.ndarray, values: np.ndarray | None = None
) -> ActionProbabilities:
    """Columns of equal actions added together (two abstract actions may become the same
    concrete one, e.g. a fold where checking is free and a check); their ``values``
    averaged, weighted by the probabilities (equally where both are 0)."""
    distinct: list[Action] = []
    for a in actions:
        if a not in distinct:
            distinct.append(a)
    out = np.zeros((probabilities.shape[0], len(distinct)))
    for i, a in enumerate(actions):
        out[:, distinct.index(a)] += probabilities[:, i]
    merged = None
    if values is not None:
        merged = np.zeros_like(out)
        for j, a in enumerate(distinct):
            cols = [i for i, b in enumerate(actions) if b == a]
            w = probabilities[:, cols]
            total = w.sum(axis=1, keepdims=True)
            w = np.where(total > 0, w / np.where(total > 0, total, 1.0), 1.0 / len(cols))
            merged[:, j] = (w * values[:, cols]).sum(axis=1)
    return ActionProbabilities(tuple(distinct), out, values=merged)


def blueprint_answer(
    play: BlueprintPlay, state: BettingState, seat: int, keep_walk: bool = False
) -> ActionProbabilities:
    """A blueprint's answer at ``state`` (``BlueprintPlay.every_hand``, ``keep_walk``
    as there); where its tree cannot follow the line, the check or call a blueprint
    player falls back to."""
    answer = play.every_hand(state, seat, keep_walk)
    if answer is None:
        return same_for_every_hand(state, [CALL], [1.0])
    return merge_columns(*answer)


def query(strategy: object, state: BettingState, seat: int) -> ActionProbabilities:
    """What ``strategy`` would do as ``seat`` in ``state`` with every hand (see the
    module doc). Raises QueryError when it is not ``seat``'s turn or the strategy
    cannot be queried."""
    if state.finished:
        raise QueryError("the hand is over: no decision to ask about")
    if state.current_player != seat:
        raise QueryError(f"it is seat {state.current_player}'s turn, not seat {seat}'s")
    ask = getattr(strategy, "action_probabilities", None)
    if ask is None:
        name = getattr(strategy, "name", type(strategy).__name__)
        raise QueryError(f"strategy {name!r} cannot say what it would do with every hand")
    answer: ActionProbabilities = ask(state.copy(), seat)
    return answer
