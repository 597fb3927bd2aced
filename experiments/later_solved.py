"""Exploitability of a strategy whose later rounds are solved anew when they come (issue 33).

The agent that searches from the flop does not play the turn and the river its flop
solve committed to: it solves the turn again when the turn card comes (depth-limited,
from the ranges the flop strategy reaches it with, unsafe at the round's first
decision) and the river again after that. Scoring its flop strategy with the later
rounds it committed to (``flop_spots.py``) mostly scores the blueprint's turn and
river. Here the score is split by round instead:

- below each flop leaf and each turn card, the turn is played the way ``later`` says
  (``AgentLater``: the agent's depth-limited turn solve), and below each of its leaves
  and each river card the river likewise;
- each player's best response is computed round by round: in a river subgame exactly
  (``cfr.counterfactual_values``), in the turn and flop trees over their own betting
  with the leaves valued by the mean over the cards dealt of the next round's values
  (``cfr.best_response_with_leaf_values``).

With every turn and river card that is the exact exploitability of the strategy the
agent plays (checked against the full-depth tree, ``tests/experiments``). The turn and
river cards can be sampled (a keyed sample, the same for every strategy measured, so
that two flop strategies are compared on the same cards): a hand's value at a leaf is
then estimated from the sampled cards it does not hold (``card_mean``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from pokerbot.blueprint_store.continuations import attach_blueprint_continuations, leaf_lines
from pokerbot.blueprint_store.real_play import BlueprintPlay
from pokerbot.bot.agent.solving import average_exponent
from pokerbot.protocol.betting import BettingState
from pokerbot.solver import cfr
from pokerbot.solver import ranges as rg
from pokerbot.solver.subgame import Subgame, make_subgame
from pokerbot.solver.tree import DECISION, BetSizes

#: The cards a next round is measured on below a state: (state) -> cards.
CardChoice = Callable[[BettingState], list[int]]


class LaterRounds(Protocol):
    """How the turn and the river are played when they come."""

    def turn(self, state: BettingState, reach: np.ndarray) -> tuple[Subgame, np.ndarray]:
        """The turn's tree from ``state`` (depth-limited: LEAF nodes where the river
        starts with chips behind; all-ins run out) and the strategy on it; ``reach``
        (2, all hands) both players' ranges at ``state``."""
        ...

    def river(self, state: BettingState, reach: np.ndarray) -> tuple[Subgame, np.ndarray]:
        """The river's tree from ``state`` and the strategy on it."""
        ...


def _no_decisions(sub: Subgame) -> bool:
    return not bool((sub.tree.kind == DECISION).any())


@dataclass
class AgentLater:
    """The agent's later rounds: the turn solved depth-limited with the blueprint's
    continuations at the river (one river card a pass, ``turn_iterations`` CFR+
    iterations), then each river solved to the end (``river_iterations``), both unsafe
    from the ranges the strategy before reaches them with, the agent's subgame sizes
    without the per-hand scale, and its averaging (``solving.average_exponent``)."""

    walker: BlueprintPlay
    turn_sizes: BetSizes
    river_sizes: BetSizes
    turn_iterations: int
    river_iterations: int
    threads: int = 1
    seed: int = 0
    turn_average_exponent: float = average_exponent(2, True)

    def turn(self, state: BettingState, reach: np.ndarray) -> tuple[Subgame, np.ndarray]:
        sub = make_subgame(state, {2: self.turn_sizes}, reach, leaf_round=3)
        if _no_decisions(sub):
            return sub, np.zeros((sub.tree.num_nodes, sub.hands.shape[0]))
        if sub.tree.num_leaves > 0:
            node, _ = self.walker.walk(state)
            attach_blueprint_continuations(sub, state, self.walker.view, node)
        r = cfr.solve(
            sub,
            self.turn_iterations,
            card_samples=1,
            seed=self.seed,
            threads=self.threads,
            average_exponent=self.turn_average_exponent,
        )
        return sub, r.strategy

    def river(self, state: BettingState, reach: np.ndarray) -> tuple[Subgame, np.ndarray]:
        sub = make_subgame(state, self.river_sizes, reach)
        if _no_decisions(sub):
            return sub, np.zeros((sub.tree.num_nodes, sub.hands.shape[0]))
        return sub, cfr.solve(sub, self.river_iterations, average_exponent=average_exponent(3, False)).strategy


