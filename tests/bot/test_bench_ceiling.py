"""``pokerbot bench scale --ceiling``: k independent one-thread jobs against one alone."""

import os
import time

import pytest

from pokerbot.bot.bench import ceiling, scale, spots


def test_a_ceiling_row_is_the_jobs_total_against_one_alone():
    row = ceiling.ceiling_row({1: [[10.0]], 2: [[9.0, 8.0]], 4: [[5.0, 6.0, 7.0, 6.0]]})
    assert row[1] == {"each": 10.0, "together": 1.0}
    assert row[2] == {"each": 8.5, "together": pytest.approx(1.7)}
    assert row[4] == {"each": 6.0, "together": pytest.approx(2.4)}
    # several runs: medians over them, the job alone's too (a slow run alone would inflate every ratio)
    row = ceiling.ceiling_row({1: [[10.0], [6.0], [11.0]], 2: [[9.0, 8.0], [10.0, 10.0], [5.0, 5.0]]})
    assert row[1] == {"each": 10.0, "together": 1.0}
    assert row[2] == {"each": 8.5, "together": pytest.approx(1.7)}
    with pytest.raises(ValueError, match="start at 1"):
        ceiling.machine_ceiling([2, 4], "unused.bp")


def test_bad_work_is_refused_before_anything_starts():
    with pytest.raises(ValueError, match="unknown work"):
        ceiling.independent_rates("river", 1)
    with pytest.raises(ValueError, match="needs a blueprint"):
        ceiling.independent_rates("flop", 1)


def test_a_job_that_dies_stops_the_others_with_a_clear_error(tmp_path):
    # the store is missing: each job fails while it builds its spot; the one that did not
    # die would otherwise wait at the barrier
    before = os.environ.get("NUMBA_NUM_THREADS")
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="flop job of 2 at once died"):
        ceiling.independent_rates("flop", 2, 0.1, str(tmp_path / "missing.bp"))
    assert time.monotonic() - t0 < 120
    assert os.environ.get("NUMBA_NUM_THREADS") == before  # the children's setting undone


def _rows(values):
    return {t: {"value": v, "speedup": values[1] / v, "efficiency": values[1] / v / t} for t, v in values.items()}


def test_the_report_puts_the_ceiling_beside_each_row(capsys):
    def report(with_ceiling):
        r = {
            "repeats": 3, "machine": "test",
            "turn": {"nodes": 1, "hands": 2, "ms_per_iteration": _rows({1: 2.0, 2: 1.25})},
            "flop": {
                "spot": "QsJh2h r300c/", "nodes": 45, "leaves": 15, "continuation_nodes": 2827, "runouts": 98,
                "ms_per_iteration_one_runout": _rows({1: 20.0, 2: 10.0}),
                "pieces_one_runout": {1: 15, 2: 15}, "balance_one_runout": {1: 1.0, 2: 1.91},
                "ms_per_iteration_one_runout_whole_trees": {},
                "runouts_per_second": _rows({1: 50.0, 2: 40.0}),
            },
            "mccfr": {"slots": 10, "batch": 5, "iterations_per_second": _rows({1: 1.0, 2: 0.5})},
        }  # fmt: skip
        if with_ceiling:  # as JSON gives it back: string keys
            r["ceiling"] = {
                "seconds": 4.0,
                "turn": {"1": {"each": 1.0, "together": 1.0}, "2": {"each": 0.9, "together": 1.8}},
                "flop": {"1": {"each": 1.0, "together": 1.0}, "2": {"each": 0.625, "together": 1.25}},
                "mccfr": {"1": {"each": 1.0, "together": 1.0}, "2": {"each": 1.0, "together": 2.0}},
            }
        scale.print_scale_report(r)
        return capsys.readouterr().out

    out = report(True)
    assert out.count("the machine's ceiling") == 3
    assert "2: 1.80x (the threads 89 % of it)" in out  # turn: 1.60x against 1.80x
    assert "2: 1.25x (the threads 100 % of it)" in out  # flop: 1.25x against 1.25x
    assert "2: 2.00x (the threads 100 % of it)" in out  # mccfr
    assert "ceiling" not in report(False)


@pytest.mark.slow
def test_the_ceiling_of_each_work_runs_on_this_machine(tmp_path):
    store = spots.uniform_blueprint(str(tmp_path / "uniform.bp"))
    r = ceiling.machine_ceiling([1, 2], store, seconds=0.5)
    for work in ceiling.WORKS:
        assert set(r[work]) == {1, 2} and r[work][1]["together"] == 1.0
        # two jobs at once: about what one alone does or more, not far past two
        assert 0.8 < r[work][2]["together"] <= 2.6 and r[work][2]["each"] > 0
