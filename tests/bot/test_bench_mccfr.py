"""``pokerbot bench mccfr``: the curves it reports, the threaded one at the one-core
runs' iterations, and its thread count checked."""

import os

import pytest

from pokerbot.bot.bench.mccfr import bench_mccfr
from pokerbot.bot.cli import main


def test_threaded_curve_is_taken_at_the_same_iterations():
    before = os.sched_getaffinity(0)
    r = bench_mccfr(iterations=40_000, points=2, threads=2)
    assert os.sched_getaffinity(0) == before  # the one-core pin is undone
    plain, pruned, multi = r["curves"]["plain"], r["curves"]["pruned"], r["all_cores"]
    assert multi["threads"] == 2
    assert [p["iterations"] for p in multi["curve"]] == [p["iterations"] for p in plain] == [20_000, 40_000]
    assert [p["iterations"] for p in pruned] == [20_000, 40_000]
    for curve in (plain, pruned, multi["curve"]):
        # Leduc's exploitability after 20k and 40k iterations: well below uniform play's
        # (about 4,700 milli-chips) and falling
        assert 0 < curve[1]["exploitability_mchips"] < curve[0]["exploitability_mchips"] < 1_000
    assert multi["nodes_per_second"] > 0


def test_one_thread_leaves_out_the_threaded_curve():
    r = bench_mccfr(iterations=10_000, points=1, threads=1)
    assert r["all_cores"] is None and len(r["curves"]["plain"]) == 1


def test_bench_mccfr_refuses_bad_thread_counts(capsys):
    assert main(["bench", "mccfr", "--threads", "0"]) == 2
    assert main(["bench", "mccfr", "--threads", "100000"]) == 2
    err = capsys.readouterr().err
    assert "positive" in err or "at least" in err
    assert "may use" in err
    with pytest.raises(ValueError, match="positive"):
        bench_mccfr(iterations=10, points=1, threads=0)
