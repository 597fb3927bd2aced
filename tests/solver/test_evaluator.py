"""The numba evaluator against the rules' definition and an independent library."""

import os
from itertools import combinations

import numpy as np
import pytest

from pokerbot.protocol.cards import parse_card, parse_cards
from pokerbot.protocol.hand_rank import hand_strength
from pokerbot.solver import evaluator as ev

phevaluator = pytest.importorskip("phevaluator")


def random_hands(n: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.int64)


def assert_same_order(ours: np.ndarray, theirs_lower_is_better: np.ndarray) -> None:
    """Ours and theirs induce the same order with the same ties: the map from our
    strength to their rank is a strictly decreasing bijection on the sample."""
    pairs = np.unique(np.stack([ours, theirs_lower_is_better], axis=1), axis=0)
    assert len(pairs) == len(np.unique(ours)) == len(np.unique(theirs_lower_is_better))
    assert np.all(np.diff(pairs[:, 1]) < 0)  # pairs are sorted by ours ascending


def phe_ranks(hands: np.ndarray) -> np.ndarray:
    # phevaluator's card ids are rank * 4 + suit with suits c d h s, as ours.
    return np.array([phevaluator.evaluate_cards(*h) for h in hands.tolist()], dtype=np.int64)


def test_card_ids_match_phevaluator():
    for text in ["As", "2c", "Td", "7h"]:
        c = parse_card(text)
        assert phevaluator.evaluate_cards(c, 0, 5, 10, 15) == phevaluator.evaluate_cards(text, "2c", "3d", "4h", "5s")


@pytest.mark.parametrize("k", [5, 6, 7])
def test_agrees_with_phevaluator_on_random_hands(k):
    n = int(os.environ.get("POKERBOT_EVAL_CHECK_HANDS", "100000"))
    hands = random_hands(n, k, seed=k)
    assert_same_order(ev.evaluate_hands(hands), phe_ranks(hands))


@pytest.mark.slow
def test_agrees_with_phevaluator_on_a_million_seven_card_hands():
    hands = random_hands(1_000_000, 7, seed=1234)
    assert_same_order(ev.evaluate_hands(hands), phe_ranks(hands))


def test_all_five_card_hands_have_7462_classes():
    hands = np.array(list(combinations(range(52), 5)), dtype=np.uint8)
    values = ev.evaluate_hands(hands)
    assert len(values) == 2_598_960
    assert len(np.unique(values)) == 7462  # the well-known number of 5-card hand classes
    # and the known counts per category, e.g. 40 straight flushes and 624 quads
    cats = np.bincount(values >> 20, minlength=9)
    assert cats.tolist() == [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6, 7])
def test_equals_rules_definition(k):
    hands = random_hands(20000, k, seed=100 + k)
    ours = ev.evaluate_hands(hands)
    assert ours.tolist() == [hand_strength(h) for h in hands.tolist()]


def test_every_rank_multiset_equals_rules_definition():
    """The whole non-flush table: every multiset of 1 to 7 ranks, dealt round-robin
    over the suits (so no flush), evaluated by size."""
    by_size: dict[int, tuple[list, list]] = {}
    for row in ev.rank_multisets().tolist():
        cards, nxt = [], 0
        for r, c in enumerate(row):
            cards += [r * 4 + (nxt + j) % 4 for j in range(c)]
            nxt += c
        if cards:
            hands, want = by_size.setdefault(len(cards), ([], []))
            hands.append(cards)
            want.append(hand_strength(cards))
    assert sum(len(h) for h, _ in by_size.values()) == 76155 - 1
    for hands, want in by_size.values():
        assert ev.evaluate_hands(np.array(hands)).tolist() == want


def test_rank_weights_give_distinct_sums():
    counts = ev.rank_multisets()
    keys = counts @ np.array(ev.RANK_WEIGHTS)
    assert len(np.unique(keys)) == len(keys) == 76155


def test_board_batch_path():
    board = parse_cards("Ks9s5s2hTd")
    holes = ev.all_hole_pairs()
    keys, masks = ev.hand_keys(holes)
    out = ev.strengths_on_board(board, keys, masks)
    blocked = np.isin(holes, board).any(axis=1)
    assert (out[blocked] == -1).all() and (~blocked).sum() == 1081
    expect = [hand_strength(list(h) + board) for h in holes[~blocked].tolist()]
    assert out[~blocked].tolist() == expect


def test_bad_input():
    with pytest.raises(ValueError, match="outside 0..51"):
        ev.evaluate_hands(np.array([[0, 1, 2, 3, 52]]))
    with pytest.raises(ValueError, match="1..7"):
        ev.evaluate_hands(np.zeros((1, 8), dtype=np.int64))
    with pytest.raises(ValueError, match="integer"):
        ev.evaluate_hands(np.zeros((1, 5)))
