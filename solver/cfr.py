"""Vector-form CFR+ over a public tree, for all hands of both players at once.

One iteration updates each player in turn (alternating updates): a forward pass over
the tree carries the opponent's reach (and the player's own, for the average
strategy), a backward pass computes counterfactual values per hand, updates regrets
with regret matching+ (negative regrets floored at zero) and accumulates the
linearly weighted average strategy. Terminal values cost O(hands): folds use per-card
reach totals for card removal; showdowns one sweep over the hands sorted by
strength, with per-card totals.

Values are chips won over the whole hand (as the dealer pays), counterfactual: for a
hand h of player i, the sum over opponent hands j compatible with h of the opponent's
reach of j times i's payoff. Trees come from ``solver.tree`` and hold no chance nodes
yet (river subgames).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba as nb
import numpy as np

from protocol.betting import BettingState

from . import ranges as rg
from .tree import DECISION, FOLD_TERMINAL, SHOWDOWN, BetSizes, PublicTree, build_tree

NUM_CARDS = 52
#: Card index of the missing second card of one-card hands: its totals stay zero.
NO_CARD = NUM_CARDS


@nb.njit(cache=True, fastmath=True)
def _compat_sums(q, c1, c2, dup, out):
    """out[h] = sum of q over hands sharing no card with hand h. Two-card hands
    (dup = 1) subtract h itself twice through the card totals and add it back once."""
    card = np.zeros(NUM_CARDS + 1)
    total = 0.0
    for j in range(q.shape[0]):
        total += q[j]
        card[c1[j]] += q[j]
        card[c2[j]] += q[j]
    card[NO_CARD] = 0.0
    for h in range(q.shape[0]):
        out[h] = total - card[c1[h]] - card[c2[h]] + dup * q[h]


@nb.njit(cache=True, fastmath=True)
def _showdown(q, c1, c2, dup, group_end, stake, out):
    """out[h] = stake * (reach of compatible weaker hands - of stronger ones), for
    hands indexed weakest first; hands k..group_end[k] tie.

    One ascending sweep gives, per hand, the compatible reach strictly weaker (W) and
    weaker-or-tied (WT); with the compatible total C, stronger = C - WT, so the value
    is stake * (W + WT - C)."""
    n = q.shape[0]
    card = np.zeros(NUM_CARDS + 1)
    total = 0.0
    k = 0
    while k < n:
        e = group_end[k]
        for h in range(k, e):  # strictly weaker: the totals before this group
            out[h] = total - card[c1[h]] - card[c2[h]]
        for h in range(k, e):
            total += q[h]
            card[c1[h]] += q[h]
            card[c2[h]] += q[h]
        card[NO_CARD] = 0.0
        for h in range(k, e):  # weaker or tied: the totals after it, h itself removed
            out[h] += total - card[c1[h]] - card[c2[h]] + dup * q[h]
        k = e
    for h in range(n):  # minus the compatible total
        out[h] = stake * (out[h] - (total - card[c1[h]] - card[c2[h]] + dup * q[h]))


@nb.njit(cache=True, fastmath=True)
def _strategy(regret, kind, player, first_child, num_children, who, sigma, tmp):
    """Regret matching at the decision nodes of player ``who`` (-1: all players),
    uniform where no regret is positive. Inner loops run over hands (contiguous)."""
    H = regret.shape[1]
    for n in range(kind.shape[0]):
        if kind[n] != DECISION or (who >= 0 and player[n] != who):
            continue
        f = first_child[n]
        m = num_children[n]
        for h in range(H):
            tmp[h] = 0.0
        for c in range(f, f + m):
            for h in range(H):
                tmp[h] += max(regret[c, h], 0.0)
        uniform = 1.0 / m
        for c in range(f, f + m):
            for h in range(H):
                sigma[c, h] = max(regret[c, h], 0.0) / tmp[h] if tmp[h] > 0.0 else uniform


@nb.njit(cache=True, fastmath=True)
def _traverse(i, kind, player, first_child, num_children, spent, slot, c1, c2, dup, group_end,
              reach0, reach1, sigma, regret, avg, weight, update, best_response,
              reach, cfv, compat, compat_slot, tmp):
    """One pass for player i. ``reach[p, s]`` is player p's reach at the nodes whose
    slot[p] is s (it only changes below p's own decisions). update: CFR+ regret and
    average updates; best_response: the best action per hand at i's nodes."""
    n_nodes = kind.shape[0]
    H = c1.shape[0]
    o = 1 - i
    for h in range(H):
        reach[0, 0, h] = reach0[h]
        reach[1, 0, h] = reach1[h]
    for n in range(n_nodes):  # forward: parents come before children
        if kind[n] != DECISION:
            continue
        p = player[n]
        src = slot[p, n]
        f = first_child[n]
        for c in range(f, f + num_children[n]):
            for h in range(H):
                reach[p, c, h] = reach[p, src, h] * sigma[c, h]
    for s in range(n_nodes):
        compat_slot[s] = -1
    for n in range(n_nodes - 1, -1, -1):  # backward: children before parents
        k = kind[n]
        if k == FOLD_TERMINAL:
            so = slot[o, n]
            if compat_slot[so] < 0:  # siblings share the opponent's reach: sum it once
                _compat_sums(reach[o, so], c1, c2, dup, compat[so])
                compat_slot[so] = so
            folder = player[n]
            v = spent[n, folder] * (-1.0 if folder == i else 1.0)
            for h in range(H):
                cfv[n, h] = v * compat[so, h]
        elif k == SHOWDOWN:
            stake = min(spent[n, 0], spent[n, 1])
            _showdown(reach[o, slot[o, n]], c1, c2, dup, group_end, stake, tmp)
            for h in range(H):
                cfv[n, h] = tmp[h]
        else:
            f = first_child[n]
            m = num_children[n]
            if player[n] == i:
                if best_response:
                    for h in range(H):
                        cfv[n, h] = cfv[f, h]
                    for c in range(f + 1, f + m):
                        for h in range(H):
                            cfv[n, h] = max(cfv[n, h], cfv[c, h])
                else:
                    for h in range(H):
                        cfv[n, h] = 0.0
                    for c in range(f, f + m):
                        for h in range(H):
                            cfv[n, h] += sigma[c, h] * cfv[c, h]
                    if update:
                        me = slot[i, n]
                        for c in range(f, f + m):
                            for h in range(H):
                                r = regret[c, h] + cfv[c, h] - cfv[n, h]
                                regret[c, h] = r if r > 0.0 else 0.0
                                avg[c, h] += weight * reach[i, me, h] * sigma[c, h]
            else:
                for h in range(H):
                    cfv[n, h] = 0.0
                for c in range(f, f + m):
                    for h in range(H):
                        cfv[n, h] += cfv[c, h]


@nb.njit(cache=True)
def _run_cfr(kind, player, first_child, num_children, spent, slot, c1, c2, dup, group_end, reach0, reach1,
             regret, avg, sigma, start_iteration, iterations, deadline_ns, reach, cfv, compat, compat_slot, tmp):
    """CFR+ iterations with alternating updates. Each decision node belongs to one
    player, so one regret array serves both. Returns the iterations done."""
    done = 0
    _strategy(regret, kind, player, first_child, num_children, -1, sigma, tmp)
    for t in range(start_iteration, start_iteration + iterations):
        for i in range(2):
            # Only the other player's regrets changed since sigma was last made (they
            # moved last); i's part is still current.
            _strategy(regret, kind, player, first_child, num_children, 1 - i, sigma, tmp)
            _traverse(i, kind, player, first_child, num_children, spent, slot, c1, c2, dup, group_end,
                      reach0, reach1, sigma, regret, avg, float(t + 1), True, False, reach, cfv, compat,
                      compat_slot, tmp)
        done += 1
        if deadline_ns > 0:
            with nb.objmode(now="int64"):
                now = time.perf_counter_ns()
            if now >= deadline_ns:
                break
    return done


@dataclass
class RiverSubgame:
    """A river spot ready to solve: the tree, the live hands (weakest first) and the
    players' reaches over them."""

    tree: PublicTree
    hands: np.ndarray  # (H, hole cards) live hands, weakest first
    hand_index: np.ndarray  # their indices in the game's canonical hand order
    reach: np.ndarray  # (2, H) each player's reach (range) of each live hand
    group_end: np.ndarray  # per hand: one past the last hand it ties with
    c1: np.ndarray
    c2: np.ndarray  # NO_CARD for one-card hands
    dup: float  # 1.0 for two-card hands (see _compat_sums), else 0.0
    slot: np.ndarray  # (2, nodes): where each player's reach at a node is kept

    @property
    def pot(self) -> int:
        return int(self.tree.spent[0].sum())


def _reach_slots(tree: PublicTree) -> np.ndarray:
    """slot[p, n]: the node at or above n just below p's latest decision (the root if
    none): p's reach changes only there."""
    slot = np.zeros((2, tree.num_nodes), dtype=np.int64)
    for n in range(tree.num_nodes):
        if tree.kind[n] != DECISION:
            continue
        f, m = tree.first_child[n], tree.num_children[n]
        for c in range(f, f + m):
            for p in (0, 1):
                slot[p, c] = c if tree.player[n] == p else slot[p, n]
    return slot


def river_subgame(state: BettingState, sizes: BetSizes, reach: np.ndarray | None = None) -> RiverSubgame:
    """Set up the subgame of ``state`` (on the river, board known). ``reach``: (2, all
    hands) ranges over the game's canonical hands; default uniform."""
    tree = build_tree(state, sizes)
    all_hands = rg.hole_hands(state.game)
    if all_hands.shape[1] > 2:
        raise ValueError("hands of more than two cards are not supported by the solver")
    strengths = rg.strengths_on_board(all_hands, list(tree.board))
    live = rg.by_strength(strengths)
    hands = all_hands[live]
    s = strengths[live]
    group_end = np.empty(len(live), dtype=np.int64)
    end = len(live)
    for k in range(len(live) - 1, -1, -1):
        if k < len(live) - 1 and s[k] != s[k + 1]:
            end = k + 1
        group_end[k] = end
    full = np.ones((2, len(all_hands))) if reach is None else np.asarray(reach, dtype=np.float64)
    two = hands.shape[1] == 2
    c2 = hands[:, 1].copy() if two else np.full(len(hands), NO_CARD, dtype=np.int64)
    return RiverSubgame(tree, hands, live, np.ascontiguousarray(full[:, live]), group_end,
                        hands[:, 0].copy(), c2, 1.0 if two else 0.0, _reach_slots(tree))


class _Work:
    """Scratch arrays of one solve (their size is what ``PublicTree.memory_bytes`` reports)."""

    def __init__(self, n: int, H: int) -> None:
        self.reach = np.zeros((2, n, H))
        self.cfv = np.zeros((n, H))
        self.compat = np.zeros((n, H))
        self.compat_slot = np.zeros(n, dtype=np.int64)
        self.tmp = np.zeros(H)


@dataclass
class SolveResult:
    strategy: np.ndarray  # (nodes, H): probability of the action into each node, per hand of the actor
    iterations: int
    stopped_early: bool
    seconds: float


def libratus_iterations(pot: int, big_blind: int) -> int:
    """Libratus: 1,000 CFR+ iterations while at most 16 big blinds are in the pot, else 1,900."""
    return 1000 if pot <= 16 * big_blind else 1900


def solve(sub: RiverSubgame, iterations: int, deadline: float | None = None) -> SolveResult:
    """Run CFR+ from scratch; ``deadline`` (seconds from now) stops early."""
    t = sub.tree
    n, H = t.num_nodes, sub.hands.shape[0]
    regret = np.zeros((n, H))
    avg = np.zeros((n, H))
    sigma = np.zeros((n, H))
    w = _Work(n, H)
    t0 = time.perf_counter()
    deadline_ns = 0 if deadline is None else time.perf_counter_ns() + int(deadline * 1e9)
    done = _run_cfr(t.kind, t.player, t.first_child, t.num_children, t.spent, sub.slot, sub.c1, sub.c2,
                    sub.dup, sub.group_end, sub.reach[0], sub.reach[1], regret, avg, sigma, 0, iterations,
                    deadline_ns, w.reach, w.cfv, w.compat, w.compat_slot, w.tmp)
    return SolveResult(average_strategy(t, avg), done, done < iterations, time.perf_counter() - t0)


def average_strategy(tree: PublicTree, avg: np.ndarray) -> np.ndarray:
    """Normalise accumulated strategy weights per decision node and hand (uniform
    where a hand never reached the node)."""
    out = np.zeros_like(avg)
    for n in np.nonzero(tree.kind == DECISION)[0]:
        f, m = tree.first_child[n], tree.num_children[n]
        block = avg[f : f + m]
        s = block.sum(axis=0)
        out[f : f + m] = np.where(s > 0, block / np.where(s > 0, s, 1), 1.0 / m)
    return out


def counterfactual_values(sub: RiverSubgame, strategy: np.ndarray, player: int,
                          best_response: bool = False) -> np.ndarray:
    """Counterfactual values at the root, per live hand of ``player``, when both play
    ``strategy`` (or ``player`` best-responds to the other's part of it)."""
    t = sub.tree
    w = _Work(t.num_nodes, sub.hands.shape[0])
    _traverse(player, t.kind, t.player, t.first_child, t.num_children, t.spent, sub.slot, sub.c1, sub.c2,
              sub.dup, sub.group_end, sub.reach[0], sub.reach[1], np.ascontiguousarray(strategy),
              np.zeros((1, 1)), np.zeros((1, 1)), 0.0, False, best_response, w.reach, w.cfv, w.compat,
              w.compat_slot, w.tmp)
    return w.cfv[0].copy()


def exploitability(sub: RiverSubgame, strategy: np.ndarray) -> float:
    """Exploitability of ``strategy`` in chips per hand: the mean of the two players'
    best-response values (expected over the joint deal of compatible hands)."""
    joint = _joint_weight(sub)
    br = [float(sub.reach[p] @ counterfactual_values(sub, strategy, p, best_response=True)) for p in (0, 1)]
    return (br[0] + br[1]) / 2.0 / joint


def expected_values(sub: RiverSubgame, strategy: np.ndarray) -> tuple[float, float]:
    joint = _joint_weight(sub)
    return tuple(float(sub.reach[p] @ counterfactual_values(sub, strategy, p)) / joint for p in (0, 1))


def _joint_weight(sub: RiverSubgame) -> float:
    compat = np.zeros(sub.hands.shape[0])
    _compat_sums(sub.reach[1], sub.c1, sub.c2, sub.dup, compat)
    return float(sub.reach[0] @ compat)
