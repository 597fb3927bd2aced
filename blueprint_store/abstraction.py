"""Card abstraction for hold'em: which bucket a hand is in, round by round.

- Preflop: lossless, the 169 suit-isomorphism classes.
- Flop and turn: k-means over *equity distributions* with the earth mover's distance
  (the distribution-aware abstraction of the Libratus/Pluribus line of work). A hand's
  distribution is the histogram of its final (river) equity against a uniformly random
  opponent hand over the runouts still to come; for one-dimensional histograms the
  EMD is the L1 distance between the cumulative histograms. Centres are fitted on a
  sample of boards, then every suit-isomorphism class (1,286,792 on the flop,
  55,190,538 on the turn) is assigned to its nearest centre; the tables are indexed
  by ``indexer.HandIndexer`` classes. Buckets are numbered by mean equity, weakest 0.
- River: no table (2.4 billion classes would be too large): the bucket is computed
  on the fly from the hand's equity against a uniformly random opponent hand on the
  full board (its sorted-strength percentile, ties half), cut into equal slices.

Runouts can be sampled per board (``*_runouts``) to trade accuracy for build time; the
sample is drawn from the spec's seed, so a build is reproducible.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import NamedTuple

import numba as nb
import numpy as np

from pokerbot.solver import evaluator as ev
from pokerbot.solver.equity import equities_on_board
from pokerbot.solver.mccfr import Deals
from pokerbot.solver.ranges import board_mask, hand_masks

from .indexer import BINOM, SCRATCH_SIZE, HandIndexer, index_with_scratch

#: A progress callback for long work: (phase, done, total, unit, status), e.g.
#: ("flop buckets", 870, 1755, "boards", ""); the caller shows it (a bar, a log line).
Progress = Callable[[str, float, float, str, str], None]

HOLDEM_ROUNDS = (2, 3, 1, 1)
UNASSIGNED = 65535
HOLE_PAIRS = ev.all_hole_pairs()
#: each hole pair's 52-bit card mask (``solver.ranges.hand_masks``)
HOLE_PAIR_MASKS = hand_masks(HOLE_PAIRS)
_KEYS, _MASKS = ev.hand_keys(HOLE_PAIRS)
_CARD1 = np.ascontiguousarray(HOLE_PAIRS[:, 0])
_CARD2 = np.ascontiguousarray(HOLE_PAIRS[:, 1])


class HandTables(NamedTuple):
    """What a histogram of river equities reads: every hole pair's evaluator key and
    card mask and its two cards, and the evaluator's tables."""

    keys: np.ndarray
    masks: np.ndarray
    c1: np.ndarray
    c2: np.ndarray
    row_offsets: np.ndarray
    rank_values: np.ndarray
    flush_values: np.ndarray


_HAND_TABLES = HandTables(
    _KEYS, _MASKS, HOLE_PAIRS[:, 0].copy(), HOLE_PAIRS[:, 1].copy(), ev.ROW_OFFSETS, ev.RANK_VALUES, ev.FLUSH_VALUES
)


@dataclass(frozen=True)
class CardAbstractionSpec:
    """Bucket counts per round (preflop must be 169: lossless) and how the flop and
    turn tables are built."""

    buckets: tuple[int, int, int, int] = (169, 200, 200, 200)
    bins: int = 16  # equity histogram bins
    flop_runouts: int = 0  # (turn, river) pairs sampled per flop board; 0: all 1,081
    turn_runouts: int = 0  # rivers per turn board; 0: all 46
    fit_flop_boards: int = 400  # boards whose hands the flop centres are fitted on
    fit_turn_boards: int = 1500
    kmeans_iterations: int = 12
    seed: int = 0

    def verify(self) -> None:
        if len(self.buckets) != 4 or self.buckets[0] != 169:
            raise ValueError(f"buckets must be (169, flop, turn, river), got {self.buckets}")
        if min(self.buckets[1:]) < 1 or max(self.buckets[1:]) >= UNASSIGNED:
            raise ValueError(f"flop, turn and river bucket counts must be in 1..{UNASSIGNED - 1}")
        if not 2 <= self.bins <= 255:
            raise ValueError("bins must be in 2..255")
        if self.flop_runouts < 0 or self.turn_runouts < 0:
            raise ValueError("runout counts cannot be negative")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class CardAbstraction:
    spec: CardAbstractionSpec
    preflop: np.ndarray  # (1326,) uint16: hole-pair index -> class (0..168)
    flop: np.ndarray  # (1,286,792,) uint16
    turn: np.ndarray  # (55,190,538,) uint16
    build_seconds: float = 0.0


