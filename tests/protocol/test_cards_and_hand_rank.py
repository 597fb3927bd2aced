import pytest

from pokerbot.protocol.cards import CardError, card_to_str, parse_card, parse_cards
from pokerbot.protocol.hand_rank import (
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    QUADS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
    category_of,
    describe,
    hand_strength,
)


def test_card_indices_follow_acpc():
    assert parse_card("2c") == 0
    assert parse_card("As") == 51
    assert parse_card("Td") == 8 * 4 + 1
    assert card_to_str(51) == "As"
    assert all(parse_card(card_to_str(c)) == c for c in range(52))
    # the reference accepts a lower-case rank and an upper-case suit
    assert parse_card("aS") == 51


@pytest.mark.parametrize("bad", ["A", "1c", "Ax", "Asd", "10c"])
def test_bad_card_text(bad):
    with pytest.raises(CardError):
        parse_cards(bad) if len(bad) != 2 else parse_card(bad)


def test_card_out_of_range():
    with pytest.raises(CardError):
        card_to_str(52)


def h(text: str) -> int:
    return hand_strength(parse_cards(text))


@pytest.mark.parametrize(
    "text,category",
    [
        ("AsKsQsJsTs2c3d", STRAIGHT_FLUSH),
        ("5s4s3s2sAs", STRAIGHT_FLUSH),
        ("AsAhAdAcKs", QUADS),
        ("AsAhAdKcKs", FULL_HOUSE),
        ("AsAhAdKcKsKhQd", FULL_HOUSE),
        ("As9s7s5s3s", FLUSH),
        ("5c4d3h2sAs", STRAIGHT),
        ("AsAhAd9c2s", TRIPS),
        ("AsAh9d9c2s", TWO_PAIR),
        ("AsAh9d8c2s", PAIR),
        ("As8h9d7c2s", HIGH_CARD),
        ("Ks", HIGH_CARD),
        ("KsKh", PAIR),
    ],
)
def test_categories(text, category):
    assert category_of(h(text)) == category


def test_orderings_and_ties():
    assert h("5c4d3h2sAs") < h("6c5d4h3s2s")  # the wheel is the lowest straight
    assert h("AsAh9d9c2s") < h("AsAh9d9cKs")  # two pair kicker
    assert h("AsAhAdKcKsQhQd") == h("AsAhAdKcKs2h3d")  # only five cards play
    assert h("AsAhAdKcKsKhQd") == h("AsAhAdKcKsKh2d")  # the better trips play as the pair
    assert h("AsAh9d9c7c7s2s") == h("AsAh9d9c2c2s7h")  # third pair counts only as kicker
    assert h("As") > h("Ks") and h("KsAh") > h("QsAh")  # Kuhn and Leduc-sized hands
    assert h("QhQs") > h("AsKs")


def test_describe():
    assert describe(h("AsAh9d8c2s")) == "pair: A 9 8 2"
    assert describe(h("AsAhAdKcKs")) == "full house: A K"
