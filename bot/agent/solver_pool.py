"""A pool of warm subgame-solver processes shared by every seat of a process.

Why processes: a solve is seconds of numba work; in its own process it cannot take the
player's connection down with it, it can be killed at a deadline, and several seats
(threads of one ``pokerbot play``) share a few warm workers instead of each compiling
and holding its own.

Each worker is started with the ``spawn`` method (no inherited locks or threads), loads
the numba kernels from the on-disk cache and runs one small solve before it reports
ready, so the first real solve of a match pays no compilation. One thread per worker in
the parent feeds it jobs from a shared queue, waits for the answer up to the job's
deadline plus a grace period, and replaces the worker (a new warm process) when it dies
or overruns; the job then fails with ``WorkerLost`` and the caller falls back to the
best strategy it already has.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import signal
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, replace

import numpy as np
import structlog

from pokerbot.solver import cfr
from pokerbot.solver.subgame import Subgame
from pokerbot.solver.warm_up import load_solver_kernels

log = structlog.get_logger("solver_pool")

#: How long past its own deadline a solve may take before its worker is killed:
#: the deadline is checked between CFR+ iterations, and the answer has to come back.
GRACE_SECONDS = 0.75
#: How long a new worker may take to load its kernels and report ready.
START_TIMEOUT = 300.0


class WorkerLost(RuntimeError):
    """The worker running a solve died or overran its deadline (it has been replaced)."""


@dataclass
class SolveJob:
    sub: Subgame
    iterations: int
    deadline: float  # seconds of solving from when the worker starts it
    gadget: cfr.Gadget | None = None
    threads: int = 1
    #: seconds from submission by which the answer must be back, whatever happens (time
    #: queued behind another seat's solve or waiting for a replacement worker included):
    #: the solve's deadline is shortened to fit, and the worker is killed past it.
    #: Default: the deadline plus GRACE_SECONDS.
    limit: float | None = None
    #: depth-limited subgames: next cards drawn per pass (0: every card) and their key
    card_samples: int = 0
    seed: int = 0
    #: the average strategy weighs iteration t by t to this power (``cfr.solve``)
    average_exponent: float = 1.0
    #: unsafe solves: start from this strategy instead of from scratch (``cfr.WarmStart``)
    warm_start: cfr.WarmStart | None = None
    #: ``time.monotonic()`` when the pool handed the job to a worker (0: solved in place):
    #: the time the subgame takes to reach the worker counts against its deadline
    sent: float = 0.0
    #: full-depth subgames: river cards a pass (0: every card; ``cfr.solve``'s ``chance_samples``)
    chance_samples: int = 0
    #: Discounted CFR's (alpha, beta) instead of CFR+ (``cfr.solve``'s ``discount``)
    discount: tuple[float, float] | None = None


#: Seconds kept, out of a job's limit, for its answer to come back.
RETURN_MARGIN = 0.1
#: A solve is not started with less than this left before its limit.
MIN_SOLVE = 0.01


def run_job(job: SolveJob) -> cfr.SolveResult:
    """Solve; for an unsafe river solve (no gadget, no chance node) also measure the
    result's exploitability in the subgame (two best-response passes in the solve's
    precision, about two iterations' work), which the agent logs. A turn solve is not
    measured: a depth-limited pass over every next card costs many of its sampled
    iterations, and a full-depth one over the whole tree (every river card) as much as
    two exact iterations, after the deadline."""
    deadline = job.deadline
    if job.sent > 0:  # monotonic time is the machine's: comparable between processes
        deadline = max(deadline - (time.monotonic() - job.sent), MIN_SOLVE)
    r = cfr.solve(
        job.sub,
        job.iterations,
        deadline=deadline,
        gadget=job.gadget,
        threads=job.threads,
        card_samples=job.card_samples,
        seed=job.seed,
        average_exponent=job.average_exponent,
        warm_start=job.warm_start,
        chance_samples=job.chance_samples,
        discount=job.discount,
        strategy_dtype=answer_dtype(job.sub),
    )
    if job.gadget is None and job.sub.continuations is None and job.sub.tree.num_chance == 0:
        r.exploitability = cfr.exploitability(job.sub, r.strategy, dtype=cfr.SOLVE_DTYPE)
    return compact(job.sub, r)


def answer_dtype(sub: Subgame):
    """The precision a solve of ``sub`` answers in: the solver's for a tree with chance
    nodes (a full-depth turn strategy is 10,000 nodes x 1,128 hands: made in place of
    its sums, and sent back in half the bytes), double otherwise."""
    return cfr.SOLVE_DTYPE if sub.tree.num_chance > 0 else np.float64


#: A strategy of at least this many bytes goes back raw after the rest of its answer
#: (``send_answer``): the worker pickles no copy of it, and the player reads it into an
#: array whose pages it wrote while the worker solved (``answer_array``).
RAW_ANSWER_BYTES = 1 << 20


#: Bytes of an answer array written between two looks at the worker (``write_pages``).
PAGES_A_STEP = 4 << 20


def answer_array(sub: Subgame, written: bool = True) -> np.ndarray | None:
    """An array for the strategy of a solve of ``sub`` if it comes back raw, every page
    written unless not ``written`` (a fresh page is mapped at its first write, which on
    a VM can cost 2 ms a MB: done while the worker solves, not after its deadline); None
    if it does not."""
    dtype = np.dtype(answer_dtype(sub))
    shape = (sub.tree.num_nodes, sub.hands.shape[0])
    if shape[0] * shape[1] * dtype.itemsize < RAW_ANSWER_BYTES:
        return None
    out = np.empty(shape, dtype=dtype)
    if written:
        out.fill(0)
    return out


def write_pages(out: np.ndarray, start: int, step: int = PAGES_A_STEP) -> int:
    """Write ``step`` bytes of ``out`` from byte ``start`` (mapping their pages); the
    byte it stopped at."""
    flat = out.reshape(-1).view(np.uint8)
    end = min(start + step, flat.size)
    flat[start:end] = 0
    return end


def send_answer(conn, job_id: int, r: cfr.SolveResult) -> None:
    """Send a solve's answer: pickled whole, or (a strategy of RAW_ANSWER_BYTES or
    more) the rest pickled with the strategy's shape and type, then its bytes as they
    lie in memory."""
    s = r.strategy
    if s.nbytes < RAW_ANSWER_BYTES or not s.flags.c_contiguous:
        conn.send((job_id, "ok", r))
        return
    conn.send((job_id, "raw", replace(r, strategy=np.empty(0, dtype=s.dtype)), s.shape, s.dtype.str))
    conn.send_bytes(s.data.cast("B"))


def read_answer(conn, answer: tuple, into: np.ndarray | None = None) -> tuple[str, object]:
    """(status, payload) of an ``answer`` received on ``conn``: a raw strategy is read
    into ``into`` where its shape and type match (else into a new array). Raises
    EOFError or OSError if the worker went away before its bytes came."""
    if answer[1] != "raw":
        return answer[1], answer[2]
    _, _, r, shape, dtype = answer
    shape, dtype = tuple(shape), np.dtype(dtype)
    out = into if into is not None and into.shape == shape and into.dtype == dtype else np.empty(shape, dtype)
    try:
        n = conn.recv_bytes_into(out.data.cast("B"))
    except mp.BufferTooShort:
        raise OSError(f"a strategy longer than the {out.nbytes} bytes due") from None
    if n != out.nbytes:
        raise OSError(f"a strategy of {n} bytes where {out.nbytes} were due")
    r.strategy = out
    return "ok", r


def compact(sub: Subgame, r: cfr.SolveResult) -> cfr.SolveResult:
    """``r`` with a tree with chance nodes' strategy in the solver's precision (the
    average it normalises was kept in it): a full-depth turn strategy is 10,000 nodes x
    1,128 hands, whose copy back to the player is then half as long."""
    if sub.tree.num_chance > 0 and r.strategy.dtype != cfr.SOLVE_DTYPE:
        r.strategy = r.strategy.astype(cfr.SOLVE_DTYPE)
    return r


def _worker_main(conn, warm: bool, threads: int = 1) -> None:
    """A worker process: warm up (for jobs on ``threads``), say ready, then answer
    solve jobs until told to stop or the parent goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
    try:
        if warm:
            load_solver_kernels(threads)
        conn.send(("ready", os.getpid()))
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                return
            if msg is None:
                return
            job_id, job = msg
            try:
                r = run_job(job)
            except Exception as e:  # a bad job must not kill the worker
                conn.send((job_id, "error", f"{type(e).__name__}: {e}"))
                continue
            try:
                send_answer(conn, job_id, r)
            except (TypeError, ValueError, AttributeError) as e:  # an answer that cannot be pickled
                conn.send((job_id, "error", f"{type(e).__name__}: {e}"))
    except (BrokenPipeError, EOFError, OSError, KeyboardInterrupt):
        return


