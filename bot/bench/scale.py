"""``pokerbot bench scale``: what more threads buy, per thread count: ms per CFR+
iteration of the reference turn solve (``bench solver``'s spot), of the agent's
full-depth turn solve with 1, 4 and 16 river cards a pass and with every card
(``cfr.solve``'s ``chance_samples``), of the agent's depth-limited flop solve with one
runout a pass (the agent's default at any thread count), and with k runouts a pass on k
threads (the runout throughput), and blueprint MCCFR's iterations per second, each with
its speedup over one thread and its parallel efficiency (speedup / threads).

The flop solve and MCCFR run on the ``default`` preset's action tree with stand-in
cards (``abstraction.stand_in_cards``) and a uniform blueprint: their cost does not
depend on the strategy or on how hands are grouped, so any machine computes the same
work without a trained blueprint."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable

import numpy as np

from pokerbot.bot.bench.common import machine_description, per_iteration_interleaved
from pokerbot.bot.bench.spots import flop_spot, turn_spot, uniform_blueprint

#: Iterations of the timed solves (each against a solve of none, see ``per_iteration``).
TURN_ITERATIONS = 20
FLOP_ITERATIONS = 10
#: River cards a pass of the agent's full-depth turn solve (0: every card), each timed
#: over this many iterations (a pass of one card is about a fortieth of one of every card).
FULL_DEPTH_CARDS = {1: 200, 4: 60, 16: 20, 0: 10}
#: Seconds of MCCFR per thread count (after a warm-up batch).
MCCFR_SECONDS = 8.0


def parse_thread_counts(text: str, usable: int) -> list[int]:
    """ "1,2,4" -> [1, 2, 4]: positive, at most ``usable``, 1 first (the baseline)."""
    try:
        counts = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise ValueError(f"thread counts are integers separated by commas, got {text!r}") from None
    if not counts or counts[0] < 1:
        raise ValueError(f"thread counts must be positive, got {text!r}")
    if counts[-1] > usable:
        raise ValueError(f"{counts[-1]} threads asked, but this process may use {usable} CPUs")
    return counts if counts[0] == 1 else [1, *counts]


def default_thread_counts(usable: int) -> list[int]:
    """1, 2, 4, ... up to ``usable`` (and ``usable`` itself)."""
    out, t = [], 1
    while t < usable:
        out.append(t)
        t *= 2
    return [*out, usable]


def _speedups(times: dict[int, float], higher_is_faster: bool = False) -> dict[int, dict]:
    base = times[1]
    rows = {}
    for t, x in times.items():
        speedup = x / base if higher_is_faster else base / x
        rows[t] = {"value": x, "speedup": speedup, "efficiency": speedup / t}
    return rows


def bench_scale(
    threads: list[int], repeats: int = 3, mccfr_seconds: float = MCCFR_SECONDS, ceiling_seconds: float | None = None
) -> dict:
    """The report ``print_scale_report`` prints; ``ceiling_seconds``: also the machine's
    ceiling at each thread count (``ceiling.machine_ceiling``, jobs of that many seconds,
    up to three runs of each count), timed after the threaded runs."""
    from pokerbot.blueprint_store.abstraction import HoldemDeals
    from pokerbot.blueprint_store.store import Blueprint
    from pokerbot.blueprint_store.train import PRESETS, mccfr_solver
    from pokerbot.bot.bench.depth_limited import FLOP_BETTING, FLOP_BOARD
    from pokerbot.solver import cfr
    from pokerbot.solver.depth_limited import leaf_pieces, pass_balance, piece_bound, whole_trees

    out: dict = {"machine": machine_description(), "threads": threads, "repeats": repeats}
    turn = turn_spot()

    def turn_solve(t: int) -> Callable[[int], object]:
        return lambda n: cfr.solve(turn, n, threads=t)

    per = per_iteration_interleaved({t: turn_solve(t) for t in threads}, TURN_ITERATIONS, repeats)
    ms = {t: 1000 * per[t] for t in threads}
    out["turn"] = {"nodes": turn.tree.num_nodes, "hands": int(turn.hands.shape[0]), "ms_per_iteration": _speedups(ms)}
    out["full_depth_turn"] = full_depth_turn(threads, repeats)

    with tempfile.TemporaryDirectory(prefix="pokerbot-scale-") as tmp:
        t0 = time.perf_counter()
        bp_path = uniform_blueprint(os.path.join(tmp, "uniform.bp"))
        bp = Blueprint(bp_path)
        out["blueprint_seconds"] = time.perf_counter() - t0
        sub = flop_spot(bp)

        c = sub.continuations
        assert c is not None  # attached above
        sizes = np.diff(c.start)
        pieces = {t: leaf_pieces(c.start, c.first_child, c.num_children, piece_bound(sizes, 1, t)) for t in threads}
        cut = [t for t in threads if pieces[t].num_pieces != c.num_leaves]

        def flop_solve(t: int, samples: int) -> Callable[[int], object]:
            return lambda n: cfr.solve(sub, n, threads=t, card_samples=samples, seed=1)

        def whole_flop_solve(t: int) -> Callable[[int], object]:
            def solve(n: int) -> object:
                with whole_trees():
                    return cfr.solve(sub, n, threads=t, card_samples=1, seed=1)

            return solve

        # one runout a pass, whole trees where that one is cut, and k on k threads, all taking turns
        solves: dict[tuple[str, int], Callable[[int], object]] = {("one", t): flop_solve(t, 1) for t in threads}
        solves.update({("whole", t): whole_flop_solve(t) for t in cut})
        solves.update({("k", t): flop_solve(t, t) for t in threads})
        flop = per_iteration_interleaved(solves, FLOP_ITERATIONS, repeats)
        one = {t: 1000 * flop["one", t] for t in threads}
        many = {t: 1000 * flop["k", t] for t in threads}
        out["flop"] = {
            "spot": f"{FLOP_BOARD} {FLOP_BETTING}",
            "nodes": sub.tree.num_nodes,
            "leaves": c.num_leaves,
            "continuation_nodes": int(c.start[-1]),
            "runouts": len(c.cards),
            "ms_per_iteration_one_runout": _speedups(one),
            # the pieces its continuation trees are valued in on t threads (one a leaf: whole trees)
            "pieces_one_runout": {t: pieces[t].num_pieces for t in threads},
            # the most the leaves' part of such a pass can gain by the shares' work model (not a timing)
            "balance_one_runout": {t: pass_balance(c.start, c.first_child, c.num_children, 1, t) for t in threads},
            # the same solve with whole trees, where it is cut (the same bits: what the pieces buy)
            "ms_per_iteration_one_runout_whole_trees": {t: 1000 * flop["whole", t] for t in cut},
            "ms_per_iteration_k_runouts": {t: many[t] for t in threads},
            # runouts valued per second, k runouts a pass on k threads, against one on one
            "runouts_per_second": _speedups({t: 1000 * t / many[t] for t in threads}, higher_is_faster=True),
        }

        preset = PRESETS["default"]
        batch = preset.batch  # what training runs between its schedule checks
        runs: dict[int, list[float]] = {t: [] for t in threads}
        solvers = {}
        for t in threads:
            solver = mccfr_solver(bp.tree, bp.game, preset.prune_threshold, preset.regret_floor, seed=3)
            sampler = HoldemDeals(bp.cards, threads=t)
            solver.load_kernels(sampler, t)
            solver.train(sampler, batch, batch=batch, threads=t)  # warm: first touch of the regrets
            solvers[t] = (solver, sampler)
        for _ in range(repeats):  # the thread counts take turns, as the solves above
            for t, (solver, sampler) in solvers.items():
                done, t0 = 0, time.perf_counter()
                while time.perf_counter() - t0 < mccfr_seconds / repeats:
                    done += solver.train(sampler, batch, batch=batch, threads=t).iterations
                runs[t].append(done / (time.perf_counter() - t0))
        del solvers
        rates = {t: statistics.median(runs[t]) for t in threads}
        out["mccfr"] = {
            "preset": "default",
            "batch": batch,
            "slots": int(bp.tree.num_slots),
            "iterations_per_second": _speedups(rates, higher_is_faster=True),
        }
        if ceiling_seconds is not None:
            from pokerbot.bot.bench.ceiling import machine_ceiling

            out["ceiling"] = machine_ceiling(threads, bp_path, ceiling_seconds, repeats=min(repeats, 3))
    return out


def river_balance(sub, cards: int, threads: int) -> float:
    """The work model of a full-depth pass's river subtrees on ``threads`` threads: their
    nodes over the most nodes one thread walks (the blocks of ``cards`` river cards a
    pass as ``block_pass.draw_cards`` deals them, averaged over a round of passes; every
    card: thread t takes blocks t, t + T, ...); the most threads can speed that part up."""
    from pokerbot.solver.block_pass import draw_cards

    size = (sub.tree.blocks[:, 1] - sub.tree.blocks[:, 0] + 1).astype(np.float64)
    if cards <= 0 or cards >= len(sub.chance_cards()):
        loads = [size[t::threads].sum() for t in range(threads)]
        return float(size.sum() / max(loads))
    blocks = sub.block_arrays(threads, np.float32, cards, 1)
    ratios = []
    for it in range(max(len(blocks.cards) // cards, 1)):
        draw_cards(blocks, it, 0)
        ratios.append(float(blocks.share_work.sum() / blocks.share_work.max()))
    return statistics.fmean(ratios)


def full_depth_turn(threads: list[int], repeats: int) -> dict:
    """ms per iteration of the agent's full-depth turn solve (``spots.agent_turn_spot``)
    with each of FULL_DEPTH_CARDS river cards a pass, at each thread count, and the
    work model's bound on the river part's speedup (``river_balance``)."""
    from pokerbot.bot.bench.spots import agent_turn_spot
    from pokerbot.solver import cfr

    sub = agent_turn_spot()
    cards = len(sub.chance_cards())

    def solve(t: int, k: int) -> Callable[[int], object]:
        return lambda n: cfr.solve(sub, n, threads=t, chance_samples=k, seed=1)

    rows = {}
    for k, iterations in FULL_DEPTH_CARDS.items():
        per = per_iteration_interleaved({t: solve(t, k) for t in threads}, iterations, repeats)
        rows[str(k or cards)] = _speedups({t: 1000 * per[t] for t in threads})
    return {
        "nodes": sub.tree.num_nodes,
        "top_nodes": int(sub.tree.top_end),
        "blocks": len(sub.tree.blocks),
        "hands": int(sub.hands.shape[0]),
        "river_cards": cards,
        "ms_per_iteration": rows,
        "river_balance": {
            str(k or cards): {t: river_balance(sub, k, t) for t in sorted({*threads, 16})} for k in FULL_DEPTH_CARDS
        },
    }


def print_scale_report(r: dict) -> None:
    print(f"What more threads buy, medians of {r['repeats']} (speedup over one thread, efficiency = speedup / threads)")
    print(f"machine: {r['machine']}")

    def line(label: str, rows: dict, unit: str, fmt: str) -> None:
        cells = "  ".join(
            f"{t}: {format(x['value'], fmt)} {unit} {x['speedup']:.2f}x ({100 * x['efficiency']:.0f} %)"
            for t, x in sorted(rows.items(), key=lambda kv: int(kv[0]))
        )
        print(f"  {label}\n    {cells}")

    def ceiling_line(work: str, rows: dict) -> None:
        if "ceiling" not in r:
            return
        ceiling = {int(k): x["together"] for k, x in r["ceiling"][work].items()}
        speedup = {int(t): x["speedup"] for t, x in rows.items()}
        cells = "  ".join(
            f"{k}: {c:.2f}x" + (f" (the threads {100 * speedup[k] / c:.0f} % of it)" if k in speedup and k > 1 else "")
            for k, c in sorted(ceiling.items())
        )
        print(f"    the machine's ceiling, k one-thread jobs at once against one alone:\n    {cells}")

    u = r["turn"]
    line(f"turn reference solve ({u['nodes']} nodes, {u['hands']} hands), ms per iteration", u["ms_per_iteration"],
         "ms", ".2f")  # fmt: skip
    ceiling_line("turn", u["ms_per_iteration"])
    if "full_depth_turn" in r:
        d = r["full_depth_turn"]
        print(
            f"  the agent's full-depth turn solve ({d['nodes']} nodes, {d['blocks']} river subtrees, {d['hands']} "
            f"hands), ms per iteration"
        )
        for k, rows in sorted(d["ms_per_iteration"].items(), key=lambda kv: int(kv[0])):
            every = " (every card)" if int(k) == d["river_cards"] else ""
            line(f"{k} river card{'s' if int(k) > 1 else ''} a pass{every}", rows, "ms", ".2f")
            bound = d.get("river_balance", {}).get(k)
            if bound:
                cells = "  ".join(f"{t}: {x:.2f}x" for t, x in sorted(bound.items(), key=lambda kv: int(kv[0])))
                print(f"    the river subtrees' part at most (work model): {cells}")
    f = r["flop"]
    print(
        f"  flop depth-limited solve ({f['spot']}, default action tree, uniform blueprint): {f['nodes']} nodes, "
        f"{f['leaves']} leaves, {f['continuation_nodes']:,} continuation nodes, {f['runouts']} runouts"
    )
    line("one runout a pass (the agent's default), ms per iteration", f["ms_per_iteration_one_runout"], "ms", ".2f")
    pieces = sorted(f["pieces_one_runout"].items(), key=lambda kv: int(kv[0]))
    bound = dict(f["balance_one_runout"])
    cells = "  ".join(f"{t}: {n} pieces, {bound[t]:.2f}x" for t, n in pieces)
    print(f"    its leaves' trees valued in, and the most the leaves' part gains by the work model:\n    {cells}")
    whole = sorted(f["ms_per_iteration_one_runout_whole_trees"].items(), key=lambda kv: int(kv[0]))
    if whole:
        times = dict(f["ms_per_iteration_one_runout"])
        cells = "  ".join(f"{t}: {ms:.2f} ms (the pieces {ms / times[t]['value']:.2f}x faster)" for t, ms in whole)
        print(f"    the same with whole trees, where they are cut:\n    {cells}")
    line("k runouts a pass on k threads, runouts valued per second", f["runouts_per_second"], "/s", ",.0f")
    ceiling_line("flop", f["runouts_per_second"])
    m = r["mccfr"]
    line(f"MCCFR, default action tree ({m['slots']:,} slots, batches of {m['batch']:,}), iterations per second",
         m["iterations_per_second"], "it/s", ",.0f")  # fmt: skip
    ceiling_line("mccfr", m["iterations_per_second"])