def stand_in_cards(buckets: tuple[int, int, int, int]) -> CardAbstraction:
    """A card abstraction with ``buckets`` per round whose buckets say nothing about
    strength (a hand's class number modulo the round's count): for timing training and
    solving, whose cost does not depend on how hands are grouped, without the hours a
    real fit takes. The river's buckets are computed when asked, as for any abstraction."""
    ix = HandIndexer(HOLDEM_ROUNDS)
    return CardAbstraction(
        CardAbstractionSpec(buckets=buckets),
        ix.index_many(HOLE_PAIRS).astype(np.uint16),
        (np.arange(ix.size(1)) % buckets[1]).astype(np.uint16),
        (np.arange(ix.size(2)) % buckets[2]).astype(np.uint16),
    )


# ----------------------------------------------------------------------- kernels
@nb.njit(cache=True)
def _histograms(board, runouts, bins, ht, hist, counts):
    """hist[h, b]: how many of the ``runouts`` (rows of cards completing ``board``)
    give hand h a river equity in bin b; counts[h]: runouts compatible with h (the
    hands and tables of ``ht``, a ``HandTables``)."""
    H = ht.keys.shape[0]
    for h in range(H):
        counts[h] = 0
        for b in range(bins):
            hist[h, b] = 0.0
    full = np.empty(5, dtype=np.int64)
    for j in range(board.shape[0]):
        full[j] = board[j]
    strengths = np.empty(H, dtype=np.int32)
    eqs = np.empty(H)
    for r in range(runouts.shape[0]):
        for j in range(runouts.shape[1]):
            full[board.shape[0] + j] = runouts[r, j]
        bkey = 0
        bmask = 0
        for j in range(5):
            bkey += ev.CARD_KEYS[full[j]]
            bmask |= ev.CARD_BITS[full[j]]
        equities_on_board(
            bkey,
            bmask,
            ht.keys,
            ht.masks,
            ht.c1,
            ht.c2,
            ht.row_offsets,
            ht.rank_values,
            ht.flush_values,
            strengths,
            eqs,
        )
        for h in range(H):
            e = eqs[h]
            if e < 0.0:
                continue
            b = int(e * bins)
            if b >= bins:
                b = bins - 1
            hist[h, b] += 1.0
            counts[h] += 1


@nb.njit(cache=True)
def _to_cdf(hist, counts, h, bins, out):
    acc = 0.0
    for b in range(bins):
        acc += hist[h, b]
        out[b] = acc / counts[h]


@nb.njit(cache=True)
def cdf_mean(cdf, bins):
    """Mean equity from a cumulative histogram (bin centres)."""
    m = 0.0
    prev = 0.0
    for b in range(bins):
        m += (cdf[b] - prev) * (b + 0.5) / bins
        prev = cdf[b]
    return m


@nb.njit(cache=True)
def nearest_centre(cdf, mean, centers, center_means, by_mean):
    """Index of the centre with the smallest EMD to ``cdf``. Centres are scanned
    outward from the closest mean; |mean difference| <= EMD ends the scan early."""
    k = centers.shape[0]
    bins = centers.shape[1]
    # first centre (in by_mean order) whose mean is >= the point's
    lo = 0
    hi = k
    while lo < hi:
        mid = (lo + hi) // 2
        if center_means[by_mean[mid]] < mean:
            lo = mid + 1
        else:
            hi = mid
    best = -1
    best_d = 1e30
    left = lo - 1
    right = lo
    while left >= 0 or right < k:
        dl = mean - center_means[by_mean[left]] if left >= 0 else 1e30
        dr = center_means[by_mean[right]] - mean if right < k else 1e30
        if dl <= dr:
            j = by_mean[left]
            bound = dl
            left -= 1
        else:
            j = by_mean[right]
            bound = dr
            right += 1
        if bound >= best_d:
            break
        d = 0.0
        for b in range(bins):
            d += abs(cdf[b] - centers[j, b])
        d /= bins
        if d < best_d:
            best_d = d
            best = j
    return best


