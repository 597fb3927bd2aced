"""``pokerbot bench mccfr``: external-sampling MCCFR's exploitability curve and
nodes touched per second on a small game with exact best response."""

from __future__ import annotations

import os

from pokerbot.bot.bench.common import machine_description, pin_to_one_core


def bench_mccfr(iterations: int = 1_000_000, points: int = 10, seed: int = 3, threads: int | None = None) -> dict:
    """External-sampling MCCFR on Leduc without abstraction: exploitability (exact,
    the vector solver's best response) against iterations and seconds, plain and
    with negative-regret pruning after a tenth of the run, both on one core; the
    plain run again on ``threads`` (default: every CPU this process may use; none
    with one), at the same iterations; training throughput in nodes touched per
    second of each."""
    from pokerbot.protocol.betting import BettingState
    from pokerbot.protocol.gamedef import bundled_game
    from pokerbot.solver import cfr, mccfr
    from pokerbot.solver.betting_tree import build_betting_tree
    from pokerbot.solver.subgame import make_subgame
    from pokerbot.solver.tree import BetSizes

    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        allowed = list(range(os.cpu_count() or 1))
    threads = len(allowed) if threads is None else threads
    if threads < 1:
        raise ValueError(f"threads must be positive, got {threads}")
    game = bundled_game("leduc.limit.2p")
    deals = mccfr.LosslessDeals(game)
    sizes = BetSizes()
    tree = build_betting_tree(game, sizes, deals.bucket_counts)
    sub = make_subgame(BettingState(game), sizes)

    def exploitability(solver: mccfr.MCCFR) -> float:
        strategy = mccfr.to_public_strategy(tree, solver.average_strategy(), sub.tree, sub.hands, deals.bucket)
        return cfr.exploitability(sub, strategy)

    def curve(settings: mccfr.MCCFRSettings, k: int) -> tuple[list[dict], float]:
        solver = mccfr.MCCFR(tree, game.big_blind, settings, seed=seed)
        seconds = 0.0
        nodes = 0
        out = []
        for _ in range(points):
            r = solver.train(deals, iterations // points, batch=50_000, threads=k)
            seconds += r.seconds
            nodes += r.nodes_touched
            out.append(
                {
                    "iterations": solver.iterations,
                    "seconds": seconds,
                    "exploitability_mchips": 1000 * exploitability(solver),
                }
            )
        return out, nodes / seconds

    mccfr.MCCFR(tree, game.big_blind, seed=seed).train(deals, 2_000)  # compile outside the timed runs
    runs = {
        "plain": mccfr.MCCFRSettings(),
        "pruned": mccfr.MCCFRSettings(
            prune_after=iterations // 10, prune_threshold=-500_000, regret_floor=-600_000, prune_k=5_263
        ),
    }
    curves: dict[str, list[dict]] = {}
    throughput = {}
    pin_to_one_core()
    try:
        for name, settings in runs.items():
            curves[name], throughput[name] = curve(settings, 1)
    finally:
        try:
            os.sched_setaffinity(0, set(allowed))
        except (AttributeError, OSError):
            pass
    multi = None
    if threads > 1:
        mccfr.MCCFR(tree, game.big_blind, seed=seed).train(deals, 2_000, threads=threads)
        points_multi, rate = curve(runs["plain"], threads)
        multi = {
            "threads": threads,
            "nodes_per_second": rate,
            "curve": points_multi,
            "exploitability_mchips": points_multi[-1]["exploitability_mchips"],
            "iterations": points_multi[-1]["iterations"],
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
    m = r["all_cores"]
    more = f" | on {m['threads']} threads" if m else ""
    print(f"  exploitability in milli-chips per hand (exact best response), plain | with pruning{more}:")
    rows = zip(r["curves"]["plain"], r["curves"]["pruned"], m["curve"] if m else [None] * len(r["curves"]["plain"]))
    for a, b, c in rows:
        line = (
            f"  {a['iterations']:>9,} it  {a['seconds']:6.2f} s {a['exploitability_mchips']:7.1f}  |"
            f"  {b['seconds']:6.2f} s {b['exploitability_mchips']:7.1f}"
        )
        if c is not None:
            line += f"  |  {c['seconds']:6.2f} s {c['exploitability_mchips']:7.1f}"
        print(line)
    t = r["nodes_per_second_1_core"]
    print(f"  one core: {t['plain'] / 1e6:.1f} M nodes touched/s plain, {t['pruned'] / 1e6:.1f} M with pruning")
    if m:
        ratios = [
            c["exploitability_mchips"] / a["exploitability_mchips"] for a, c in zip(r["curves"]["plain"], m["curve"])
        ]
        print(
            f"  {m['threads']} threads: {m['nodes_per_second'] / 1e6:.1f} M nodes touched/s "
            f"({m['nodes_per_second'] / m['threads'] / 1e6:.1f} M per core); exploitability against one core's "
            f"at equal iterations: {min(ratios):.2f}-{max(ratios):.2f} times"
        )
