"""The ladder: chunks recorded whole and pooled only with their own kind, resumed
without replaying, the pooled figures by hand, and chunks on a local Ray cluster equal
to the same chunks played here."""

import glob
import json
import math
import os
import shutil

import numpy as np
import pytest

from pokerbot.bot.cli import main
from pokerbot.bot.evaluation import ladder
from pokerbot.bot.evaluation.stats import Z95

pytestmark = pytest.mark.timeout(600)
ROW = ladder.Row("random", "call")


def make(pairs: int = 3, commit: str = "test-commit"):
    return ladder.spec_maker("holdem.nolimit.2p", None, pairs, {}, concurrent=False, commit=commit)


def test_rows_and_seeds_parse_and_refuse_what_they_cannot_mean():
    assert ladder.parse_rows(None) == list(ladder.DEFAULT_ROWS)
    assert ladder.parse_rows("main") == list(ladder.DEFAULT_ROWS[:3])
    assert ladder.parse_rows("1, random vs call") == [ladder.DEFAULT_ROWS[0], ROW]
    assert ladder.DEFAULT_ROWS[0] == ladder.Row("libratus", "blueprint")
    for bad in ("0", str(len(ladder.DEFAULT_ROWS) + 1), "random-call"):
        with pytest.raises(ladder.LadderError):
            ladder.parse_rows(bad)
    assert ladder.parse_seeds("3-5") == range(3, 6)
    assert ladder.parse_seeds("7")[0] == 7
    for bad in ("5-3", "x", "-2"):
        with pytest.raises(ladder.LadderError):
            ladder.parse_seeds(bad)


@pytest.mark.slow  # about 20 s on 2 cores
def test_chunks_are_recorded_resumed_and_pooled_only_with_their_own_kind(tmp_path):
    out = str(tmp_path / "ladder")
    first = ladder.plan_chunks(out, [ROW], 2, 3, range(1, 100), make())
    assert [s.seed for s in first] == [1, 2]
    records = ladder.run_chunks(first, parallel=2)
    assert all(isinstance(r, dict) for r in records), records
    for spec, record in zip(first, records):
        with open(os.path.join(spec.out_dir, "summary.json")) as f:
            match = json.load(f)
        values = np.array(record["chips_per_pair"]["aivat"]) / 100 * 1000
        assert len(values) == 3 and abs(values.mean() - match["duplicate"]["aivat"]["mbb_per_hand"]) < 1e-6
    # a chunk stopped midway: its directory has no chunk.json, so its seed is played again
    os.remove(os.path.join(first[1].out_dir, "chunk.json"))
    again = ladder.plan_chunks(out, [ROW], 2, 3, range(1, 100), make())
    assert [s.seed for s in again] == [2, 3]
    ladder.run_chunks(again, parallel=1)
    assert sorted(r["seed"] for r in ladder.read_records(out, ROW)) == [1, 2, 3]
    # a chunk of another commit is kept but not pooled; the same seed copied twice counts once
    other = os.path.join(out, ROW.key, "seed-50")
    shutil.copytree(again[1].out_dir, other)
    with open(os.path.join(other, "chunk.json")) as f:
        record = json.load(f)
    record.update(seed=50, commit="another-commit")
    ladder.write_record(other, record)
    shutil.copytree(again[0].out_dir, os.path.join(out, ROW.key, "seed-2-copy"))  # not a seed-N name: ignored
    shutil.copytree(again[0].out_dir, os.path.join(out, ROW.key, "seed-222"))  # a copy under another name
    identity = ladder.identity_of(make())
    pooled = ladder.pool(ladder.read_records(out, ROW), identity)
    assert pooled["chunks"] == 3 and pooled["pairs"] == 9 and pooled["other_chunks"] == 1
    assert pooled["seeds"] == [1, 2, 3]


def test_the_pooled_figures_by_hand():
    rng = np.random.default_rng(1)
    records = []
    for seed in (1, 2):
        dup = rng.normal(30, 2000, 150)
        records.append(
            {
                "row": {"a": "x", "b": "y"},
                "seed": seed,
                "pairs": 150,
                "commit": "c",
                "game": "g",
                "blueprint_digest": None,
                "limits": {},
                "finished": f"2026-01-0{seed}",
                "seconds": 300.0,
                "big_blind": 100,
                "chips_per_pair": {k: list(dup) for k in ladder.SERIES},
            }
        )
    x = ladder.pool(records, target=100)
    values = np.concatenate([r["chips_per_pair"]["allin_adjusted"] for r in records]) * 10  # mbb
    sd = values.std(ddof=1)
    assert x["pairs"] == 300 and abs(x["combined"]["mean"] - values.mean()) < 1e-9
    assert abs(x["combined"]["ci95"] - Z95 * sd / math.sqrt(300)) < 1e-9
    assert x["pairs_for_target"] == math.ceil((Z95 * sd / 100) ** 2)
    assert abs(x["hours_for_target"] - x["pairs_for_target"] * 2.0 / 3600) < 1e-9  # 300 s per 150 pairs
    assert x["significant"] == (abs(values.mean()) > x["combined"]["ci95"])
    if not x["significant"]:
        assert x["pairs_for_significance"] == math.ceil((Z95 * sd / abs(values.mean())) ** 2 - 300)


