"""experiments/ray_throughput.py without Ray: one machine's rate, and the scale model
docs/cluster.md's table comes from (the busiest shard's nodes per iteration, measured
with every shard in this process, and the memory of a Libratus-size abstraction).
The Ray runs themselves: tests/blueprint_store/test_ray_train.py."""

import functools

import pytest

from experiments import ray_throughput as rt
from pokerbot.blueprint_store.abstraction import stand_in_cards
from pokerbot.blueprint_store.train import PRESETS, blueprint_settings
from pokerbot.protocol.gamedef import bundled_game
from pokerbot.solver.betting_tree import build_betting_tree


@functools.cache
def tiny():
    preset = PRESETS["tiny"]
    game = bundled_game("holdem.nolimit.2p")
    tree = build_betting_tree(game, preset.actions.sizes(), preset.cards.buckets)
    settings = blueprint_settings(preset.prune_threshold, preset.regret_floor)
    return tree, stand_in_cards(preset.cards.buckets), settings, game.big_blind


def test_timed_counts_what_the_batches_return():
    done, seconds = rt.timed(lambda: 3, 0.02)
    assert done > 0 and done % 3 == 0 and seconds >= 0.02


def test_one_machine_counts_iterations_and_nodes():
    tree, cards, settings, big_blind = tiny()
    row = rt.one_machine(tree, cards, settings, big_blind, 1, 0.2)
    assert row["run"] == "one machine, 1 thread(s)"
    assert 0 < row["iterations_per_second"] < row["nodes_per_second"]  # an iteration walks many nodes


def test_the_scale_model_on_paper():
    tree, cards, settings, big_blind = tiny()
    one, two = rt.scale(
        tree, cards, settings, big_blind, "tiny", node_rate=1e6, kept=0.5, workers=(1, 2), iterations=500
    )
    assert (one["workers"], two["workers"]) == (1, 2)
    for row in (one, two):
        assert row["expected_iterations_per_second"] == pytest.approx(1e6 / row["busiest_nodes_per_iteration"] * 0.5)
    # two shards split the subtrees below the first round, each walking that round too
    b1, b2 = one["busiest_nodes_per_iteration"], two["busiest_nodes_per_iteration"]
    assert b1 / 2 <= b2 < b1
    # memory: one shard holds every slot; two hold them all between them, each with the head's
    total, head = one["libratus_size_total_gb"], one["head_gb"]
    assert total == two["libratus_size_total_gb"] and head == two["head_gb"] and 0 < head < total
    assert one["libratus_size_largest_shard_gb"] == pytest.approx(total)
    assert (total + head) / 2 <= two["libratus_size_largest_shard_gb"] + 1e-12 < total
    assert total == pytest.approx(rt.libratus_size_tree("tiny").num_slots * 8 / 1e9)
