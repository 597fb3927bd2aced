"""Exact showdown equity of two known hands over every way the board can finish.

Used for the all-in adjustment of match results (as in the Libratus match): when both
players are all-in before the last card, a hand is scored by its expected value over
all remaining boards instead of the one board that fell.
"""

from __future__ import annotations

import os
from functools import lru_cache
from itertools import permutations
from math import comb

import numba as nb
import numpy as np

from . import evaluator as ev

_CHUNK = 4096


@nb.njit(cache=True)
def _runout_counts(rem_keys, rem_masks, k, key0, mask0, key1, mask1, row_offsets, rank_values, flush_values):
    """Wins of hand 0, ties and total over all k-card completions drawn from the
    remaining cards (keys and masks per card)."""
    m = rem_keys.shape[0]
    keys = np.empty(_CHUNK, dtype=np.int64)
    masks = np.empty(_CHUNK, dtype=np.int64)
    out0 = np.empty(_CHUNK, dtype=np.int32)
    out1 = np.empty(_CHUNK, dtype=np.int32)
    wins = 0
    ties = 0
    total = 0
    idx = np.zeros(max(k, 1), dtype=np.int64)
    pk = np.zeros(k + 1, dtype=np.int64)
    pm = np.zeros(k + 1, dtype=np.int64)
    level = 0
    done = False
    while not done:
        # Fill the buffer with the next boards (resumable combination walk) ...
        n = 0
        if k == 0:
            keys[0] = 0
            masks[0] = 0
            n = 1
            done = True
        else:
            while n < _CHUNK:
                if level < 0:
                    done = True
                    break
                if idx[level] > m - (k - level):
                    level -= 1
                    if level >= 0:
                        idx[level] += 1
                    continue
                c = idx[level]
                pk[level + 1] = pk[level] + rem_keys[c]
                pm[level + 1] = pm[level] | rem_masks[c]
                if level == k - 1:
                    keys[n] = pk[k]
                    masks[n] = pm[k]
                    n += 1
                    idx[level] += 1
                else:
                    level += 1
                    idx[level] = idx[level - 1] + 1
        # ... then rank both hands on all of them at once.
        ev.strengths_from_keys(key0, mask0, keys[:n], masks[:n], row_offsets, rank_values, flush_values, out0)
        ev.strengths_from_keys(key1, mask1, keys[:n], masks[:n], row_offsets, rank_values, flush_values, out1)
        for i in range(n):
            if out0[i] > out1[i]:
                wins += 1
            elif out0[i] == out1[i]:
                ties += 1
        total += n
    return wins, ties, total


@nb.njit(cache=True, parallel=True)
def _runout_counts_batch(
    rem_keys,
    rem_masks,
    rem_len,
    k,
    key0,
    mask0,
    key1,
    mask1,
    row_offsets,
    rank_values,
    flush_values,
    wins,
    ties,
    totals,
):
    """Many spots at once, spread over the cores (each spot's own enumeration)."""
    for s in nb.prange(rem_len.shape[0]):
        n = rem_len[s]
        w, t, tot = _runout_counts(
            rem_keys[s, :n],
            rem_masks[s, :n],
            k[s],
            key0[s],
            mask0[s],
            key1[s],
            mask1[s],
            row_offsets,
            rank_values,
            flush_values,
        )
        wins[s] = w
        ties[s] = t
        totals[s] = tot


def _prepare(hole0, hole1, board, deck, board_size: int):
    known = set(hole0) | set(hole1) | set(board)
    if len(known) != len(hole0) + len(hole1) + len(board):
        raise ValueError("the hands and the board share a card")
    if len(hole0) + board_size > ev.MAX_CARDS:
        raise ValueError(f"hands of more than {ev.MAX_CARDS} cards are not supported")
    remaining = np.array([c for c in deck if c not in known], dtype=np.int64)
    k = board_size - len(board)
    if k < 0 or k > len(remaining):
        raise ValueError(f"cannot complete a board of {len(board)} cards to {board_size}")
    rem_keys, rem_masks = ev.hand_keys(remaining[:, None]) if len(remaining) else (np.zeros(0, np.int64),) * 2
    k0, m0 = ev.board_key(list(hole0) + list(board))
    k1, m1 = ev.board_key(list(hole1) + list(board))
    return rem_keys, rem_masks, k, k0, m0, k1, m1


