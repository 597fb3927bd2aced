"""``pokerbot bench scale``: the thread counts it accepts, and (slow) one run end to end."""

import pytest
from conftest import cli_json

from pokerbot.blueprint_store.train import PRESETS
from pokerbot.bot.bench import scale
from pokerbot.bot.cli import main


def test_thread_counts_are_checked_and_start_at_one():
    assert scale.parse_thread_counts("2,1,4", 4) == [1, 2, 4]
    assert scale.parse_thread_counts("4", 4) == [1, 4]  # the baseline is always timed
    assert scale.default_thread_counts(16) == [1, 2, 4, 8, 16]
    assert scale.default_thread_counts(6) == [1, 2, 4, 6]
    assert scale.default_thread_counts(1) == [1]
    for bad, words in (("0,2", "positive"), ("a,b", "integers"), ("1,64", "may use"), ("", "positive")):
        with pytest.raises(ValueError, match=words):
            scale.parse_thread_counts(bad, 8)


def test_bench_scale_refuses_more_threads_than_cpus(capsys):
    assert main(["bench", "scale", "--threads", "1,100000"]) == 2
    assert "may use" in capsys.readouterr().err


@pytest.mark.slow
def test_bench_scale_reports_each_row_with_its_speedups():
    r = cli_json("bench", "scale", "--threads", "1,2", "--repeats", "1", "--json")
    for rows in (r["turn"]["ms_per_iteration"], r["flop"]["ms_per_iteration_one_runout"],
                 r["flop"]["runouts_per_second"], r["mccfr"]["iterations_per_second"]):  # fmt: skip
        assert set(rows) == {"1", "2"} and rows["1"]["speedup"] == 1.0
        assert rows["2"]["value"] > 0 and rows["2"]["efficiency"] == pytest.approx(rows["2"]["speedup"] / 2)
    assert r["flop"]["leaves"] > 10 and r["mccfr"]["slots"] > 10_000_000  # the default action tree
    pieces, bound = r["flop"]["pieces_one_runout"], r["flop"]["balance_one_runout"]
    assert pieces["1"] == r["flop"]["leaves"] and bound["1"] == 1.0  # one thread: whole trees
    assert pieces["2"] >= pieces["1"] and 1.5 < bound["2"] <= 2.0
    assert r["flop"]["ms_per_iteration_one_runout_whole_trees"] == {}  # whole trees on 2 threads: nothing to compare
    assert r["mccfr"]["batch"] == PRESETS["default"].batch  # what training runs
    full = r["full_depth_turn"]
    assert full["river_cards"] == 48 and set(full["ms_per_iteration"]) == {"1", "4", "16", "48"}
    one, every = full["ms_per_iteration"]["1"]["1"]["value"], full["ms_per_iteration"]["48"]["1"]["value"]
    assert one < every / 5  # a pass of one river card walks a 48th of the river subtrees


def test_the_report_says_what_the_pieces_buy_where_trees_are_cut(capsys):
    def rows(values):
        return {t: {"value": v, "speedup": values[1] / v, "efficiency": values[1] / v / t} for t, v in values.items()}

    flop = {
        "spot": "QsJh2h r300c/", "nodes": 45, "leaves": 15, "continuation_nodes": 2827, "runouts": 98,
        "ms_per_iteration_one_runout": rows({1: 20.0, 2: 10.0, 4: 5.5}),
        "pieces_one_runout": {1: 15, 2: 15, 4: 57}, "balance_one_runout": {1: 1.0, 2: 1.91, 4: 3.98},
        "ms_per_iteration_one_runout_whole_trees": {4: 6.6},
        "runouts_per_second": rows({1: 50.0, 2: 99.0, 4: 190.0}),
    }  # fmt: skip
    scale.print_scale_report({
        "repeats": 3, "machine": "test", "turn": {"nodes": 1, "hands": 2, "ms_per_iteration": rows({1: 2.0, 2: 1.0})},
        "flop": flop, "mccfr": {"slots": 10, "batch": 5, "iterations_per_second": rows({1: 1.0, 2: 2.0})},
    })  # fmt: skip
    out = capsys.readouterr().out
    assert "4: 57 pieces, 3.98x" in out and "4: 6.60 ms (the pieces 1.20x faster)" in out
    flop["ms_per_iteration_one_runout_whole_trees"] = {}
    scale.print_scale_report({
        "repeats": 3, "machine": "test", "turn": {"nodes": 1, "hands": 2, "ms_per_iteration": rows({1: 2.0, 2: 1.0})},
        "flop": flop, "mccfr": {"slots": 10, "batch": 5, "iterations_per_second": rows({1: 1.0, 2: 2.0})},
    })  # fmt: skip
    assert "whole trees" not in capsys.readouterr().out


def test_the_work_model_bounds_the_river_part_by_the_largest_share():
    """One thread walks every block (1x); with every card a pass thread t takes blocks
    t, t + T, ...; with k cards the pass's blocks are dealt greedily by size, so the
    bound never exceeds the threads nor the blocks a pass walks."""
    from pokerbot.bot.bench.spots import agent_turn_spot

    sub = agent_turn_spot()
    chances = len(sub.block_chances)
    for k in (1, 4, 0):
        assert scale.river_balance(sub, k, 1) == 1.0
        for t in (2, 4, 16):
            walked = chances * (k or 48)
            assert 1.0 < scale.river_balance(sub, k, t) <= min(t, walked) + 1e-9
    assert scale.river_balance(sub, 1, 16) < scale.river_balance(sub, 4, 16)  # one card: few blocks a pass
