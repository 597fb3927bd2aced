"""Fast hand evaluator (numba): the strength of 1 to 7 cards, as the ACPC ranks them.

The values are exactly ``protocol.hand_rank.hand_strength`` (the rules' definition);
this module only makes them fast. It returns int32 strengths, larger is better.

How it works
- Every card has a 64-bit key: a rank weight in the low 32 bits and a 1 in its suit's
  4-bit counter at bit 32 + 4 * suit. Adding the keys of a hand gives the sum of its
  rank weights and the number of cards per suit at once. The weights are chosen so that
  every multiset of at most 7 ranks (at most 4 of each) has its own sum
  (``RANK_WEIGHTS``; ``scripts/find_rank_weights.py`` derives them).
- A suit counter reaches 5 exactly when ``(counters + 0x3333) & 0x8888`` is non-zero
  (counters stay at most 7, so no carry crosses a nibble). Then the suited ranks, kept
  as a 52-bit card mask, index an 8,192-entry flush table.
- Otherwise the weight sum indexes the non-flush table through a row-displacement
  perfect hash: ``RANK_VALUES[ROW_OFFSET[key >> 12] + (key & 4095)]``, about 90,000
  entries (360 KB) instead of 18 million.
- On one board (the batch path the solver uses) the board's key and mask are added
  once, so each hand costs two additions and one or two table reads.
"""

from __future__ import annotations

import os
from itertools import combinations

import numba as nb
import numpy as np

from pokerbot.protocol.hand_rank import flush_strength, hand_strength_from_counts

NUM_CARDS = 52
#: Rank weights: sums over multisets of <= 7 ranks (<= 4 of a rank) are all distinct.
RANK_WEIGHTS = (1, 5, 24, 112, 521, 2247, 9244, 30823, 103066, 250154, 667453, 1526359, 3453520)
ROW_SHIFT = 12
ROW_MASK = (1 << ROW_SHIFT) - 1
MAX_CARDS = 7
SUIT_SHIFT = 32


def rank_multisets(max_cards: int = MAX_CARDS) -> np.ndarray:
    """All rank-count vectors with at most 4 of a rank and at most ``max_cards`` cards."""
    out: list[tuple[int, ...]] = []
    cur = [0] * 13

    def rec(r: int, left: int) -> None:
        if r == 13:
            out.append(tuple(cur))
            return
        for c in range(min(4, left) + 1):
            cur[r] = c
            rec(r + 1, left - c)
        cur[r] = 0

    rec(0, max_cards)
    return np.array(out, dtype=np.int64)


@nb.njit(cache=True)
def _place_rows(
    keys: np.ndarray, order: np.ndarray, row_start: np.ndarray, row_end: np.ndarray, num_rows: int, table_size: int
) -> np.ndarray:
    """First-fit displacement of each row's occupied columns into one table. ``keys``
    is sorted by row; ``order`` lists rows fullest first. Returns the row offsets."""
    offsets = np.zeros(num_rows, dtype=np.int64)
    used = np.zeros(table_size, dtype=np.bool_)
    for oi in range(order.shape[0]):
        row = order[oi]
        start = row_start[row]
        end = row_end[row]
        off = 0
        while True:
            ok = True
            for i in range(start, end):
                if used[off + (keys[i] & ROW_MASK)]:
                    ok = False
                    break
            if ok:
                break
            off += 1
        for i in range(start, end):
            used[off + (keys[i] & ROW_MASK)] = True
        offsets[row] = off
    return offsets


