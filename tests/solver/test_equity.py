import pytest

from pokerbot.protocol.cards import parse_cards as pc
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver.equity import runout_equity

equity = pytest.importorskip("pokerfast.equity")


@pytest.mark.parametrize(
    "h0,h1,board",
    [("AsAh", "KsKh", ""), ("AcKd", "7h7s", "2c3d9h"), ("QdJd", "Ac2s", "Td9dAh"), ("5c5d", "6h7h", "8h9s2c4d")],
)
def test_equity_agrees_with_ompeval(h0, h1, board):
    win, tie = runout_equity(pc(h0), pc(h1), pc(board), list(range(52)), 5)
    ref = equity.equity([h0, h1], board=board, exact=True)
    # OMPEval reports equity = P(win) + P(tie) / 2
    got = win + tie / 2
    ref0 = ref[0] if not isinstance(ref, dict) else ref["equity"][0]
    assert got == pytest.approx(ref0, abs=1e-6)


def test_known_value_and_small_deck():
    win, tie = runout_equity(pc("AsAh"), pc("KsKh"), [], list(range(52)), 5)
    assert win == pytest.approx(0.8236, abs=1e-4) and tie == pytest.approx(0.0054, abs=1e-4)
    leduc = bundled_game("leduc.limit.2p")
    win, tie = runout_equity(pc("Ks"), pc("Qs"), [], leduc.deck(), 1)
    assert (win, tie) == (pytest.approx(3 / 4), 0.0)  # Q pairs with 1 of 4 remaining cards
    with pytest.raises(ValueError, match="share a card"):
        runout_equity(pc("AsAh"), pc("AsKh"), [], list(range(52)), 5)


def test_batch_equals_one_by_one():
    from pokerbot.solver.equity import runout_equities

    spots = [
        (pc("AsAh"), pc("KsKh"), []),
        (pc("AcKd"), pc("7h7s"), pc("2c3d9h")),
        (pc("5c5d"), pc("6h7h"), pc("8h9s2c4d")),
    ]
    deck = list(range(52))
    assert runout_equities(spots, deck, 5) == [runout_equity(a, b, c, deck, 5) for a, b, c in spots]
    assert runout_equities([], deck, 5) == []