def runout_equity(hole0, hole1, board, deck, board_size: int) -> tuple[float, float]:
    """(P(hand 0 wins), P(tie)) over every completion of ``board`` to ``board_size``
    cards from ``deck`` (the game's cards), all boards equally likely."""
    rem_keys, rem_masks, k, k0, m0, k1, m1 = _prepare(hole0, hole1, board, deck, board_size)
    wins, ties, total = _runout_counts(
        rem_keys, rem_masks, k, k0, m0, k1, m1, ev.ROW_OFFSETS, ev.RANK_VALUES, ev.FLUSH_VALUES
    )
    assert total == comb(len(rem_keys), k)
    return wins / total, ties / total


def runout_equities(spots, deck, board_size: int) -> list[tuple[float, float]]:
    """``runout_equity`` for many (hole0, hole1, board) spots, on all cores."""
    if not spots:
        return []
    prepared = [_prepare(h0, h1, b, deck, board_size) for h0, h1, b in spots]
    n = len(prepared)
    width = max(1, max(len(p[0]) for p in prepared))
    rem_keys = np.zeros((n, width), dtype=np.int64)
    rem_masks = np.zeros((n, width), dtype=np.int64)
    rem_len = np.zeros(n, dtype=np.int64)
    cols = [np.zeros(n, dtype=np.int64) for _ in range(5)]  # k, key0, mask0, key1, mask1
    for s, (keys, masks, k, k0, m0, k1, m1) in enumerate(prepared):
        rem_keys[s, : len(keys)] = keys
        rem_masks[s, : len(masks)] = masks
        rem_len[s] = len(keys)
        for col, v in zip(cols, (k, k0, m0, k1, m1)):
            col[s] = v
    wins = np.zeros(n, dtype=np.int64)
    ties = np.zeros(n, dtype=np.int64)
    totals = np.zeros(n, dtype=np.int64)
    _runout_counts_batch(
        rem_keys,
        rem_masks,
        rem_len,
        cols[0],
        cols[1],
        cols[2],
        cols[3],
        cols[4],
        ev.ROW_OFFSETS,
        ev.RANK_VALUES,
        ev.FLUSH_VALUES,
        wins,
        ties,
        totals,
    )
    return [(w / t, x / t) for w, x, t in zip(wins.tolist(), ties.tolist(), totals.tolist())]


@nb.njit(cache=True)
def equities_on_board(
    board_key, board_mask, keys, masks, c1, c2, row_offsets, rank_values, flush_values, strengths, out
):
    """Showdown equity (wins + ties / 2, per compatible opponent hand, all equally
    likely) of every two-card hand (``keys``/``masks``/cards ``c1``, ``c2``) on one
    complete board; -1 for a hand that shares a card with the board. One sort and one
    sweep with per-card counts for card removal."""
    ev.strengths_from_keys(board_key, board_mask, keys, masks, row_offsets, rank_values, flush_values, strengths)
    order = np.argsort(strengths)
    n = order.shape[0]
    card = np.zeros(ev.NUM_CARDS)
    total = 0.0
    k = 0
    while k < n and strengths[order[k]] < 0:
        out[order[k]] = -1.0
        k += 1
    first_live = k
    while k < n:
        s = strengths[order[k]]
        e = k
        while e < n and strengths[order[e]] == s:
            e += 1
        for t in range(k, e):  # strictly weaker, compatible
            h = order[t]
            out[h] = total - card[c1[h]] - card[c2[h]]
        for t in range(k, e):
            h = order[t]
            total += 1.0
            card[c1[h]] += 1.0
            card[c2[h]] += 1.0
        for t in range(k, e):  # weaker or tied, compatible, the hand itself removed
            h = order[t]
            wt = total - card[c1[h]] - card[c2[h]] + 1.0
            out[h] = (out[h] + wt) / 2.0  # W + T / 2 = (W + (W + T)) / 2
        k = e
    for t in range(first_live, n):
        h = order[t]
        out[h] /= total - card[c1[h]] - card[c2[h]] + 1.0