class _Worker:
    def __init__(self, ctx, warm: bool, threads: int) -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, warm, threads), daemon=True, name="pokerbot-solver")
        self.proc.start()
        child.close()
        self.pid = self.proc.pid
        self.ready = False

    def wait_ready(self, timeout: float) -> bool:
        if self.ready:
            return True
        if self.conn.poll(timeout):
            try:
                msg = self.conn.recv()
            except (EOFError, OSError):
                return False
            self.ready = msg[0] == "ready"
        return self.ready

    def kill(self) -> None:
        try:
            self.proc.kill()
        except (OSError, ValueError):
            pass
        self.proc.join(timeout=5)
        self.conn.close()


class SolverPool:
    """``workers`` warm solver processes (warmed for jobs on ``threads``). ``submit``
    returns a Future of a ``cfr.SolveResult`` that fails with ``WorkerLost`` if the
    worker died or overran. Thread-safe: any number of seats may submit."""

    def __init__(self, workers: int = 1, warm: bool = True, threads: int = 1) -> None:
        if workers < 1:
            raise ValueError(f"a solver pool needs at least one worker, got {workers}")
        self._ctx = mp.get_context("spawn")
        self._warm = warm
        self._warm_threads = threads
        self._jobs: queue.Queue = queue.Queue()
        self._closed = False
        self._lock = threading.Lock()
        self._next_id = 0
        self.replaced = 0  # workers that died or overran and were replaced
        self._t0 = time.perf_counter()
        self._workers = [_Worker(self._ctx, warm, threads) for _ in range(workers)]
        self._threads = [
            threading.Thread(target=self._serve, args=(i,), daemon=True, name=f"solver-feed-{i}")
            for i in range(workers)
        ]
        for th in self._threads:
            th.start()

    @property
    def pids(self) -> list[int]:
        return [w.pid for w in self._workers]

    def wait_ready(self, timeout: float = START_TIMEOUT) -> bool:
        """Block until every worker is warm (True) or ``timeout`` passes (False)."""
        end = time.monotonic() + timeout
        ok = all(w.wait_ready(max(0.0, end - time.monotonic())) for w in list(self._workers))
        if ok:
            log.info(
                "solver_pool_ready",
                workers=len(self._workers),
                pids=self.pids,
                seconds=round(time.perf_counter() - self._t0, 2),
            )
        return ok

    def submit(self, job: SolveJob) -> Future:
        fut: Future = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the solver pool is closed")
            self._next_id += 1
            limit = job.deadline + GRACE_SECONDS if job.limit is None else job.limit
            self._jobs.put((self._next_id, job, fut, time.monotonic() + limit))
        return fut

    def solve(self, job: SolveJob) -> cfr.SolveResult:
        """Submit and wait (raises ``WorkerLost`` if the worker was lost)."""
        return self.submit(job).result()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for _ in self._threads:
            self._jobs.put(None)
        for th in self._threads:
            th.join(timeout=5)
        for w in self._workers:
            try:
                w.conn.send(None)
            except (OSError, ValueError):
                pass
            w.proc.join(timeout=2)
            if w.proc.is_alive():
                w.kill()

    def __enter__(self) -> SolverPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ parent side
    def _replace(self, i: int, why: str) -> None:
        old = self._workers[i]
        old.kill()
        self.replaced += 1
        self._workers[i] = _Worker(self._ctx, self._warm, self._warm_threads)
        log.warning("solver_worker_replaced", reason=why, old_pid=old.pid, new_pid=self._workers[i].pid)

    @staticmethod
    def _await_answer(w, into: np.ndarray | None, give_up: float) -> tuple[tuple | None, bool]:
        """Worker ``w``'s answer, or None when it died or ``give_up`` passed (and whether
        its pipe closed). The answer's pages (``into``) are written a step between two
        looks at the worker, so that writing them never delays noticing an overrun."""
        written, to_write = 0, 0 if into is None else into.nbytes
        while True:
            if into is not None and written < to_write:
                written = write_pages(into, written)
            left = give_up - time.monotonic()
            wait = 0.0 if written < to_write else min(left, 0.05)
            try:
                if w.conn.poll(max(0.0, wait)):
                    return w.conn.recv(), False
            except (EOFError, OSError):
                return None, True
            if not w.proc.is_alive() and not w.conn.poll(0):
                return None, False
            if left <= 0:
                return None, False

    def _serve(self, i: int) -> None:
        """Feed worker ``i``: one job at a time, answer or replace."""
        while True:
            item = self._jobs.get()
            if item is None:
                return
            job_id, job, fut, give_up = item
            if not fut.set_running_or_notify_cancel():
                continue
            w = self._workers[i]
            # a replacement may still be warming up: it may take what the limit leaves
            if not w.wait_ready(max(0.0, give_up - time.monotonic() - RETURN_MARGIN - MIN_SOLVE)):
                alive = w.proc.is_alive()
                fut.set_exception(WorkerLost(f"solver worker {w.pid} not ready in time"))
                if not alive:
                    self._replace(i, "died while starting")
                continue
            left = give_up - time.monotonic() - RETURN_MARGIN
            if left < MIN_SOLVE:
                fut.set_exception(WorkerLost("no time left to solve (queued too long)"))
                continue
            if left < job.deadline:
                job = replace(job, deadline=left)
            try:
                w.conn.send((job_id, replace(job, sent=time.monotonic())))
            except (OSError, ValueError) as e:
                fut.set_exception(WorkerLost(f"solver worker {w.pid} unreachable: {e}"))
                self._replace(i, "unreachable")
                continue
            log.debug("solve_started", pid=w.pid, job=job_id, iterations=job.iterations, deadline=job.deadline)
            into = answer_array(job.sub, written=False)
            answer, eof = self._await_answer(w, into, give_up)
            if answer is None:
                if eof:
                    w.proc.join(0.5)  # a killed process may not be reaped yet
                died = not w.proc.is_alive()
                fut.set_exception(
                    WorkerLost(f"solver worker {w.pid} {'died' if died else 'overran its deadline'} during a solve")
                )
                self._replace(i, "died" if died else "overran")
                continue
            try:
                status, payload = read_answer(w.conn, answer, into)
            except (EOFError, OSError) as e:
                fut.set_exception(WorkerLost(f"solver worker {w.pid} went away while answering: {e}"))
                self._replace(i, "died")
                continue
            if status == "ok":
                fut.set_result(payload)
            else:
                fut.set_exception(RuntimeError(f"solver worker failed: {payload}"))
