"""Sharded external-sampling MCCFR: one betting tree trained by several processes
(``blueprint_store.ray_train`` runs them on Ray; ``LocalShards`` in this process).

The tree is cut below the first round (Slumbot 2013's split by first-round betting):

- the **head** owns the first round's decisions (a few thousand slots);
- each **shard** owns whole subtrees that start after the first round (every node
  below a first-round decision that is not itself one), balanced by slot count, and
  holds only its own regrets and weights plus a copy of the head's regrets.

A batch of iterations: the head samples the deals and sends them with its regrets to
every shard (frozen for the batch); every shard runs each traversal of the batch,
walking the first round exactly as the others do - its random choices there (the
opponent's sampled action, pruning) are keyed by (batch key, traversal, node, action),
not drawn from a stream - and entering only its own subtrees (another shard's
subtree is worth 0 to it). A value at a first-round node is a sum over subtrees, so
the first round's regret increments (v(a) - v, linear in the values) are sums over
shards: each shard returns its increments for the head's slots (one float per slot,
summed over the batch) and shard 0 the head's average-strategy increments. That is
all that crosses the network besides the deals.

With one shard and batches of one iteration this is ``mccfr.MCCFR``; with larger
batches the first round's strategy changes once per batch (a delayed update), which
costs nothing measurable on Leduc at the batch sizes used (tests/solver).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numba as nb
import numpy as np

from .betting_tree import BettingTree
from .mccfr import (
    MAX_ACTIONS,
    MAX_DEPTH,
    REGRET_CAP,
    UNITS_PER_BIG_BLIND,
    Deals,
    MCCFRSettings,
    RegretRules,
    TrainingReport,
    discount_slots,
    normalised,
    traversal_tree,
    traverse_shard,
)
from .tree import DECISION

HEAD = -1  # owner of the first round's decisions


@dataclass(frozen=True)
class ShardPlan:
    """Who owns each node, and each owner's slot layout.

    ``owner[n]``: HEAD for a first-round decision, else the shard owning its subtree.
    ``head_offset[n]``: the first slot of a head node in the head's arrays (-1 else);
    ``local_offset[s][n]``: the first slot of node n in shard s's arrays (the head's
    slots first, in the head's layout, then the shard's own; -1 for other shards'
    nodes); ``sizes[s]`` its number of slots."""

    shards: int
    owner: np.ndarray
    head_slots: int
    head_offset: np.ndarray
    local_offset: tuple[np.ndarray, ...]
    sizes: tuple[int, ...]

    def memory_bytes(self, shard: int) -> int:
        """A shard's regrets and weights (int32 and float32 per slot)."""
        return 8 * self.sizes[shard]


def slot_counts(tree: BettingTree) -> np.ndarray:
    """Slots per node: buckets of its round times actions at a decision, else 0."""
    return np.where(tree.kind == DECISION, np.asarray(tree.buckets)[tree.round] * tree.num_children, 0).astype(np.int64)


def plan_shards(tree: BettingTree, shards: int) -> ShardPlan:
    """Split ``tree`` into ``shards`` shards below the first round (largest subtree
    first to the least loaded shard)."""
    if shards < 1:
        raise ValueError("need at least one shard")
    n_nodes = tree.num_nodes
    kind, rnd, first, count = tree.kind, tree.round, tree.first_child, tree.num_children
    size = slot_counts(tree)
    owner = np.full(n_nodes, -2, dtype=np.int32)
    head = (kind == DECISION) & (rnd == 0)
    owner[head] = HEAD
    # the subtree roots: children of head nodes that are not head nodes
    roots = [int(c) for n in np.nonzero(head)[0] for c in range(first[n], first[n] + count[n]) if not head[c]]
    subtree_nodes: dict[int, list[int]] = {}
    for r in roots:
        nodes, stack = [], [r]
        while stack:
            n = stack.pop()
            nodes.append(n)
            if kind[n] == DECISION:
                stack.extend(range(int(first[n]), int(first[n]) + int(count[n])))
        subtree_nodes[r] = nodes
    load = [0] * shards
    for r in sorted(roots, key=lambda r: -int(size[subtree_nodes[r]].sum())):
        s = min(range(shards), key=lambda k: load[k])
        owner[subtree_nodes[r]] = s
        load[s] += int(size[subtree_nodes[r]].sum())
    if (owner == -2).any():
        raise ValueError("the tree has nodes out of reach of its first round")
    head_offset = np.full(n_nodes, -1, dtype=np.int64)
    head_nodes = np.nonzero(head)[0]
    head_offset[head_nodes] = np.concatenate(([0], np.cumsum(size[head_nodes])[:-1])) if len(head_nodes) else []
    head_slots = int(size[head_nodes].sum())
    local, sizes = [], []
    for s in range(shards):
        off = head_offset.copy()
        mine = np.nonzero((owner == s) & (kind == DECISION))[0]
        off[mine] = head_slots + np.concatenate(([0], np.cumsum(size[mine])[:-1])) if len(mine) else []
        local.append(off)
        sizes.append(head_slots + int(size[mine].sum()))
    return ShardPlan(shards, owner, head_slots, head_offset, tuple(local), tuple(sizes))


