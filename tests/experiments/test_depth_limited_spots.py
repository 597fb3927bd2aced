"""experiments/depth_limited_spots.py: turn spots from blueprint play, each strategy's
exact exploitability on the turn-and-river tree (docs/evaluation.md's depth-limited
tables), and the river solved anew below a turn strategy."""

import json
import math
import random

import numpy as np
import pytest

from experiments import depth_limited_spots as dl
from pokerbot.blueprint_store.continuations import blueprint_subgame_strategy
from pokerbot.blueprint_store.real_play import BlueprintPlay
from pokerbot.blueprint_store.store import Blueprint
from pokerbot.solver import cfr
from pokerbot.solver.subgame import make_subgame
from pokerbot.solver.tree import CHANCE, DECISION


def test_a_table_row_of_every_kind_of_solve(small_blueprint, tmp_path):
    out = tmp_path / "dl.json"
    argv = ["--blueprint", small_blueprint, "--spots", "1", "--seconds", "0", "--samples", "0", "1"]
    args = dl.parse(argv + ["--iterations", "8", "--full-iterations", "8", "--out", str(out)])
    result = dl.measured(dl.measure, args)
    assert dl._columns(args) == ["blueprint", "full_8_cfr+2", "allx8", "s1x8"]
    (row,) = result["rows"]
    assert row["betting"].count("/") == 2 and row["pot"] > 0  # a turn spot
    for key in dl._columns(args):
        assert math.isfinite(row[key]) and row[key] > 0, key
        assert result["median_pct_pot"][key] == row[key]  # one spot: its figures are the medians
    assert row["allx8_iterations"] == row["s1x8_iterations"] == 8
    assert row["leaves"] > 0 and row["dl_nodes"] < row["full_nodes"]
    # the exact tree solved beats the 4-bucket blueprint by far
    assert row["full_8_cfr+2"] < row["blueprint"] / 2
    assert json.loads(out.read_text())["rows"] == [row]  # --out holds every row


def test_counts_are_checked_on_the_command_line():
    base = ["--blueprint", "x.bp"]
    assert dl._sampled("3:100") == (3, 100)
    assert dl.parse(base + ["--sampled", "2:50"]).sampled == ["2:50"]
    for bad in (["--sampled", "0:5"], ["--sampled", "2"], ["--iterations", "0"], ["--full-iterations", "0"]):
        with pytest.raises(SystemExit):
            dl.parse(base + bad)


def test_turn_spots_start_the_turn_of_a_deal_with_both_ranges(small_blueprint):
    bp = Blueprint(small_blueprint)
    walker = BlueprintPlay(bp, random.Random(0))
    spots = dl.turn_spots(bp, 3, 1)
    assert len(spots) == 3
    for root, board in spots:
        assert root.round == 2 and not root.actions[2] and root.raise_bounds() is not None
        assert list(root.board_cards) == board[:4] and len(board) == 5
        reach, _ = dl.ranges_at(walker, root)
        assert reach.shape == (2, 1326) and np.all(reach >= 0) and np.all(reach.sum(axis=1) > 0)


def river_nodes(tree) -> np.ndarray:
    """Which nodes lie below a chance node (the river's)."""
    below = np.zeros(tree.num_nodes, dtype=bool)
    for n in range(tree.num_nodes):
        f, m = int(tree.first_child[n]), int(tree.num_children[n])
        below[f : f + m] = below[n] or tree.kind[n] == CHANCE
    return below


def test_river_solved_anew_keeps_the_turn_and_is_a_strategy_the_same_twice(small_blueprint):
    bp = Blueprint(small_blueprint)
    sizes = bp.actions.sizes()
    walker = BlueprintPlay(bp, random.Random(0))
    root, _ = dl.turn_spots(bp, 2, 1)[1]  # the spot the table above measures
    reach, node = dl.ranges_at(walker, root)
    full = make_subgame(root, {2: sizes[2], 3: sizes[3]}, reach)
    tree = full.tree
    blueprint = blueprint_subgame_strategy(full, root, walker.view, node)
    solved = dl.river_resolved(full, root, sizes[3], blueprint, 5)
    river = river_nodes(tree)
    assert river.any() and not river.all()
    np.testing.assert_array_equal(solved[~river], blueprint[~river])  # the turn is the strategy's own
    assert not np.allclose(solved[river], blueprint[river])  # the river is not
    for n in np.nonzero((tree.kind == DECISION) & river)[0]:
        f, m = int(tree.first_child[n]), int(tree.num_children[n])
        total = solved[f : f + m].sum(axis=0)  # per hand: 1, or 0 for a hand the river card blocks
        assert np.all(np.isclose(total, 1.0, atol=1e-5) | (total == 0)) and np.any(total > 0.5)
    # the river's reaches come from the turn alone, which it keeps: solving anew again changes nothing
    np.testing.assert_array_equal(dl.river_resolved(full, root, sizes[3], solved, 5), solved)
    assert cfr.exploitability(full, solved) >= 0
