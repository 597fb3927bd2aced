"""Processes started together on a fresh machine compile each kernel once: one compiles,
the others wait for its lock and load what it cached (``kernel_cache``)."""

import os
import subprocess
import sys
import time

import numpy as np

from pokerbot.solver import kernel_cache

CHILD = """
import os, sys, time
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver import kernel_cache, ranges
go, locks, me = sys.argv[1], sys.argv[2], sys.argv[3]
other = str(1 - int(me))
if locks == "broken":
    kernel_cache.held = lambda kernel, signature: __import__("contextlib").nullcontext()  # a lock that never holds
elif locks != "shared":
    kernel_cache.lock_directory = lambda: locks  # a lock folder of its own: nothing shared
kernel_cache.on_wait = lambda line: open(go + ".waiting." + me, "w").close()

def meet(kernel, depth):
    # On a cache miss of the barrier kernel, before compiling it (so before either
    # process can have cached it): wait until the other process is compiling it too, or
    # is waiting for a lock this one holds. Whichever process is faster, two processes
    # without a shared lock then both compile it, and two with one never do.
    if kernel != BARRIER or os.path.exists(go + ".compiling." + me):
        return
    open(go + ".compiling." + me, "w").close()
    deadline = time.monotonic() + 240
    while not any(os.path.exists(go + x + other) for x in (".compiling.", ".waiting.")):
        if time.monotonic() > deadline:
            sys.exit("the other process neither compiled " + BARRIER + " nor waited for a lock")
        time.sleep(0.002)

BARRIER = "solver.evaluator._card_keys"
open(go + "." + me, "w").close()  # imported, waiting
while not os.path.exists(go):
    time.sleep(0.002)
hands = ranges.hole_hands(bundled_game("holdem.nolimit.2p"))
with kernel_cache.watch(started=meet):
    print(int(ranges.strengths_on_board(hands, [0, 5, 10, 15, 20]).sum()))
"""

#: The kernel both processes meet at before compiling it (a plain kernel of the evaluator).
BARRIER = "solver.evaluator._card_keys"


def start_together(tmp_path, locks):
    """Two processes on one fresh numba cache, both calling the same kernels at the same
    moment, meeting on a miss of BARRIER before compiling it (see CHILD); ``locks`` is
    "shared" (the machine's lock folder), "own" (a folder each) or "broken" (a lock that
    never holds). Returns their outputs and the compile log."""
    log = tmp_path / "compiles.jsonl"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), **{kernel_cache.COMPILE_LOG_ENV: str(log)})
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                CHILD,
                str(go),
                str(tmp_path / f"locks{i}") if locks == "own" else locks,
                str(i),
            ],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    deadline = time.monotonic() + 240
    while not all(os.path.exists(f"{go}.{i}") for i in range(2)):  # both imported and waiting (a busy machine is slow)
        assert time.monotonic() < deadline, "the two processes did not start"
        time.sleep(0.01)
    go.write_text("")
    outs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    return outs, kernel_cache.compile_log(str(log))


def test_two_processes_compile_each_kernel_once(tmp_path):
    outs, lines = start_together(tmp_path, "shared")
    assert outs[0] == outs[1] != ""
    kernels = {x["kernel"] for x in lines}
    assert BARRIER in kernels  # on a fresh cache it was compiled, by one of them
    assert kernel_cache.compiled_twice(lines) == {}


def test_without_a_shared_lock_both_compile(tmp_path):
    """Negative control: each process with a lock folder of its own compiles the same
    kernel, and the compile log shows it, whichever process is faster (they meet on the
    cache miss before either compiles)."""
    outs, lines = start_together(tmp_path, "own")
    assert outs[0] == outs[1] != ""
    twice = kernel_cache.compiled_twice(lines)
    assert BARRIER in {k for k, _ in twice} and all(len(p) == 2 for p in twice.values())


def test_a_lock_that_never_holds_compiles_twice(tmp_path):
    """Negative control of the first test's check: with the lock broken (taking it does
    nothing) the same two processes compile BARRIER twice, so that check would fail."""
    outs, lines = start_together(tmp_path, "broken")
    assert outs[0] == outs[1] != ""
    assert BARRIER in {k for k, _ in kernel_cache.compiled_twice(lines)}


def test_watch_reports_compiles_but_not_loads(tmp_path):
    """A kernel compiled anew is reported with its time; the same call again (the
    process has it) is not."""
    import numba as nb

    seen = []
    # a kernel made here (not cached on disk) in our package's namespace
    namespace = {"__name__": "pokerbot.tests_kernel"}
    exec("import numba as nb\n@nb.njit\ndef twice(x):\n    return 2 * x\n", namespace)
    twice = namespace["twice"]
    assert isinstance(twice, nb.core.registry.CPUDispatcher)
    with kernel_cache.watch(finished=lambda k, s, d, a: seen.append((k, d))):
        assert twice(np.int64(4)) == 8
        assert twice(np.int64(5)) == 10
    assert seen == [("tests_kernel.twice", 0)]


def test_compiled_twice_groups_by_kernel_and_types():
    lines = [
        {"pid": 1, "kernel": "a", "signature": "x"},
        {"pid": 2, "kernel": "a", "signature": "x"},
        {"pid": 2, "kernel": "a", "signature": "y"},
        {"pid": 3, "kernel": "b", "signature": "x"},
        {"pid": 3, "kernel": "b", "signature": "x"},
    ]
    assert kernel_cache.compiled_twice(lines) == {("a", "x"): [1, 2]}


def test_a_factorys_kernels_have_locks_of_their_own():
    """The one-thread and the parallel kernel a factory makes share a function name; one
    lock for both made a process wait for a compile of the other kernel (over a minute
    on two cores). Their names carry the values they close over; a plain kernel's does not."""
    from pokerbot.solver import passes

    pairs = [(passes.run_cfr, passes.run_cfr_parallel), (passes.traverse, passes.traverse_parallel)]
    for one, parallel in pairs:
        assert one.py_func.__qualname__ == parallel.py_func.__qualname__
        a, b = kernel_cache.kernel_name(one), kernel_cache.kernel_name(parallel)
        assert a != b and a.endswith("=False]") and b.endswith("=True]")
        assert kernel_cache.lock_path(a, "(float32,)") != kernel_cache.lock_path(b, "(float32,)")
    assert kernel_cache.kernel_name(passes.normalise) == "solver.passes.normalise"
