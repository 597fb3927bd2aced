"""experiments/flop_spots.py: the agent's depth-limited flop solve against the
blueprint's flop on spots from play, each measured exactly with the turn and river
played three ways (docs/evaluation.md's flop tables)."""

import math
import random

import numpy as np

from experiments import flop_spots as fs
from pokerbot.blueprint_store.real_play import BlueprintPlay
from pokerbot.blueprint_store.store import Blueprint


def test_all_runouts_are_every_ordered_turn_and_river_off_the_board(small_blueprint):
    root = fs.round_spots(Blueprint(small_blueprint), 1, 1, 1)[0][0]
    runouts = fs.all_runouts(root)
    assert runouts.shape == (49 * 48, 2)
    assert len({tuple(r) for r in runouts.tolist()}) == len(runouts)
    assert not np.isin(runouts, root.board_cards).any() and np.all(runouts[:, 0] != runouts[:, 1])


def test_a_row_with_the_later_rounds_played_each_way(small_blueprint, monkeypatch):
    every = fs.all_runouts
    # the committed later rounds scored on 6 runouts, not all 2,352 (a minute a spot)
    monkeypatch.setattr(fs, "all_runouts", lambda root: every(root)[::400])
    argv = ["--blueprint", small_blueprint, "--spots", "1", "--iterations", "3", "--later", "both", "solved"]
    argv += ["--turn-cards", "1", "--river-cards", "1", "--turn-iterations", "3", "--river-iterations", "3"]
    args = fs.parse(argv)
    assert args.later == {"mix", "blueprint", "solved"}
    (row,) = fs.measure(args)["rows"]
    assert row["betting"].endswith("/") and len(row["board"]) == 3 and row["leaves"] > 0
    columns = ("blueprint", "blueprint_solved", "dl", "dl_bp", "dl_solved")
    assert set(columns) <= set(row) and "dl_long" not in row and row["dl_iterations"] == 3
    for k in columns:
        assert math.isfinite(row[k]) and row[k] > 0, k
    for k in ("blueprint_solved", "dl_solved"):
        # best responses that must follow the flop strategy gain no more than free ones, and not less than 0
        assert 0 <= row[k + "_later"] <= row[k], k
    assert fs.cell(row, "dl_solved") == f"{row['dl_solved']:.1f} / {row['dl_solved_later']:.1f}"
    assert fs.iterations_key("dl_long_solved") == fs.iterations_key("dl_long_bp") == "dl_long_iterations"


def test_the_flop_solve_is_the_same_on_any_thread_count_and_keyed(small_blueprint):
    bp = Blueprint(small_blueprint)
    walker = BlueprintPlay(bp, random.Random(0))
    root = fs.round_spots(bp, 2, 1, 1)[1][0]
    reach, node = fs.ranges_at(walker, root)
    one, _ = fs.dl_solve(root, reach, walker, node, 0, key=7, iterations=4, threads=1)
    two, _ = fs.dl_solve(root, reach, walker, node, 0, key=7, iterations=4, threads=2)
    other, _ = fs.dl_solve(root, reach, walker, node, 0, key=8, iterations=4, threads=1)
    assert one.iterations == two.iterations == 4
    np.testing.assert_array_equal(one.strategy, two.strategy)
    np.testing.assert_array_equal(one.leaf_strategy, two.leaf_strategy)
    assert not np.allclose(one.strategy, other.strategy)  # another key: another runout sample
    # at each leaf, per player and hand, a mix of the four continuations
    assert one.leaf_strategy is not None and one.leaf_strategy.shape[2] == 4
    total = one.leaf_strategy.sum(axis=2)
    assert np.all(np.isclose(total, 1.0, atol=1e-5) | (total == 0)) and np.any(total > 0.5)
