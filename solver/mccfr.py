"""External-sampling MCCFR with negative-regret pruning (Libratus supplement,
Algorithm 1) and the Pluribus refinements, over a ``betting_tree.BettingTree``.

Cards enter only through *deals*: for each traversal, each player's bucket in every
round and the showdown outcome. Whoever supplies them (the lossless small-game deals
here, the hold'em card abstraction in ``blueprint_store``) owns the card abstraction;
this module never sees a card.

One iteration traverses once for each player (alternating), each with its own deal:
- at the traverser's nodes every action is explored (unless pruned), regrets get
  v(a) - v; at the opponent's nodes one action is sampled from the current strategy
  (regret matching) and its average-strategy weight phi grows by 1/p;
- pruning, on iterations after ``prune_after``: an action whose regret is below C is
  explored with probability max(0.02 / p, K / (K + C - R)) (the 2 % floor is on the
  chained probability p), except on the last round and for actions leading straight
  to a terminal (Pluribus); an unexplored action's regret is left alone;
- regrets are int32 in units of 1/100 big blind (a big blind is Pluribus's 100 chips),
  floored (Pluribus: -310,000,000) and capped below the int32 limit;
- linear discounting early in the run (Pluribus): every ``discount_interval``
  iterations until ``discount_until``, regrets and phi are multiplied by
  (t / interval) / (t / interval + 1).

The average strategy (phi normalised per information set) is kept for every round.
Deterministic for a given seed (one thread).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numba as nb
import numpy as np

from pokerbot.protocol.gamedef import GameDef
from pokerbot.protocol.hand_rank import hand_strength

from .betting_tree import BettingTree
from .keyed import keyed_uniform
from .tree import CHANCE, DECISION, FOLD_TERMINAL, SHOWDOWN, PublicTree

#: Regret units per big blind (Pluribus counted chips with a 100-chip big blind).
UNITS_PER_BIG_BLIND = 100
REGRET_CAP = 2_000_000_000
MAX_DEPTH = 128
MAX_ACTIONS = 32


@dataclass(frozen=True)
class MCCFRSettings:
    """Schedule and pruning constants. Thresholds are in regret units (1/100 big
    blind); the defaults are Pluribus's (C = -300,000,000, floor -310,000,000),
    meant for long hold'em runs. Short runs on small games need a C they can reach."""

    prune_after: int = 0  # iteration after which pruning may happen (0: never)
    prune_threshold: float = -300_000_000.0  # C
    prune_k: float = 526_000.0  # K: an action at the floor is explored about 5 % of the time
    regret_floor: int = -310_000_000
    discount_interval: int = 0  # 0: no linear discounting
    discount_until: int = 0

    def verify(self) -> None:
        if self.prune_threshold >= 0 or self.prune_k <= 0:
            raise ValueError("pruning needs C < 0 < K")
        if self.regret_floor > self.prune_threshold:
            raise ValueError("the regret floor must be at or below the pruning threshold C")
        if self.regret_floor < -REGRET_CAP:
            raise ValueError(f"the regret floor must be at least {-REGRET_CAP} (int32 regrets)")
        if self.discount_interval < 0 or self.prune_after < 0:
            raise ValueError("intervals and iteration counts cannot be negative")

    def discount_due(self, iterations: int) -> float | None:
        """Linear CFR's discount after ``iterations``: k / (k + 1) at the k-th interval
        while discounting lasts, else None (nothing to do)."""
        if not self.discount_interval or iterations > self.discount_until or iterations % self.discount_interval:
            return None
        k = iterations / self.discount_interval
        return k / (k + 1.0)


@nb.njit(cache=True)
def _rm_total(regret, base, m):
    s = 0.0
    for a in range(m):
        r = regret[base + a]
        if r > 0:
            s += r
    return s


_ENTER, _NEXT, _RETURN = 0, 1, 2


class TraversalTree(NamedTuple):
    """The tree as a traversal reads it: per node its kind, actor, round, first child,
    number of children, chips put in (node, player), slot offset and owner (the shard
    that owns it, -1 for the head's nodes; read only by the shards), and the last round."""

    kind: np.ndarray
    player: np.ndarray
    rnd: np.ndarray
    first: np.ndarray
    children: np.ndarray
    spent: np.ndarray
    offset: np.ndarray
    owner: np.ndarray
    last_round: int


