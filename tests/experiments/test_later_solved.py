"""Scoring a flop strategy whose turn and river are solved anew, round by round
(``experiments/later_solved.py``), against the exact exploitability of the same
strategy on the full-depth tree, in a 20-card hold'em where every card fits."""

import zlib

import numpy as np
import pytest
from conftest import decision_states

from experiments import later_solved as ls
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.gamedef import parse_gamedef
from pokerbot.solver import cfr
from pokerbot.solver import ranges as rg
from pokerbot.solver.subgame import Subgame, make_subgame
from pokerbot.solver.tree import BetSizes

pytestmark = pytest.mark.slow  # experiments' checks, about 30 s together on 2 cores

GAME = parse_gamedef(
    "GAMEDEF\nnolimit\nnumPlayers = 2\nnumRounds = 4\nstack = 3000 3000\nblind = 100 50\n"
    "firstPlayer = 2 1 1 1\nnumSuits = 4\nnumRanks = 5\nnumHoleCards = 2\nnumBoardCards = 0 3 1 1\nEND GAMEDEF\n"
)
SIZES = {
    1: BetSizes(bets=((1.0,),), max_raises=1),
    2: BetSizes(bets=((1.0,),), max_raises=1),
    3: BetSizes(bets=((0.5,), (1.0,)), max_raises=2),
}


def flop_root() -> BettingState:
    return apply_betting(BettingState(GAME, 0, None, [32, 37, 42]), "r300c/")


def keyed_strategy(sub: Subgame, root: BettingState) -> np.ndarray:
    """At every decision, random action probabilities per hand keyed by the board and
    the betting: the same strategy in any tree that holds the node."""
    t = sub.tree
    out = np.zeros((t.num_nodes, sub.hands.shape[0]))
    for n, st in decision_states(sub, root):
        f, m = int(t.first_child[n]), int(t.num_children[n])
        key = zlib.crc32(repr((st.board_cards, st.betting_string())).encode())
        p = np.random.default_rng(key).random((m, len(rg.hole_hands(GAME)))) ** 2
        out[f : f + m] = (p / p.sum(axis=0))[:, sub.hand_index]
    return out


class KeyedLater:
    """The turn and river played by ``keyed_strategy`` (whatever the ranges)."""

    def turn(self, state, reach):
        sub = make_subgame(state, {2: SIZES[2]}, reach, leaf_round=3)
        return sub, keyed_strategy(sub, state)

    def river(self, state, reach):
        sub = make_subgame(state, SIZES[3], reach)
        return sub, keyed_strategy(sub, state)


@pytest.fixture(scope="module")
def spot():
    root = flop_root()
    reach = np.random.default_rng(5).random((2, len(rg.hole_hands(GAME))))
    left = [c for c in GAME.deck() if c not in root.board_cards]
    flop = make_subgame(root, {1: SIZES[1]}, reach, leaf_round=2, leaf_deals=np.array([left[:2], left[2:4]]))
    full = make_subgame(root, SIZES, reach)
    return root, flop, full


def test_round_by_round_equals_the_full_tree_with_every_card(spot):
    root, flop, full = spot
    assert flop.tree.num_leaves == 5  # all-in lines too: their showdowns are scored apart
    exact = cfr.exploitability(full, keyed_strategy(full, root))
    split = ls.flop_exploitability(
        flop, keyed_strategy(flop, root), root, KeyedLater(), ls.keyed_cards(0, 0), ls.keyed_cards(0, 0)
    )
    assert split.total == pytest.approx(exact, rel=1e-9)
    assert exact > 100  # a random strategy: far from an equilibrium
    # responding only from the turn on gains less, and still something
    assert 0 < split.later < split.total


def test_a_plain_mean_over_the_cards_is_caught(spot, monkeypatch):
    """Negative control: chance deals a card off both hands; averaging a hand's
    values over the cards it does not hold alone (leaving out the (n-2)/(n-4)
    factor) scores the same strategy differently."""
    root, flop, full = spot
    exact = cfr.exploitability(full, keyed_strategy(full, root))
    card_mean = ls.card_mean
    monkeypatch.setattr(ls, "card_mean", lambda h, per, n: card_mean(h, per, n) * (n - 4) / (n - 2))
    split = ls.flop_exploitability(
        flop, keyed_strategy(flop, root), root, KeyedLater(), ls.keyed_cards(0, 0), ls.keyed_cards(0, 0)
    )
    assert abs(split.total - exact) > 1e-3 * exact


def test_sampled_cards_are_keyed_by_the_board():
    root = flop_root()
    choose = ls.keyed_cards(3, 7)
    assert choose(root) == choose(root.copy()) and len(choose(root)) == 3
    assert not set(choose(root)) & set(root.board_cards)
    other = apply_betting(BettingState(GAME, 0, None, [32, 37, 43]), "r300c/")
    assert ls.keyed_cards(3, 8)(root) != choose(root) or ls.keyed_cards(3, 7)(other) != choose(root)
    assert ls.keyed_cards(0, 7)(root) == [c for c in GAME.deck() if c not in root.board_cards]
