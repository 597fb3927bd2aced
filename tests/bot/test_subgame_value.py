"""The exact value of a subgame between two strategies (``bot/evaluation/subgame_value``)
against a brute-force enumeration of every deal, card and line in a 20-card hold'em
(rooted at the turn) and a 9-card three-round hold'em (rooted at the deal: the flop
and the river dealt as sets of cards), and against the solver's own expected values on
a hold'em turn subgame."""

import itertools
import zlib

import numpy as np
import pytest
from conftest import decision_states

from pokerbot.bot.evaluation import subgame_value as sv
from pokerbot.bot.players.strategy_query import HANDS
from pokerbot.protocol.betting import CALL, FOLD, BettingState, apply_betting, raise_to
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game, parse_gamedef
from pokerbot.solver import cfr
from pokerbot.solver import ranges as rg
from pokerbot.solver.subgame import make_subgame
from pokerbot.solver.tree import BetSizes

SMALL = parse_gamedef(
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 3000 3000\nblind = 100 50\n"
    "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 5\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n"
)
SMALL_HANDS = rg.hole_hands(SMALL)


def small_actions(state):
    """Fold (where it is not free), call, and a pot-sized raise while the round has
    had fewer than two."""
    out = [FOLD] if state.amount_to_call() > 0 else []
    out.append(CALL)
    bounds = state.raise_bounds()
    if bounds is not None and state.num_raises() < 2:
        lo, hi = bounds
        out.append(raise_to(min(max(lo, state.max_spent + state.pot), hi)))
    return out


class KeyedDecider:
    """Random action probabilities per hand, keyed by the player's name, the board and
    the betting: a fixed strategy that any walk can ask."""

    def __init__(self, name, hands, actions=small_actions):
        self.name, self.hands, self.actions = name, hands, actions

    def start(self):
        return None

    def rows(self, state):
        actions = self.actions(state)
        key = zlib.crc32(repr((self.name, state.board_cards, state.betting_string())).encode())
        p = np.random.default_rng(key).random((self.hands.shape[0], len(actions))) ** 2
        return actions, p / p.sum(axis=1, keepdims=True)

    def decide(self, state, seat, context):
        actions, p = self.rows(state)
        return actions, p, context


def turn_root():
    deck = sorted(SMALL.deck())
    return apply_betting(BettingState(SMALL, 0, None, [deck[0], deck[5], deck[10], deck[15]]), "r200c/cc/")


def sparse_reach(seed, live=7):
    """Each player with ``live`` hands of positive reach (the rest 0)."""
    rng = np.random.default_rng(seed)
    reach = np.zeros((2, SMALL_HANDS.shape[0]))
    for p in (0, 1):
        reach[p, rng.choice(SMALL_HANDS.shape[0], live, replace=False)] = rng.random(live) + 0.1
    return reach


def brute_force(root, reach, players, seat):
    """Every pair of hands, every river card, every line, one at a time, scored by the
    rules' own payoffs (``BettingState.payoffs``)."""
    index = {tuple(h): i for i, h in enumerate(SMALL_HANDS.tolist())}

    def play(state):
        if state.finished and (state.folded[0] or state.folded[1] or len(state.board_cards) == 5):
            return state.payoffs()[seat]
        if len(state.board_cards) < SMALL.total_board_cards(state.round):
            used = set(state.board_cards) | set(state.hole_cards[0]) | set(state.hole_cards[1])
            left = [c for c in SMALL.deck() if c not in used]
            out = 0.0
            for c in left:
                child = state.copy()
                child.deal_board_cards([c])
                out += play(child) / len(left)
            return out
        p = state.current_player
        actions, rows = players[p].rows(state)
        row = rows[index[tuple(sorted(state.hole_cards[p]))]]
        out = 0.0
        for a, q in zip(actions, row):
            child = state.copy()
            child.apply(a)
            out += q * play(child)
        return out

    total = joint = 0.0
    for i, h0 in enumerate(SMALL_HANDS.tolist()):
        for j, h1 in enumerate(SMALL_HANDS.tolist()):
            w = reach[0, i] * reach[1, j]
            if w == 0 or set(h0) & set(h1) or (set(h0) | set(h1)) & set(root.board_cards):
                continue
            st = root.copy()
            st.deal_hole_cards(0, h0)
            st.deal_hole_cards(1, h1)
            total += w * play(st)
            joint += w
    return total / joint