def test_aivat_where_it_tracks_the_result_and_duplicate_where_it_adds_noise():
    """The headline weights AIVAT's difference from duplicate, in [0, 1], by
    cross-fitting once each half has enough pairs: when AIVAT removes most of
    duplicate's noise its weight is near 1, when it only adds noise 0; either way the
    headline is no noisier than the better of the two. With fewer pairs it is AIVAT."""
    rng = np.random.default_rng(2)

    def record(n, noise):
        luck = rng.normal(0, 2000, n)
        skill = rng.normal(50, 200, n)
        dup = skill + luck
        aivat = skill + noise(luck, n)
        return {
            "row": {"a": "x", "b": "y"},
            "seed": 1,
            "pairs": n,
            "commit": "c",
            "game": "g",
            "blueprint_digest": None,
            "limits": {},
            "finished": "t",
            "seconds": 1.0,
            "big_blind": 100,
            "chips_per_pair": {**{k: list(dup) for k in ladder.SERIES}, "aivat": list(aivat)},
        }

    n = 2 * ladder.MIN_FIT_PAIRS + 200
    good = ladder.pool([record(n, lambda luck, k: rng.normal(0, 100, k))])
    noisy = ladder.pool([record(n, lambda luck, k: luck + rng.normal(0, 6000, k))])
    assert min(good["aivat_weight"]) > 0.9 and good["variance_ratio"] > 20
    assert max(noisy["aivat_weight"]) < 0.1 and noisy["variance_ratio"] > 0.95
    few = ladder.pool([record(300, lambda luck, k: luck + rng.normal(0, 6000, k))])
    assert few["aivat_weight"] == [1.0, 1.0]
    assert few["combined"]["mean"] == pytest.approx(few["aivat"]["mean"]) and few["combined"]["sd"] == pytest.approx(
        few["aivat"]["sd"]
    )


@pytest.mark.slow  # about a minute on 2 cores (a Ray cluster and its workers' compiles)
def test_chunks_on_a_ray_cluster_equal_the_same_chunks_played_here(tmp_path):
    ray = pytest.importorskip("ray", reason="the cluster extra is not installed")
    from ray.cluster_utils import Cluster

    here = ladder.plan_chunks(str(tmp_path / "here"), [ROW], 2, 3, range(5, 9), make())
    there = ladder.plan_chunks(str(tmp_path / "there"), [ROW], 2, 3, range(5, 9), make())
    local = ladder.run_chunks(here, parallel=1)
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    try:
        remote = ladder.run_chunks(there, parallel=1, ray_address=c.address)
    finally:
        ray.shutdown()
        c.shutdown()
    for a, b in zip(local, remote):
        assert isinstance(b, dict), b
        assert a["seed"] == b["seed"] and a["chips_per_pair"] == b["chips_per_pair"]
    assert [r["seed"] for r in ladder.read_records(str(tmp_path / "there"), ROW)] == [5, 6]


def test_the_command_plays_reports_and_refuses_bad_arguments(tmp_path, capsys):
    out = str(tmp_path / "l")
    args = ["ladder", "--rows", "random vs call", "--pairs", "2", "--out", out, "--no-progress", "--parallel", "1"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "| random vs call | 2 |" in printed
    assert main(args + ["--report", "--json"]) == 0
    (line,) = json.loads(capsys.readouterr().out)
    assert line["pairs"] == 2 and line["chunks"] == 1
    # one chunk at a time plays both seat orders at once, unless told to play them in turn
    assert main(args + ["--seeds", "2", "--sequential"]) == 0
    capsys.readouterr()
    played = {}
    for path in glob.glob(os.path.join(out, "*", "seed-*", "chunk.json")):
        with open(path) as f:
            record = json.load(f)
        played[record["seed"]] = record["concurrent"]
    assert played == {1: True, 2: False}
    assert main(["ladder", "--rows", "random vs nobody", "--out", out]) == 2
    assert "not one of our strategies: nobody" in capsys.readouterr().err
    assert main(["ladder", "--seeds", "9-3", "--out", out]) == 2
    assert main(["ladder", "--rows", "main", "--blueprint", str(tmp_path / "none.bp"), "--out", out]) == 2
    assert "no blueprint at" in capsys.readouterr().err
    # seed 1 holds the chunk played above: no seed left for another, an error and not a traceback
    assert main(args + ["--seeds", "1-1"]) == 2
    assert "no free seed left in 1-1" in capsys.readouterr().err