def build_tables() -> dict[str, np.ndarray]:
    """Build the evaluator tables from the rules' hand-strength definition."""
    counts = rank_multisets()
    weights = np.array(RANK_WEIGHTS, dtype=np.int64)
    keys = counts @ weights
    if len(np.unique(keys)) != len(keys):  # guards an edit of RANK_WEIGHTS
        raise AssertionError("RANK_WEIGHTS do not give distinct sums")
    values = np.array([hand_strength_from_counts(c) for c in counts.tolist()], dtype=np.int32)

    order_by_key = np.argsort(keys, kind="stable")
    keys = keys[order_by_key]
    values = values[order_by_key]
    rows = keys >> ROW_SHIFT
    num_rows = int(rows[-1]) + 1
    row_start = np.searchsorted(rows, np.arange(num_rows), side="left")
    row_end = np.searchsorted(rows, np.arange(num_rows), side="right")
    sizes = row_end - row_start
    order = np.argsort(-sizes, kind="stable")
    order = order[sizes[order] > 0]
    table_size = len(keys) * 4 + (1 << ROW_SHIFT)
    offsets = _place_rows(keys, order, row_start, row_end, num_rows, table_size)
    slots = offsets[rows] + (keys & ROW_MASK)
    rank_values = np.zeros(int(slots.max()) + 1, dtype=np.int32)
    rank_values[slots] = values

    flush_values = np.zeros(1 << 13, dtype=np.int32)
    for mask in range(1 << 13):
        if mask.bit_count() >= 5:
            flush_values[mask] = flush_strength(mask)

    # int64 throughout: the sums stay below 2**52, and numba turns mixed
    # uint64/int64 arithmetic into floating point.
    card_keys = np.zeros(NUM_CARDS, dtype=np.int64)
    card_bits = np.zeros(NUM_CARDS, dtype=np.int64)
    for c in range(NUM_CARDS):
        r, s = c >> 2, c & 3
        card_keys[c] = RANK_WEIGHTS[r] + (1 << (SUIT_SHIFT + 4 * s))
        card_bits[c] = 1 << (16 * s + r)
    return {
        "row_offsets": offsets.astype(np.int32),
        "rank_values": rank_values,
        "flush_values": flush_values,
        "card_keys": card_keys,
        "card_bits": card_bits,
    }


def _cache_path() -> str:
    base = os.environ.get("POKERBOT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "pokerbot"
    )
    # The key covers everything the tables depend on.
    import hashlib
    import inspect

    import pokerbot.protocol.hand_rank as hr

    digest = hashlib.sha256((inspect.getsource(hr) + repr(RANK_WEIGHTS) + str(ROW_SHIFT)).encode()).hexdigest()[:16]
    return os.path.join(base, f"evaluator-{digest}.npz")


def load_tables() -> dict[str, np.ndarray]:
    """The tables, from the user cache when present (building takes about a second)."""
    path = _cache_path()
    try:
        with np.load(path) as z:
            tables = {k: z[k] for k in z.files}
        if (
            set(tables) == {"row_offsets", "rank_values", "flush_values", "card_keys", "card_bits"}
            and tables["card_keys"].dtype == np.int64
        ):
            return tables
    except (OSError, ValueError, KeyError):
        pass
    tables = build_tables()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp.npz"
        # mypy matches **tables against savez's allow_pickle: bool as well (numpy's stub)
        np.savez(tmp, **tables)  # type: ignore[arg-type]
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home only costs the rebuild next time
    return tables


_T = load_tables()
ROW_OFFSETS: np.ndarray = _T["row_offsets"]
RANK_VALUES: np.ndarray = _T["rank_values"]
FLUSH_VALUES: np.ndarray = _T["flush_values"]
CARD_KEYS: np.ndarray = _T["card_keys"]
CARD_BITS: np.ndarray = _T["card_bits"]
del _T


@nb.njit(cache=True)
def _card_keys(cards, card_keys, card_bits, keys, masks):
    """Per row of ``cards``: the sum of its card keys and the OR of its card bits.
    Returns the number of card indices outside 0..51 (then the output is garbage)."""
    n, k = cards.shape
    bad = 0
    for i in range(n):
        key = 0
        mask = 0
        for j in range(k):
            c = cards[i, j]
            if c < 0 or c >= NUM_CARDS:
                bad += 1
                c = 0
            key += card_keys[c]
            mask |= card_bits[c]
        keys[i] = key
        masks[i] = mask
    return bad


@nb.njit(cache=True)
def _evaluate_rows(cards, card_keys, card_bits, row_offsets, rank_values, flush_values, out):
    """Strengths of the rows of ``cards``, in cache-sized chunks (keys, then lookups)."""
    chunk = 2048
    keys = np.empty(chunk, dtype=np.int64)
    masks = np.empty(chunk, dtype=np.int64)
    bad = 0
    for start in range(0, cards.shape[0], chunk):
        end = min(start + chunk, cards.shape[0])
        m = end - start
        bad += _card_keys(cards[start:end], card_keys, card_bits, keys[:m], masks[:m])
        strengths_from_keys(0, 0, keys[:m], masks[:m], row_offsets, rank_values, flush_values, out[start:end])
    return bad


