"""Throughput of blueprint MCCFR on one machine and sharded on Ray, on a preset's tree.

The card abstraction is a stand-in with the preset's bucket counts (class number
modulo the count; speed does not depend on how hands are grouped): every run trains
the same tree on the same kind of deals, for ``--seconds`` each after a warm-up batch.
Prints iterations per second, the head's share of the time (sampling deals, waiting),
the memory per shard and the bytes per batch, with the CPU model.

    .venv/bin/python experiments/ray_throughput.py [--preset default] [--seconds 60] [--out ray.json]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import time

import numpy as np

from pokerbot.blueprint_store.abstraction import HoldemDeals, stand_in_cards
from pokerbot.blueprint_store.ray_train import RayShards, batch_bytes, connect
from pokerbot.blueprint_store.train import PRESETS, blueprint_settings
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver.betting_tree import build_betting_tree
from pokerbot.solver.mccfr import MCCFR
from pokerbot.solver.mccfr_shards import LocalShards, ShardedMCCFR, plan_shards


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def timed(train_batch, seconds: float) -> tuple[int, float]:
    """Iterations and seconds of repeated ``train_batch()`` calls for ``seconds``."""
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        done += train_batch()
    return done, time.perf_counter() - t0


class TimedDeals(HoldemDeals):
    """Deals that count the seconds spent sampling them (the head's own work)."""

    seconds = 0.0

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        t = time.perf_counter()
        out = super().sample(n, rng)
        self.seconds += time.perf_counter() - t
        return out


def one_machine(tree, cards, settings, big_blind: int, threads: int, seconds: float) -> dict:
    solver = MCCFR(tree, big_blind, settings, seed=1)
    deals = HoldemDeals(cards, threads=threads)
    solver.train(deals, 2_000, batch=2_000, threads=threads)  # warm-up
    nodes_before = solver.nodes_touched
    n, s = timed(lambda: solver.train(deals, 20_000, batch=20_000, threads=threads).iterations, seconds)
    rate = (solver.nodes_touched - nodes_before) / s
    print(f"  one machine, {threads} thread(s): {n / s:,.0f} iterations/s, {rate / 1e6:.1f} M nodes/s")
    return {"run": f"one machine, {threads} thread(s)", "iterations_per_second": n / s, "nodes_per_second": rate}


def on_ray(tree, cards, settings, big_blind: int, shards: int, batch: int, seconds: float) -> dict:
    plan = plan_shards(tree, shards)
    pool = RayShards(tree, plan, big_blind)
    try:
        solver = ShardedMCCFR(tree, big_blind, plan, pool, settings, seed=1)
        solver.max_batch = batch
        deals = TimedDeals(cards, threads=1)
        solver.train(deals, batch)  # warm-up
        deals.seconds = 0.0
        n, s = timed(lambda: solver.train(deals, batch).iterations, seconds)
    finally:
        pool.close()
    sent = batch_bytes(plan, batch)
    row = {
        "run": f"Ray, {shards} shard(s)",
        "iterations_per_second": n / s,
        "batches_per_second": n / s / batch,
        "head_sampling_share": deals.seconds / s,
        "shard_mb": [plan.memory_bytes(k) / 1e6 for k in range(shards)],
        "bytes_per_batch": sent,
    }
    print(
        f"  Ray, {shards} shard(s), batch {batch:,}: {n / s:,.0f} iterations/s ({n / s / batch:.1f} batches/s; "
        f"the head sampling deals {100 * deals.seconds / s:.0f} % of the time); shards "
        f"{', '.join(f'{m:.1f}' for m in row['shard_mb'])} MB; per batch {sent['to_each_node'] / 1e6:.2f} MB out, "
        f"{sent['from_each_shard'] / 1e3:.0f} kB back per shard"
    )
    return row


def busiest_shard_nodes(tree, cards, settings, big_blind: int, shards: int, iterations: int) -> float:
    """Nodes the busiest shard visits per iteration (its own subtrees and its walk of the
    first round), run here with every shard in this process: a shard's time is about
    its nodes over a core's node rate."""
    plan = plan_shards(tree, shards)
    pool = LocalShards(tree, plan, big_blind)
    solver = ShardedMCCFR(tree, big_blind, plan, pool, settings, seed=2)
    solver.max_batch = 2_000
    per_shard = np.zeros(shards)
    submit = pool.submit

    def counting(order):
        results = submit(order)
        per_shard[:] += [r.nodes for r in results]
        return results

    pool.submit = counting  # type: ignore[method-assign]
    solver.train(HoldemDeals(cards, threads=1), iterations)
    return float(per_shard.max() / iterations)


@functools.cache
def libratus_size_tree(preset_name: str):
    game = bundled_game("holdem.nolimit.2p")
    return build_betting_tree(game, PRESETS[preset_name].actions.sizes(), (169, 1_286_792, 2_500_000, 1_250_000))


def libratus_size_memory(preset_name: str, shards: int) -> tuple[float, float, float]:
    """(all slots, the largest shard, the head) in GB for the preset's actions at
    Libratus's bucket counts: flop lossless (1,286,792), turn 2.5 M, river 1.25 M."""
    tree = libratus_size_tree(preset_name)
    plan = plan_shards(tree, shards)
    return tree.num_slots * 8 / 1e9, max(plan.memory_bytes(k) for k in range(shards)) / 1e9, plan.head_slots * 8 / 1e9


#: The worker counts the scale model is computed for.
WORKERS = (1, 2, 4, 8, 16, 64, 196)


def scale(
    tree,
    cards,
    settings,
    big_blind: int,
    preset_name: str,
    node_rate: float,
    kept: float,
    workers: tuple[int, ...] = WORKERS,
    iterations: int = 4_000,
) -> list[dict]:
    """The scale on paper, per number of workers: the busiest shard's nodes per iteration
    (``busiest_shard_nodes`` over ``iterations``), the iterations per second expected (a
    core's ``node_rate`` over them, times ``kept``: what Ray kept of one machine's rate
    with one shard), and the memory of the preset's actions at Libratus's bucket counts."""
    out = []
    for n in workers:
        busiest = busiest_shard_nodes(tree, cards, settings, big_blind, n, iterations)
        total, largest, head = libratus_size_memory(preset_name, n)
        expected = node_rate / busiest * kept
        out.append(
            {"workers": n, "busiest_nodes_per_iteration": busiest, "expected_iterations_per_second": expected,
             "libratus_size_total_gb": total, "libratus_size_largest_shard_gb": largest, "head_gb": head}
        )  # fmt: skip
        print(
            f"    {n:>3} workers: busiest shard {busiest:,.0f} nodes/iteration, expected {expected:,.0f} iterations/s; "
            f"Libratus-size abstraction: largest shard {largest:,.1f} GB of {total:,.0f} GB"
        )
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="default", choices=sorted(PRESETS))
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--batch", type=int, default=2_000, help="sharded: iterations per batch")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    preset = PRESETS[args.preset]
    game = bundled_game("holdem.nolimit.2p")
    cards = stand_in_cards(preset.cards.buckets)
    tree = build_betting_tree(game, preset.actions.sizes(), preset.cards.buckets)
    settings = blueprint_settings(preset.prune_threshold, preset.regret_floor)
    print(f"{cpu_model()}, {os.cpu_count()} cores; preset {args.preset}: {tree.num_slots:,} slots")
    rows = [one_machine(tree, cards, settings, game.big_blind, t, args.seconds) for t in (1, 2)]
    connect("local", num_cpus=2)
    rows += [on_ray(tree, cards, settings, game.big_blind, k, args.batch, args.seconds) for k in (1, 2)]
    node_rate = rows[0]["nodes_per_second"]
    kept = rows[2]["iterations_per_second"] / rows[0]["iterations_per_second"]
    print(f"  scale (a core: {node_rate / 1e6:.1f} M nodes/s; Ray kept {100 * kept:.0f} % of it with one shard):")
    model = scale(tree, cards, settings, game.big_blind, args.preset, node_rate, kept)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(
                {"cpu": cpu_model(), "cores": os.cpu_count(), "preset": args.preset, "rows": rows, "scale": model},
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
