"""The solver process pool: answers equal to an in-process solve, a worker killed
mid-solve or overrunning its deadline is replaced and the job fails with WorkerLost
(fast, so the caller can still reply), a bad job does not kill its worker."""

import os
import signal
import time

import numpy as np
import pytest

from pokerbot.bot.agent.solver_pool import (
    RAW_ANSWER_BYTES,
    SolveJob,
    SolverPool,
    WorkerLost,
    answer_array,
    read_answer,
    send_answer,
    write_pages,
)
from pokerbot.protocol.betting import BettingState, apply_betting
from pokerbot.protocol.cards import parse_cards
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver import cfr
from pokerbot.solver.subgame import make_subgame
from pokerbot.solver.tree import BetSizes

pytestmark = pytest.mark.timeout(600)
HUNL = bundled_game("holdem.nolimit.2p")


def river():
    st = apply_betting(BettingState(HUNL, 0, None, parse_cards("QsJh2h8d3c")), "r300c/cc/cc/")
    return make_subgame(st, BetSizes(bets=((0.5, 1.0), (1.0,)), max_raises=2))


def turn():
    st = apply_betting(BettingState(HUNL, 0, None, parse_cards("QsJh2h8d")), "r300c/cc/")
    return make_subgame(
        st, {2: BetSizes(bets=((0.5,), (1.0,)), max_raises=2), 3: BetSizes(bets=((0.5,), (1.0,)), max_raises=2)}
    )


@pytest.fixture(scope="module")
def pool():
    p = SolverPool(1)
    assert p.wait_ready(300)
    yield p
    p.close()


