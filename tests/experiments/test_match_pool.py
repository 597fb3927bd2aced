"""experiments/match_pool.py: duplicate halves pooled by deal, with the parts checked."""

import csv
import json
import os

import numpy as np
import pytest

from experiments import match_pool as mp

PLAYERS = {"A": "libratus --threads 2", "B": "blueprint"}


def write_part(path, seed, hands, rng, players=PLAYERS, runs=("match1", "match2")):
    """A match folder with random per-hand values; returns {run: {hand: row}}."""
    os.makedirs(path)
    with open(os.path.join(path, "summary.json"), "w") as f:
        json.dump({"game": "holdem.nolimit.2p", "seed": seed, "players": players}, f)
    rows = {}
    with open(os.path.join(path, "aivat.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("run", "hand", "allin_adjusted", "aivat", "aivat_solver"))
        for run in runs:
            rows[run] = {}
            for h in hands[run] if isinstance(hands, dict) else hands:
                v = rng.normal(0, 500, 3)
                rows[run][h] = v
                w.writerow((run, h, *[f"{x:.6f}" for x in v]))
    return rows


def test_pooled_mean_is_the_mean_over_all_deals_of_both_seats(tmp_path):
    rng = np.random.default_rng(0)
    a = write_part(tmp_path / "a", 1, range(5), rng)
    # the second part lost hand 3 in its second seat: that deal is left out
    b = write_part(tmp_path / "b", 2, {"match1": range(4), "match2": [0, 1, 2]}, rng)
    r = mp.pool([str(tmp_path / "a"), str(tmp_path / "b")])
    assert r["deals"] == [5, 3]
    deals = [(a["match1"][h] + a["match2"][h]) / 2 for h in range(5)] + [
        (b["match1"][h] + b["match2"][h]) / 2 for h in range(3)
    ]
    mbb = np.array(deals) / 100 * 1000  # big blind 100 chips
    for k, col in enumerate(mp.COLUMNS):
        assert r[col]["hands"] == 8
        assert r[col]["mbb_per_hand"] == pytest.approx(mbb[:, k].mean())
        assert r[col]["ci95"] == pytest.approx(1.959964 * mbb[:, k].std(ddof=1) / np.sqrt(8), rel=1e-5)


def test_parts_that_cannot_be_pooled_are_refused(tmp_path):
    rng = np.random.default_rng(1)
    write_part(tmp_path / "a", 1, range(3), rng)
    write_part(tmp_path / "same-seed", 1, range(3), rng)
    write_part(tmp_path / "other", 3, range(3), rng, players={"A": "libratus", "B": "raise"})
    write_part(tmp_path / "one-seat", 4, range(3), rng, runs=("match1",))
    for bad, says in (
        ("same-seed", "seed 1"),
        ("other", "players"),
        ("one-seat", "one duplicate pair"),
        ("none", "not a finished"),
    ):
        with pytest.raises(mp.PoolError, match=says):
            mp.pool([str(tmp_path / "a"), str(tmp_path / bad)])
    with pytest.raises(SystemExit):
        mp.main([str(tmp_path / "a"), str(tmp_path / "same-seed")])


def test_a_malformed_csv_is_a_clear_error(tmp_path):
    write_part(tmp_path / "a", 1, range(3), np.random.default_rng(2))
    with open(tmp_path / "a" / "aivat.csv", "a") as f:
        f.write("match2,1,1.0,oops,2.0\n")  # a deal played in both seats
    with pytest.raises(mp.PoolError, match="malformed"):
        mp.pool([str(tmp_path / "a")])
