"""What one strategy wins against another below a public state, in expectation over
every pair of private hands: the measure of the Libratus supplement's Table S1, rooted
at the turn, the flop or the deal.

``subgame_value(root, reach, players, seat)`` walks the public tree below ``root``
(a state without hole cards) that the two players' strategies reach with positive
probability: at each decision it asks the player to act for its strategy with every
hand (``Decider``), at each chance node it deals every set of cards the round is
missing (or the sets ``public_cards`` draws), and at each terminal it adds what
``seat`` wins over every pair of hands that share no card, weighted by both players'
reach. The result is ``seat``'s expected net chips for the whole hand (the chips both
put in before the root included: the same for every strategy ``seat`` may play from
the root), given that the hand reached ``root`` with the hands distributed as
``reach`` says (row p: player p's probability of having played to the root with each
hand; the deal's card removal is applied here, so rows need not zero the hands the
board blocks). Rooted at the deal, ``reach`` is all ones: every pair of hands as dealt.

Drawn cards: ``public_cards(state)`` returns a uniform draw without replacement of the
sets of k cards the next round deals (k = 3 for the flop, dealt at once, 1 for the turn
and the river; a hand all in before the river is dealt round by round) from the N
cards left; each set is weighted C(N, k) / (drawn x C(N - 4,
k)) (four cards held by the two hands), so the value is unbiased for each hand pair
whatever the draw. None: every set, the exact value.

The walk carries a context per player from its decisions to its later ones: a
strategy with a hand state (the agent's solution in force and gifts) answers each
decision from the state its previous decision on the line left (``AdvancedDecider``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numba as nb
import numpy as np

from pokerbot.bot.players.strategy_query import HANDS, blueprint_answer, query
from pokerbot.protocol.betting import Action, BettingState
from pokerbot.solver.evaluator import hand_keys, strengths_on_board

#: a decision's actions, their probabilities per hand, the decider's context after it
Decision = tuple[Sequence[Action], np.ndarray, object]
#: the sets of public cards a chance node deals (each the cards its round is missing)
CardDraw = Callable[[BettingState], Sequence[Sequence[int]]]


class Decider(Protocol):
    """How one player answers in a walk: ``start()`` its context at the root;
    ``decide(state, seat, context)`` its actions, their probabilities for every hand
    (rows: the walk's hands; columns: the actions) and its context after the decision."""

    def start(self) -> object: ...

    def decide(self, state: BettingState, seat: int, context: object) -> Decision: ...


class QueriedDecider:
    """A strategy asked through the strategy API at every decision (``query``): one
    without a hand state, or whose answers do not depend on the line's earlier questions."""

    def __init__(self, strategy: object) -> None:
        self.strategy = strategy

    def start(self) -> object:
        return None

    def decide(self, state: BettingState, seat: int, context: object) -> Decision:
        answer = query(self.strategy, state, seat)
        if answer.raise_range is not None:
            raise ValueError("a strategy that raises by a range of sizes has no finite tree to walk")
        return answer.actions, answer.probabilities, None


class AdvancedDecider:
    """A strategy with a hand state (``hand_state`` / ``set_hand_state`` / ``advance``,
    as ``LibratusAgent``): each decision answered from the hand state its previous
    decision on the line left, as it plays the line."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.fresh = agent.hand_state()

    def start(self) -> object:
        return self.fresh

    def decide(self, state: BettingState, seat: int, context: object) -> Decision:
        self.agent.set_hand_state(context)
        answer = self.agent.advance(state.copy(), seat)
        return answer.actions, answer.probabilities, self.agent.hand_state()


class BlueprintDecider:
    """A blueprint player (``BlueprintStrategy``) asked as ``QueriedDecider`` would, its
    walk of the line down its tree (translations included) carried from decision to
    decision in the context instead of walked again from the root at each question:
    the same answers, in time that does not grow with the line."""

    def __init__(self, strategy) -> None:
        self.play = strategy.play

    def start(self) -> object:
        return self.play.snapshot()

    def decide(self, state: BettingState, seat: int, context: object) -> Decision:
        assert isinstance(context, tuple)  # a snapshot, from start() or an earlier decision
        walk, rng_state = context
        self.play.restore((walk.copy(), rng_state))  # the context stays as it was for the other lines
        answer = blueprint_answer(self.play, state.copy(), seat, keep_walk=True)
        return answer.actions, answer.probabilities, self.play.snapshot()


def decider_for(strategy: object) -> Decider:
    """The decider that walks ``strategy`` as it plays: advanced when it has a hand
    state, incremental for a blueprint player."""
    from pokerbot.bot.players.blueprint_player import BlueprintStrategy

    if all(hasattr(strategy, name) for name in ("hand_state", "set_hand_state", "advance")):
        return AdvancedDecider(strategy)
    if type(strategy) is BlueprintStrategy:
        return BlueprintDecider(strategy)
    return QueriedDecider(strategy)


@dataclass(frozen=True)
class SubgameValue:
    """``value``: the seat's expected net chips (see the module doc); ``joint_weight``:
    the sum over compatible hand pairs of both root reaches (what ``value`` is
    normalised by); ``decisions`` / ``terminals``: public nodes walked."""

    value: float
    joint_weight: float
    decisions: int
    terminals: int


def cards_to_deal(state: BettingState) -> int:
    """How many board cards the chance node at ``state`` deals: those of the next round
    that has more than the board holds (a hand all in on the flop is dealt the turn,
    then the river)."""
    dealt = len(state.board_cards)
    game = state.game
    return next(game.total_board_cards(r) - dealt for r in range(game.num_rounds) if game.total_board_cards(r) > dealt)


def card_matrix(hands: np.ndarray) -> np.ndarray:
    """(H, 52) 1.0 where a hand holds a card."""
    out = np.zeros((hands.shape[0], 52))
    for j in range(hands.shape[1]):
        out[np.arange(hands.shape[0]), hands[:, j]] = 1.0
    return out


def compatible_sums(cards: np.ndarray, hands: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """Per hand h, the sum of ``reach`` over the hands that share no card with h (two
    cards a hand: all, less those holding either of h's cards, plus h itself, taken off twice)."""
    per_card = reach @ cards
    return reach.sum() - per_card[hands[:, 0]] - per_card[hands[:, 1]] + reach


def blocked_by(hands: np.ndarray, cards: Sequence[int]) -> np.ndarray:
    """Per hand, whether it holds one of ``cards``."""
    held = np.isin(hands, np.asarray(list(cards), dtype=np.int64))
    return np.asarray(held.any(axis=1), dtype=bool)


class Showdown:
    """One final board's showdown: per hand h, the sum over the hands sharing no card
    with h of reach x sign(h's strength - theirs), in O(H) (hands sorted by strength,
    running totals per card: ``showdown_sums``)."""

    def __init__(self, board: Sequence[int], hands: np.ndarray, keys: tuple, cards: np.ndarray) -> None:
        strengths = strengths_on_board(list(board), *keys)
        self.order = np.argsort(strengths, kind="stable")
        ranked = strengths[self.order]
        #: per position in strength order, where its tie group ends
        self.group_end = np.searchsorted(ranked, ranked, side="right").astype(np.int64)
        self.first = np.ascontiguousarray(hands[self.order, 0], dtype=np.int64)
        self.second = np.ascontiguousarray(hands[self.order, 1], dtype=np.int64)

    def sums(self, reach: np.ndarray) -> np.ndarray:
        out = np.empty(len(self.order))
        showdown_sums(self.order, self.group_end, self.first, self.second, np.asarray(reach, dtype=np.float64), out)
        return out


@nb.njit(cache=True)
def showdown_sums(order, group_end, first, second, reach, out):
    """out[order[t]] = the reach of the hands weaker than the t-th (in strength order,
    ``group_end[t]`` the end of its tie group) that share no card with it, less that of
    the stronger ones: one pass up and one down, each with the running total and the
    running total per card (a hand sharing both cards with h is h itself, never weaker
    or stronger)."""
    n = order.shape[0]
    card = np.zeros(52)
    total = 0.0
    t = 0
    while t < n:  # up: the weaker hands, a tie group at a time
        end = group_end[t]
        for u in range(t, end):
            out[order[u]] = total - card[first[u]] - card[second[u]]
        for u in range(t, end):
            x = reach[order[u]]
            total += x
            card[first[u]] += x
            card[second[u]] += x
        t = end
    card[:] = 0.0
    total = 0.0
    t = n
    while t > 0:  # down: the stronger hands
        start = t - 1
        while start > 0 and group_end[start - 1] == t:
            start -= 1
        for u in range(start, t):
            out[order[u]] -= total - card[first[u]] - card[second[u]]
        for u in range(start, t):
            x = reach[order[u]]
            total += x
            card[first[u]] += x
            card[second[u]] += x
        t = start


class SubgameWalk:
    """One walk (see ``subgame_value``); its showdown matrix is kept for one board at a time."""

    def __init__(
        self,
        root: BettingState,
        hands: np.ndarray,
        players: Sequence[Decider],
        seat: int,
        public_cards: CardDraw | None,
        tally: Callable[[BettingState, np.ndarray], None] | None = None,
    ) -> None:
        self.game = root.game
        #: told each terminal and, per hand of ``seat``, its share of the sum there
        #: (weighted by the river cards' weights on the way): the walk's value split
        self.tally = tally
        self.weight = 1.0  # the product of the chance weights above the node walked
        self.hands = np.asarray(hands, dtype=np.int64)
        if self.hands.shape[1] != 2:
            raise ValueError("subgame values are for games with two hole cards")
        self.players = players
        self.seat = seat
        self.public_cards = public_cards
        self.cards = card_matrix(self.hands)
        self.keys = hand_keys(self.hands)
        self.showdown: Showdown | None = None
        self.showdown_board: tuple[int, ...] | None = None
        self.decisions = 0
        self.terminals = 0

    def compatible(self, reach: np.ndarray) -> float:
        """Sum over hand pairs sharing no card of seat's reach x the other's."""
        return float(reach[self.seat] @ compatible_sums(self.cards, self.hands, reach[1 - self.seat]))

    def value(self, state: BettingState, reach: np.ndarray, contexts: list) -> float:
        """The sum over hand pairs and everything below ``state`` of reach x payoff."""
        need = self.game.total_board_cards(state.round)
        if len(state.board_cards) < need and not (state.folded[0] or state.folded[1]):
            return self.chance(state, reach, contexts)
        if state.finished:
            self.terminals += 1
            return self.terminal(state, reach)
        self.decisions += 1
        p = state.current_player
        assert p is not None  # an open hand has a player to act
        actions, probabilities, after = self.players[p].decide(state, p, contexts[p])
        total = 0.0
        for j, action in enumerate(actions):
            child_reach = reach.copy()
            child_reach[p] = reach[p] * probabilities[:, j]
            if not child_reach[p].any():
                continue  # no hand of the player takes it: nothing below counts
            child = state.copy()
            child.apply(action)
            child_contexts = list(contexts)
            child_contexts[p] = after
            total += self.value(child, child_reach, child_contexts)
        return total

    def chance(self, state: BettingState, reach: np.ndarray, contexts: list) -> float:
        known = set(state.board_cards)
        left = [c for c in self.game.deck() if c not in known]
        k = cards_to_deal(state)
        if self.public_cards is None:
            drawn = [tuple(cards) for cards in itertools.combinations(left, k)]
        else:
            drawn = [tuple(cards) for cards in self.public_cards(state)]
        dealt = [c for cards in drawn for c in cards]
        shown = f"{drawn[:4]}{' ...' if len(drawn) > 4 else ''}"
        if not drawn or any(len(cards) != k or len(set(cards)) != k for cards in drawn):
            raise ValueError(f"drawn cards {shown} are not sets of the {k} cards the next round deals")
        if any(c in known or c not in self.game.deck() for c in dealt) or len(set(drawn)) != len(drawn):
            raise ValueError(f"drawn cards {shown} are not distinct sets of cards left in the deck")
        held = 2 * self.game.num_hole_cards
        weight = math.comb(len(left), k) / (len(drawn) * math.comb(len(left) - held, k))
        total = 0.0
        above = self.weight
        self.weight = above * weight
        for cards in drawn:
            child = state.copy()
            child.deal_board_cards(list(cards))
            child_reach = np.where(blocked_by(self.hands, cards)[None, :], 0.0, reach)
            total += weight * self.value(child, child_reach, contexts)
        self.weight = above
        return total

    def terminal(self, state: BettingState, reach: np.ndarray) -> float:
        me, other = self.seat, 1 - self.seat
        if state.folded[me] or state.folded[other]:
            chips = -state.spent[me] if state.folded[me] else state.spent[other]
            if self.tally is not None:
                pairs = compatible_sums(self.cards, self.hands, reach[other])
                self.tally(state, self.weight * chips * reach[me] * pairs)
            return chips * self.compatible(reach)
        board = tuple(state.board_cards)
        if board != self.showdown_board:
            self.showdown = Showdown(board, self.hands, self.keys, self.cards)
            self.showdown_board = board
        assert self.showdown is not None
        sums = self.showdown.sums(reach[other])
        if self.tally is not None:
            self.tally(state, self.weight * min(state.spent) * reach[me] * sums)
        return min(state.spent) * float(reach[me] @ sums)


def subgame_value(
    root: BettingState,
    reach: np.ndarray,
    players: Sequence[Decider],
    seat: int,
    hands: np.ndarray | None = None,
    public_cards: CardDraw | None = None,
    tally: Callable[[BettingState, np.ndarray], None] | None = None,
) -> SubgameValue:
    """What ``seat`` wins below ``root`` with ``players`` (by seat) playing, in
    expectation over hand pairs weighted by ``reach`` (2, H) (see the module doc);
    ``hands``: the rows of ``reach`` and of the deciders' answers (default: hold'em's
    ``HANDS``); ``public_cards``: the card sets each chance node deals (default
    all). ``tally(terminal state, per-hand sums)`` is told each terminal's share
    of the value by ``seat``'s hand, before the division by ``joint_weight``: the
    shares of every terminal add up to ``value`` times it."""
    if root.finished:
        raise ValueError("the subgame's root is a finished hand")
    hands = HANDS if hands is None else hands
    reach = np.asarray(reach, dtype=np.float64)
    if reach.shape != (2, hands.shape[0]):
        raise ValueError(f"reach must be (2, {hands.shape[0]}), got {reach.shape}")
    if (reach < 0).any():
        raise ValueError("reach probabilities must not be negative")
    walk = SubgameWalk(root, hands, players, seat, public_cards, tally)
    live = np.where(blocked_by(walk.hands, root.board_cards)[None, :], 0.0, reach)
    joint = walk.compatible(live)
    if joint <= 0:
        raise ValueError("no pair of hands reaches the subgame's root")
    total = walk.value(root.copy(), live, [p.start() for p in players])
    return SubgameValue(total / joint, joint, walk.decisions, walk.terminals)