def leaf_states(sub: Subgame, root: BettingState) -> dict[int, BettingState]:
    """The betting state at each LEAF of ``sub`` (from ``root``), before the next card."""
    out = {}
    for leaf, line in leaf_lines(sub.tree).items():
        st = root.copy()
        for a in line:
            st.apply(a)
        out[leaf] = st
    return out


def card_mean(hand_index: np.ndarray, per_card: list[tuple[np.ndarray, np.ndarray]], cards_left: int) -> np.ndarray:
    """Per hand of ``hand_index`` (canonical hand numbers), its counterfactual value
    before a card is dealt, from the subgames of ``per_card`` ((their hand numbers,
    values)) after some of the ``cards_left`` cards: a subgame after a card leaves out
    the hands holding it, as chance does. Chance deals a card off both hands, one of
    ``cards_left - 4``, so the value is sum over cards / (cards_left - 4), that is the
    mean over the cards the hand does not hold times (cards_left - 2) / (cards_left - 4);
    over a sample of the cards, that mean over the sampled ones (an estimate)."""
    column = np.full(int(hand_index.max()) + 1, -1)
    column[hand_index] = np.arange(len(hand_index))
    total = np.zeros(len(hand_index))
    count = np.zeros(len(hand_index))
    for hands, values in per_card:
        cols = column[hands]
        if (cols < 0).any():
            raise ValueError("a later subgame holds a hand the tree above does not")
        total[cols] += values
        count[cols] += 1
    mean = np.divide(total, count, out=np.zeros_like(total), where=count > 0)
    return mean * (cards_left - 2) / (cards_left - 4)


def leaf_values(
    sub: Subgame,
    strategy: np.ndarray,
    root: BettingState,
    next_round: Callable[[BettingState, np.ndarray], tuple[np.ndarray, np.ndarray]],
    cards: CardChoice,
) -> list[dict[int, np.ndarray]]:
    """Per player, each LEAF's best-response counterfactual values (hand order of
    the depth-limited ``sub``) when ``strategy`` is played above it and the next round
    after each card of ``cards(leaf state)`` is scored by ``next_round(state, reach)
    -> (hand numbers, (2, hands) values)``."""
    reaches = cfr.node_reaches(sub, strategy)
    out: list[dict[int, np.ndarray]] = [{}, {}]
    all_hands = len(rg.hole_hands(root.game))
    for leaf, st in leaf_states(sub, root).items():
        reach = np.zeros((2, all_hands))
        reach[:, sub.hand_index] = reaches[:, leaf]
        per_card: list[list[tuple[np.ndarray, np.ndarray]]] = [[], []]
        cards_left = len(st.game.deck()) - len(st.board_cards)
        for card in cards(st):
            nxt = st.copy()
            nxt.deal_board_cards([card])
            hands, values = next_round(nxt, reach)
            for p in (0, 1):
                per_card[p].append((hands, values[p]))
        for p in (0, 1):
            out[p][leaf] = card_mean(sub.hand_index, per_card[p], cards_left)
    return out


def split_response(
    sub: Subgame,
    strategy: np.ndarray,
    root: BettingState,
    next_round: Callable[[BettingState, np.ndarray], tuple[np.ndarray, np.ndarray]],
    cards: CardChoice,
) -> tuple[np.ndarray, np.ndarray]:
    """Both players' best-response counterfactual values at the root of the
    depth-limited ``sub`` (hand order of ``sub``), its leaves scored as in
    ``leaf_values``."""
    if sub.tree.num_leaves == 0:
        return tuple(cfr.counterfactual_values(sub, strategy, p, True) for p in (0, 1))  # type: ignore[return-value]
    values = leaf_values(sub, strategy, root, next_round, cards)
    return tuple(  # type: ignore[return-value]
        cfr.best_response_with_leaf_values(sub, strategy, p, values[p])[0] for p in (0, 1)
    )


