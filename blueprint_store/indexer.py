"""Lossless suit-isomorphic hand indexing (after Waugh's hand isomorphism scheme).

Two hands are the same class when a permutation of the suits maps one onto the other,
round by round (hole cards, then each board round's cards as sets). A class gets an
index in 0..size-1 with no gaps, so tables over classes are dense arrays:

    hole cards                        169
    hole + flop                 1,286,792
    hole + flop + turn         55,190,538
    hole + flop + turn + river 2,428,287,420

How: per suit, the ranks it holds in each round are a sequence of disjoint sets; its
*size vector* is their sizes, and the sets themselves are numbered within that size
vector (a colexicographic subset rank per round, mixed radix over rounds). Sorting the
suits by size vector gives the hand's *configuration*; suits with equal size vectors are
interchangeable, so their numbers form a multiset, ranked as a combination with
repetition. The index is the configuration's offset plus the mixed-radix combination of
its groups' multiset ranks. ``unindex`` inverts every step and returns the class's
representative (suits assigned in configuration order).

Cards use the ACPC encoding of ``protocol.cards`` (rank * 4 + suit).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np

NUM_SUITS = 4
NUM_RANKS = 13
#: A suit's size vector as one number: base 14 digits, round 0 least significant.
_BASE = NUM_RANKS + 1

#: Binomial coefficients: BINOM[n, k] = C(n, k) for n, k < 64.
BINOM = np.zeros((64, 64), dtype=np.int64)
for _n in range(64):
    BINOM[_n, 0] = 1
    for _k in range(1, _n + 1):
        BINOM[_n, _k] = BINOM[_n - 1, _k - 1] + BINOM[_n - 1, _k]


class IndexerError(ValueError):
    """Cards that are not a hand of the indexer's rounds."""


@nb.njit(cache=True)
def _suit_size(code, rounds, binom):
    """N(m): how many rank-set sequences a suit with size vector ``code`` can hold."""
    total = 1
    used = 0
    for _ in range(rounds):
        m = code % _BASE
        code //= _BASE
        total *= binom[NUM_RANKS - used, m]
        used += m
    return total


#: Scratch an index computation needs (``index_with_scratch``).
SCRATCH_SIZE = 32


@nb.njit(cache=True)
def index_one(cards, round_end, rounds, keys, offsets, binom):
    """Index of one hand: ``cards`` in round order, round r being
    cards[round_end[r-1]:round_end[r]]. Returns -1 for a repeated card."""
    return index_with_scratch(cards, round_end, rounds, keys, offsets, binom, np.empty(SCRATCH_SIZE, np.int64))


@nb.njit(cache=True)
def index_with_scratch(cards, round_end, rounds, keys, offsets, binom, scratch):
    """``index_one`` without allocating: ``scratch`` is int64 of SCRATCH_SIZE
    (per-suit rank masks per round at [4 * suit + round], then suit codes at 16..19,
    suit numbers at 20..23, the suit order at 24..27)."""
    for j in range(16):
        scratch[j] = 0
    start = 0
    for r in range(rounds):
        for j in range(start, round_end[r]):
            c = cards[j]
            s = c & 3
            bit = np.int64(1) << (c >> 2)
            for rr in range(rounds):
                if scratch[4 * s + rr] & bit:
                    return -1
            scratch[4 * s + r] |= bit
        start = round_end[r]
    for s in range(NUM_SUITS):
        code = 0
        number = 0
        radix = 1
        used = 0  # ranks of this suit taken in earlier rounds
        weight = 1
        for r in range(rounds):
            mask = scratch[4 * s + r]
            m = 0
            colex = 0
            rest = mask
            while rest:
                low = rest & -rest
                rank = _popcount(low - 1)
                rest ^= low
                m += 1
                # position among the ranks not taken in earlier rounds
                colex += binom[rank - _popcount(used & (low - 1)), m]
            avail = NUM_RANKS - _popcount(used)
            number += colex * radix
            radix *= binom[avail, m]
            code += m * weight
            weight *= _BASE
            used |= mask
        scratch[16 + s] = code
        scratch[20 + s] = number
        scratch[24 + s] = s
    # sort suits by (code desc, number desc): insertion sort of 4
    for a in range(1, NUM_SUITS):
        b = a
        while b > 0:
            x = scratch[24 + b]
            y = scratch[24 + b - 1]
            if scratch[16 + x] > scratch[16 + y] or (
                scratch[16 + x] == scratch[16 + y] and scratch[20 + x] > scratch[20 + y]
            ):
                scratch[24 + b] = y
                scratch[24 + b - 1] = x
                b -= 1
            else:
                break
    key = 0
    radix_cfg = _config_radix(rounds)
    for j in range(NUM_SUITS - 1, -1, -1):
        key = key * radix_cfg + scratch[16 + scratch[24 + j]]
    ci = np.searchsorted(keys, key)
    local = 0
    radix = 1
    j = 0
    while j < NUM_SUITS:
        cj = scratch[16 + scratch[24 + j]]
        e = j
        while e < NUM_SUITS and scratch[16 + scratch[24 + e]] == cj:
            e += 1
        k = e - j
        n_values = _suit_size(cj, rounds, binom)
        rank = 0
        for i in range(k):  # multiset, largest first: y = x + (k-1-i) strictly decreasing
            rank += _choose(scratch[20 + scratch[24 + j + i]] + k - 1 - i, k - i)
        local += rank * radix
        radix *= _choose(n_values + k - 1, k)
        j = e
    return offsets[ci] + local