class RegretRules(NamedTuple):
    """How regrets are updated: negative-regret pruning (on or off, the threshold C
    and the constant K), the regret floor, and regret units per chip."""

    prune: bool
    C: float
    K: float
    floor: float
    units: float


def traversal_tree(tree: BettingTree, offset: np.ndarray, owner: np.ndarray) -> TraversalTree:
    """A ``TraversalTree`` of ``tree`` with slot offsets ``offset`` and owners ``owner``."""
    return TraversalTree(
        tree.kind,
        tree.player,
        tree.round,
        tree.first_child,
        tree.num_children,
        tree.spent,
        offset,
        owner,
        int(tree.round.max()),
    )


def make_traverse(sharded: bool):
    """The traversal kernel, compiled for one machine (``sharded`` false: the
    shard-only branches fold away) or for the shards; see ``traverse``."""

    @nb.njit(cache=True)
    def traverse(
        i,
        bk,
        outcome,
        t,
        key,
        me,
        tree,
        regret,
        phi,
        head_delta,
        head_phi,
        rules,
        keep,
        keep_p,
        frames,
        fprob,
        scratch,
        stats,
    ):
        """Value of the root to player i (chips) for one deal (``bk``: buckets [player,
        round]; ``outcome``: +1 player 0 wins the showdown, -1 loses, 0 ties). Walks the
        tree depth-first with an explicit stack (numba cannot cache recursive functions):
        frames[d] = (node, next action, action being explored, slot base); an opponent's
        node is replaced in its frame by the sampled child, since it passes the value
        through, so every frame below the top is a traverser's node.

        One traversal for the single machine and the shards (``mccfr_shards``):
        ``owner[n]`` is the shard that owns node n, or -1 for the head's nodes (the first
        round's). A node of another shard than ``me`` is worth 0. At the head's nodes the
        random choices are keyed by (``key``, ``t``: the traversal's number in its batch,
        node, action) so that every shard makes the same, and regret and weight increments
        go to ``head_delta`` and (shard 0 only) ``head_phi`` instead of the arrays. On a
        single machine (``sharded`` false) every node is shard 0's and ``owner`` is not read.

        ``keep`` >= 0 trains only the subtree below the root's action ``keep``: the root's
        actor takes it with probability ``keep_p[bucket]`` (a frozen strategy there), so
        a traversal by the other player that does not pass through it is dropped (value
        0, nothing updated), and one by the root's actor goes straight into it (its
        regrets below are counterfactual: they do not depend on its own root reach)."""
        kind, player, rnd, first, count = tree.kind, tree.player, tree.rnd, tree.first, tree.children
        spent, offset, owner, last_round = tree.spent, tree.offset, tree.owner, tree.last_round
        prune, C, K, floor, units = rules.prune, rules.C, rules.K, rules.floor, rules.units
        d = 0
        frames[0, 0] = 0
        fprob[0] = 1.0
        state = _ENTER
        ret = 0.0
        while True:
            if state == _ENTER:
                n = frames[d, 0]
                o = owner[n] if sharded else 0
                if o >= 0 and o != me:
                    ret = 0.0
                    state = _RETURN
                    continue
                stats[0] += 1
                k = kind[n]
                if k == FOLD_TERMINAL:
                    ret = float(spent[n, 1 - i]) if player[n] != i else -float(spent[n, i])
                    state = _RETURN
                    continue
                if k == SHOWDOWN:
                    st = float(min(spent[n, 0], spent[n, 1]))
                    ret = st * outcome if i == 0 else -st * outcome
                    state = _RETURN
                    continue
                actor = player[n]
                if keep >= 0 and n == 0:
                    if actor == i or np.random.random() < keep_p[bk[actor, rnd[n]]]:
                        frames[d, 0] = first[n] + keep
                        continue
                    ret = 0.0
                    state = _RETURN
                    continue
                m = count[n]
                base = offset[n] + bk[actor, rnd[n]] * m
                if actor != i:  # sample one action from the current strategy
                    total = _rm_total(regret, base, m)
                    u = keyed_uniform(key, t, n * 64 + 63) if sharded and o < 0 else np.random.random()
                    a = m - 1
                    acc = 0.0
                    for b in range(m):
                        r = regret[base + b]
                        acc += ((r if r > 0 else 0) / total) if total > 0 else 1.0 / m
                        if u < acc:
                            a = b
                            break
                    if o >= 0:
                        phi[base + a] += 1.0 / fprob[d]
                    elif me == 0:
                        head_phi[base + a] += 1.0 / fprob[d]
                    frames[d, 0] = first[n] + a
                    continue
                frames[d, 1] = 0
                frames[d, 3] = base
                state = _NEXT
            if state == _NEXT:
                n = frames[d, 0]
                m = count[n]
                f = first[n]
                base = frames[d, 3]
                p = fprob[d]
                a = frames[d, 1]
                go = -1
                q = p
                while a < m:
                    r = regret[base + a]
                    if prune and r < C and rnd[n] != last_round and kind[f + a] == DECISION:
                        thresh = max(0.02 / p, K / (K + C - r))
                        u = keyed_uniform(key, t, n * 64 + a) if sharded and owner[n] < 0 else np.random.random()
                        if u < thresh:
                            q = p * min(thresh, 1.0)
                            go = a
                            break
                        scratch[d, a] = np.nan  # not explored this time: its regret stays
                        stats[1] += 1
                        a += 1
                        continue
                    go = a
                    break
                if go >= 0:
                    frames[d, 1] = go + 1
                    frames[d, 2] = go
                    frames[d + 1, 0] = f + go
                    fprob[d + 1] = q
                    d += 1
                    state = _ENTER
                    continue
                # every action done: the node's value, then regrets of the explored actions
                total = _rm_total(regret, base, m)
                v = 0.0
                for b in range(m):
                    vb = scratch[d, b]
                    if vb == vb:
                        rb = regret[base + b]
                        v += (((rb if rb > 0 else 0) / total) if total > 0 else 1.0 / m) * vb
                if sharded and owner[n] < 0:
                    for b in range(m):
                        vb = scratch[d, b]
                        if vb == vb:
                            head_delta[base + b] += (vb - v) * units
                else:
                    for b in range(m):
                        vb = scratch[d, b]
                        if vb == vb:  # explored (not NaN)
                            r = regret[base + b] + np.rint((vb - v) * units)
                            if r < floor:
                                r = floor
                            elif r > REGRET_CAP:
                                r = REGRET_CAP
                            regret[base + b] = np.int32(r)
                ret = v
                state = _RETURN
            if state == _RETURN:
                if d == 0:
                    return ret
                d -= 1
                scratch[d, frames[d, 2]] = ret
                state = _NEXT

    return traverse


