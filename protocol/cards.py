"""Cards in the ACPC encoding: index = rank * 4 + suit, text like ``As``.

Ranks ``23456789TJQKA`` are 0..12, suits ``cdhs`` are 0..3, so 2c = 0 and As = 51.
Small-deck games use the same indices (a Leduc-like deck is Qh Qs Kh Ks Ah As).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
NUM_CARDS = 52


class CardError(ValueError):
    """Text that is not a card, or a card index out of range."""


def make_card(rank: int, suit: int) -> int:
    return rank * 4 + suit


def rank_of(card: int) -> int:
    return card >> 2


def suit_of(card: int) -> int:
    return card & 3


def card_to_str(card: int) -> str:
    if not 0 <= card < NUM_CARDS:
        raise CardError(f"card index {card} is out of range 0..51")
    return RANK_CHARS[card >> 2] + SUIT_CHARS[card & 3]


def cards_to_str(cards: Iterable[int]) -> str:
    return "".join(card_to_str(c) for c in cards)


def parse_card(text: str) -> int:
    """One card from two characters. Like the reference, the rank may be lower case
    and the suit upper case."""
    if len(text) != 2:
        raise CardError(f"a card is two characters, got {text!r}")
    r = RANK_CHARS.find(text[0].upper())
    s = SUIT_CHARS.find(text[1].lower())
    if r < 0:
        raise CardError(f"{text[0]!r} is not a rank (one of {RANK_CHARS}) in {text!r}")
    if s < 0:
        raise CardError(f"{text[1]!r} is not a suit (one of {SUIT_CHARS}) in {text!r}")
    return make_card(r, s)


def parse_cards(text: str) -> list[int]:
    """A run of cards with no separators, e.g. ``AsKd7h``."""
    if len(text) % 2:
        raise CardError(f"odd number of characters in card text {text!r}")
    return [parse_card(text[i : i + 2]) for i in range(0, len(text), 2)]


def check_distinct(cards: Sequence[int], what: str = "cards") -> None:
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise CardError(f"{card_to_str(c)} appears twice in the {what}")
        seen.add(c)