@pytest.fixture(scope="module")
def small_spot():
    root = turn_root()
    players = [KeyedDecider("A", SMALL_HANDS), KeyedDecider("B", SMALL_HANDS)]
    reach = sparse_reach(3)
    return root, players, reach


@pytest.mark.parametrize("seat", [0, 1])
def test_the_walk_equals_brute_force_enumeration(small_spot, seat):
    root, players, reach = small_spot
    exact = brute_force(root, reach, players, seat)
    got = sv.subgame_value(root, reach, players, seat, hands=SMALL_HANDS)
    assert got.value == pytest.approx(exact, abs=1e-9)
    assert abs(exact) > 1.0  # the strategies differ: a value that is not 0 by symmetry
    assert got.terminals > 100  # the walk went through every river card's lines


def test_the_seats_values_sum_to_zero(small_spot):
    root, players, reach = small_spot
    values = [sv.subgame_value(root, reach, players, s, hands=SMALL_HANDS).value for s in (0, 1)]
    assert values[0] + values[1] == pytest.approx(0.0, abs=1e-9)


def test_a_walk_without_card_removal_is_caught(small_spot, monkeypatch):
    """Negative control: weighting hand pairs that share a card (a wrong reach weight)
    misses the enumeration."""
    root, players, reach = small_spot
    exact = brute_force(root, reach, players, 0)
    monkeypatch.setattr(sv, "compatible_sums", lambda cards, hands, reach: np.full(len(reach), reach.sum()))
    got = sv.subgame_value(root, reach, players, 0, hands=SMALL_HANDS)
    assert abs(got.value - exact) > 1e-3


def round_of_draws(k):
    """Draw i of a round: the i-th block of k of the cards left (all of them over the
    round); ``draw.i`` selects which."""

    def draw(state):
        left = [c for c in SMALL.deck() if c not in state.board_cards]
        return [(c,) for c in left[draw.i * k : (draw.i + 1) * k]]

    draw.i = 0
    return draw