@nb.njit(cache=True, parallel=True)
def _assign_boards(
    boards,
    runouts_all,
    runout_len,
    bins,
    round_end,
    rounds,
    keys_cfg,
    offsets_cfg,
    binom,
    centers,
    center_means,
    by_mean,
    table,
    ht,
):
    """For every board (row), the histograms of all hands, then each live hand's
    class gets its nearest centre's bucket."""
    H = ht.keys.shape[0]
    nb_cards = boards.shape[1]
    for i in nb.prange(boards.shape[0]):
        hist = np.empty((H, bins))
        counts = np.empty(H, dtype=np.int64)
        cdf = np.empty(bins)
        cards = np.empty(2 + nb_cards, dtype=np.int64)
        scratch = np.empty(SCRATCH_SIZE, dtype=np.int64)
        board = boards[i]
        _histograms(board, runouts_all[i, : runout_len[i]], bins, ht, hist, counts)
        for j in range(nb_cards):
            cards[2 + j] = board[j]
        for h in range(H):
            if counts[h] == 0:
                if (ht.masks[h] & _board_mask(board)) != 0:
                    continue  # the hand holds a board card
                # every sampled runout holds one of its cards: use runouts that do not
                _fallback_histogram(board, h, runouts_all.shape[2], bins, ht, hist, counts)
            cards[0] = ht.c1[h]
            cards[1] = ht.c2[h]
            _to_cdf(hist, counts, h, bins, cdf)
            table[index_with_scratch(cards, round_end, rounds, keys_cfg, offsets_cfg, binom, scratch)] = nearest_centre(
                cdf, cdf_mean(cdf, bins), centers, center_means, by_mean
            )


@nb.njit(cache=True)
def _board_mask(board):
    m = 0
    for j in range(board.shape[0]):
        m |= ev.CARD_BITS[board[j]]
    return m


@nb.njit(cache=True)
def _fallback_histogram(board, h, k, bins, ht, hist, counts):
    """Histogram of hand h over up to 8 runouts of k cards avoiding its cards and the
    board's (the lowest free cards, stepping through the deck)."""
    used = _board_mask(board) | ht.masks[h]
    free = np.empty(52, dtype=np.int64)
    n = 0
    for c in range(52):
        if (used & ev.CARD_BITS[c]) == 0:
            free[n] = c
            n += 1
    runouts = np.empty((8, k), dtype=np.int64)
    m = 0
    for r in range(8):
        for j in range(k):  # distinct: n > 3 free cards
            runouts[r, j] = free[(r * 5 + j * 3) % n]
        m += 1
    tmp_hist = np.zeros((ht.keys.shape[0], bins))
    tmp_counts = np.zeros(ht.keys.shape[0], dtype=np.int64)
    _histograms(board, runouts[:m], bins, ht, tmp_hist, tmp_counts)
    for b in range(bins):
        hist[h, b] = tmp_hist[h, b]
    counts[h] = tmp_counts[h]


@nb.njit(cache=True, parallel=True)
def _sample_points(boards, runouts_all, runout_len, bins, ht, out, out_len):
    """CDFs of every live hand on each board (for fitting): out[i, h] (NaN-free rows
    counted in out_len[i])."""
    H = ht.keys.shape[0]
    for i in nb.prange(boards.shape[0]):
        hist = np.empty((H, bins))
        counts = np.empty(H, dtype=np.int64)
        cdf = np.empty(bins)
        _histograms(boards[i], runouts_all[i, : runout_len[i]], bins, ht, hist, counts)
        n = 0
        for h in range(H):
            if counts[h] == 0:
                continue
            _to_cdf(hist, counts, h, bins, cdf)
            for b in range(bins):
                out[i, n, b] = cdf[b]
            n += 1
        out_len[i] = n


