"""What a machine gives k independent one-thread jobs, against one job alone: the ceiling
that memory bandwidth, shared caches and clock boost put on any k-thread speedup.

For each k, k processes (spawned, one numba thread each) warm up, meet at a barrier,
then run the same one-thread work for ``--seconds``; the report gives each job's rate
and the k jobs' total against one job alone. Work: the reference turn solve
(``bench solver``'s spot, ms per CFR+ iteration) and blueprint MCCFR on the default
action tree with stand-in cards (iterations/s), as in ``pokerbot bench scale``.

    python experiments/scale_ceiling.py --counts 1,2,4,8,16 --seconds 4
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import time


def _turn_job(barrier, seconds: float, out) -> None:
    from pokerbot.bot.bench.solver import reference_turn_spot
    from pokerbot.solver import cfr
    from pokerbot.solver.subgame import make_subgame

    state, sizes = reference_turn_spot()
    sub = make_subgame(state, sizes)
    cfr.solve(sub, 3, threads=1)  # warm: kernels, first touch
    barrier.wait()
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        cfr.solve(sub, 10, threads=1)
        done += 10
    out.put(1000 * (time.perf_counter() - t0) / done)


def _mccfr_job(barrier, seconds: float, out) -> None:
    from pokerbot.blueprint_store.abstraction import HoldemDeals, stand_in_cards
    from pokerbot.blueprint_store.train import PRESETS, mccfr_solver
    from pokerbot.protocol.gamedef import bundled_game
    from pokerbot.solver.betting_tree import build_betting_tree

    p = PRESETS["default"]
    game = bundled_game("holdem.nolimit.2p")
    tree = build_betting_tree(game, p.actions.sizes(), p.cards.buckets)
    solver = mccfr_solver(tree, game, p.prune_threshold, p.regret_floor, seed=os.getpid())
    deals = HoldemDeals(stand_in_cards(p.cards.buckets), threads=1)
    solver.train(deals, 20_000, batch=20_000)  # warm
    barrier.wait()
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        done += solver.train(deals, 20_000, batch=20_000).iterations
    out.put(done / (time.perf_counter() - t0))


def mccfr_phases(counts: list[int], batches: tuple[int, ...] = (20_000, 100_000), preset: str = "default") -> None:
    """Within one process on t threads: seconds to sample a batch's deals, and the
    batch's iterations/s as ``train`` runs it (sampling included), per batch size."""
    import numpy as np

    from pokerbot.blueprint_store.abstraction import HoldemDeals, stand_in_cards
    from pokerbot.blueprint_store.train import PRESETS, mccfr_solver
    from pokerbot.protocol.gamedef import bundled_game
    from pokerbot.solver.betting_tree import build_betting_tree

    p = PRESETS[preset]
    game = bundled_game("holdem.nolimit.2p")
    tree = build_betting_tree(game, p.actions.sizes(), p.cards.buckets)
    cards = stand_in_cards(p.cards.buckets)
    print(f"{preset} preset: {tree.num_nodes:,} nodes, {tree.num_slots:,} slots", flush=True)
    solver = mccfr_solver(tree, game, p.prune_threshold, p.regret_floor, seed=1)
    rng = np.random.default_rng(0)
    for t in counts:
        deals = HoldemDeals(cards, threads=t)
        solver.train(deals, 20_000, batch=20_000, threads=t)  # warm
        for b in batches:
            sample, walk = [], []
            for _ in range(3):
                t0 = time.perf_counter()
                deals.sample(2 * b, rng)
                sample.append(time.perf_counter() - t0)
                walk.append(solver.train(deals, b, batch=b, threads=t).seconds)
            s, w = statistics.median(sample), statistics.median(walk)
            print(
                f"mccfr phases: {t:2d} threads, batch {b:,}: {b / w:,.0f} it/s, sampling the deals "
                f"{1000 * s:.1f} ms of {1000 * w:.1f} ms ({100 * s / w:.0f} %)",
                flush=True,
            )


def run(job, k: int, seconds: float) -> list[float]:
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(k), ctx.Queue()
    procs = [ctx.Process(target=job, args=(barrier, seconds, out)) for _ in range(k)]
    before = os.environ.get("NUMBA_NUM_THREADS")
    os.environ["NUMBA_NUM_THREADS"] = "1"  # the children's pools: one thread each
    for p in procs:
        p.start()
    if before is None:
        del os.environ["NUMBA_NUM_THREADS"]
    else:
        os.environ["NUMBA_NUM_THREADS"] = before
    rates = [out.get() for _ in range(k)]
    for p in procs:
        p.join()
    return rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--counts", default="1,2", help="numbers of concurrent jobs (default 1,2)")
    ap.add_argument("--seconds", type=float, default=4.0, help="timed seconds per job (default 4)")
    ap.add_argument("--preset", default="default", help="phases: the preset whose action tree is trained")
    ap.add_argument("--work", default="turn,mccfr", help="turn, mccfr (default both), phases (MCCFR's sampling share)")
    a = ap.parse_args()
    counts = sorted({int(x) for x in a.counts.split(",")})
    from pokerbot.bot.bench.common import machine_description

    print(f"machine: {machine_description()}")
    for work in a.work.split(","):
        if work == "phases":
            mccfr_phases(counts, preset=a.preset)
            continue
        job, unit, lower_is_faster = {"turn": (_turn_job, "ms/iteration", True), "mccfr": (_mccfr_job, "it/s", False)}[
            work
        ]
        alone = None
        for k in counts:
            rates = run(job, k, a.seconds)
            med = statistics.median(rates)
            if alone is None:
                alone = med
            each = alone / med if lower_is_faster else med / alone
            print(
                f"{work}: {k:2d} jobs, each {med:,.2f} {unit} (min {min(rates):,.2f}, max {max(rates):,.2f}); "
                f"each at {100 * each:.0f} % of one alone; together {k * each:.2f}x one alone",
                flush=True,
            )


if __name__ == "__main__":
    main()
