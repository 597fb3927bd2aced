"""AIVAT's estimator on no-limit Leduc, where every hand and every action can be
enumerated: its expectation equals the exact value of the game (the solver's, for the
two fixed strategies), with the check-down value function, with a deliberately wrong
one and without the opponent's strategy; its variance is below the raw winnings'. A
broken variant (no Bayes update of our hand) is biased: the check can fail."""

from itertools import permutations

import numpy as np
import pytest
from conftest import random_strategy

from pokerbot.bot.evaluation.aivat import Chance, OpponentDecision, OwnDecision, estimate
from pokerbot.protocol.betting import BettingState
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.protocol.hand_rank import hand_strength
from pokerbot.solver import cfr
from pokerbot.solver.subgame import make_subgame
from pokerbot.solver.tree import CHANCE, DECISION, BetSizes

LEDUC = bundled_game("leduc.nolimit.2p")
CARDS = sorted(LEDUC.deck())
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def leduc():
    sub = make_subgame(BettingState(LEDUC), BetSizes(bets=((1.0,),), max_raises=2))
    assert [int(h[0]) for h in sub.hands] == CARDS  # hand i of the subgame is card CARDS[i]
    return sub


class CheckDown:
    """U(x, y, node), the hold'em estimate's value function: with no bet open, the hand
    checked down (over the board card if it is still to come); with a bet open, the
    bettor winning what the other has put in; a fold at its payoff. From ``seat``'s side."""

    def __init__(self, sub, seat: int) -> None:
        self.t, self.seat = sub.tree, seat

    def __call__(self, node: int, x: int, y: int, board: int | None) -> float:
        t = self.t
        ours, theirs = (float(v) for v in (t.spent[node][self.seat], t.spent[node][1 - self.seat]))
        if t.kind[node] == 1:  # FOLD_TERMINAL: t.player is the folder
            return -ours if t.player[node] == self.seat else theirs
        if ours != theirs:  # a bet open: folded to
            return theirs if ours > theirs else -ours
        if x == y:
            return 0.0  # never weighted
        boards = [board] if board is not None else [b for b in CARDS if b not in (x, y)]
        eq = 0.0
        for b in boards:
            a, o = hand_strength([x, b]), hand_strength([y, b])
            eq += 1.0 if a > o else 0.5 if a == o else 0.0
        return ours * (2.0 * eq / len(boards) - 1.0)