@nb.njit(cache=True)
def _run_shard(buckets, outcomes, seed, key, me, tree, regret, phi, head_delta, head_phi, rules, stats):
    """Every traversal of a batch (player 0 on deal 2t, player 1 on 2t+1) for shard
    ``me``."""
    np.random.seed(seed)
    frames = np.zeros((MAX_DEPTH, 4), dtype=np.int64)
    fprob = np.ones(MAX_DEPTH)
    scratch = np.zeros((MAX_DEPTH, MAX_ACTIONS))
    no_keep = np.ones(1)
    for d in range(buckets.shape[0]):
        traverse_shard(
            d & 1, buckets[d], outcomes[d], d, key, me, tree, regret, phi, head_delta, head_phi, rules, -1, no_keep,
            frames, fprob, scratch, stats,
        )  # fmt: skip


@nb.njit(cache=True)
def _copy_slots(nodes, sizes, src, src_off, dst, dst_off):
    for j in range(nodes.shape[0]):
        n = nodes[j]
        a, b = src_off[n], dst_off[n]
        for k in range(sizes[n]):
            dst[b + k] = src[a + k]


class ShardLost(RuntimeError):
    """A shard's process died during a batch: its state since the last checkpoint is gone."""


@dataclass
class BatchResult:
    """What a shard sends back for a batch: its increments of the head's regrets
    (regret units, summed over the batch), of the head's weights (shard 0, else
    None), nodes visited and actions pruned."""

    head_delta: np.ndarray
    head_phi: np.ndarray | None
    nodes: int
    pruned: int


@dataclass(frozen=True)
class BatchOrder:
    """What the head sends every shard for a batch."""

    buckets: np.ndarray  # (traversals, 2, rounds) int32
    outcomes: np.ndarray  # (traversals,) int8
    head_regret: np.ndarray  # int32, the head's slots
    key: int
    seeds: tuple[int, ...]  # one per shard: its own stream below the first round
    prune: bool
    prune_threshold: float
    prune_k: float
    regret_floor: float


class MCCFRShard:
    """One shard's training state: the head's regrets (a copy) and its own regrets
    and weights, in its local layout."""

    def __init__(self, tree: BettingTree, plan: ShardPlan, shard: int, big_blind: int) -> None:
        if not 0 <= shard < plan.shards:
            raise ValueError(f"shard {shard} of {plan.shards}")
        self.tree = tree
        self.plan = plan
        self.shard = shard
        self.units = UNITS_PER_BIG_BLIND / big_blind
        self.offset = plan.local_offset[shard]
        self.regret = np.zeros(plan.sizes[shard], dtype=np.int32)
        self.phi = np.zeros(plan.sizes[shard], dtype=np.float32)
        self.traversal = traversal_tree(tree, self.offset, plan.owner)

    def train_batch(self, order: BatchOrder) -> BatchResult:
        p = self.plan
        self.regret[: p.head_slots] = order.head_regret
        delta = np.zeros(p.head_slots)
        head_phi = np.zeros(p.head_slots)
        stats = np.zeros(2, dtype=np.int64)
        rules = RegretRules(
            bool(order.prune),
            float(order.prune_threshold),
            float(order.prune_k),
            float(order.regret_floor),
            float(self.units),
        )
        _run_shard(
            order.buckets,
            order.outcomes,
            int(order.seeds[self.shard]),
            int(order.key),
            self.shard,
            self.traversal,
            self.regret,
            self.phi,
            delta,
            head_phi,
            rules,
            stats,
        )
        return BatchResult(delta, head_phi if self.shard == 0 else None, int(stats[0]), int(stats[1]))

    def discount(self, factor: float) -> None:
        discount_slots(self.regret, self.phi, float(factor))

    def own_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The shard's own regrets and weights (without the head's copy)."""
        h = self.plan.head_slots
        return self.regret[h:].copy(), self.phi[h:].copy()

    def load(self, regret: np.ndarray, phi: np.ndarray) -> None:
        """Restore the shard's own regrets and weights (``own_arrays``'s)."""
        h = self.plan.head_slots
        if regret.shape != self.regret[h:].shape or phi.shape != self.phi[h:].shape:
            raise ValueError(f"shard {self.shard}: arrays of another plan")
        self.regret[h:] = regret
        self.phi[h:] = phi


def head_to_global(tree: BettingTree, plan: ShardPlan, head: np.ndarray, out: np.ndarray) -> None:
    """Write the head's slots into the global layout ``out``."""
    nodes = np.nonzero(plan.owner == HEAD)[0].astype(np.int64)
    _copy_slots(nodes, slot_counts(tree), head, plan.head_offset, out, tree.slot_offset)