@nb.njit(cache=True, parallel=True)
def _assign_points(points, centers, center_means, by_mean, labels):
    bins = points.shape[1]
    for p in nb.prange(points.shape[0]):
        labels[p] = nearest_centre(points[p], cdf_mean(points[p], bins), centers, center_means, by_mean)


def kmeans_emd(points: np.ndarray, k: int, iterations: int, rng: np.random.Generator) -> np.ndarray:
    """k-means on cumulative histograms with the EMD (L1 between CDFs) for assignment
    and mean histograms as centres; k-means++ seeding on a subsample. Returns the
    centres (k, bins) ordered by mean equity."""
    n, bins = points.shape
    if n == 0:
        raise ValueError("no points to cluster")
    k = min(k, n)
    seed_pool = points[rng.choice(n, min(n, 20_000), replace=False)]
    centers = np.empty((k, bins))
    centers[0] = seed_pool[rng.integers(len(seed_pool))]
    dist = np.abs(seed_pool - centers[0]).mean(axis=1)
    for j in range(1, k):  # k-means++: next centre with probability ~ distance^2
        w = dist**2
        total = w.sum()
        pick = rng.choice(len(seed_pool), p=w / total) if total > 0 else rng.integers(len(seed_pool))
        centers[j] = seed_pool[pick]
        dist = np.minimum(dist, np.abs(seed_pool - centers[j]).mean(axis=1))
    labels = np.empty(n, dtype=np.int64)
    for _ in range(iterations):
        cm = np.array([cdf_mean(c, bins) for c in centers])
        order = np.argsort(cm).astype(np.int64)
        _assign_points(points, centers, cm, order, labels)
        sums = np.zeros((k, bins))
        np.add.at(sums, labels, points)
        sizes = np.bincount(labels, minlength=k)
        empty = np.nonzero(sizes == 0)[0]
        new = np.where(sizes[:, None] > 0, sums / np.maximum(sizes, 1)[:, None], centers)
        if len(empty):  # re-seed empty clusters at random points
            new[empty] = points[rng.choice(n, len(empty), replace=False)]
        if np.allclose(new, centers):
            centers = new
            break
        centers = new
    cm = np.array([cdf_mean(c, bins) for c in centers])
    return centers[np.argsort(cm)]


# ----------------------------------------------------------------------- building
def canonical_boards(cards_per_round: tuple[int, ...]) -> np.ndarray:
    """One board per suit-isomorphism class of boards dealt in rounds of
    ``cards_per_round`` cards (flop: (3,) -> 1,755 boards; turn: (3, 1) -> 63,193)."""
    indexer = HandIndexer(cards_per_round)
    first = list(combinations(range(52), cards_per_round[0]))
    if len(cards_per_round) == 1:
        rows = np.array(first, dtype=np.int64)
    else:
        boards: list[tuple[int, ...]] = []
        for f in first:
            for c in range(52):
                if c not in f:
                    boards.append(f + (c,))
        rows = np.array(boards, dtype=np.int64)
    idx = indexer.index_many(rows)
    _, first_of = np.unique(idx, return_index=True)
    return rows[np.sort(first_of)]


