#!/usr/bin/env python3
"""Derive solver.evaluator.RANK_WEIGHTS: greedy increasing weights such that every
multiset of at most 7 ranks (at most 4 of a rank) has a distinct weighted sum.

For rank r and each pair of counts a > b it forbids the weights w with
w * (a - b) = s_B - s_A for partial sums s_A (multisets of the lower ranks with at most
7 - a cards) and s_B (at most 7 - b cards); the difference sets come from an FFT
cross-correlation of the sums' indicator arrays. Takes about a minute.
"""

import numpy as np

MAX_CARDS = 7


def sums_by_size(weights):
    sums = [{0}] + [set() for _ in range(MAX_CARDS)]
    for w in weights:
        new = [set() for _ in range(MAX_CARDS + 1)]
        for k in range(MAX_CARDS + 1):
            for s in sums[k]:
                for c in range(min(4, MAX_CARDS - k) + 1):
                    new[k + c].add(s + c * w)
        sums = new
    return sums


def main():
    weights = [1]
    for r in range(1, 13):
        sums = sums_by_size(weights)
        upto, acc = [], set()
        for k in range(MAX_CARDS + 1):
            acc |= sums[k]
            upto.append(np.array(sorted(acc), dtype=np.int64))
        top = int(upto[MAX_CARDS][-1]) + 1
        size = 1
        while size < 2 * top:
            size *= 2
        forbidden = set()
        for a in range(1, 5):
            for b in range(a):
                ia = np.zeros(size)
                ia[upto[MAX_CARDS - a]] = 1
                ib = np.zeros(size)
                ib[upto[MAX_CARDS - b]] = 1
                corr = np.fft.irfft(np.fft.rfft(ib) * np.conj(np.fft.rfft(ia)), size)
                d = np.nonzero(corr[:top] > 0.5)[0]
                d = d[(d > 0) & (d % (a - b) == 0)] // (a - b)
                forbidden.update(d.tolist())
        w = weights[-1] + 1
        while w in forbidden:
            w += 1
        weights.append(w)
        print(f"rank {r}: weight {w}", flush=True)
    print("RANK_WEIGHTS =", tuple(weights))


if __name__ == "__main__":
    main()
