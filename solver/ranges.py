"""Hands of a game in one canonical order, card removal, and hands by strength.

A game's private hands are all ``num_hole_cards``-subsets of its deck, sorted card
indices, in lexicographic order (hold'em: 1,326). Ranges are float arrays over that
index. A hand is blocked by a board when they share a card; two hands are compatible
when they share none.
"""

from __future__ import annotations

from itertools import combinations

import numba as nb
import numpy as np

from pokerbot.protocol.gamedef import GameDef

from . import evaluator as ev


def hole_hands(game: GameDef) -> np.ndarray:
    """All private hands of the game, (H, num_hole_cards) int64, canonical order."""
    deck = sorted(game.deck())
    return np.array(list(combinations(deck, game.num_hole_cards)), dtype=np.int64).reshape(-1, game.num_hole_cards)


def hand_masks(hands: np.ndarray) -> np.ndarray:
    """52-bit card masks of the hands (bit c set when the hand holds card c)."""
    masks = np.zeros(hands.shape[0], dtype=np.int64)
    for j in range(hands.shape[1]):
        masks |= np.left_shift(np.int64(1), hands[:, j])
    return masks


def board_mask(board) -> int:
    m = 0
    for c in board:
        m |= 1 << int(c)
    return m


def blocked_by(hands: np.ndarray, board) -> np.ndarray:
    """True for the hands that share a card with the board."""
    return (hand_masks(hands) & np.int64(board_mask(board))) != 0


def strengths_on_board(hands: np.ndarray, board) -> np.ndarray:
    """Showdown strength of each hand on a complete board; -1 where blocked."""
    keys, masks = ev.hand_keys(hands)
    return ev.strengths_on_board(np.asarray(board, dtype=np.int64), keys, masks)


def by_strength(strengths: np.ndarray) -> np.ndarray:
    """Indices of the unblocked hands (strength >= 0), weakest first."""
    live = np.nonzero(strengths >= 0)[0]
    return live[np.argsort(strengths[live], kind="stable")]


#: Columns of a showdown's card table (see ``ladder``): 52 cards, the missing second
#: card of one-card hands (52), padding to a multiple of the vector width.
LADDER_WIDTH = 64
#: The missing second card of one-card hands (the index after the 52 cards).
NO_CARD = 52


def showdown_order(hands: np.ndarray, board) -> tuple[np.ndarray, np.ndarray]:
    """The hands not blocked by ``board``, weakest first (indices into ``hands``),
    and per position one past the last position tied with it. Inside a tie group,
    neighbours rarely share a card (``_spread_ties``): the showdown sweep adds each
    hand's reach to its cards' totals, and the same total twice in a row makes the
    second addition wait for the first."""
    strengths = strengths_on_board(hands, board)
    order = by_strength(strengths)
    s = strengths[order]
    group_end = np.empty(len(order), dtype=np.int64)
    if len(order):
        starts = np.flatnonzero(np.diff(s)) + 1  # first position of every group but the first
        ends = np.append(starts, len(order))
        group_end[:] = np.repeat(ends, np.diff(np.concatenate(([0], ends))))
    cards = np.ascontiguousarray(hands[order], dtype=np.int64)
    perm = np.arange(len(order))
    _spread_ties(cards, group_end, perm, 3, 16)
    return order[perm], group_end


@nb.njit(cache=True)
def _spread_ties(cards, group_end, perm, lookback, window):
    """Reorder ``perm`` inside each tie group: greedily, the first of the next
    ``window`` hands that shares no card with the last ``lookback`` placed (else
    the one sharing fewest). The window bounds the work on big groups."""
    n = perm.shape[0]
    k = 0
    while k < n:
        e = group_end[k]
        for i in range(k, e):
            best = i
            best_clash = 1 << 30
            for p in range(i, min(e, i + window)):
                clash = 0
                for r in range(max(k, i - lookback), i):
                    for a in range(cards.shape[1]):
                        for b in range(cards.shape[1]):
                            if cards[perm[p], a] == cards[perm[r], b]:
                                clash += 1
                if clash < best_clash:
                    best_clash = clash
                    best = p
                    if clash == 0:
                        break
            x = perm[i]
            perm[i] = perm[best]
            perm[best] = x
        k = e


def ladder(c1s: np.ndarray, c2s: np.ndarray, group_end: np.ndarray) -> tuple[np.ndarray, int]:
    """The showdown sweep's table layout for one board's hands in strength order
    (cards ``c1s``, ``c2s``; ``NO_CARD`` for one-card hands): rows (3, n) uint16 of
    each position's tie group, and its two slots in a table of ``LADDER_WIDTH``
    columns, one per card: the slot of card c is (k, c) where k counts the tie
    groups below this one that hold c (so each column lists its card's groups
    weakest first, and the table has as many rows as the most groups any card is
    in, returned beside). ``NO_CARD`` always maps to slot (0, NO_CARD)."""
    n = len(c1s)
    out = np.zeros((3, n), dtype=np.uint16)
    rows = _ladder(
        np.asarray(c1s, dtype=np.int64), np.asarray(c2s, dtype=np.int64), group_end, out, LADDER_WIDTH, NO_CARD
    )
    return out, int(rows)


@nb.njit(cache=True)
def _ladder(c1s, c2s, group_end, out, width, no_card):
    count = np.zeros(width, dtype=np.int64)  # groups seen holding each card
    last = np.full(width, -1, dtype=np.int64)  # the last such group
    g = -1
    k = 0
    rows = 1
    for t in range(c1s.shape[0]):
        if t == k:
            g += 1
            k = group_end[t]
        out[0, t] = g
        for j in range(2):
            c = c1s[t] if j == 0 else c2s[t]
            if c == no_card:
                out[1 + j, t] = no_card
                continue
            if last[c] != g:
                last[c] = g
                count[c] += 1
            rows = max(rows, count[c])
            out[1 + j, t] = (count[c] - 1) * width + c
    return rows