class Wrong:
    """A value function with no relation to the game: fixed random numbers."""

    def __init__(self, sub, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.table = rng.normal(0, 500, size=(sub.tree.num_nodes, 6, 6, 7))

    def __call__(self, node: int, x: int, y: int, board: int | None) -> float:
        return float(self.table[node, CARDS.index(x), CARDS.index(y), 6 if board is None else CARDS.index(board)])


def enumerate_hands(sub, ours, theirs, seat, value, opponent_known=True, bayes=True):
    """Every hand with its probability: (probability, raw payoff, AIVAT estimate)."""
    t = sub.tree
    out = []
    hands = len(CARDS)
    real = CheckDown(sub, seat)  # at a terminal: the real payoff

    def u_vector(node, y, board):
        return np.array([value(node, x, y, board) for x in CARDS])

    def children(n):
        return range(t.first_child[n], t.first_child[n] + t.num_children[n])

    def walk(n, p, x, y, b, board, events):
        kind = t.kind[n]
        if kind == CHANCE:
            c = next(c for c in children(n) if t.dealt[c] == b)
            expected = np.array(
                [
                    np.mean([value(c2, xx, y, t.dealt[c2]) for c2 in children(n) if t.dealt[c2] not in (xx, y)])
                    if xx != y
                    else 0.0
                    for xx in CARDS
                ]
            )
            live = np.array([float(xx != b) for xx in CARDS])
            walk(c, p, x, y, b, b, events + [Chance(live, expected, u_vector(c, y, b))])
            return
        if kind == DECISION:
            kids = list(children(n))
            if t.player[n] == seat:
                probs = ours[kids, :].T
                for j, c in enumerate(kids):
                    q = ours[c, CARDS.index(x)]
                    if q == 0:
                        continue
                    values = np.stack([u_vector(k, y, board) for k in kids], axis=1)
                    like = ours[c, :] if bayes else np.ones(hands)
                    e = OwnDecision(probs, values, like, values[:, j])
                    walk(c, p * q, x, y, b, board, events + [e])
            else:
                yi = CARDS.index(y)
                for j, c in enumerate(kids):
                    q = theirs[c, yi]
                    if q == 0:
                        continue
                    extra = []
                    if opponent_known:
                        values = np.stack([u_vector(k, y, board) for k in kids], axis=1)
                        extra = [OpponentDecision(theirs[kids, yi], values, values[:, j])]
                    walk(c, p * q, x, y, b, board, events + extra)
            return
        # terminal: the real payoff for each of our hands (a showdown has the board card)
        assert kind == 1 or board is not None
        payoff = np.array([real(n, xx, y, board) for xx in CARDS])
        raw = float(payoff[CARDS.index(x)])
        out.append((p, raw, estimate(np.ones(hands), events, payoff).value))

    root_mean = np.mean([value(0, x, y, None) for x, y in permutations(CARDS, 2)])
    for x, y, b in permutations(CARDS, 3):
        y_deal = Chance(np.array([float(xx != y) for xx in CARDS]), np.full(hands, root_mean), u_vector(0, y, None))
        walk(0, 1.0 / 120, x, y, b, None, [y_deal])
    return out


def exact_value(sub, ours, theirs, seat) -> float:
    t = sub.tree
    combined = np.zeros_like(ours)
    for n in range(t.num_nodes):
        if t.kind[n] == DECISION:
            f, m = t.first_child[n], t.num_children[n]
            combined[f : f + m] = (ours if t.player[n] == seat else theirs)[f : f + m]
    return cfr.expected_values(sub, combined)[seat]


def moments(rows, col):
    p = np.array([r[0] for r in rows])
    v = np.array([r[col] for r in rows])
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    mean = float(p @ v)
    return mean, float(p @ (v - mean) ** 2)


@pytest.fixture(scope="module")
def strategies(leduc):
    return cfr.solve(leduc, 30).strategy, random_strategy(leduc, 5)


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("kind", ["check-down", "check-down, opponent unknown", "wrong values"])
def test_the_estimate_is_unbiased_and_less_noisy(leduc, strategies, seat, kind):
    ours, theirs = strategies
    value = Wrong(leduc, 9) if kind == "wrong values" else CheckDown(leduc, seat)
    rows = enumerate_hands(leduc, ours, theirs, seat, value, opponent_known=kind != "check-down, opponent unknown")
    truth = exact_value(leduc, ours, theirs, seat)
    raw_mean, raw_var = moments(rows, 1)
    mean, var = moments(rows, 2)
    assert raw_mean == pytest.approx(truth, abs=1e-9)  # the enumeration itself is right
    assert mean == pytest.approx(truth, abs=1e-9)
    if kind != "wrong values":
        assert var < 0.7 * raw_var, (var, raw_var)


def test_check_down_values_are_a_martingale_over_the_board_card(leduc):
    """What the hold'em estimate relies on to skip enumerating cards: the expectation
    of the check-down value over the next card is its value before it."""
    t = leduc.tree
    value = CheckDown(leduc, 0)
    for n in np.nonzero(t.kind == CHANCE)[0][:20]:
        kids = range(t.first_child[n], t.first_child[n] + t.num_children[n])
        for x, y in permutations(CARDS, 2):
            after = np.mean([value(c, x, y, t.dealt[c]) for c in kids if t.dealt[c] not in (x, y)])
            assert after == pytest.approx(value(n, x, y, None), abs=1e-9)


def test_without_the_bayes_update_the_estimate_is_biased(leduc, strategies):
    """Negative control: weighting our hands without our strategy's likelihood (what an
    estimator that ignores our hand's information would do) misses the exact value."""
    ours, theirs = strategies
    rows = enumerate_hands(leduc, ours, theirs, 0, CheckDown(leduc, 0), bayes=False)
    mean, _ = moments(rows, 2)
    assert abs(mean - exact_value(leduc, ours, theirs, 0)) > 1.0


def test_sampled_hands_agree_with_the_exact_value_within_the_interval(leduc, strategies):
    ours, theirs = strategies
    rows = enumerate_hands(leduc, ours, theirs, 1, CheckDown(leduc, 1))
    p = np.array([r[0] for r in rows])
    rng = np.random.default_rng(11)
    picked = rng.choice(len(rows), size=4000, p=p / p.sum())
    est = np.array([rows[i][2] for i in picked])
    raw = np.array([rows[i][1] for i in picked])
    truth = exact_value(leduc, ours, theirs, 1)
    half = 1.96 * est.std(ddof=1) / np.sqrt(len(est))
    assert abs(est.mean() - truth) < half
    assert est.std() < raw.std()