def range_equity(hero, board, weights: np.ndarray) -> float:
    """The hero's exact showdown equity against a range: ``weights`` over the 1,326
    hole pairs of ``evaluator.all_hole_pairs`` (need not be normalised), over every
    way the board (none, or 3 to 5 cards) can finish; hands sharing a card with the
    hero, the board or a completion do not count there. 0.5 when no hand of the range
    is left. Before the flop it uses ``preflop_equities``."""
    board = [int(c) for c in board]
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.shape != (1326,):
        raise ValueError(f"weights over the 1326 hole pairs, got shape {weights.shape}")
    if not board:
        live = weights * _live_against(hero)
        total = live.sum()
        return float(live @ preflop_equities(hero) / total) if total > 0 else 0.5
    their_wins, total = _counts_against(hero, board)  # each hand's wins against the hero
    seen = float(weights @ total)
    return float(weights @ (total - their_wins)) / seen if seen > 0 else 0.5


@nb.njit(cache=True)
def _equities_against(board, villain_hand, remaining, k, hands, tables, win, total):
    """Per hand, (wins + ties / 2) and completions counted against one villain hand,
    over every completion of the board by k in {0, 1, 2} of the remaining cards (those
    not on the board or in the villain's hand); a hand sharing a card with the
    villain, the board or a completion does not count there. ``board`` and
    ``villain_hand``: (key, mask), ``remaining`` and ``hands``: (keys, masks), as
    ``evaluator.board_key`` and ``hand_keys`` give them; ``tables``: the evaluator's
    row offsets, rank values and flush values."""
    board_key, board_mask = board
    villain_key, villain_mask = villain_hand
    rem_keys, rem_masks = remaining
    keys, masks = hands
    row_offsets, rank_values, flush_values = tables
    strengths = np.empty(keys.shape[0], dtype=np.int32)
    villain = np.empty(1, dtype=np.int32)
    m = rem_keys.shape[0]
    villain_keys = np.empty(1, dtype=np.int64)
    villain_masks = np.empty(1, dtype=np.int64)
    villain_keys[0] = villain_key
    villain_masks[0] = villain_mask
    first_end = m if k >= 1 else 1
    for a in range(first_end):
        second_start = a + 1 if k == 2 else 0
        second_end = m if k == 2 else 1
        for b in range(second_start, second_end):
            bk = board_key
            bm = board_mask
            if k >= 1:
                bk += rem_keys[a]
                bm |= rem_masks[a]
            if k == 2:
                bk += rem_keys[b]
                bm |= rem_masks[b]
            ev.strengths_from_keys(bk, bm, villain_keys, villain_masks, row_offsets, rank_values, flush_values, villain)
            ev.strengths_from_keys(bk, bm, keys, masks, row_offsets, rank_values, flush_values, strengths)
            theirs = villain[0]
            for h in range(keys.shape[0]):
                if strengths[h] < 0 or (masks[h] & villain_mask) != 0:
                    continue
                total[h] += 1.0
                if strengths[h] > theirs:
                    win[h] += 1.0
                elif strengths[h] == theirs:
                    win[h] += 0.5


def equities_against(villain, board) -> np.ndarray:
    """Every hole pair's exact showdown equity (wins + ties / 2) against one known
    hand, over every way the board (none, or 3 to 5 cards) can finish: a vector over
    the 1,326 pairs of ``evaluator.all_hole_pairs``, NaN for pairs sharing a card with
    the villain or the board. Before the flop it uses ``preflop_equities``."""
    villain = [int(c) for c in villain]
    board = [int(c) for c in board]
    pairs = ev.all_hole_pairs()
    blocked = np.zeros(ev.NUM_CARDS, dtype=bool)
    blocked[villain + board] = True
    dead = blocked[pairs[:, 0]] | blocked[pairs[:, 1]]
    if not board:
        out = 1.0 - preflop_equities(villain)
        out[dead] = np.nan
        return out
    win, total = _counts_against(villain, board)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = win / total
    out[dead] = np.nan
    return out


