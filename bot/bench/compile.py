"""``pokerbot bench compile``: where a first run's compile time goes, kernel by kernel.

``pokerbot warm`` (the agent's kernels; ``--threads`` as the agent's) and, with
``training``, a short quick-preset training (the card abstraction's and MCCFR's kernels)
run in a subprocess on an empty numba cache of their own, one after the other, with
$POKERBOT_COMPILE_LOG set (``solver.kernel_cache``); the report sums each kernel's
compiles: in all (with the kernels compiled for it) and on its own (less those)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from pokerbot.bot.bench.common import machine_description

#: The quick preset's training in the measure: seconds of MCCFR (its kernels compile
#: before the clock starts).
TRAINING_SECONDS = 1.0


def exclusive_seconds(lines: list[dict]) -> list[float]:
    """Each compile's seconds less those of the compiles nested in it (in a process's
    log a compile ends after the ones it started: they are the lines just before it
    one level deeper)."""
    out = [0.0] * len(lines)
    children: dict[tuple[int, int], float] = {}  # (pid, depth) -> seconds of finished compiles not yet claimed
    for i, x in enumerate(lines):
        pid, depth = int(x["pid"]), int(x["depth"])
        inner = children.pop((pid, depth + 1), 0.0)
        out[i] = float(x["seconds"]) - inner
        children[(pid, depth)] = children.get((pid, depth), 0.0) + float(x["seconds"])
    return out


def bench_compile(threads: int = 1, training: bool = False) -> dict:
    from pokerbot.solver.kernel_cache import COMPILE_LOG_ENV, compile_log

    report: dict = {"machine": machine_description(), "threads": threads, "steps": []}
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "compiles.jsonl")
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "cache"), **{COMPILE_LOG_ENV: log})
        env.pop("POKERBOT_BLUEPRINT", None)
        steps = [("pokerbot warm", ["warm", "--threads", str(threads)])]
        if training:
            out = os.path.join(tmp, "t.bp")
            minutes = str(TRAINING_SECONDS / 60)
            steps.insert(0, ("quick-preset training", ["train-blueprint", "--preset", "tiny", "--out", out,
                                                      "--minutes", minutes]))  # fmt: skip
        for name, args in steps:
            before = len(compile_log(log))
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "pokerbot.bot.cli", *args],
                env=env,
                cwd=tmp,  # no blueprint there: the agent's solver kernels only
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            lines = compile_log(log)[before:]
            own = exclusive_seconds(lines)
            kernels: dict[str, dict] = {}
            for x, alone in zip(lines, own):
                k = kernels.setdefault(x["kernel"], {"compiles": 0, "seconds": 0.0, "own_seconds": 0.0})
                k["compiles"] += 1
                k["own_seconds"] += alone
                if x["depth"] == 0:
                    k["seconds"] += x["seconds"]
            report["steps"].append(
                {
                    "name": name,
                    "wall_seconds": time.perf_counter() - t0,
                    "compile_seconds": sum(x["seconds"] for x in lines if x["depth"] == 0),
                    "compiles": len(lines),
                    "kernels": dict(sorted(kernels.items(), key=lambda kv: -kv[1]["own_seconds"])),
                }
            )
    return report


def print_compile_report(report: dict, top: int = 15) -> None:
    print(f"machine: {report['machine']}; kernels for solves on {report['threads']} thread(s); empty numba cache")
    for step in report["steps"]:
        print(
            f"{step['name']}: {step['wall_seconds']:.1f} s, {step['compile_seconds']:.1f} s compiling, "
            f"{step['compiles']} compiles (kernel and argument types)"
        )
        print(f"  {'own s':>7} {'in all s':>8} {'compiles':>8}  kernel (largest {top} by their own time)")
        for name, k in list(step["kernels"].items())[:top]:
            in_all = f"{k['seconds']:8.1f}" if k["seconds"] else f"{'-':>8}"
            print(f"  {k['own_seconds']:7.1f} {in_all} {k['compiles']:8d}  {name}")