#: The traversal on one machine, and on a shard (``mccfr_shards``).
traverse = make_traverse(False)
traverse_shard = make_traverse(True)


@nb.njit(cache=True)
def _run(buckets, outcomes, seed, tree, regret, phi, rules, keep, keep_p, stats):
    """One iteration per pair of deals (player 0 traverses with deal 2t, player 1
    with 2t+1). Returns the mean of player 0's sampled root values."""
    np.random.seed(seed)
    frames = np.zeros((MAX_DEPTH, 4), dtype=np.int64)
    fprob = np.ones(MAX_DEPTH)
    scratch = np.zeros((MAX_DEPTH, MAX_ACTIONS))
    no_head = np.zeros(1)
    total = 0.0
    for d in range(buckets.shape[0]):
        i = d & 1
        v = traverse(
            i, buckets[d], outcomes[d], d, 0, 0, tree, regret, phi, no_head, no_head, rules, keep, keep_p,
            frames, fprob, scratch, stats,
        )  # fmt: skip
        if i == 0:
            total += v
    return total / max(1, (buckets.shape[0] + 1) // 2)


@nb.njit(cache=True, parallel=True)
def _run_parallel(buckets, outcomes, seeds, tree, regret, phi, rules, keep, keep_p, stats):
    """``_run`` split into len(seeds) contiguous shares of the deals, walked on numba's
    threads over the shared regrets (lock-free, as hogwild MCCFR: an update racing
    with another is occasionally lost, which sampling noise dwarfs)."""
    T = seeds.shape[0]
    B = buckets.shape[0]
    per = np.zeros((T, 2), dtype=np.int64)
    no_head = np.zeros(1)
    for t in nb.prange(T):
        np.random.seed(seeds[t])  # this thread's own stream
        frames = np.zeros((MAX_DEPTH, 4), dtype=np.int64)
        fprob = np.ones(MAX_DEPTH)
        scratch = np.zeros((MAX_DEPTH, MAX_ACTIONS))
        own = np.zeros(2, dtype=np.int64)
        lo = (B * t // T) & ~1
        hi = B if t == T - 1 else (B * (t + 1) // T) & ~1
        for d in range(lo, hi):
            traverse(
                d & 1, buckets[d], outcomes[d], d, 0, 0, tree, regret, phi, no_head, no_head, rules, keep, keep_p,
                frames, fprob, scratch, own,
            )  # fmt: skip
        per[t, 0] = own[0]
        per[t, 1] = own[1]
    for t in range(T):
        stats[0] += per[t, 0]
        stats[1] += per[t, 1]


@nb.njit(cache=True)
def discount_slots(regret, phi, d):
    for s in range(regret.shape[0]):
        regret[s] = np.int32(np.rint(regret[s] * d))
        phi[s] *= d


class Deals:
    """A source of sampled deals: ``sample(n, rng)`` returns buckets (n, 2, rounds)
    int32 and showdown outcomes (n,) int8 (+1: player 0 wins)."""

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


class LosslessDeals(Deals):
    """Every deal of a small-deck game (Kuhn, Leduc), without abstraction: a
    player's bucket in a round is the class of (their hole cards, the board so far)
    as sets, numbered densely per round."""

    def __init__(self, game: GameDef, limit: int = 2_000_000) -> None:
        deck = game.deck()
        h = game.num_hole_cards
        board = [game.num_board_cards[r] for r in range(game.num_rounds)]
        need = 2 * h + sum(board)
        count = 1
        for j in range(need):
            count *= len(deck) - j
        if count > limit:
            raise ValueError(f"{count} deals is too many to enumerate (limit {limit}); use a card abstraction")
        self.game = game
        self.rounds = game.num_rounds
        self.classes: list[dict[tuple, int]] = [{} for _ in range(game.num_rounds)]
        rows, outs = [], []
        for perm in itertools.permutations(deck, need):
            holes = (tuple(sorted(perm[:h])), tuple(sorted(perm[h : 2 * h])))
            row = np.zeros((2, game.num_rounds), dtype=np.int32)
            at = 2 * h
            seen: list[int] = []
            for r in range(game.num_rounds):
                seen = seen + sorted(perm[at : at + board[r]])
                at += board[r]
                for p in range(2):
                    key = (holes[p], tuple(sorted(seen)))
                    row[p, r] = self.classes[r].setdefault(key, len(self.classes[r]))
            s0 = hand_strength(list(holes[0]) + seen)
            s1 = hand_strength(list(holes[1]) + seen)
            rows.append(row)
            outs.append((s0 > s1) - (s0 < s1))
        self.buckets_all = np.array(rows, dtype=np.int32)
        self.outcomes_all = np.array(outs, dtype=np.int8)

    @property
    def bucket_counts(self) -> tuple[int, ...]:
        return tuple(len(c) for c in self.classes)

    def bucket(self, round_: int, hole: tuple[int, ...], board: tuple[int, ...]) -> int:
        return self.classes[round_][(tuple(sorted(hole)), tuple(sorted(board)))]

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        idx = rng.integers(0, len(self.outcomes_all), n)
        return self.buckets_all[idx], self.outcomes_all[idx]


@dataclass
class TrainingReport:
    iterations: int
    seconds: float
    nodes_touched: int
    actions_pruned: int

    @property
    def nodes_per_second(self) -> float:
        return self.nodes_touched / self.seconds if self.seconds > 0 else 0.0


class MCCFR:
    """Training state over one betting tree: int32 regrets and float32 average-strategy
    weights, one per (decision node, bucket, action) slot."""

    def __init__(
        self, tree: BettingTree, big_blind: int, settings: MCCFRSettings = MCCFRSettings(), seed: int = 0
    ) -> None:
        settings.verify()
        if tree.num_decisions == 0:
            raise ValueError("the tree has no decisions")
        if int(tree.num_children.max()) > MAX_ACTIONS:
            raise ValueError(f"at most {MAX_ACTIONS} actions per node are supported")
        self.tree = tree
        self.settings = settings
        self.units = UNITS_PER_BIG_BLIND / big_blind
        # written, not only allocated: a page is mapped at its first write, so a large
        # tree's memory is taken now (and a machine short of it fails now) rather than
        # piecemeal over hours of training
        self.regret = np.empty(tree.num_slots, dtype=np.int32)
        self.phi = np.empty(tree.num_slots, dtype=np.float32)
        self.regret.fill(0)
        self.phi.fill(0.0)
        self.iterations = 0
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.nodes_touched = 0
        self.actions_pruned = 0
        self.kept_action = -1
        self.kept_reach = np.ones(1)

    def keep_root_action(self, action: int, reach: np.ndarray) -> None:
        """From now on train only the subtree below the root's action ``action``, with
        the root's strategy frozen: its actor takes ``action`` with probability
        ``reach[bucket]`` (for example the blueprint's), so the subtree is solved for
        the range that really reaches it. The root's other actions are not trained
        (their slots keep whatever they hold). Used by the self-improver to re-solve
        what follows our first move without changing that move."""
        t = self.tree
        if t.kind[0] != DECISION:
            raise ValueError("the root is not a decision")
        m = int(t.num_children[0])
        if not 0 <= action < m:
            raise ValueError(f"the root has {m} actions; no action {action}")
        reach = np.asarray(reach, dtype=np.float64)
        b = int(t.buckets[t.round[0]])
        if reach.shape != (b,):
            raise ValueError(f"need one reach probability per root bucket ({b}), got shape {reach.shape}")
        if not np.all((reach >= 0) & (reach <= 1)):
            raise ValueError("reach probabilities must lie in [0, 1]")
        if not reach.any():
            raise ValueError("no bucket reaches the kept action")
        self.kept_action = int(action)
        self.kept_reach = reach.copy()

    def train(
        self,
        deals: Deals,
        iterations: int,
        batch: int = 10_000,
        threads: int = 1,
        progress: Callable[[int, TrainingReport], None] | None = None,
    ) -> TrainingReport:
        """Run ``iterations`` more iterations (two traversals each), in batches of
        ``batch`` iterations; ``progress`` is called after each batch. ``threads`` > 1
        walks each batch on that many threads sharing the regrets (then the result
        is no longer bit-for-bit reproducible)."""
        if threads < 1:
            raise ValueError("threads must be at least 1")
        s = self.settings
        tree = self._traversal_tree()
        stats = np.zeros(2, dtype=np.int64)
        t0 = time.perf_counter()
        done = 0
        while done < iterations:
            n = min(batch, iterations - done)
            # split the batch where the schedule changes (pruning starts, a discount is due)
            if s.discount_interval and self.iterations < s.discount_until:
                to_next = s.discount_interval - self.iterations % s.discount_interval
                n = min(n, to_next)
            if s.prune_after and self.iterations < s.prune_after:
                n = min(n, s.prune_after - self.iterations)
            buckets, outcomes = deals.sample(2 * n, self.rng)
            prune = bool(s.prune_after) and self.iterations >= s.prune_after
            seed = int(self.rng.integers(0, 2**31 - 1))
            rules = RegretRules(
                prune, float(s.prune_threshold), float(s.prune_k), float(s.regret_floor), float(self.units)
            )
            seeds = None
            if threads > 1:
                # numba.config sets NUMBA_NUM_THREADS at run time (through globals()), out of mypy's sight
                nb.set_num_threads(min(threads, nb.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
                seeds = self.rng.integers(0, 2**31 - 1, threads)
            self._walk(tree, buckets, outcomes, rules, stats, seed, seeds)
            self.iterations += n
            done += n
            factor = s.discount_due(self.iterations)
            if factor is not None:
                discount_slots(self.regret, self.phi, factor)
            if progress is not None:
                progress(self.iterations, TrainingReport(done, time.perf_counter() - t0, int(stats[0]), int(stats[1])))
        self.nodes_touched += int(stats[0])
        self.actions_pruned += int(stats[1])
        return TrainingReport(done, time.perf_counter() - t0, int(stats[0]), int(stats[1]))

    def load_kernels(self, deals: Deals, threads: int = 1) -> None:
        """Load (on a fresh machine: compile) the kernels ``train`` runs with ``deals``
        on ``threads``, without training: a batch of no deals, drawn with a generator of
        its own (the regrets and this solver's random state stay as they are), so that
        a time budget counts training, not compiling."""
        buckets, outcomes = deals.sample(0, np.random.default_rng(0))
        rules = RegretRules(False, float(self.settings.prune_threshold), 0.0, float(self.settings.regret_floor), 1.0)
        seeds = np.zeros(threads, dtype=np.int64) if threads > 1 else None
        self._walk(self._traversal_tree(), buckets, outcomes, rules, np.zeros(2, dtype=np.int64), 0, seeds)

    def _traversal_tree(self) -> TraversalTree:
        t = self.tree
        return traversal_tree(t, t.slot_offset, np.zeros(1, dtype=np.int64))  # one machine: no owners

    def _walk(self, tree, buckets, outcomes, rules, stats, seed: int, seeds: np.ndarray | None) -> None:
        """One traversal per deal: on one thread with ``seed``, or on numba's threads
        (one seed each in ``seeds``) over the shared regrets."""
        args = (tree, self.regret, self.phi, rules, self.kept_action, self.kept_reach, stats)
        if seeds is not None:
            _run_parallel(buckets, outcomes, seeds, *args)
        else:
            _run(buckets, outcomes, seed, *args)

    def discount(self, factor: float) -> None:
        """Multiply regrets and average-strategy weights by ``factor`` (linear CFR's
        discounting, when the caller schedules it by time rather than iterations)."""
        if not 0.0 < factor <= 1.0:
            raise ValueError("a discount factor is in (0, 1]")
        discount_slots(self.regret, self.phi, float(factor))

    def average_strategy(self, dtype=np.float64) -> np.ndarray:
        """Per slot, the probability of the slot's action at its (node, bucket):
        phi normalised (in double, stored as ``dtype``); uniform where the
        information set was never sampled."""
        return normalised(self.tree, self.phi, dtype)

    def current_strategy(self) -> np.ndarray:
        return normalised(self.tree, np.maximum(self.regret, 0).astype(np.float64))


def normalised(tree: BettingTree, weights: np.ndarray, dtype=np.float64) -> np.ndarray:
    """``weights`` normalised per (node, bucket), uniform where they sum to 0: computed
    in double one node at a time (no double copy of the whole array: a large tree's
    weights are gigabytes), stored as ``dtype``."""
    out = np.zeros(tree.num_slots, dtype=dtype)
    for n in np.nonzero(tree.kind == DECISION)[0]:
        m = int(tree.num_children[n])
        b = tree.buckets[tree.round[n]]
        lo = tree.slot_offset[n]
        block = np.asarray(weights[lo : lo + b * m], dtype=np.float64).reshape(b, m)
        s = block.sum(axis=1, keepdims=True)
        out[lo : lo + b * m] = np.where(s > 0, block / np.where(s > 0, s, 1), 1.0 / m).ravel()
    return out


def to_public_strategy(
    btree: BettingTree,
    probs: np.ndarray,
    ptree: PublicTree,
    hands: np.ndarray,
    bucket_of: Callable[[int, tuple, tuple], int],
    root: int = 0,
) -> np.ndarray:
    """A betting-tree strategy (per slot) as a public-tree strategy (nodes, hands): the
    probability of the action into each node for each hand of its actor, for the
    solver's exact best response. Both trees must come from the same abstraction;
    ``bucket_of(round, hole, board)`` gives a hand's bucket. ``root``: the betting-tree
    node where the public tree starts (a subgame's)."""
    out = np.zeros((ptree.num_nodes, len(hands)))
    stack = [(0, root, tuple(int(c) for c in ptree.board))]
    while stack:
        pn, bn, board = stack.pop()
        k = ptree.kind[pn]
        f, m = int(ptree.first_child[pn]), int(ptree.num_children[pn])
        if k == CHANCE:
            for c in range(f, f + m):
                stack.append((c, bn, board + (int(ptree.dealt[c]),)))
        elif k == DECISION:
            if btree.kind[bn] != DECISION or int(btree.num_children[bn]) != m:
                raise ValueError(f"the trees differ at betting {btree.betting[bn]!r}")
            r = int(btree.round[bn])
            for h, hole in enumerate(hands.tolist()):
                if set(hole) & set(board):
                    continue
                base = btree.slot_offset[bn] + bucket_of(r, tuple(hole), board) * m
                out[f : f + m, h] = probs[base : base + m]
            for a in range(m):
                stack.append((f + a, int(btree.first_child[bn]) + a, board))
    return out