class LocalShards:
    """Every shard in this process, one after another: for tests and as the reference
    a distributed pool (``blueprint_store.ray_train``) must agree with."""

    def __init__(self, tree: BettingTree, plan: ShardPlan, big_blind: int) -> None:
        self.shards = [MCCFRShard(tree, plan, s, big_blind) for s in range(plan.shards)]

    def submit(self, order: BatchOrder) -> list[BatchResult]:
        """Run the batch (here: at once); ``collect`` hands back the results."""
        return [s.train_batch(order) for s in self.shards]

    def collect(self, handle: list[BatchResult]) -> list[BatchResult]:
        return handle

    def discount(self, factor: float) -> None:
        for s in self.shards:
            s.discount(factor)

    def own_arrays(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return [s.own_arrays() for s in self.shards]

    def load(self, arrays: list[tuple[np.ndarray, np.ndarray]]) -> None:
        for s, (regret, phi) in zip(self.shards, arrays):
            s.load(regret, phi)

    def close(self) -> None:
        self.shards = []


class ShardedMCCFR:
    """The head of a sharded run: the first round's regrets and weights, the schedule,
    the deals; ``pool`` runs the shards (``LocalShards`` or a distributed pool with the
    same methods). The interface of ``mccfr.MCCFR`` that training uses: ``train``,
    ``discount``, ``average_strategy``, ``settings``, ``iterations``, ``rng``,
    ``nodes_touched``."""

    def __init__(
        self,
        tree: BettingTree,
        big_blind: int,
        plan: ShardPlan,
        pool,
        settings: MCCFRSettings | None = None,
        seed: int = 0,
    ) -> None:
        settings = settings or MCCFRSettings()
        settings.verify()
        if int(tree.num_children.max()) > MAX_ACTIONS:
            raise ValueError(f"at most {MAX_ACTIONS} actions per node are supported")
        self.tree = tree
        self.plan = plan
        self.pool = pool
        self.settings = settings
        self.head_regret = np.zeros(plan.head_slots, dtype=np.int32)
        self.head_phi = np.zeros(plan.head_slots, dtype=np.float32)
        self.iterations = 0
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.nodes_touched = 0
        self.actions_pruned = 0
        #: the largest batch sent to the shards (the first round's strategy is frozen for a batch)
        self.max_batch = 10_000
        #: called with the error when a shard is lost; it must restore a consistent state
        #: (``restore``), after which training goes on (None: the error propagates)
        self.on_lost: Callable[[ShardLost], None] | None = None
        #: deals drawn ahead for the next batch: (first iteration, size, buckets, outcomes,
        #: the random state before them)
        self._prefetched: tuple | None = None

    def train(self, deals: Deals, iterations: int, batch: int = 10_000, threads: int = 1) -> TrainingReport:
        """Train until ``iterations`` more iterations are done, in batches of at most
        ``batch`` and ``max_batch`` (``threads`` is the single-machine trainer's; shards
        run one thread each). The report counts the iterations run, repeats after a
        lost shard included."""
        t0 = time.perf_counter()
        target = self.iterations + iterations  # after a lost shard, iterations are done again
        done = nodes = pruned = 0
        while self.iterations < target:
            s = self.settings
            n = self._batch_size(self.iterations, target, batch)
            buckets, outcomes = self._deals(deals, n)
            order = BatchOrder(
                buckets,
                outcomes,
                self.head_regret.copy(),
                int(self.rng.integers(0, 2**62)),
                tuple(int(x) for x in self.rng.integers(0, 2**31 - 1, self.plan.shards)),
                bool(s.prune_after) and self.iterations >= s.prune_after,
                float(s.prune_threshold),
                float(s.prune_k),
                float(s.regret_floor),
            )
            try:
                handle = self.pool.submit(order)
                # the next batch's deals while the shards work (the same draws, in the same order)
                after = self.iterations + n
                size = self._batch_size(after, target if after < target else after + batch, batch)
                state = self.rng.bit_generator.state  # a snapshot taken now starts here
                self._prefetched = (after, size, *deals.sample(2 * size, self.rng), state)
                results = self.pool.collect(handle)
            except ShardLost as e:
                if self.on_lost is None:
                    raise
                self._prefetched = None
                self.on_lost(e)  # back to the last checkpoint: this batch never happened
                continue
            delta = np.sum([r.head_delta for r in results], axis=0)
            self.head_regret[:] = np.clip(np.rint(self.head_regret + delta), s.regret_floor, REGRET_CAP)
            head_phi = results[0].head_phi
            assert head_phi is not None  # shard 0 counts the head's weights
            self.head_phi += head_phi.astype(np.float32)
            nodes += sum(r.nodes for r in results)
            pruned += sum(r.pruned for r in results)
            self.iterations += n
            done += n
            factor = s.discount_due(self.iterations)
            if factor is not None:
                self.discount(factor)
        self.nodes_touched += nodes
        self.actions_pruned += pruned
        return TrainingReport(done, time.perf_counter() - t0, nodes, pruned)

    def _batch_size(self, at: int, target: int, batch: int) -> int:
        """The batch starting at iteration ``at``: split where the schedule changes."""
        s = self.settings
        n = min(batch, self.max_batch, target - at)
        if s.discount_interval and at < s.discount_until:
            n = min(n, s.discount_interval - at % s.discount_interval)
        if s.prune_after and at < s.prune_after:
            n = min(n, s.prune_after - at)
        return n

    def _deals(self, deals: Deals, n: int) -> tuple[np.ndarray, np.ndarray]:
        """The deals of the batch of ``n`` iterations starting now: those drawn ahead
        when they were drawn for this batch, else new ones."""
        ahead, self._prefetched = self._prefetched, None
        if ahead is not None and ahead[0] == self.iterations and ahead[1] == n:
            return ahead[2], ahead[3]
        return deals.sample(2 * n, self.rng)

    def discount(self, factor: float) -> None:
        if not 0.0 < factor <= 1.0:
            raise ValueError("a discount factor is in (0, 1]")
        discount_slots(self.head_regret, self.head_phi, float(factor))
        self.pool.discount(factor)

    def snapshot(self) -> dict:
        """Everything a restart needs, the shards' arrays included (for checkpoints)."""
        return {
            "head_regret": self.head_regret.copy(),
            "head_phi": self.head_phi.copy(),
            "iterations": self.iterations,
            "nodes_touched": self.nodes_touched,
            "actions_pruned": self.actions_pruned,
            "prune_after": self.settings.prune_after,
            # before the deals drawn ahead: a restore draws them again
            "rng": self._prefetched[4] if self._prefetched is not None else self.rng.bit_generator.state,
            "shards": self.pool.own_arrays(),
        }

    def restore(self, snap: dict) -> None:
        """Back to ``snapshot``'s state, shards included."""
        if snap["head_regret"].shape != self.head_regret.shape or len(snap["shards"]) != self.plan.shards:
            raise ValueError("a checkpoint of another tree or shard plan")
        self.pool.load(snap["shards"])
        self.head_regret[:] = snap["head_regret"]
        self.head_phi[:] = snap["head_phi"]
        self.iterations = int(snap["iterations"])
        self.nodes_touched = int(snap["nodes_touched"])
        self.actions_pruned = int(snap["actions_pruned"])
        self.settings = replace(self.settings, prune_after=int(snap["prune_after"]))
        self.rng.bit_generator.state = snap["rng"]
        self._prefetched = None

    def gather(self) -> tuple[np.ndarray, np.ndarray]:
        """Regrets and weights of the whole tree in its global layout (the head's
        memory must hold them: for writing the store)."""
        regret = np.zeros(self.tree.num_slots, dtype=np.int32)
        phi = np.zeros(self.tree.num_slots, dtype=np.float32)
        head_to_global(self.tree, self.plan, self.head_regret, regret)
        head_to_global(self.tree, self.plan, self.head_phi, phi)
        for s, (r, p) in enumerate(self.pool.own_arrays()):
            scatter_own(self.tree, self.plan, s, r, regret)
            scatter_own(self.tree, self.plan, s, p, phi)
        return regret, phi

    def average_strategy(self, dtype=np.float64) -> np.ndarray:
        return normalised(self.tree, self.gather()[1], dtype)

    def current_strategy(self) -> np.ndarray:
        return normalised(self.tree, np.maximum(self.gather()[0], 0).astype(np.float64))


def scatter_own(tree: BettingTree, plan: ShardPlan, shard: int, own: np.ndarray, out: np.ndarray) -> None:
    """Write shard ``shard``'s own slots (as ``MCCFRShard.own_arrays``) into the
    global layout ``out``."""
    nodes = np.nonzero((plan.owner == shard) & (tree.kind == DECISION))[0].astype(np.int64)
    local = np.concatenate((np.zeros(plan.head_slots, dtype=own.dtype), own))
    _copy_slots(nodes, slot_counts(tree), local, plan.local_offset[shard], out, tree.slot_offset)
