"""experiments/scale_ceiling.py: the counts it runs and MCCFR's two phases (what
docs/performance.md and docs/cluster.md quote; the ceiling itself is
``pokerbot.bot.bench.ceiling``'s, tested in tests/bot/test_bench_ceiling.py)."""

import pytest

from experiments import scale_ceiling as sc


def test_counts_always_hold_one_job_alone_in_order():
    assert sc.parse_counts("8,2,4") == [1, 2, 4, 8]
    assert sc.parse_counts("2,2,1") == [1, 2]
    with pytest.raises(ValueError):
        sc.parse_counts("1,two")


def test_mccfr_phases_time_sampling_inside_the_batch(capsys):
    rows = sc.mccfr_phases([1], batches=(2_000, 4_000), preset="tiny")
    assert [(r["threads"], r["batch"]) for r in rows] == [(1, 2_000), (1, 4_000)]
    for r in rows:
        assert r["sampling_seconds"] > 0 and r["batch_seconds"] > 0
        assert r["iterations_per_second"] == pytest.approx(r["batch"] / r["batch_seconds"])
    printed = capsys.readouterr().out
    assert printed.startswith("tiny preset: ") and printed.count("mccfr phases:  1 threads") == 2
