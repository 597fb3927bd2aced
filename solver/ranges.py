"""Hands of a game in one canonical order, card removal, and hands by strength.

A game's private hands are all ``num_hole_cards``-subsets of its deck, sorted card
indices, in lexicographic order (hold'em: 1,326). Ranges are float arrays over that
index. A hand is blocked by a board when they share a card; two hands are compatible
when they share none.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from protocol.gamedef import GameDef

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