def test_drawn_river_cards_are_unbiased(small_spot, monkeypatch):
    """Over a round of draws that deals each card once, the drawn values average to the
    exact one; weighting the drawn cards as if no hand held one of them does not."""
    root, players, reach = small_spot
    exact = sv.subgame_value(root, reach, players, 0, hands=SMALL_HANDS).value
    left = len([c for c in SMALL.deck() if c not in root.board_cards])  # 16: 4 draws of 4
    draw = round_of_draws(4)
    values = []
    for i in range(left // 4):
        draw.i = i
        values.append(sv.subgame_value(root, reach, players, 0, hands=SMALL_HANDS, public_cards=draw).value)
    assert np.mean(values) == pytest.approx(exact, abs=1e-9)
    assert np.ptp(values) > 1.0  # each draw alone is not the exact value
    monkeypatch.setattr(sv.SubgameWalk, "chance", wrongly_weighted_chance)
    wrong = []
    for i in range(left // 4):
        draw.i = i
        wrong.append(sv.subgame_value(root, reach, players, 0, hands=SMALL_HANDS, public_cards=draw).value)
    assert abs(np.mean(wrong) - exact) > 1e-3


def wrongly_weighted_chance(self, state, reach, contexts):
    """Each drawn set weighted 1 / drawn, as if no hand held one of its cards."""
    known = set(state.board_cards)
    left = [c for c in self.game.deck() if c not in known]
    k = sv.cards_to_deal(state)
    drawn = list(itertools.combinations(left, k)) if self.public_cards is None else list(self.public_cards(state))
    total = 0.0
    for cards in drawn:
        child = state.copy()
        child.deal_board_cards(list(cards))
        child_reach = np.where(sv.blocked_by(self.hands, cards)[None, :], 0.0, reach)
        total += self.value(child, child_reach, contexts) / len(drawn)
    assert not known & {c for cards in drawn for c in cards}
    return total


#: A three-round hold'em of nine cards: the flop (three cards) and the river (two)
#: are each dealt at once, so a walk from the deal meets chance nodes of sets.
TINY = parse_gamedef(
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 3\nstack = 3000 3000\nblind = 100 50\n"
    "firstPlayer = 2 1 1\nnumSuits = 3\nnumRanks = 3\nnumHoleCards = 2\nnumBoardCards = 0 3 2\nEND GAMEDEF\n"
)
TINY_HANDS = rg.hole_hands(TINY)


def tiny_actions(state):
    """Fold (where it is not free), call, and one pot-sized raise a round on the preflop
    and the flop."""
    out = [FOLD] if state.amount_to_call() > 0 else [CALL]
    out += [CALL] if out == [FOLD] else []
    bounds = state.raise_bounds()
    if bounds is not None and state.num_raises() < 1 and state.round < 2:
        lo, hi = bounds
        out.append(raise_to(min(max(lo, state.max_spent + state.pot), hi)))
    return out


class SetDecider(KeyedDecider):
    """``KeyedDecider`` keyed by each round's board cards as a set: the strategy at a
    flop does not depend on the order its cards were dealt in."""

    def rows(self, state):
        actions = self.actions(state)
        b = state.board_cards
        key = zlib.crc32(repr((self.name, sorted(b[:3]), sorted(b[3:]), state.betting_string())).encode())
        p = np.random.default_rng(key).random((self.hands.shape[0], len(actions))) ** 2
        return actions, p / p.sum(axis=1, keepdims=True)


def brute_force_deal(reach, players, seat):
    """Every pair of hands, every card dealt one at a time, every line: ``brute_force``
    on ``TINY`` from the deal."""
    root = BettingState(TINY, 0, None, [])
    index = {tuple(h): i for i, h in enumerate(TINY_HANDS.tolist())}

    def play(state):
        if state.finished and (state.folded[0] or state.folded[1] or len(state.board_cards) == 5):
            return state.payoffs()[seat]
        if len(state.board_cards) < TINY.total_board_cards(state.round):
            used = set(state.board_cards) | set(state.hole_cards[0]) | set(state.hole_cards[1])
            left = [c for c in TINY.deck() if c not in used]
            out = 0.0
            for c in left:
                child = state.copy()
                child.deal_board_cards([c])
                out += play(child) / len(left)
            return out
        p = state.current_player
        actions, rows = players[p].rows(state)
        out = 0.0
        for a, q in zip(actions, rows[index[tuple(sorted(state.hole_cards[p]))]]):
            child = state.copy()
            child.apply(a)
            out += q * play(child)
        return out

    total = joint = 0.0
    for i, h0 in enumerate(TINY_HANDS.tolist()):
        for j, h1 in enumerate(TINY_HANDS.tolist()):
            w = reach[0, i] * reach[1, j]
            if w == 0 or set(h0) & set(h1):
                continue
            st = root.copy()
            st.deal_hole_cards(0, h0)
            st.deal_hole_cards(1, h1)
            total += w * play(st)
            joint += w
    return total / joint


@pytest.fixture(scope="module")
def deal_spot():
    players = [SetDecider("A", TINY_HANDS, tiny_actions), SetDecider("B", TINY_HANDS, tiny_actions)]
    rng = np.random.default_rng(5)
    reach = np.zeros((2, TINY_HANDS.shape[0]))
    for p in (0, 1):
        reach[p, rng.choice(TINY_HANDS.shape[0], 5, replace=False)] = rng.random(5) + 0.1
    return BettingState(TINY, 0, None, []), players, reach


def test_a_walk_from_the_deal_equals_brute_force_enumeration(deal_spot):
    """Rooted at the deal, the flop and the river dealt as sets (weighted by the sets a
    hand pair leaves) equal dealing every card one at a time, to 1e-9."""
    root, players, reach = deal_spot
    exact = brute_force_deal(reach, players, 0)
    got = sv.subgame_value(root, reach, players, 0, hands=TINY_HANDS)
    assert got.value == pytest.approx(exact, abs=1e-9)
    assert abs(exact) > 1.0 and got.terminals > 1000


def test_drawn_flops_are_unbiased_and_a_wrong_weight_is_caught(deal_spot, monkeypatch):
    """Over a round of draws that deals each flop once (the river: every set), the drawn
    values average to the exact one; weighting each drawn set as if no hand held one of
    its cards does not (negative control)."""
    root, players, reach = deal_spot
    exact = sv.subgame_value(root, reach, players, 0, hands=TINY_HANDS).value
    flops = list(itertools.combinations(TINY.deck(), 3))  # 84: 7 draws of 12
    block = [0]

    def draw(state):
        left = [c for c in TINY.deck() if c not in state.board_cards]
        if len(state.board_cards) == 0:
            return flops[block[0] * 12 : (block[0] + 1) * 12]
        return list(itertools.combinations(left, 2))

    def draws():
        values = []
        for i in range(len(flops) // 12):
            block[0] = i
            values.append(sv.subgame_value(root, reach, players, 0, hands=TINY_HANDS, public_cards=draw).value)
        return values

    values = draws()
    assert np.mean(values) == pytest.approx(exact, abs=1e-9)
    assert np.ptp(values) > 1.0  # each draw alone is not the exact value
    monkeypatch.setattr(sv.SubgameWalk, "chance", wrongly_weighted_chance)
    assert abs(np.mean(draws()) - exact) > 1e-3


def test_drawn_cards_must_be_the_rounds_missing_cards(deal_spot):
    root, players, reach = deal_spot
    for bad in ([(41,)], [(41, 45, 41)], [(41, 45, 49), (49, 45, 41)]):
        with pytest.raises(ValueError, match="drawn cards"):
            sv.subgame_value(root, reach, players, 0, hands=TINY_HANDS, public_cards=lambda state, b=bad: b)


def test_bad_roots_and_reaches_are_refused(small_spot):
    root, players, reach = small_spot
    with pytest.raises(ValueError, match="reach must be"):
        sv.subgame_value(root, reach[:, :5], players, 0, hands=SMALL_HANDS)
    with pytest.raises(ValueError, match="no pair of hands"):
        sv.subgame_value(root, np.zeros_like(reach), players, 0, hands=SMALL_HANDS)
    done = root.copy()
    done.apply(CALL)
    done.apply(raise_to(1000))
    done.apply(FOLD)
    with pytest.raises(ValueError, match="finished"):
        sv.subgame_value(done, reach, players, 0, hands=SMALL_HANDS)


class TreeDecider:
    """``keyed`` rows at the nodes of a solver tree, asked by state: the same strategy
    the solver evaluates on that tree."""

    def __init__(self, name, sub, root):
        self.keyed = KeyedDecider(name, HANDS, actions=None)
        self.at = {}
        t = sub.tree
        for n, st in decision_states(sub, root):
            f, m = int(t.first_child[n]), int(t.num_children[n])
            self.at[(tuple(st.board_cards), st.betting_string())] = [t.actions[f + j] for j in range(m)]

    def start(self):
        return None

    def rows(self, state):
        actions = self.at[(tuple(state.board_cards), state.betting_string())]
        key = zlib.crc32(repr((self.keyed.name, state.board_cards, state.betting_string())).encode())
        p = np.random.default_rng(key).random((HANDS.shape[0], len(actions))) ** 2
        return actions, p / p.sum(axis=1, keepdims=True)

    def decide(self, state, seat, context):
        actions, p = self.rows(state)
        return actions, p, context


def test_the_walk_equals_the_solvers_expected_values_on_a_holdem_turn():
    game = bundled_game("holdem.nolimit.2p")
    root = apply_betting(BettingState(game, 0, None, parse_cards("QsJh2h8d")), "r300c/cc/")
    reach = np.random.default_rng(2).random((2, len(HANDS)))
    sizes = {2: BetSizes(bets=((1.0,),), max_raises=1), 3: BetSizes(bets=((0.5,), (1.0,)), max_raises=1)}
    sub = make_subgame(root, sizes, reach)
    players = [TreeDecider("A", sub, root), TreeDecider("B", sub, root)]
    strategy = np.zeros((sub.tree.num_nodes, sub.hands.shape[0]))
    t = sub.tree
    for n, st in decision_states(sub, root):  # each player's rows at its own nodes
        f, m = int(t.first_child[n]), int(t.num_children[n])
        _, p = players[int(t.player[n])].rows(st)
        strategy[f : f + m] = p[sub.hand_index].T
    ev = cfr.expected_values(sub, strategy)
    for seat in (0, 1):
        got = sv.subgame_value(root, reach, players, seat)
        assert got.value == pytest.approx(ev[seat], abs=1e-6 * max(1.0, abs(ev[seat])))
    assert abs(ev[0]) > 1.0
