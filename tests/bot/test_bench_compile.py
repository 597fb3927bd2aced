"""``pokerbot bench compile``: each compile's own time is its time less the compiles
nested in it, read from a compile log's order (a compile ends after those it started)."""

import pytest

from pokerbot.bot.bench.compile import bench_compile, exclusive_seconds


def test_own_time_leaves_out_the_nested_compiles():
    # process 1: a (depth 0) compiled b and c (depth 1), c compiled d (depth 2); then e alone
    # process 2, interleaved: f compiled g
    lines = [
        {"pid": 1, "depth": 1, "seconds": 2.0},  # b
        {"pid": 2, "depth": 1, "seconds": 1.0},  # g
        {"pid": 1, "depth": 2, "seconds": 0.5},  # d
        {"pid": 1, "depth": 1, "seconds": 1.5},  # c (with d)
        {"pid": 2, "depth": 0, "seconds": 4.0},  # f (with g)
        {"pid": 1, "depth": 0, "seconds": 10.0},  # a (with b and c)
        {"pid": 1, "depth": 0, "seconds": 3.0},  # e
    ]
    assert exclusive_seconds(lines) == [2.0, 1.0, 0.5, 1.0, 3.0, 6.5, 3.0]


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 2])
def test_the_agents_kernels_compile_once_per_argument_types(threads):
    """On an empty cache, the warm-up compiles every kernel of the solver once: in single
    precision, for solves and the agent's evaluations alike (``traverse`` on the
    kernels ``run_cfr`` compiled), no kernel compiled again for a constant argument (a
    literal 0 where other calls pass a variable compiles a second copy; only the small
    per-card totals in double too), no code for a
    full best response below the leaves (``_leaf_response``: double precision only),
    no parallel kernel for a one-thread agent, one of each for a threaded one."""
    report = bench_compile(threads=threads)
    kernels = report["steps"][0]["kernels"]
    # a factory's kernels are named by the values they close over: one-thread and parallel apart
    assert kernels["solver.passes._make_run_cfr.run_cfr[parallel=False]"]["compiles"] == 1
    assert kernels["solver.passes._make_traverse.traverse[parallel_leaves=False]"]["compiles"] == 1
    twice = {name: k["compiles"] for name, k in kernels.items() if name.startswith("solver.") and k["compiles"] > 1}
    # the per-card totals also in double: the gadget's opponent weights (``cfr.opponent_weights``)
    assert twice == {"solver.showdown_pass.compat_sums": 2, "solver.showdown_pass._card_totals": 2}
    assert kernels["solver.leaf_pass._leaf_share"]["compiles"] == 1 and "solver.leaf_pass._leaf_response" not in kernels
    parallel = [name for name in kernels if name.endswith("=True]") or "_parallel" in name or "traverse_blocks" in name]
    if threads == 1:
        assert not parallel
    else:
        assert kernels["solver.passes._make_run_cfr.run_cfr[parallel=True]"]["compiles"] == 1
        assert kernels["solver.passes._make_traverse.traverse[parallel_leaves=True]"]["compiles"] == 1
        assert kernels["solver.block_pass.traverse_blocks"]["compiles"] == 1 and len(parallel) >= 4