def wait_for_new_worker(pool, old_pid, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pool.pids and pool.pids[0] != old_pid:
            return pool.pids[0]
        time.sleep(0.05)
    raise AssertionError("the dead worker was not replaced")


def test_pool_solve_equals_in_process_solve(pool):
    sub = river()
    got = pool.solve(SolveJob(sub, 40, 30.0))
    want = cfr.solve(sub, 40)
    assert got.iterations == 40 and not got.stopped_early
    np.testing.assert_array_equal(got.strategy, want.strategy)


def test_a_full_depth_turn_answer_comes_back_raw_with_the_same_bits(pool):
    """A tree with chance nodes: the worker answers in the solver's precision, the
    strategy sent raw after the rest and read into the array the pool wrote while it
    solved; the bits of the in-process solve in that precision."""
    sub = turn()
    into = answer_array(sub)
    assert into is not None and into.dtype == cfr.SOLVE_DTYPE and into.nbytes >= RAW_ANSWER_BYTES
    job = SolveJob(sub, 6, 60.0, seed=3)
    job.chance_samples = 4
    got = pool.solve(job)
    want = cfr.solve(sub, 6, chance_samples=4, seed=3, strategy_dtype=cfr.SOLVE_DTYPE)
    assert got.strategy.dtype == cfr.SOLVE_DTYPE and got.strategy.shape == want.strategy.shape
    np.testing.assert_array_equal(got.strategy, want.strategy)


def test_the_answer_s_pages_are_written_a_step_at_a_time_to_the_end():
    out = np.ones((5, 7), dtype=np.float32)  # 140 bytes
    steps = [0]
    while steps[-1] < out.nbytes:
        steps.append(write_pages(out, steps[-1], step=64))
    assert steps == [0, 64, 128, 140] and not out.any()


def test_a_raw_answer_is_read_whole_or_refused():
    """``read_answer``: into the given array when it fits, else a new one; an answer
    whose bytes are short is an error, not a strategy of zeros."""
    import multiprocessing as mp
    import threading

    a, b = mp.Pipe()

    def sending(*args):  # a pipe holds less than the answer: the other end must read meanwhile
        t = threading.Thread(target=send_answer, args=(a, *args), daemon=True)
        t.start()
        return t

    strategy = np.arange(RAW_ANSWER_BYTES // 4 + 10, dtype=np.float32).reshape(-1, 2)
    for into in (np.zeros_like(strategy), np.zeros((3, 2), dtype=np.float32), None):
        t = sending(7, cfr.SolveResult(strategy, 5, False, 0.1))
        status, r = read_answer(b, b.recv(), into)
        t.join(10)
        assert status == "ok" and r.iterations == 5
        np.testing.assert_array_equal(r.strategy, strategy)
        assert (r.strategy is into) == (into is not None and into.shape == strategy.shape)
    a.send((8, "raw", cfr.SolveResult(np.empty(0, np.float32), 5, False, 0.1), strategy.shape, "<f4"))
    a.send_bytes(b"\0" * 16)
    with pytest.raises(OSError):
        read_answer(b, b.recv(), None)
    small = cfr.SolveResult(np.ones((2, 2)), 1, False, 0.0)  # pickled whole
    send_answer(a, 9, small)
    answer = b.recv()
    assert answer[1] == "ok" and read_answer(b, answer)[1].strategy.shape == (2, 2)


def test_killed_worker_is_replaced_and_the_job_fails_fast(pool):
    old = pool.pids[0]
    fut = pool.submit(SolveJob(turn(), 100_000, 60.0))  # far longer than the test waits
    time.sleep(1.0)  # let it start
    assert fut.running()
    t0 = time.monotonic()
    os.kill(old, signal.SIGKILL)
    with pytest.raises(WorkerLost, match="died"):
        fut.result(timeout=10)
    assert time.monotonic() - t0 < 2.0
    new = wait_for_new_worker(pool, old)
    assert new != old and pool.replaced >= 1
    r = pool.solve(SolveJob(river(), 5, 60.0))  # the replacement works (it may still be warming up)
    assert r.iterations == 5


def test_worker_killed_while_idle_is_replaced_at_the_next_job(pool):
    old = pool.pids[0]
    assert pool.solve(SolveJob(river(), 2, 60.0)).iterations == 2  # ready and idle
    os.kill(old, signal.SIGKILL)
    time.sleep(0.2)
    with pytest.raises(WorkerLost):
        pool.solve(SolveJob(river(), 2, 60.0))
    wait_for_new_worker(pool, old)
    assert pool.solve(SolveJob(river(), 2, 120.0)).iterations == 2


def test_overrunning_worker_is_killed_at_the_limit():
    """A worker that has not answered by the job's limit is killed and replaced, and the
    wait ends at the limit. The worker is stopped (SIGSTOP) before the job is sent, so
    it overruns whatever the machine's speed (a solve made long enough to overrun on a
    slow core came back in time on a fast one)."""
    with SolverPool(1) as p:  # its own pool: this test kills the worker on purpose
        assert p.wait_ready(300)
        p.solve(SolveJob(river(), 1, 120.0))  # warm
        old = p.pids[0]
        os.kill(old, signal.SIGSTOP)  # the job (70 KB) still fits the socket's buffers
        t0 = time.monotonic()
        with pytest.raises(WorkerLost, match="overran"):
            p.solve(SolveJob(river(), 10, 0.001, limit=0.3))
        assert 0.3 <= time.monotonic() - t0 < 1.5
        wait_for_new_worker(p, old)
        with pytest.raises(ProcessLookupError):
            os.kill(old, 0)  # the stopped worker was killed and reaped, not left behind
        assert p.replaced == 1
        assert p.solve(SolveJob(river(), 2, 120.0)).iterations == 2


def test_a_bad_job_fails_without_killing_the_worker(pool):
    pool.solve(SolveJob(river(), 1, 120.0))
    pid = pool.pids[0]
    sub = river()
    bad = cfr.Gadget("maxmargin", 0, np.zeros(3))  # wrong length
    with pytest.raises(RuntimeError, match="alt_values"):
        pool.solve(SolveJob(sub, 5, 10.0, bad))
    assert pool.pids[0] == pid and pool.solve(SolveJob(sub, 3, 10.0)).iterations == 3


def test_pool_needs_a_worker():
    with pytest.raises(ValueError, match="at least one worker"):
        SolverPool(0)


def test_a_job_limit_shortens_the_solve_and_bounds_the_wait(pool):
    pool.solve(SolveJob(river(), 1, 120.0))  # warm
    t0 = time.monotonic()
    r = pool.solve(SolveJob(river(), 10_000_000, 30.0, limit=0.5))  # the limit, not the deadline, rules
    assert r.stopped_early and time.monotonic() - t0 < 0.75
    # queued behind another job for longer than its limit: it fails without running
    first = pool.submit(SolveJob(river(), 10_000_000, 1.0))
    second = pool.submit(SolveJob(river(), 10, 30.0, limit=0.3))
    with pytest.raises(WorkerLost, match="no time left"):
        second.result(timeout=10)
    assert first.result(timeout=10).stopped_early


def test_the_time_a_job_takes_to_reach_its_worker_counts_against_its_deadline():
    """A job handed over 0.45 s before a 0.5 s deadline solves for what is left (the
    pool stamps ``sent`` as it sends; a big depth-limited subgame takes a while to
    travel); one stamped now solves for the whole deadline."""
    from pokerbot.bot.agent.solver_pool import run_job

    sub = river()
    run_job(SolveJob(sub, 2, 60.0))  # warm
    late = run_job(SolveJob(sub, 10_000_000, 0.5, sent=time.monotonic() - 0.45))
    fresh = run_job(SolveJob(sub, 10_000_000, 0.5, sent=time.monotonic()))
    assert late.stopped_early and fresh.stopped_early
    assert late.seconds < 0.2 and fresh.seconds > 0.3
    assert late.iterations < fresh.iterations / 2
