"""Blueprint training across machines on Ray: ``solver.mccfr_shards`` with each shard a
Ray actor.

The head (the process that runs ``pokerbot train-blueprint --ray ...``) samples the
deals, keeps the first round's regrets and weights, and writes checkpoints and the
store; each actor holds one shard's regrets and weights and nothing else of the tree's
state. Per batch the head puts the deals and its regrets in Ray's object store (one
copy per node, read by every actor there), and each actor returns one float per head
slot (and shard 0 the head's weight increments): see ``batch_bytes``.

A dying actor process is restarted by Ray (``max_restarts``); the head then puts
every shard and itself back to the last checkpoint and goes on, saying so in its log.
Checkpoints are written by the head only (the shards' arrays travel to it), so the
workers need no shared file system.

Ray is the ``cluster`` extra (``pip install 'pokerbot[cluster]'``); nothing else in the
package imports this module.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pokerbot.solver.betting_tree import BettingTree
from pokerbot.solver.mccfr_shards import BatchOrder, BatchResult, MCCFRShard, ShardedMCCFR, ShardLost, ShardPlan

#: How long the head waits for a restarted actor before giving up.
RESTART_TIMEOUT = 120.0


class ShardWorker:
    """One shard in a Ray actor (see ``solver.mccfr_shards.MCCFRShard``)."""

    def __init__(self, tree: BettingTree, plan: ShardPlan, shard: int, big_blind: int) -> None:
        self.shard = MCCFRShard(tree, plan, shard, big_blind)
        # load (first time: compile) the kernel now, not in the first timed batch
        rounds = int(tree.round.max()) + 1
        empty = BatchOrder(
            np.zeros((0, 2, rounds), dtype=np.int32),
            np.zeros(0, dtype=np.int8),
            np.zeros(plan.head_slots, dtype=np.int32),
            0,
            (0,) * plan.shards,
            False,
            -1.0,
            1.0,
            -2.0,
        )
        self.shard.train_batch(empty)

    def train_batch(self, order: BatchOrder) -> BatchResult:
        return self.shard.train_batch(order)

    def discount(self, factor: float) -> None:
        self.shard.discount(factor)

    def own_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return self.shard.own_arrays()

    def load(self, regret: np.ndarray, phi: np.ndarray) -> None:
        self.shard.load(regret, phi)

    def pid(self) -> int:
        return os.getpid()

    def node(self) -> str:
        import ray

        return ray.get_runtime_context().get_node_id()


def connect(address: str, num_cpus: int | None = None) -> None:
    """Join the Ray cluster at ``address`` ("auto": the one this machine belongs to;
    "local": start one in this process with ``num_cpus`` CPUs)."""
    import ray

    if ray.is_initialized():
        return
    if address == "local":
        ray.init(num_cpus=num_cpus, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    else:
        ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)


class RayShards:
    """The shards as Ray actors, one CPU each (the pool ``ShardedMCCFR`` drives)."""

    def __init__(self, tree: BettingTree, plan: ShardPlan, big_blind: int, max_restarts: int = 10) -> None:
        import ray

        self.plan = plan
        # held for the pool's life: a restarted actor is built from them again
        self._args = (ray.put(tree), ray.put(plan))
        actor = ray.remote(num_cpus=1, max_restarts=max_restarts, max_task_retries=0)(ShardWorker)
        self.actors: list[Any] = [actor.remote(*self._args, s, big_blind) for s in range(plan.shards)]
        self.pids()  # every actor built and its kernel loaded before anything is timed

    def _get(self, refs: list) -> list:
        import ray
        from ray.exceptions import RayActorError

        try:
            return ray.get(refs)
        except RayActorError as e:
            raise ShardLost(str(e).splitlines()[0]) from None

    def submit(self, order: BatchOrder) -> list:
        """Start the batch on every shard; ``collect`` waits for the results."""
        import ray

        ref = ray.put(order)
        return [a.train_batch.remote(ref) for a in self.actors]

    def collect(self, handle: list) -> list[BatchResult]:
        return self._get(handle)

    def discount(self, factor: float) -> None:
        self._get([a.discount.remote(factor) for a in self.actors])

    def own_arrays(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return self._get([a.own_arrays.remote() for a in self.actors])

    def load(self, arrays: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """Load every shard, waiting for restarted actors to come back."""
        deadline = time.monotonic() + RESTART_TIMEOUT
        while True:
            try:
                self._get([a.load.remote(r, p) for a, (r, p) in zip(self.actors, arrays)])
                return
            except ShardLost:
                if time.monotonic() > deadline:
                    raise
                time.sleep(1.0)

    def pids(self) -> list[int]:
        return self._get([a.pid.remote() for a in self.actors])

    def nodes(self) -> list[str]:
        return self._get([a.node.remote() for a in self.actors])

    def close(self) -> None:
        import ray

        for a in self.actors:
            ray.kill(a)
        self.actors = []


def batch_bytes(plan: ShardPlan, iterations: int, rounds: int = 4) -> dict[str, int]:
    """What crosses the network per batch: to every node, the deals (two traversals an
    iteration, a bucket per player and round as int32 and an outcome byte) and the
    head's regrets (int32); back from every shard its head increments (float64), and
    from shard 0 the head's weights (float64)."""
    down = 2 * iterations * (2 * rounds * 4 + 1) + 4 * plan.head_slots
    up = 8 * plan.head_slots
    return {"to_each_node": down, "from_each_shard": up, "from_shard_0_extra": 8 * plan.head_slots}


