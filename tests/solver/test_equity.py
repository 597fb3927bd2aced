import numpy as np
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


def brute_range_equity(hero, board, weights):
    """The hero's equity against a weighted range by phevaluator (lower rank wins), every
    completion of the board enumerated, hands clashing with a completion left out."""
    phevaluator = pytest.importorskip("phevaluator")
    from itertools import combinations

    from pokerbot.solver.evaluator import all_hole_pairs

    pairs = all_hole_pairs().tolist()
    remaining = [c for c in range(52) if c not in set(hero) | set(board)]
    win = total = 0.0
    for extra in combinations(remaining, 5 - len(board)):
        full = list(board) + list(extra)
        mine = phevaluator.evaluate_cards(*hero, *full)
        for h in np.flatnonzero(weights):
            a, b = pairs[h]
            if {a, b} & (set(full) | set(hero)):
                continue
            theirs = phevaluator.evaluate_cards(a, b, *full)
            total += weights[h]
            win += weights[h] * (1.0 if mine < theirs else 0.5 if mine == theirs else 0.0)
    return win / total


@pytest.mark.parametrize("board_size", [3, 4, 5])
def test_range_equity_agrees_with_an_independent_evaluator(board_size):
    from pokerbot.solver.equity import range_equity

    rng = np.random.default_rng(board_size)
    for _ in range(3):
        cards = rng.permutation(52)
        hero, board = cards[:2].tolist(), cards[2 : 2 + board_size].tolist()
        weights = np.zeros(1326)
        weights[rng.choice(1326, 12 if board_size == 3 else 60, replace=False)] = rng.random(
            12 if board_size == 3 else 60
        )
        assert range_equity(hero, board, weights) == pytest.approx(brute_range_equity(hero, board, weights), abs=1e-12)


def test_preflop_equities_agree_with_exact_enumeration_of_each_pair():
    """The suit-isomorphism shortcut against a full enumeration per pair, for two heroes
    of the same class (one computed from the other's cache) and one of another."""
    from pokerbot.solver.equity import preflop_equities, range_equity
    from pokerbot.solver.evaluator import all_hole_pairs

    pairs = all_hole_pairs().tolist()
    rng = np.random.default_rng(7)
    for hero in ([51, 47], [50, 46], [12, 29]):  # AsKs, AhKh (same class), 5s9d
        eq = preflop_equities(hero)
        for h in rng.choice(1326, 6, replace=False):
            if set(pairs[h]) & set(hero):
                assert eq[h] == 0.0
                continue
            win, tie = runout_equity(hero, pairs[h], [], list(range(52)), 5)
            assert eq[h] == pytest.approx(win + tie / 2, abs=1e-12)
        weights = np.zeros(1326)
        weights[[3, 700, 1200]] = [1.0, 2.0, 0.5]
        live = [h for h in (3, 700, 1200) if not set(pairs[h]) & set(hero)]
        expected = sum(weights[h] * eq[h] for h in live) / sum(weights[h] for h in live)
        assert range_equity(hero, [], weights) == pytest.approx(expected, abs=1e-12)


def test_range_equity_refuses_bad_boards_and_wrong_weights():
    from pokerbot.solver.equity import range_equity

    with pytest.raises(ValueError, match="0 or 3 to 5 cards"):
        range_equity([0, 1], [2, 3], np.ones(1326))
    with pytest.raises(ValueError, match="1326"):
        range_equity([0, 1], [2, 3, 4], np.ones(10))
    # a range left with nothing: even
    assert range_equity([0, 1], [2, 3, 4, 5, 6], np.zeros(1326)) == 0.5


def test_the_shipped_preflop_table_is_complete_and_agrees_with_ompeval():
    """Every canonical (hero, opponent) pair is in the table, as an exact count over the
    1,712,304 boards; random entries agree with OMPEval's exact preflop equity."""
    from pokerbot.protocol.cards import card_to_str
    from pokerbot.solver.equity import PREFLOP_BOARDS, PREFLOP_TABLE, canonical_preflop_pairs

    with np.load(PREFLOP_TABLE) as t:
        pairs, counts = t["pairs"].tolist(), t["doubled_wins"]
    assert [(tuple(p[:2]), tuple(p[2:])) for p in pairs] == canonical_preflop_pairs()
    assert counts.min() > 0 and counts.max() < 2 * PREFLOP_BOARDS
    rng = np.random.default_rng(3)
    for i in rng.choice(len(pairs), 4, replace=False):
        a, b, c, d = pairs[i]
        ref = equity.equity([card_to_str(a) + card_to_str(b), card_to_str(c) + card_to_str(d)], board="", exact=True)
        ref0 = ref[0] if not isinstance(ref, dict) else ref["equity"][0]
        assert counts[i] / (2 * PREFLOP_BOARDS) == pytest.approx(ref0, abs=1e-6)


def test_without_the_table_preflop_equities_are_computed_alike(monkeypatch, tmp_path):
    from pokerbot.solver import equity as eq_module

    hero = [20, 33]
    shipped = eq_module.preflop_equities(hero)
    monkeypatch.setattr(eq_module, "PREFLOP_TABLE", str(tmp_path / "none.npz"))
    monkeypatch.setattr(eq_module, "_PREFLOP", {})
    monkeypatch.setattr(eq_module, "_BY_HERO", {})
    monkeypatch.setattr(eq_module, "_TABLE_LOADED", False)
    assert np.array_equal(eq_module.preflop_equities(hero), shipped)


@pytest.mark.parametrize("board_size", [0, 3, 4, 5])
def test_equities_against_one_hand_agree_with_pairwise_enumeration(board_size):
    from pokerbot.solver.equity import equities_against
    from pokerbot.solver.evaluator import all_hole_pairs

    pairs = all_hole_pairs().tolist()
    rng = np.random.default_rng(10 + board_size)
    cards = rng.permutation(52).tolist()
    villain, board = cards[:2], cards[2 : 2 + board_size]
    got = equities_against(villain, board)
    dead = [h for h, p in enumerate(pairs) if set(p) & set(villain + board)]
    assert np.isnan(got[dead]).all() and not np.isnan(np.delete(got, dead)).any()
    for h in rng.choice([h for h in range(1326) if h not in dead], 5, replace=False):
        win, tie = runout_equity(pairs[h], villain, board, list(range(52)), 5)
        assert got[h] == pytest.approx(win + tie / 2, abs=1e-12)
