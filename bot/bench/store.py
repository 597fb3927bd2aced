"""``pokerbot bench store``: a blueprint store opened in two processes: how much of
its memory the second shares with the first."""

from __future__ import annotations

import os
import sys

_TOUCH = r"""
import sys, time
import numpy as np
def rollup():
    out = {}
    for line in open('/proc/self/smaps_rollup'):
        k, _, v = line.partition(':')
        parts = v.split()
        if parts and parts[0].isdigit():
            out[k.strip()] = int(parts[0])
    return out
from pokerbot.blueprint_store.store import Blueprint
before = rollup()  # after the imports: what follows is the store's doing
t0 = time.perf_counter()
bp = Blueprint(sys.argv[1])
opened = time.perf_counter() - t0
total = 0.0
for name, a in bp.arrays.items():
    flat = a.reshape(-1)
    step = max(1, 4096 // max(1, a.dtype.itemsize))
    total += float(np.asarray(flat[::step], dtype=np.float64).sum())
after = rollup()
print(opened, before['Rss'], after['Rss'], before.get('Pss', 0), after.get('Pss', 0),
      after.get('Private_Dirty', 0) - before.get('Private_Dirty', 0),
      after.get('Shared_Clean', 0) - before.get('Shared_Clean', 0), flush=True)
if sys.argv[2] == 'hold':
    sys.stdin.read()
"""


def bench_store(path: str) -> dict:
    """Open one store in two processes, touching every page: the second process's
    extra resident memory, and how much of it is shared with the first."""
    import subprocess

    first = subprocess.Popen(
        [sys.executable, "-c", _TOUCH, path, "hold"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert first.stdout is not None  # stdout=PIPE
    a = first.stdout.readline().split()
    try:
        out = subprocess.run([sys.executable, "-c", _TOUCH, path, "once"], capture_output=True, text=True, check=True)
    finally:
        first.communicate("")
    b = out.stdout.split()
    opened, rss0, rss1, pss0, pss1, private, shared = (float(x) for x in b)
    return {
        "store_mb": os.path.getsize(path) / 1e6,
        "open_seconds": opened,
        "first_process_extra_rss_mb": (float(a[2]) - float(a[1])) / 1024,
        "second_process_extra_rss_mb": (rss1 - rss0) / 1024,
        "second_process_extra_pss_mb": (pss1 - pss0) / 1024,
        "second_process_extra_private_dirty_mb": private / 1024,
        "second_process_extra_shared_clean_mb": shared / 1024,
    }


def print_store_report(r: dict) -> None:
    print(f"store: {r['store_mb']:.0f} MB, opened in {r['open_seconds'] * 1000:.1f} ms")
    print(f"  first process, every page touched: +{r['first_process_extra_rss_mb']:.0f} MB resident")
    print(
        f"  second process at the same time: +{r['second_process_extra_rss_mb']:.0f} MB resident, of which "
        f"{r['second_process_extra_shared_clean_mb']:.0f} MB shared with the first; "
        f"+{r['second_process_extra_private_dirty_mb']:.1f} MB private; proportional share "
        f"+{r['second_process_extra_pss_mb']:.0f} MB"
    )
