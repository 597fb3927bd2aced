"""experiments/averaging.py: linear against quadratic averaging, measured exactly on
spots from play (docs/evaluation.md's averaging tables)."""

import math
import statistics

from experiments import averaging as av


def table(blueprint, *options):
    args = av.parser().parse_args(["--blueprint", blueprint, "--seed", "1", *options])
    cols = av.columns(args)
    return [{col: x for col, x in zip(cols, row, strict=True)} for _, row in av.measure(args)]


def test_one_iteration_averages_alike_and_more_iterations_tell_the_exponents_apart(small_blueprint):
    rows = table(small_blueprint, "--round", "river", "--spots", "2", "--iterations", "1", "20")
    assert len(rows) == 2
    for row in rows:
        assert all(math.isfinite(x) and x > 0 for x in row.values())
        # one iterate: its average is itself whatever the weights, so both columns are the same solve
        assert row[(1, 1.0)] == row[(1, 2.0)]
        # twenty: the weights differ, and so do the averages (the exponent reaches the solve)
        assert row[(20, 1.0)] != row[(20, 2.0)]
    for e in av.EXPONENTS:
        assert statistics.median(r[(20, e)] for r in rows) < statistics.median(r[(1, e)] for r in rows) / 4


def test_depth_limited_turn_spots_are_measured_the_same_way(small_blueprint):
    rows = table(small_blueprint, "--round", "turn", "--spots", "1", "--iterations", "1", "8")
    assert len(rows) == 1
    row = rows[0]
    assert all(math.isfinite(x) and x > 0 for x in row.values())
    assert row[(1, 1.0)] == row[(1, 2.0)]
    assert row[(8, 2.0)] < row[(1, 2.0)]