def all_in_values(state: BettingState, reach: np.ndarray, river_cards: CardChoice) -> tuple[np.ndarray, np.ndarray]:
    """Both players' values at a turn state where no one can bet (both all-in): the
    showdown after each river card of ``river_cards``, per hand the turn deals."""
    all_hands = rg.hole_hands(state.game)
    turn_live = np.nonzero(~rg.blocked_by(all_hands, state.board_cards))[0]
    per_card: list[list[tuple[np.ndarray, np.ndarray]]] = [[], []]
    for card in river_cards(state):
        board = [*state.board_cards, card]
        live = np.nonzero(~rg.blocked_by(all_hands, board))[0]
        hands = all_hands[live]
        strength = rg.strengths_on_board(hands, board)
        share = (hands[:, None, :, None] == hands[None, :, None, :]).any(axis=(2, 3))
        sign = np.sign(strength[:, None] - strength[None, :]) * ~share
        for p in (0, 1):
            win, lose = state.spent[1 - p], state.spent[p]
            payoff = np.where(sign > 0, win, np.where(sign < 0, -lose, 0))
            per_card[p].append((live, payoff @ reach[1 - p, live]))
    cards_left = len(state.game.deck()) - len(state.board_cards)
    return turn_live, np.stack([card_mean(turn_live, per_card[p], cards_left) for p in (0, 1)])


def river_values(later: LaterRounds, state: BettingState, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both players' best-response values at a river state, per hand it deals."""
    sub, s = later.river(state, reach)
    return sub.hand_index, np.stack([cfr.counterfactual_values(sub, s, p, True) for p in (0, 1)])


def turn_values(
    later: LaterRounds, state: BettingState, reach: np.ndarray, river_cards: CardChoice
) -> tuple[np.ndarray, np.ndarray]:
    """Both players' best-response values at a turn state (the turn as ``later`` plays
    it, each river after ``river_cards`` solved by ``later``), per hand it deals."""
    if state.finished:  # all-in before the turn: the showdown after each river card
        return all_in_values(state, reach, river_cards)
    sub, s = later.turn(state, reach)
    values = split_response(sub, s, state, lambda st, r: river_values(later, st, r), river_cards)
    return sub.hand_index, np.stack(values)


def exploitability(sub: Subgame, values: tuple[np.ndarray, np.ndarray]) -> float:
    """Chips per hand from both players' best-response values at ``sub``'s root (as
    ``cfr.exploitability``)."""
    return (float(sub.reach[0] @ values[0]) + float(sub.reach[1] @ values[1])) / 2.0 / cfr.joint_weight(sub)


@dataclass
class FlopScore:
    """Exploitability (chips per hand) of a flop strategy followed by later rounds
    solved anew: ``total``, best responses over the whole rest of the hand, and
    ``later``, best responses that play the strategy's own flop and respond from the
    turn on (what the later rounds alone give away; ``total - later`` is what a best
    response gains on the flop)."""

    total: float
    later: float


def flop_exploitability(
    sub: Subgame,
    strategy: np.ndarray,
    root: BettingState,
    later: LaterRounds,
    turn_cards: CardChoice,
    river_cards: CardChoice,
) -> FlopScore:
    """Exploitability of ``strategy`` on the depth-limited flop tree ``sub`` followed
    by the turn and river as ``later`` plays them, on the cards chosen."""
    values = leaf_values(sub, strategy, root, lambda st, r: turn_values(later, st, r, river_cards), turn_cards)
    total, after = (
        tuple(cfr.best_response_with_leaf_values(sub, strategy, p, values[p], follow=follow)[0] for p in (0, 1))
        for follow in (False, True)
    )
    return FlopScore(exploitability(sub, total), exploitability(sub, after))  # type: ignore[arg-type]


def keyed_cards(count: int, key: int) -> CardChoice:
    """``count`` cards off a state's board from a shuffle keyed by ``key`` and the board
    (0: every card): the same cards for every strategy measured on that board."""

    def choose(state: BettingState) -> list[int]:
        left = [c for c in state.game.deck() if c not in state.board_cards]
        if count <= 0 or count >= len(left):
            return left
        board_key = sum(c << (6 * i) for i, c in enumerate(sorted(state.board_cards)))
        rng = np.random.default_rng([key, board_key])
        return sorted(int(c) for c in rng.choice(left, size=count, replace=False))

    return choose