def _counts_against(villain: list[int], board: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Per hole pair, (wins + ties / 2) and completions counted against ``villain``
    over every completion of a board of 3 to 5 cards (``_equities_against``); the last
    few answers are kept (read-only), since a hand asks about one board many times."""
    return _cached_counts_against(tuple(sorted(int(c) for c in villain)), tuple(int(c) for c in board))


@lru_cache(maxsize=16)
def _cached_counts_against(villain_cards: tuple[int, ...], board: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    villain = list(villain_cards)
    if not 3 <= len(board) <= 5:
        raise ValueError(f"a board of 0 or 3 to 5 cards, got {len(board)}")
    if len(set(villain) | set(board)) != len(villain) + len(board):
        raise ValueError("the hand and the board share a card")
    used = set(villain) | set(board)
    remaining = [c for c in range(ev.NUM_CARDS) if c not in used]
    remaining_cards = ev.hand_keys(np.array(remaining, dtype=np.int64)[:, None])
    keys, masks = _range_keys()
    win = np.zeros(keys.shape[0])
    total = np.zeros(keys.shape[0])
    tables = (ev.ROW_OFFSETS, ev.RANK_VALUES, ev.FLUSH_VALUES)
    _equities_against(
        ev.board_key(board), ev.board_key(villain), remaining_cards, 5 - len(board), (keys, masks), tables, win, total
    )
    win.flags.writeable = False
    total.flags.writeable = False
    return win, total


_RANGE_KEYS: tuple[np.ndarray, np.ndarray] | None = None


def _range_keys() -> tuple[np.ndarray, np.ndarray]:
    global _RANGE_KEYS
    if _RANGE_KEYS is None:
        _RANGE_KEYS = ev.hand_keys(ev.all_hole_pairs())
    return _RANGE_KEYS


_SUIT_PERMUTATIONS = [tuple(p) for p in permutations(range(4))]
#: Exact preflop equities already known, by (canonical hero, canonical opponent hand):
#: from the table shipped beside this module, else computed (and kept for the process).
_PREFLOP: dict[tuple, float] = {}
#: Every canonical (hero, opponent) pair's exact preflop equity, written by
#: ``write_preflop_table`` (``python -m pokerbot.solver.equity --write-preflop-table``).
PREFLOP_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "preflop_equity.npz")
#: 5-card boards of the 48 cards two hands leave: the table's denominator.
PREFLOP_BOARDS = comb(48, 5)
_TABLE_LOADED = False
#: preflop_equities' answers by hero, for the process (a query is then a lookup).
_BY_HERO: dict[tuple[int, ...], np.ndarray] = {}


def _permute(cards, perm) -> tuple[int, ...]:
    return tuple(sorted((c & ~3) | perm[c & 3] for c in cards))


def _canonical_keys(hero) -> tuple[tuple[int, ...], list[tuple[int, ...] | None]]:
    """The hero's canonical form and, per hole pair, the pair's canonical form under the
    suit permutations that take the hero there (None for pairs sharing a hero card)."""
    images = [(_permute(hero, p), p) for p in _SUIT_PERMUTATIONS]
    canon = min(h for h, _ in images)
    perms = [p for h, p in images if h == canon]  # every suit permutation taking the hero to canon
    keys: list[tuple[int, ...] | None] = []
    for a, b in ev.all_hole_pairs().tolist():
        if a in hero or b in hero:
            keys.append(None)
        else:
            keys.append(min(_permute((a, b), p) for p in perms))
    return canon, keys


def _load_preflop_table() -> None:
    global _TABLE_LOADED
    _TABLE_LOADED = True
    if not os.path.exists(PREFLOP_TABLE):
        return
    with np.load(PREFLOP_TABLE) as t:
        pairs, counts = t["pairs"], t["doubled_wins"]
    for (a, b, c, d), n in zip(pairs.tolist(), counts.tolist()):
        _PREFLOP[((a, b), (c, d))] = n / (2.0 * PREFLOP_BOARDS)


def preflop_equities(hero) -> np.ndarray:
    """The hero's exact showdown equity (wins + ties / 2) against each of the 1,326
    hole pairs of ``evaluator.all_hole_pairs`` over every 5-card board of the other 48
    cards (0 for pairs sharing a card with the hero). Read from the shipped table;
    without it, pairs equal up to a permutation of suits that keeps the hero's hand are
    computed once and kept for the process (a new hero class: a few seconds)."""
    hero = tuple(sorted(int(c) for c in hero))
    if len(hero) != 2 or len(set(hero)) != 2 or not all(0 <= c < ev.NUM_CARDS for c in hero):
        raise ValueError(f"a hero hand is two distinct cards, got {hero}")
    if hero in _BY_HERO:
        return _BY_HERO[hero].copy()
    if not _TABLE_LOADED:
        _load_preflop_table()
    canon, keys = _canonical_keys(hero)
    missing = sorted({k for k in keys if k is not None and (canon, k) not in _PREFLOP})
    if missing:
        found = runout_equities([(list(canon), list(k), []) for k in missing], list(range(ev.NUM_CARDS)), 5)
        for k, (win, tie) in zip(missing, found):  # as the table holds it: an exact count
            _PREFLOP[(canon, k)] = round((2 * win + tie) * PREFLOP_BOARDS) / (2.0 * PREFLOP_BOARDS)
    _BY_HERO[hero] = np.array([0.0 if k is None else _PREFLOP[(canon, k)] for k in keys])
    return _BY_HERO[hero].copy()


def canonical_preflop_pairs() -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every (canonical hero, canonical opponent) pair: what the table holds."""
    heroes = sorted({_canonical_keys(tuple(h))[0] for h in ev.all_hole_pairs().tolist()})
    out: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for hero in heroes:
        _, keys = _canonical_keys(hero)
        out.extend((hero, k) for k in sorted({k for k in keys if k is not None}))
    return out


def write_preflop_table(path: str = PREFLOP_TABLE, batch: int = 2000, progress=None) -> int:
    """Compute every canonical pair's exact preflop equity (all cores) and write the
    table atomically; returns the number of pairs. ``progress(done, total)`` after
    each batch."""
    pairs = canonical_preflop_pairs()
    counts = np.zeros(len(pairs), dtype=np.int32)
    for start in range(0, len(pairs), batch):
        chunk = pairs[start : start + batch]
        found = runout_equities([(list(h), list(v), []) for h, v in chunk], list(range(ev.NUM_CARDS)), 5)
        for i, (win, tie) in enumerate(found):
            counts[start + i] = int(round((2 * win + tie) * PREFLOP_BOARDS))
        if progress is not None:
            progress(min(start + batch, len(pairs)), len(pairs))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp.npz"
    np.savez_compressed(tmp, pairs=np.array([h + v for h, v in pairs], dtype=np.int8), doubled_wins=counts)
    os.replace(tmp, path)
    return len(pairs)


def _live_against(hero) -> np.ndarray:
    pairs = ev.all_hole_pairs()
    a, b = int(hero[0]), int(hero[1])
    return ~((pairs[:, 0] == a) | (pairs[:, 1] == a) | (pairs[:, 0] == b) | (pairs[:, 1] == b))


if __name__ == "__main__":
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="write the exact preflop equity table shipped with the package")
    parser.add_argument("--write-preflop-table", metavar="PATH", nargs="?", const=PREFLOP_TABLE)
    args = parser.parse_args()
    if args.write_preflop_table is None:
        parser.error("nothing to do: give --write-preflop-table [PATH]")

    def report(done: int, total: int) -> None:
        print(f"preflop table: {done:,}/{total:,} pairs", file=sys.stderr, flush=True)

    n = write_preflop_table(args.write_preflop_table, progress=report)
    print(f"wrote {n:,} pairs to {args.write_preflop_table}")