class ShardCheckpoints:
    """The head's checkpoints of a sharded run in ``directory``: ``head.npz`` (its
    arrays, iterations, random state) and ``shard-K.npz`` per shard, each written to a
    temporary file and renamed, the head's last (a crash mid-way leaves the previous
    checkpoint whole: the head names the iteration the shards were saved at)."""

    def __init__(self, directory: str, solver: ShardedMCCFR, log: Callable[[str], None] = print) -> None:
        self.directory = directory
        self.solver = solver
        self.log = log
        self.iterations = -1
        os.makedirs(directory, exist_ok=True)

    def _path(self, name: str) -> str:
        return os.path.join(self.directory, name)

    def save(self, elapsed: float = 0.0) -> None:
        snap = self.solver.snapshot()
        n = snap["iterations"]
        for k, (regret, phi) in enumerate(snap["shards"]):
            tmp = self._path(f"shard-{k}.tmp.npz")
            np.savez(tmp, regret=regret, phi=phi, iterations=n)
            os.replace(tmp, self._path(f"shard-{k}.npz"))
        tmp = self._path("head.tmp.npz")
        np.savez(
            tmp,
            head_regret=snap["head_regret"],
            head_phi=snap["head_phi"],
            iterations=n,
            nodes_touched=snap["nodes_touched"],
            actions_pruned=snap["actions_pruned"],
            prune_after=snap["prune_after"],
            rng=json.dumps(snap["rng"]),
            shards=self.solver.plan.shards,
            elapsed=elapsed,
        )
        os.replace(tmp, self._path("head.npz"))
        self.iterations = n

    def exists(self) -> bool:
        return os.path.exists(self._path("head.npz"))

    def load(self) -> float:
        """Restore the solver and its shards from the checkpoint; returns the seconds
        trained when it was written."""
        with np.load(self._path("head.npz")) as z:
            n = int(z["iterations"])
            if int(z["shards"]) != self.solver.plan.shards:
                raise ValueError(f"the checkpoint has {int(z['shards'])} shards, this run {self.solver.plan.shards}")
            snap = {
                "head_regret": z["head_regret"],
                "head_phi": z["head_phi"],
                "iterations": n,
                "nodes_touched": int(z["nodes_touched"]),
                "actions_pruned": int(z["actions_pruned"]),
                "prune_after": int(z["prune_after"]),
                "rng": json.loads(str(z["rng"])),
            }
            elapsed = float(z["elapsed"])
        shards = []
        for k in range(self.solver.plan.shards):
            with np.load(self._path(f"shard-{k}.npz")) as z:
                if int(z["iterations"]) != n:
                    raise ValueError(f"shard {k}'s checkpoint is from iteration {int(z['iterations'])}, the head's {n}")
                shards.append((z["regret"], z["phi"]))
        snap["shards"] = shards
        self.solver.restore(snap)
        self.iterations = n
        return elapsed

    def recover(self, error: ShardLost) -> None:
        """``ShardedMCCFR.on_lost``: back to the last checkpoint, said in the log."""
        lost = self.solver.iterations - self.iterations
        self.log(
            f"a shard worker was lost ({error}); Ray restarts it; every shard goes back to the checkpoint "
            f"at iteration {self.iterations:,} ({lost:,} iterations are done again)"
        )
        self.load()
        self.log(f"recovered: training again from iteration {self.solver.iterations:,}")
