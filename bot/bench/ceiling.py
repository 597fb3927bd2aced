"""What a machine gives k independent one-thread jobs, against one such job alone: the
ceiling that memory bandwidth, shared caches and clock boost put on a k-thread speedup
of the same work (``pokerbot bench scale --ceiling``).

For each k, k spawned processes (one numba thread each) build their spot, warm up, meet
at a barrier and run the same one-thread work for a fixed time. The work is what
``bench scale`` times: the reference turn solve, the agent's depth-limited flop solve
with one runout a pass, and MCCFR on the default action tree, each as a rate (higher is
faster: iterations, runouts or MCCFR iterations per second)."""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import statistics
import time

#: Seconds each job runs its work after the barrier.
CEILING_SECONDS = 4.0
#: Seconds a job may take to start, build its spot and warm up before the others give up.
START_SECONDS = 600.0
#: What each work measures, per second.
WORKS = {"turn": "iterations", "flop": "runouts", "mccfr": "MCCFR iterations"}


def _run_job(work: str, blueprint: str | None, seed: int, seconds: float, barrier, out) -> None:
    """One job: build the spot of ``work``, warm up, wait for the others, then put the
    work's rate over ``seconds`` on ``out``."""
    from pokerbot.bot.bench.spots import flop_spot, turn_spot
    from pokerbot.solver import cfr

    if work == "turn":
        sub = turn_spot()
        cfr.solve(sub, 3, threads=1)  # kernels, first touch

        def step() -> int:
            cfr.solve(sub, 10, threads=1)
            return 10
    elif work == "flop":
        from pokerbot.blueprint_store.store import Blueprint

        assert blueprint is not None
        flop = flop_spot(Blueprint(blueprint))
        cfr.solve(flop, 2, threads=1, card_samples=1, seed=1)

        def step() -> int:  # one runout a pass: an iteration values one runout
            cfr.solve(flop, 5, threads=1, card_samples=1, seed=1)
            return 5
    elif work == "mccfr":
        from pokerbot.blueprint_store.abstraction import HoldemDeals
        from pokerbot.blueprint_store.store import Blueprint
        from pokerbot.blueprint_store.train import PRESETS, mccfr_solver

        assert blueprint is not None
        bp = Blueprint(blueprint)
        preset = PRESETS["default"]
        solver = mccfr_solver(bp.tree, bp.game, preset.prune_threshold, preset.regret_floor, seed=seed)
        deals = HoldemDeals(bp.cards, threads=1)
        solver.train(deals, preset.batch, batch=preset.batch)  # kernels, first touch of the regrets

        def step() -> int:
            return solver.train(deals, preset.batch, batch=preset.batch).iterations
    else:
        raise ValueError(f"unknown work {work!r}; one of {', '.join(WORKS)}")
    barrier.wait(timeout=START_SECONDS)
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        done += step()
    out.put(done / (time.perf_counter() - t0))


def independent_rates(work: str, k: int, seconds: float = CEILING_SECONDS, blueprint: str | None = None) -> list[float]:
    """The rates of ``k`` jobs of ``work`` run at once, one numba thread each (``blueprint``:
    the store the flop and MCCFR work use, see ``spots.uniform_blueprint``). A job that
    dies stops the others and raises RuntimeError."""
    if work not in WORKS:
        raise ValueError(f"unknown work {work!r}; one of {', '.join(WORKS)}")
    if work != "turn" and blueprint is None:
        raise ValueError(f"the {work} work needs a blueprint store")
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(k), ctx.Queue()
    procs = [
        ctx.Process(target=_run_job, args=(work, blueprint, 3 + j, seconds, barrier, out), daemon=True)
        for j in range(k)
    ]
    before = os.environ.get("NUMBA_NUM_THREADS")
    os.environ["NUMBA_NUM_THREADS"] = "1"  # the children's pools: one thread each
    try:
        for p in procs:
            p.start()
    finally:
        if before is None:
            del os.environ["NUMBA_NUM_THREADS"]
        else:
            os.environ["NUMBA_NUM_THREADS"] = before
    rates: list[float] = []
    limit = START_SECONDS + seconds + 60
    give_up = time.monotonic() + limit
    try:
        while len(rates) < k:
            try:
                rates.append(out.get(timeout=0.5))
                continue
            except queue.Empty:
                pass
            dead = [p.exitcode for p in procs if p.exitcode not in (None, 0)]
            if dead:
                raise RuntimeError(f"a {work} job of {k} at once died (exit code {dead[0]})")
            if time.monotonic() > give_up:
                raise RuntimeError(f"the {work} jobs ({k} at once) gave no result in {limit:.0f} s")
    finally:
        for p in procs:
            if p.exitcode is None and len(rates) < k:
                p.terminate()
            p.join()
    return rates


def ceiling_row(runs_by_count: dict[int, list[list[float]]]) -> dict[int, dict]:
    """Per count k, from runs of k jobs at once (each run: the k jobs' rates): each job's
    median rate and the k jobs' total against one job alone (``together``, medians over
    the runs: the most a k-thread run of the work could gain on this machine)."""
    alone = statistics.median(r for run in runs_by_count[1] for r in run)
    return {
        k: {
            "each": statistics.median(r for run in runs for r in run),
            "together": statistics.median(sum(run) for run in runs) / alone,
        }
        for k, runs in sorted(runs_by_count.items())
    }


def machine_ceiling(
    counts: list[int],
    blueprint: str,
    seconds: float = CEILING_SECONDS,
    works: tuple[str, ...] = tuple(WORKS),
    repeats: int = 1,
) -> dict:
    """``ceiling_row`` of each of ``works`` at each of ``counts`` (1 first), ``repeats``
    runs of each count, the counts taking turns."""
    if not counts or counts[0] != 1:
        raise ValueError(f"counts start at 1 (the job alone), got {counts}")
    out: dict = {"seconds": seconds, "repeats": repeats}
    for work in works:
        runs: dict[int, list[list[float]]] = {k: [] for k in counts}
        for _ in range(repeats):
            for k in counts:
                runs[k].append(independent_rates(work, k, seconds, blueprint))
        out[work] = ceiling_row(runs)
    return out
