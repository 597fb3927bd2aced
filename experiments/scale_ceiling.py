"""What a machine gives k independent one-thread jobs, against one job alone: the ceiling
that memory bandwidth, shared caches and clock boost put on any k-thread speedup
(``pokerbot.bot.bench.ceiling``, which ``pokerbot bench scale --ceiling`` prints beside
the threaded rows), and MCCFR's two phases on t threads (``--work phases``).

    python experiments/scale_ceiling.py --counts 1,2,4,8,16 --seconds 4
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time


def parse_counts(text: str) -> list[int]:
    """The comma-separated job counts, with 1 (every ratio is against one job alone), in order."""
    return sorted({int(x) for x in text.split(",")} | {1})


def mccfr_phases(
    counts: list[int], batches: tuple[int, ...] = (20_000, 100_000), preset: str = "default"
) -> list[dict]:
    """Within one process on t threads: seconds to sample a batch's deals, and the
    batch's iterations/s as ``train`` runs it (sampling included), per batch size
    (medians of 3; a row each, printed as it comes)."""
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
    rows = []
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
            rows.append(
                {"threads": t, "batch": b, "iterations_per_second": b / w, "sampling_seconds": s, "batch_seconds": w}
            )
            print(
                f"mccfr phases: {t:2d} threads, batch {b:,}: {b / w:,.0f} it/s, sampling the deals "
                f"{1000 * s:.1f} ms of {1000 * w:.1f} ms ({100 * s / w:.0f} %)",
                flush=True,
            )
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--counts", default="1,2", help="numbers of concurrent jobs (default 1,2)")
    ap.add_argument("--seconds", type=float, default=4.0, help="timed seconds per job (default 4)")
    ap.add_argument("--preset", default="default", help="phases: the preset whose action tree is trained")
    ap.add_argument(
        "--work", default="turn,mccfr", help="turn, flop, mccfr (default turn,mccfr), phases (MCCFR's sampling share)"
    )
    a = ap.parse_args(argv)
    counts = parse_counts(a.counts)
    from pokerbot.bot.bench.ceiling import WORKS, ceiling_row, independent_rates
    from pokerbot.bot.bench.common import machine_description
    from pokerbot.bot.bench.spots import uniform_blueprint

    print(f"machine: {machine_description()}")
    with tempfile.TemporaryDirectory(prefix="pokerbot-ceiling-") as tmp:
        store = uniform_blueprint(os.path.join(tmp, "uniform.bp"))
        for work in a.work.split(","):
            if work == "phases":
                mccfr_phases(counts, preset=a.preset)
                continue
            row = ceiling_row({k: [independent_rates(work, k, a.seconds, store)] for k in counts})
            for k, x in row.items():
                print(
                    f"{work}: {k:2d} jobs, each {x['each']:,.2f} {WORKS[work]}/s; each at "
                    f"{100 * x['together'] / k:.0f} % of one alone; together {x['together']:.2f}x one alone",
                    flush=True,
                )


if __name__ == "__main__":
    main()