def _runouts(boards: np.ndarray, k: int, sample: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per board, the k-card completions (all, or ``sample`` of them without
    replacement); padded rows and their counts."""
    allc = None
    out = []
    for b in boards:
        rest = [c for c in range(52) if c not in set(b.tolist())]
        allc = np.array(list(combinations(rest, k)), dtype=np.int64)
        if sample and sample < len(allc):
            allc = allc[rng.choice(len(allc), sample, replace=False)]
        out.append(allc)
    width = max(len(o) for o in out)
    padded = np.zeros((len(boards), width, k), dtype=np.int64)
    lens = np.zeros(len(boards), dtype=np.int64)
    for i, o in enumerate(out):
        padded[i, : len(o)] = o
        lens[i] = len(o)
    return padded, lens


def build_round(
    name: str,
    board_rounds: tuple[int, ...],
    k: int,
    spec: CardAbstractionSpec,
    runouts: int,
    fit_boards: int,
    rng: np.random.Generator,
    log: Callable[[str], None],
    progress: Progress | None = None,
) -> np.ndarray:
    boards = canonical_boards(board_rounds)
    rounds = len(board_rounds) + 1
    indexer = HandIndexer(HOLDEM_ROUNDS)
    buckets = spec.buckets[rounds - 1]
    t0 = time.perf_counter()
    fit = boards[rng.choice(len(boards), min(fit_boards, len(boards)), replace=False)]
    fit_runouts, fit_lens = _runouts(fit, k, runouts, rng)
    pts = np.zeros((len(fit), 1326, spec.bins))
    pts_len = np.zeros(len(fit), dtype=np.int64)
    _sample_points(fit, fit_runouts, fit_lens, spec.bins, _HAND_TABLES, pts, pts_len)
    points = np.concatenate([pts[i, : pts_len[i]] for i in range(len(fit))])
    del pts
    log(
        f"{name}: {len(points):,} hands on {len(fit)} boards sampled in {time.perf_counter() - t0:.1f} s; "
        f"fitting {buckets} centres"
    )
    centers = kmeans_emd(points, buckets, spec.kmeans_iterations, rng)
    cm = np.array([cdf_mean(c, spec.bins) for c in centers])
    by_mean = np.argsort(cm).astype(np.int64)
    table = np.full(indexer.size(rounds - 1), UNASSIGNED, dtype=np.uint16)
    t = indexer.tables[rounds - 1]
    round_end = indexer.round_end(rounds - 1)
    chunk = max(1, len(boards) // 20)
    for start in range(0, len(boards), chunk):
        part = boards[start : start + chunk]
        ro, lens = _runouts(part, k, runouts, rng)
        _assign_boards(
            part,
            ro,
            lens,
            spec.bins,
            round_end,
            rounds,
            t.keys,
            t.offsets,
            BINOM,
            centers,
            cm,
            by_mean,
            table,
            _HAND_TABLES,
        )
        done = min(start + chunk, len(boards))
        el = time.perf_counter() - t0
        if progress is not None:
            progress(f"{name} buckets", done, len(boards), "boards", "")
        else:
            left = el / done * (len(boards) - done)
            log(f"{name}: {done:,}/{len(boards):,} boards, {el:.0f} s, about {left:.0f} s left")
    missing = int((table == UNASSIGNED).sum())
    if missing:
        raise AssertionError(f"{name}: {missing} hand classes were not reached by any board")
    return table


def build_card_abstraction(
    spec: CardAbstractionSpec = CardAbstractionSpec(),
    log: Callable[[str], None] = print,
    progress: Progress | None = None,
) -> CardAbstraction:
    """Build the preflop, flop and turn tables (messages through ``log``; the boards
    done through ``progress`` when given, else through ``log`` too)."""
    spec.verify()
    t0 = time.perf_counter()
    rng = np.random.default_rng(spec.seed)
    indexer = HandIndexer(HOLDEM_ROUNDS)
    preflop = indexer.index_many(HOLE_PAIRS).astype(np.uint16)
    flop = build_round("flop", (3,), 2, spec, spec.flop_runouts, spec.fit_flop_boards, rng, log, progress)
    turn = build_round("turn", (3, 1), 1, spec, spec.turn_runouts, spec.fit_turn_boards, rng, log, progress)
    return CardAbstraction(spec, preflop, flop, turn, time.perf_counter() - t0)


# ----------------------------------------------------------------------- using it
_PAIR = np.full((52, 52), -1, dtype=np.int64)
for _i, (_a, _b) in enumerate(HOLE_PAIRS.tolist()):
    _PAIR[_a, _b] = _PAIR[_b, _a] = _i


@nb.njit(cache=True)
def _river_equity(strengths, masks, h):
    """Equity of hand h against a uniformly random compatible hand, given every
    hand's strength on the board (-1: blocked)."""
    s = strengths[h]
    mine = masks[h]
    win = 0.0
    tie = 0.0
    total = 0.0
    for j in range(strengths.shape[0]):
        sj = strengths[j]
        if sj < 0 or (masks[j] & mine):
            continue
        total += 1.0
        if sj < s:
            win += 1.0
        elif sj == s:
            tie += 1.0
    return (win + 0.5 * tie) / total


@nb.njit(cache=True)
def _equity_less_sharers(strengths, pair, a, b, below, level, live):
    """The equity of the hand (a, b) from the counts of live hands (strength >= 0)
    below and level with it over all hands, less the hands holding a or b."""
    s = strengths[pair[a, b]]
    level -= 1  # the hand itself
    total = live - 1
    for c in range(52):
        if c == a or c == b:
            continue
        sa = strengths[pair[a, c]]
        sb = strengths[pair[b, c]]
        if sa >= 0:
            total -= 1
            below -= sa < s
            level -= sa == s
        if sb >= 0:
            total -= 1
            below -= sb < s
            level -= sb == s
    return (below + 0.5 * level) / total


@nb.njit(cache=True)
def _river_equities(strengths, pair, cards):
    """``_river_equity`` of both players' hands in one deal (``cards``: hole0, hole1,
    board; ``pair``: the hand of two cards): the same two numbers. One branch-free
    sweep counts every hand below and level with each player's strength; the hands
    that share a card with a player's (about 90, found through ``pair``) are then
    taken out of that player's counts, so no hand's cards are compared in the sweep."""
    s0 = strengths[pair[cards[0], cards[1]]]
    s1 = strengths[pair[cards[2], cards[3]]]
    live = below0 = level0 = below1 = level1 = 0
    for j in range(strengths.shape[0]):
        sj = strengths[j]
        live += sj >= 0
        below0 += sj < s0  # a hand the board blocks (-1) is below both: taken out below
        level0 += sj == s0
        below1 += sj < s1
        level1 += sj == s1
    blocked = strengths.shape[0] - live
    e0 = _equity_less_sharers(strengths, pair, cards[0], cards[1], below0 - blocked, level0, live)
    e1 = _equity_less_sharers(strengths, pair, cards[2], cards[3], below1 - blocked, level1, live)
    return e0, e1


@nb.njit(cache=True)
def _river_buckets(strengths, c1, c2, n, out):
    """out[h] = the river bucket of every hand h not blocked (strength >= 0), as
    ``_river_equity`` and ``_bucket_of_equity`` give it one hand at a time, in one
    sweep up the strengths: the compatible hands below, level with and in all are
    counts less those holding one of h's cards (``c1``, ``c2``: each hand's cards),
    so the equity is the same number."""
    H = strengths.shape[0]
    order = np.argsort(strengths, kind="mergesort")
    card_all = np.zeros(52, dtype=np.int64)
    card_below = np.zeros(52, dtype=np.int64)
    card_level = np.zeros(52, dtype=np.int64)
    live = 0
    t = H
    for x in range(H):
        h = order[x]
        if strengths[h] >= 0:
            live += 1
            card_all[c1[h]] += 1
            card_all[c2[h]] += 1
            if t == H:
                t = x
    below = 0
    while t < H:
        s = strengths[order[t]]
        u = t
        while u < H and strengths[order[u]] == s:
            h = order[u]
            card_level[c1[h]] += 1
            card_level[c2[h]] += 1
            u += 1
        level = u - t
        for x in range(t, u):
            h = order[x]
            a, b = c1[h], c2[h]
            total = live - card_all[a] - card_all[b] + 1  # h itself holds both cards
            win = below - card_below[a] - card_below[b]
            tie = level - card_level[a] - card_level[b] + 1
            out[h] = _bucket_of_equity((win + 0.5 * tie) / total, n)
        for x in range(t, u):
            h = order[x]
            card_level[c1[h]] -= 1
            card_level[c2[h]] -= 1
            card_below[c1[h]] += 1
            card_below[c2[h]] += 1
        below += level
        t = u


@nb.njit(cache=True)
def _bucket_of_equity(e, n):
    b = int(e * n)
    return n - 1 if b >= n else b


class DealTables(NamedTuple):
    """What bucketing a deal reads: the abstraction's tables (preflop by hole pair,
    flop and turn by suit-isomorphic index, the river's bucket count), the indexer's
    tables for the flop and turn, and the evaluator's."""

    preflop: np.ndarray
    flop: np.ndarray
    turn: np.ndarray
    river_buckets: int
    pair: np.ndarray
    f_end: np.ndarray  # cards dealt by the end of each round up to the flop
    f_keys: np.ndarray
    f_offsets: np.ndarray
    t_end: np.ndarray
    t_keys: np.ndarray
    t_offsets: np.ndarray
    binom: np.ndarray
    keys: np.ndarray
    masks: np.ndarray
    row_offsets: np.ndarray
    rank_values: np.ndarray
    flush_values: np.ndarray


def deal_tables(abstraction: CardAbstraction) -> DealTables:
    ix = HandIndexer(HOLDEM_ROUNDS)
    return DealTables(
        abstraction.preflop,
        abstraction.flop,
        abstraction.turn,
        int(abstraction.spec.buckets[3]),
        _PAIR,
        ix.round_end(1),
        ix.tables[1].keys,
        ix.tables[1].offsets,
        ix.round_end(2),
        ix.tables[2].keys,
        ix.tables[2].offsets,
        BINOM,
        _KEYS,
        _MASKS,
        ev.ROW_OFFSETS,
        ev.RANK_VALUES,
        ev.FLUSH_VALUES,
    )


@nb.njit(cache=True)
def deal_buckets(cards, tb, strengths, scratch, hand, out):
    """Buckets (2, 4) of one deal: cards = hole0 (2), hole1 (2), board (5); ``tb`` the
    ``DealTables``. Returns the showdown outcome for player 0 (+1, 0, -1)."""
    bkey = 0
    bmask = 0
    for j in range(4, 9):
        bkey += ev.CARD_KEYS[cards[j]]
        bmask |= ev.CARD_BITS[cards[j]]
    ev.strengths_from_keys(bkey, bmask, tb.keys, tb.masks, tb.row_offsets, tb.rank_values, tb.flush_values, strengths)
    for p in range(2):
        a = cards[2 * p]
        b = cards[2 * p + 1]
        out[p, 0] = tb.preflop[tb.pair[a, b]]
        hand[0] = a
        hand[1] = b
        for j in range(4):
            hand[2 + j] = cards[4 + j]
        # typed round counts: a constant argument would compile a copy of the indexer for it
        flop = index_with_scratch(hand[:5], tb.f_end, np.int64(2), tb.f_keys, tb.f_offsets, tb.binom, scratch)
        out[p, 1] = tb.flop[flop]
        out[p, 2] = tb.turn[index_with_scratch(hand, tb.t_end, np.int64(3), tb.t_keys, tb.t_offsets, tb.binom, scratch)]
    e0, e1 = _river_equities(strengths, tb.pair, cards)
    out[0, 3] = _bucket_of_equity(e0, tb.river_buckets)
    out[1, 3] = _bucket_of_equity(e1, tb.river_buckets)
    s0 = strengths[tb.pair[cards[0], cards[1]]]
    s1 = strengths[tb.pair[cards[2], cards[3]]]
    return 1 if s0 > s1 else (-1 if s0 < s1 else 0)


@nb.njit(cache=True, parallel=True)
def _sample_deals(seeds, per, tb, buckets, outcomes):
    n = buckets.shape[0]
    for w in nb.prange(seeds.shape[0]):
        np.random.seed(seeds[w])
        deck = np.arange(52)
        strengths = np.empty(tb.keys.shape[0], dtype=np.int32)
        scratch = np.empty(SCRATCH_SIZE, dtype=np.int64)
        hand = np.empty(6, dtype=np.int64)
        cards = np.empty(9, dtype=np.int64)
        for i in range(w * per, min(n, (w + 1) * per)):
            for j in range(9):  # partial Fisher-Yates
                k = j + np.random.randint(52 - j)
                t = deck[j]
                deck[j] = deck[k]
                deck[k] = t
                cards[j] = deck[j]
            outcomes[i] = deal_buckets(cards, tb, strengths, scratch, hand, buckets[i])


class HoldemDeals(Deals):
    """Random hold'em deals bucketed by a ``CardAbstraction`` (for MCCFR), sampled on
    ``threads`` of numba's threads."""

    def __init__(self, abstraction: CardAbstraction, threads: int = 1) -> None:
        self.a = abstraction
        self.threads = max(1, threads)
        self.tables = deal_tables(abstraction)

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        buckets = np.empty((n, 2, 4), dtype=np.int32)
        outcomes = np.empty(n, dtype=np.int8)
        workers = self.threads * 4
        seeds = rng.integers(0, 2**31 - 1, workers)
        # on this many of numba's threads (its count is per calling thread, and may
        # have been set higher for something else)
        nb.set_num_threads(min(self.threads, nb.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
        per = -(-n // workers)
        _sample_deals(seeds, per, self.tables, buckets, outcomes)
        return buckets, outcomes


def hand_bucket(abstraction: CardAbstraction, round_: int, hole, board) -> int:
    """The bucket of ``hole`` (two cards) with ``board`` (the cards of rounds up to
    ``round_``) in ``abstraction``: what the agent looks up at play time."""
    hole = [int(c) for c in hole]
    board = [int(c) for c in board]
    if round_ == 0:
        return int(abstraction.preflop[_PAIR[hole[0], hole[1]]])
    ix = _INDEXER
    if round_ in (1, 2):
        table = abstraction.flop if round_ == 1 else abstraction.turn
        return int(table[ix.index(hole + board)])
    strengths = ev.strengths_on_board(board, _KEYS, _MASKS)
    e = _river_equity(strengths, _MASKS, int(_PAIR[hole[0], hole[1]]))
    return int(_bucket_of_equity(e, abstraction.spec.buckets[3]))


def hand_buckets(abstraction: CardAbstraction, round_: int, board) -> np.ndarray:
    """The bucket of every one of the 1,326 hole pairs (-1 where blocked by ``board``)."""
    board = [int(c) for c in board]
    out = np.full(len(HOLE_PAIRS), -1, dtype=np.int64)
    live = (HOLE_PAIR_MASKS & np.int64(board_mask(board))) == 0
    if round_ == 0:
        out[:] = abstraction.preflop
        return out
    if round_ in (1, 2):
        table = abstraction.flop if round_ == 1 else abstraction.turn
        rows = np.concatenate(
            [HOLE_PAIRS[live], np.tile(np.array(board, dtype=np.int64), (int(live.sum()), 1))], axis=1
        )
        out[live] = table[_INDEXER.index_many(rows)]
        return out
    strengths = ev.strengths_on_board(board, _KEYS, _MASKS)
    _river_buckets(strengths, _CARD1, _CARD2, abstraction.spec.buckets[3], out)
    return out


def river_bucket_table(abstraction: CardAbstraction, turn_board) -> np.ndarray:
    """(52, 1,326): row d is ``hand_buckets`` on the river ``turn_board`` + d (-1 for
    hands blocked), all -1 for a card on the board."""
    board = [int(c) for c in turn_board]
    out = np.full((52, len(HOLE_PAIRS)), -1, dtype=np.int64)
    for d in range(52):
        if d not in board:
            out[d] = hand_buckets(abstraction, 3, board + [d])
    return out


def runout_bucket_table(abstraction: CardAbstraction, flop, deals: np.ndarray) -> np.ndarray:
    """(deals, 2, 1,326): per (turn, river) deal of ``deals`` on the ``flop``, every
    hand's bucket on the turn and on the river (-1 in both for hands holding a card of
    the board or the deal)."""
    board = [int(c) for c in flop]
    deals = np.asarray(deals, dtype=np.int64)
    out = np.full((len(deals), 2, len(HOLE_PAIRS)), -1, dtype=np.int64)
    turn: dict[int, np.ndarray] = {}
    for x, (d, e) in enumerate(deals.tolist()):
        if d not in turn:
            turn[d] = hand_buckets(abstraction, 2, board + [d])
        out[x, 0] = turn[d]
        out[x, 1] = hand_buckets(abstraction, 3, board + [d, e])
        out[x, 0, out[x, 1] < 0] = -1
    return out


_INDEXER = HandIndexer(HOLDEM_ROUNDS)
