"""Blueprint training sharded on a local Ray cluster (two nodes on loopback, a worker
process per shard): the same regrets bit for bit as every shard in one process, a
killed worker that the run survives from its checkpoint, and a hold'em store that
verifies and plays a match."""

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the cluster extra is not installed (pip install 'pokerbot[cluster]')")

from test_train import fake_cards  # noqa: E402

from pokerbot.blueprint_store import train  # noqa: E402
from pokerbot.blueprint_store.abstraction import CardAbstractionSpec  # noqa: E402
from pokerbot.blueprint_store.ray_train import RayShards, ShardCheckpoints  # noqa: E402
from pokerbot.blueprint_store.store import Blueprint  # noqa: E402
from pokerbot.protocol.gamedef import bundled_game  # noqa: E402
from pokerbot.solver import mccfr  # noqa: E402
from pokerbot.solver.betting_tree import build_betting_tree  # noqa: E402
from pokerbot.solver.mccfr_shards import LocalShards, ShardedMCCFR, plan_shards  # noqa: E402
from pokerbot.solver.tree import BetSizes  # noqa: E402

pytestmark = pytest.mark.timeout(600)
LEDUC = bundled_game("leduc.nolimit.2p")
DEALS = mccfr.LosslessDeals(LEDUC)
TREE = build_betting_tree(LEDUC, BetSizes(), DEALS.bucket_counts)


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    ray.init(address=c.address, logging_level="warning", log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()


# about 80 s on 2 cores; the default run keeps the other Ray tests, and the shards bit for bit in one process
@pytest.mark.slow
def test_shards_on_ray_train_bit_for_bit_as_in_one_process(cluster):
    plan = plan_shards(TREE, 2)
    pool = RayShards(TREE, plan, LEDUC.big_blind)
    try:
        assert len(set(pool.pids())) == 2 and len(set(pool.nodes())) == 2  # a worker process on each node
        on_ray = ShardedMCCFR(TREE, LEDUC.big_blind, plan, pool, seed=3)
        here = ShardedMCCFR(TREE, LEDUC.big_blind, plan, LocalShards(TREE, plan, LEDUC.big_blind), seed=3)
        for s in (on_ray, here):
            s.max_batch = 50
            s.train(DEALS, 3_000)
            s.discount(0.5)
            s.train(DEALS, 1_000)
        a, b = on_ray.gather(), here.gather()
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[1].sum() > 0
    finally:
        pool.close()


def test_a_killed_worker_is_restarted_and_the_run_goes_on_from_the_checkpoint(cluster, tmp_path):
    plan = plan_shards(TREE, 2)
    pool = RayShards(TREE, plan, LEDUC.big_blind)
    lines = []
    try:
        solver = ShardedMCCFR(TREE, LEDUC.big_blind, plan, pool, seed=5)
        solver.max_batch = 20
        checkpoints = ShardCheckpoints(str(tmp_path / "ckpt"), solver, lines.append)
        solver.on_lost = checkpoints.recover
        solver.train(DEALS, 2_000)
        checkpoints.save()
        victim = pool.pids()[1]
        killer = threading.Timer(1.0, os.kill, (victim, signal.SIGKILL))
        killer.start()
        report = solver.train(DEALS, 8_000)
        killer.join()
        assert solver.iterations == 10_000 and report.iterations > 8_000  # some done again
        assert any("shard worker was lost" in x and "iteration 2,000" in x for x in lines), lines
        assert any("recovered" in x for x in lines)
        assert victim not in pool.pids()  # a new process took the shard
        # nothing corrupt: the shards hold a strategy as good as an unbroken run's
        regret, phi = solver.gather()
        assert np.isfinite(phi).all() and phi.sum() > 0
    finally:
        pool.close()


def test_train_blueprint_on_ray_writes_a_store_that_verifies_and_plays(cluster, tmp_path, monkeypatch):
    monkeypatch.setattr(train, "build_card_abstraction", fake_cards)
    preset = train.Preset(
        "test", CardAbstractionSpec(buckets=(169, 4, 4, 4)), train.PRESETS["tiny"].actions, seconds=4.0, batch=2_000
    )
    out = str(tmp_path / "ray.bp")
    lines = []
    figures = train.train_blueprint(preset, out, threads=1, log=lines.append, ray="auto", shards=2, shard_batch=500)
    assert figures["iterations"] > 0 and figures["ray"]["shards"] == 2
    assert any("sharded on Ray" in x and "MB" in x for x in lines)
    bp = Blueprint(out)
    bp.verify()
    assert bp.header["training"]["iterations"] == figures["iterations"]
    info = subprocess.run(
        [sys.executable, "-m", "pokerbot.bot.cli", "blueprint", "info", "--verify", out],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert info.returncode == 0 and "checksums verified" in info.stdout
    t0 = time.time()
    played = subprocess.run(
        [sys.executable, "-m", "pokerbot.bot.cli", "match", "blueprint", "call", "--hands", "30", "--blueprint", out,
         "--out", str(tmp_path / "match"), "--no-progress"],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr[-2000:]
    assert "SCORE:" in played.stdout and time.time() - t0 < 300
    # resuming continues from the sharded checkpoint
    lines.clear()
    again = train.train_blueprint(
        preset, out, threads=1, seconds=8.0, resume=True, log=lines.append, ray="auto", shards=2, shard_batch=500
    )
    assert any("resumed at" in x for x in lines) and again["iterations"] > figures["iterations"]