@nb.njit(cache=True)
def strengths_from_keys(base_key, base_mask, keys, masks, row_offsets, rank_values, flush_values, out):
    """Strength of every hand i made of the cards behind (``keys[i]``, ``masks[i]``)
    plus those behind (``base_key``, ``base_mask``), e.g. a board; -1 where the two
    share a card. The one place where a strength is looked up: callers in numba pass
    the module's tables (``ROW_OFFSETS``, ``RANK_VALUES``, ``FLUSH_VALUES``)."""
    for i in range(keys.shape[0]):
        if masks[i] & base_mask:
            out[i] = -1
            continue
        key = base_key + keys[i]
        flush = ((key >> SUIT_SHIFT) + 0x3333) & 0x8888
        if flush:
            if flush & 0x8:
                s = 0
            elif flush & 0x80:
                s = 1
            elif flush & 0x800:
                s = 2
            else:
                s = 3
            out[i] = flush_values[((base_mask | masks[i]) >> (16 * s)) & 0x1FFF]
        else:
            k = key & 0xFFFFFFFF
            out[i] = rank_values[row_offsets[k >> ROW_SHIFT] + (k & ROW_MASK)]


def _as_cards(a, ndim: int, what: str) -> np.ndarray:
    # uint8 (compact, for bulk work) and int64 are compiled; other integers convert.
    arr = np.asarray(a)
    if arr.dtype not in (np.int64, np.uint8) and arr.dtype.kind in "iu":
        arr = arr.astype(np.int64)
    elif arr.dtype not in (np.int64, np.uint8):
        raise ValueError(f"{what} must hold integer card indices, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr)
    if arr.ndim != ndim:
        raise ValueError(f"{what} must be a {ndim}-d array of card indices, got shape {arr.shape}")
    return arr


def _check_bad(bad: int, what: str) -> None:
    if bad:
        raise ValueError(f"{what}: {bad} card index(es) outside 0..51")


def evaluate_hands(cards) -> np.ndarray:
    """Strengths of many hands: ``cards`` is (n, k) card indices, 1 <= k <= 7, the
    cards of each row distinct. Returns int32 (n,)."""
    arr = _as_cards(cards, 2, "cards")
    if not 1 <= arr.shape[1] <= MAX_CARDS:
        raise ValueError(f"hands of 1..{MAX_CARDS} cards are supported, got {arr.shape[1]}")
    out = np.empty(arr.shape[0], dtype=np.int32)
    bad = _evaluate_rows(arr, CARD_KEYS, CARD_BITS, ROW_OFFSETS, RANK_VALUES, FLUSH_VALUES, out)
    _check_bad(bad, "cards")
    return out


def evaluate(cards) -> int:
    """Strength of one hand given as a sequence of card indices."""
    return int(evaluate_hands(np.asarray([list(cards)], dtype=np.int64))[0])


def hand_keys(hands) -> tuple[np.ndarray, np.ndarray]:
    """Keys and card masks of hands (n, cards per hand), for ``strengths_on_board``.
    Compute them once per hand list; each board then costs one pass."""
    arr = _as_cards(hands, 2, "hands")
    if arr.shape[1] > MAX_CARDS:
        raise ValueError(f"at most {MAX_CARDS} cards per hand, got {arr.shape[1]}")
    keys = np.empty(arr.shape[0], dtype=np.int64)
    masks = np.empty(arr.shape[0], dtype=np.int64)
    _check_bad(_card_keys(arr, CARD_KEYS, CARD_BITS, keys, masks), "hands")
    return keys, masks


def board_key(board) -> tuple[int, int]:
    """Key and card mask of a board (or any set of cards)."""
    keys, masks = hand_keys(_as_cards(board, 1, "board")[None, :])
    return int(keys[0]), int(masks[0])


def strengths_on_board(board, keys: np.ndarray, masks: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Strengths of every hand (given by ``hand_keys``) on one ``board``; -1 for a
    hand that shares a card with the board. This is the solver's batch path; numba
    code calls ``strengths_from_keys`` directly."""
    if len(board) > MAX_CARDS - 1:
        raise ValueError(f"a board of at most {MAX_CARDS - 1} cards, got {len(board)}")
    bkey, bmask = board_key(board)
    if out is None:
        out = np.empty(keys.shape[0], dtype=np.int32)
    strengths_from_keys(bkey, bmask, keys, masks, ROW_OFFSETS, RANK_VALUES, FLUSH_VALUES, out)
    return out


def all_hole_pairs() -> np.ndarray:
    """The 1,326 two-card hands of the full deck, (1326, 2), lower card first."""
    return np.array(list(combinations(range(NUM_CARDS), 2)), dtype=np.int64)
