"""What every benchmark shares: the machine it ran on, pinning to one core, medians."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable, Hashable
from typing import TypeVar

Key = TypeVar("Key", bound=Hashable)


def machine_description() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical CPUs, {platform.python_implementation()} {platform.python_version()}"


def pin_to_one_core() -> int | None:
    """Pin this process to one CPU (the last one allowed); returns it, or None."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[-1]})
        return cpus[-1]
    except (AttributeError, OSError):
        return None


def median_time(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up: compilation, caches
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def per_iteration(solve: Callable[[int], object], iterations: int, repeats: int) -> tuple[float, float]:
    """(seconds of setup per solve, seconds per iteration) of ``solve(n)``, a solve of n
    iterations: medians of ``repeats`` solves of 0 and of ``iterations`` iterations,
    alternated so drift hits both (an iteration count would amortise the setup)."""
    solve(1)  # compile and warm up
    setup: list[float] = []
    full: list[float] = []
    for _ in range(repeats):
        for n, out in ((0, setup), (iterations, full)):
            t0 = time.perf_counter()
            solve(n)
            out.append(time.perf_counter() - t0)
    s = statistics.median(setup)
    return s, max(statistics.median(full) - s, 0.0) / iterations


def per_iteration_interleaved(
    solves: dict[Key, Callable[[int], object]], iterations: int, repeats: int
) -> dict[Key, float]:
    """Seconds per iteration of each of ``solves`` (key -> ``solve(n)``), as
    ``per_iteration`` measures one, the solves taking turns within each repeat, so that a
    drift of the machine's speed hits every key alike (two thread counts timed one
    after the other on a VM whose speed moves would compare two machines)."""
    for solve in solves.values():
        solve(1)  # compile and warm up
    setup: dict[Key, list[float]] = {k: [] for k in solves}
    full: dict[Key, list[float]] = {k: [] for k in solves}
    for _ in range(repeats):
        for k, solve in solves.items():
            for n, out in ((0, setup[k]), (iterations, full[k])):
                t0 = time.perf_counter()
                solve(n)
                out.append(time.perf_counter() - t0)
    return {k: max(statistics.median(full[k]) - statistics.median(setup[k]), 0.0) / iterations for k in solves}