@nb.njit(cache=True)
def _choose(n, k):
    """C(n, k) for small k and any n (a suit's set count can reach 720,720)."""
    if k < 0 or k > n:
        return 0
    c = 1
    for j in range(k):
        c = c * (n - j) // (j + 1)
    return c


@nb.njit(cache=True)
def _popcount(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


@nb.njit(cache=True)
def _config_radix(rounds):
    r = 1
    for _ in range(rounds):
        r *= _BASE
    return r


@nb.njit(cache=True)
def _index_many(hands, round_end, rounds, keys, offsets, binom, out):
    scratch = np.empty(SCRATCH_SIZE, dtype=np.int64)
    for i in range(hands.shape[0]):
        out[i] = index_with_scratch(hands[i], round_end, rounds, keys, offsets, binom, scratch)


@dataclass(frozen=True)
class RoundTables:
    """One round's lookup tables: each suit configuration's key and the first index of its hands."""

    keys: np.ndarray  # sorted configuration keys
    offsets: np.ndarray  # first index of each configuration (one more entry: the size)
    groups: tuple  # per configuration: ((code, k), ...) in suit order


class HandIndexer:
    """Indexer for hands dealt in rounds of ``cards_per_round`` cards (hold'em:
    (2, 3, 1, 1)); ``index`` and ``unindex`` work on any prefix of the rounds."""

    def __init__(self, cards_per_round: Sequence[int] = (2, 3, 1, 1)) -> None:
        cards_per_round = tuple(int(c) for c in cards_per_round)
        if not cards_per_round or len(cards_per_round) > 4 or min(cards_per_round) < 1:
            raise IndexerError(f"1 to 4 rounds of at least one card each, got {cards_per_round}")
        if sum(cards_per_round) > NUM_SUITS * NUM_RANKS:
            raise IndexerError(f"{sum(cards_per_round)} cards do not fit a 52-card deck")
        self.cards_per_round = cards_per_round
        self.tables = [self._build(r + 1) for r in range(len(cards_per_round))]

    def _build(self, rounds: int) -> RoundTables:
        counts = self.cards_per_round[:rounds]
        # every way to split each round's cards over the four suits, then canonicalised
        per_round = [list(_compositions(c, NUM_SUITS)) for c in counts]
        configs = set()
        for split in itertools.product(*per_round):
            vectors = [tuple(split[r][s] for r in range(rounds)) for s in range(NUM_SUITS)]
            if any(sum(v) > NUM_RANKS for v in vectors):
                continue
            codes = tuple(sorted((_code(v) for v in vectors), reverse=True))
            configs.add(codes)
        radix = _BASE**rounds
        entries = []
        for codes in configs:
            key = 0
            for c in reversed(codes):
                key = key * radix + c
            groups = tuple((c, len(list(g))) for c, g in itertools.groupby(codes))
            size = 1
            for c, k in groups:
                size *= _comb(_suit_size(c, rounds, BINOM) + k - 1, k)
            entries.append((key, groups, size))
        entries.sort()
        offsets = np.zeros(len(entries) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([e[2] for e in entries])
        return RoundTables(np.array([e[0] for e in entries], dtype=np.int64), offsets, tuple(e[1] for e in entries))

    def size(self, round: int) -> int:
        """Classes of hands dealt through ``round`` (0 = hole cards only)."""
        return int(self.tables[self._check_round(round)].offsets[-1])

    def _check_round(self, round: int) -> int:
        if not 0 <= round < len(self.cards_per_round):
            raise IndexerError(f"round {round} is not in 0..{len(self.cards_per_round) - 1}")
        return round

    def _round_of(self, num_cards: int) -> int:
        total = 0
        for r, c in enumerate(self.cards_per_round):
            total += c
            if total == num_cards:
                return r
        raise IndexerError(f"{num_cards} cards is not a whole number of rounds of {self.cards_per_round}")

    def round_end(self, round: int) -> np.ndarray:
        """How many cards have been dealt by the end of each round up to ``round``."""
        return np.cumsum(self.cards_per_round[: round + 1]).astype(np.int64)

    def index(self, cards: Sequence[int]) -> int:
        """The class of ``cards`` (hole cards first, then the board in deal order)."""
        arr = np.asarray(cards, dtype=np.int64)
        if arr.ndim != 1 or ((arr < 0) | (arr > 51)).any():
            raise IndexerError(f"cards must be indices 0..51, got {list(cards)}")
        return int(self.index_many(arr[None, :])[0])

    def index_many(self, hands: np.ndarray) -> np.ndarray:
        """Indices of a (n, cards) array of hands, all dealt through the same round."""
        hands = np.ascontiguousarray(hands, dtype=np.int64)
        if hands.ndim != 2:
            raise IndexerError("hands must be a 2-D array (hands, cards)")
        r = self._round_of(hands.shape[1])
        if hands.size and (hands.min() < 0 or hands.max() > 51):
            raise IndexerError("cards must be indices 0..51")
        t = self.tables[r]
        out = np.empty(hands.shape[0], dtype=np.int64)
        _index_many(hands, self.round_end(r), r + 1, t.keys, t.offsets, BINOM, out)
        if (out < 0).any():
            bad = hands[int(np.argmax(out < 0))]
            raise IndexerError(f"a card is repeated in {bad.tolist()}")
        return out

    def unindex(self, round: int, index: int) -> list[int]:
        """A hand of class ``index`` (its canonical representative), in round order,
        each round's cards ascending."""
        t = self.tables[self._check_round(round)]
        if not 0 <= index < t.offsets[-1]:
            raise IndexerError(f"index {index} is not in 0..{int(t.offsets[-1]) - 1} for round {round}")
        rounds = round + 1
        ci = int(np.searchsorted(t.offsets, index, side="right")) - 1
        local = int(index - t.offsets[ci])
        suit_codes: list[int] = []
        suit_numbers: list[int] = []
        for code, k in t.groups[ci]:
            n_values = _suit_size(code, rounds, BINOM)
            m = _comb(n_values + k - 1, k)
            rank, local = local % m, local // m
            for i in range(k):  # unrank the multiset, largest first
                size = k - i
                y = size - 1
                while _comb(y + 1, size) <= rank:
                    y += 1
                rank -= _comb(y, size)
                suit_codes.append(code)
                suit_numbers.append(y - (k - 1 - i))
        per_round: list[list[int]] = [[] for _ in range(rounds)]
        for suit, (code, number) in enumerate(zip(suit_codes, suit_numbers)):
            used: list[int] = []
            for r in range(rounds):
                m = code % _BASE
                code //= _BASE
                avail = [x for x in range(NUM_RANKS) if x not in used]
                radix = _comb(len(avail), m)
                colex, number = number % radix, number // radix
                chosen = _colex_unrank(colex, m)
                ranks = [avail[p] for p in chosen]
                per_round[r].extend(rank * 4 + suit for rank in ranks)
                used.extend(ranks)
        return [c for r in range(rounds) for c in sorted(per_round[r])]


def _code(vector: tuple[int, ...]) -> int:
    code = 0
    for m in reversed(vector):
        code = code * _BASE + m
    return code


def _comb(n: int, k: int) -> int:
    return math.comb(n, k) if 0 <= k <= n else 0


def _colex_unrank(rank: int, m: int) -> list[int]:
    """The m-subset of 0.. with colexicographic rank ``rank`` (sum of C(p_i, i))."""
    out = []
    for i in range(m, 0, -1):
        p = i - 1
        while _comb(p + 1, i) <= rank:
            p += 1
        out.append(p)
        rank -= _comb(p, i)
    return sorted(out)


def _compositions(total: int, parts: int):
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest
