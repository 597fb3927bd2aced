"""Hands by strength and the showdown sweep's layout (solver.ranges)."""

import numpy as np
import pytest

from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver import ranges as rg


def shares_card(a, b) -> bool:
    return bool(set(a) & set(b))


@pytest.mark.parametrize("board", ["AsKs7s7d2c", "9h8d7c6s2h", "QsJh2h8d3c"])
def test_showdown_order_is_by_strength_with_ties_spread(board):
    cards = parse_cards(board)
    hands = rg.hole_hands(bundled_game("holdem.nolimit.2p"))
    order, group_end = rg.showdown_order(hands, cards)
    strengths = rg.strengths_on_board(hands, cards)
    # the same hands as by_strength, weakest first, ties exactly the groups
    assert sorted(order.tolist()) == sorted(rg.by_strength(strengths).tolist())
    s = strengths[order]
    assert (np.diff(s) >= 0).all()
    for k in range(len(order)):
        e = group_end[k]
        assert (s[k:e] == s[k]).all() and (e == len(order) or s[e] > s[k])
    # neighbours inside a group share a card far less often than in by_strength's order
    plain = rg.by_strength(strengths)

    def neighbours_sharing(o):
        return sum(
            shares_card(hands[o[t]], hands[o[t + 1]]) and strengths[o[t]] == strengths[o[t + 1]]
            for t in range(len(o) - 1)
        )

    assert neighbours_sharing(order) < 0.3 * neighbours_sharing(plain)


def test_ladder_slots():
    cards = parse_cards("9h8d7c6s2h")
    hands = rg.hole_hands(bundled_game("holdem.nolimit.2p"))
    order, group_end = rg.showdown_order(hands, cards)
    c1s, c2s = hands[order, 0], hands[order, 1]
    lad, rows = rg.ladder(c1s, c2s, group_end)
    W = rg.LADDER_WIDTH
    gid = lad[0].astype(np.int64)
    assert gid[0] == 0 and ((np.diff(gid) == 0) | (np.diff(gid) == 1)).all()
    assert (np.diff(gid) == 1).sum() == len(set(group_end.tolist())) - 1
    for j, c in ((1, c1s), (2, c2s)):
        slot = lad[j].astype(np.int64)
        assert (slot % W == c).all()  # a card's column
        # the row counts the groups below holding that card
        for t in range(len(order)):
            below = {gid[u] for u in range(t) if gid[u] < gid[t] and c[t] in (c1s[u], c2s[u])}
            assert slot[t] // W == len(below)
    assert rows == 1 + max(int(lad[j].max()) // W for j in (1, 2))
    # one-card hands: the missing card always maps to its own slot
    lad1, _ = rg.ladder(c1s, np.full(len(c1s), rg.NO_CARD), group_end)
    assert (lad1[2] == rg.NO_CARD).all()
