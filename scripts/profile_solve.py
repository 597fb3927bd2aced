#!/usr/bin/env python3
"""Where a solve's time goes, kernel by kernel: a solve of the agent's full-depth turn
tree (k river cards a pass) or of the reference turn tree, on one thread, sampled by
Linux ``perf`` (the cpu-clock software event, so it also works where the VM exposes no
hardware counters), its samples attributed to the solver's compiled kernels.

numba's code is compiled at run time, so ``perf`` sees only addresses; this script
compiles the kernels afresh (an empty numba cache in a temporary folder: kernels
loaded from a cache carry no symbol table), reads each kernel's object code for its
symbols, and writes ``/tmp/perf-PID.map`` (perf's map for run-time code) before the
timed solve. What is inlined counts for its caller. Needs ``perf`` on the PATH
(Debian: ``linux-perf``).

    .venv/bin/python scripts/profile_solve.py                     # the agent's turn tree, 4 cards a pass
    .venv/bin/python scripts/profile_solve.py --spot reference --iterations 150
    .venv/bin/python scripts/profile_solve.py --cards 1 --discount  # DCFR (1.5, 0), gamma 2, as the agent plays
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter

SPOTS = ("agent", "reference")


def readable(symbol: str) -> str | None:
    """``_ZN8pokerbot6solver13showdown_pass15showdown_valuesB3v54...`` ->
    ``solver.showdown_pass.showdown_values``; None for a symbol not of the package (a
    numba wrapper: ``cpython.``, ``cfunc.``)."""
    if not symbol.startswith("_ZN8pokerbot"):
        return None
    at, parts = len("_ZN8pokerbot"), []
    while at < len(symbol) and symbol[at].isdigit():
        digits = re.match(r"\d+", symbol[at:]).group()
        at += len(digits)
        parts.append(symbol[at : at + int(digits)])
        at += int(digits)
    return ".".join(parts) or None


def write_perf_map() -> int:
    """Write /tmp/perf-PID.map for the package's kernels compiled in this process;
    returns the number of functions mapped."""
    from numba.core.dispatcher import Dispatcher

    entries: dict[int, tuple[int, str]] = {}
    seen: set[int] = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith("pokerbot") or module is None:
            continue
        for obj in list(vars(module).values()):
            if not isinstance(obj, Dispatcher):
                continue
            for cres in obj.overloads.values():
                library = cres.library
                if id(library) in seen:
                    continue
                seen.add(id(library))
                try:
                    code = library._get_compiled_object()
                except Exception:  # a kernel loaded from a cache: no object code to read
                    continue
                with tempfile.NamedTemporaryFile(suffix=".o") as f:
                    f.write(code)
                    f.flush()
                    listing = subprocess.run(
                        ["nm", "-S", "--defined-only", f.name], capture_output=True, text=True, check=True
                    ).stdout
                for line in listing.splitlines():
                    fields = line.split()
                    if len(fields) != 4 or fields[2] not in ("t", "T"):
                        continue
                    label = readable(fields[3])
                    if label is None:
                        continue
                    address = library.get_pointer_to_function(fields[3])
                    if address:
                        entries[address] = (int(fields[1], 16), label)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for address in sorted(entries):
            size, label = entries[address]
            f.write(f"{address:x} {size:x} {label}\n")
    return len(entries)


def child(args: argparse.Namespace) -> None:
    """Run under perf: compile, map, then the timed solve."""
    from pokerbot.bot.bench.spots import agent_turn_spot, turn_spot
    from pokerbot.solver import cfr

    sub = agent_turn_spot() if args.spot == "agent" else turn_spot()
    cards = args.cards if args.spot == "agent" else 0
    extra = {"discount": (1.5, 0.0), "average_exponent": 2.0} if args.discount else {}

    def solve(n: int):
        return cfr.solve(sub, n, threads=1, chance_samples=cards, seed=1, **extra)

    solve(1)  # compile every kernel the solve runs
    mapped = write_perf_map()
    t0 = time.perf_counter()
    solve(0)
    setup = time.perf_counter() - t0
    t0 = time.perf_counter()
    solve(args.iterations)
    seconds = time.perf_counter() - t0 - setup
    print(f"mapped {mapped} kernels; {args.iterations} iterations: {1000 * seconds / args.iterations:.3f} ms each")


def report(data: str) -> Counter:
    """Samples per kernel, from perf's report of ``data``."""
    out = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "sym", "--stdio", "-F", "sample,sym"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    samples: Counter = Counter()
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+\[\.\]\s+(solver\.\S+)", line)
        if m:
            samples[m.group(2)] += int(m.group(1))
    return samples


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument(
        "--spot", choices=SPOTS, default="agent", help="the agent's full-depth turn tree or the reference turn tree"
    )
    p.add_argument("--cards", type=int, default=4, help="agent: river cards a pass (0: every card; default 4)")
    p.add_argument("--iterations", type=int, default=3000, help="iterations of the timed solve (default 3,000)")
    p.add_argument("--discount", action="store_true", help="Discounted CFR (1.5, 0), gamma 2, instead of CFR+")
    p.add_argument("--frequency", type=int, default=2000, help="samples a second (default 2,000)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.iterations < 1 or args.cards < 0 or args.frequency < 1:
        p.error("--iterations and --frequency must be positive and --cards at least 0")
    if args.child:
        child(args)
        return
    if shutil.which("perf") is None:
        sys.exit("profile_solve: perf is not on the PATH (Debian: apt-get install linux-perf)")
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "numba"))
        command = [sys.executable, os.path.abspath(__file__), "--child", *sys.argv[1:]]
        run = subprocess.run(
            ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(args.frequency), "-o", data, "--", *command],
            env=env,
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            sys.exit(f"profile_solve: the profiled solve failed:\n{run.stderr[-2000:]}")
        print(run.stdout.strip())
        samples = report(data)
    total = sum(samples.values())
    if total == 0:
        sys.exit("profile_solve: no samples in the solver's kernels (is perf allowed here? perf_event_paranoid)")
    print(f"{total} samples in the solver's kernels (the inlined counted in their caller):")
    for name, n in samples.most_common():
        if n / total >= 0.005:
            print(f"  {100 * n / total:5.1f} %  {name}")


if __name__ == "__main__":
    main()
