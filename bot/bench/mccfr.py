"""``pokerbot bench mccfr``: external-sampling MCCFR's exploitability curve and
nodes touched per second on a small game with exact best response."""

from __future__ import annotations

import os

from pokerbot.bot.bench.common import machine_description, pin_to_one_core


def bench_mccfr(iterations: int = 1_000_000, points: int = 10, seed: int = 3) -> dict:
    """External-sampling MCCFR on Leduc without abstraction: exploitability (exact,
    the vector solver's best response) against iterations and seconds, plain and
    with negative-regret pruning after a tenth of the run; training throughput in
    nodes touched per second on one core and on all cores."""
    from pokerbot.protocol.betting import BettingState
    from pokerbot.protocol.gamedef import bundled_game
    from pokerbot.solver import cfr, mccfr
    from pokerbot.solver.betting_tree import build_betting_tree
    from pokerbot.solver.subgame import make_subgame
    from pokerbot.solver.tree import BetSizes

    cpu = pin_to_one_core()
    game = bundled_game("leduc.limit.2p")
    deals = mccfr.LosslessDeals(game)
    sizes = BetSizes()
    tree = build_betting_tree(game, sizes, deals.bucket_counts)
    sub = make_subgame(BettingState(game), sizes)

    def exploitability(solver: mccfr.MCCFR) -> float:
        strategy = mccfr.to_public_strategy(tree, solver.average_strategy(), sub.tree, sub.hands, deals.bucket)
        return cfr.exploitability(sub, strategy)

    warm = mccfr.MCCFR(tree, game.big_blind, seed=seed)
    warm.train(deals, 2_000)  # compile outside the timed runs
    runs = {
        "plain": mccfr.MCCFRSettings(),
        "pruned": mccfr.MCCFRSettings(
            prune_after=iterations // 10, prune_threshold=-500_000, regret_floor=-600_000, prune_k=5_263
        ),
    }
    curves: dict[str, list[dict]] = {}
    throughput = {}
    for name, settings in runs.items():
        solver = mccfr.MCCFR(tree, game.big_blind, settings, seed=seed)
        seconds = 0.0
        nodes = 0
        curve = []
        for _ in range(points):
            r = solver.train(deals, iterations // points, batch=50_000)
            seconds += r.seconds
            nodes += r.nodes_touched
            curve.append(
                {
                    "iterations": solver.iterations,
                    "seconds": seconds,
                    "exploitability_mchips": 1000 * exploitability(solver),
                }
            )
        curves[name] = curve
        throughput[name] = nodes / seconds
    multi = None
    cores = os.cpu_count() or 1
    if cpu is not None and cores > 1:
        try:
            os.sched_setaffinity(0, set(range(cores)))
        except OSError:
            pass
        solver = mccfr.MCCFR(tree, game.big_blind, seed=seed)
        solver.train(deals, 2_000, threads=cores)
        r = solver.train(deals, iterations // 2, batch=50_000, threads=cores)
        multi = {
            "threads": cores,
            "nodes_per_second": r.nodes_per_second,
            "exploitability_mchips": 1000 * exploitability(solver),
            "iterations": solver.iterations,
        }
    return {
        "machine": machine_description(),
        "game": "leduc.limit.2p (OpenSpiel's leduc_poker)",
        "information_sets": int(
            sum(((tree.kind == 0) & (tree.round == r)).sum() * len(deals.classes[r]) for r in range(game.num_rounds))
        ),
        "curves": curves,
        "nodes_per_second_1_core": throughput,
        "all_cores": multi,
    }


def print_mccfr_report(r: dict) -> None:
    print(f"External-sampling MCCFR on {r['game']}, {r['information_sets']} information sets, no abstraction")
    print(f"machine: {r['machine']}")
    print("  exploitability in milli-chips per hand (exact best response), plain | with pruning:")
    for a, b in zip(r["curves"]["plain"], r["curves"]["pruned"]):
        print(
            f"  {a['iterations']:>9,} it  {a['seconds']:6.2f} s {a['exploitability_mchips']:7.1f}  |"
            f"  {b['seconds']:6.2f} s {b['exploitability_mchips']:7.1f}"
        )
    t = r["nodes_per_second_1_core"]
    print(f"  one core: {t['plain'] / 1e6:.1f} M nodes touched/s plain, {t['pruned'] / 1e6:.1f} M with pruning")
    m = r["all_cores"]
    if m:
        print(
            f"  {m['threads']} threads: {m['nodes_per_second'] / 1e6:.1f} M nodes touched/s "
            f"({m['nodes_per_second'] / m['threads'] / 1e6:.1f} M per core), exploitability "
            f"{m['exploitability_mchips']:.1f} after {m['iterations']:,} iterations"
        )
