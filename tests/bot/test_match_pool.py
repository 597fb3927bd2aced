"""bot/evaluation/match_pool.py and ``pokerbot pool``: duplicate halves pooled by deal, with the
parts checked; two players paired by deal."""

import csv
import json
import os

import numpy as np
import pytest

from pokerbot.bot.cli import main as cli_main
from pokerbot.bot.evaluation import match_pool as mp

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
    with pytest.raises(SystemExit, match="seed 1"):
        cli_main(["pool", str(tmp_path / "a"), str(tmp_path / "same-seed")])


def test_a_malformed_csv_is_a_clear_error(tmp_path):
    write_part(tmp_path / "a", 1, range(3), np.random.default_rng(2))
    with open(tmp_path / "a" / "aivat.csv", "a") as f:
        f.write("match2,1,1.0,oops,2.0\n")  # a deal played in both seats
    with pytest.raises(mp.PoolError, match="malformed"):
        mp.pool([str(tmp_path / "a")])


def test_the_paired_difference_is_taken_deal_by_deal_on_the_deals_both_played(tmp_path, capsys):
    rng = np.random.default_rng(3)
    agent = {"A": "libratus", "B": "run"}
    blueprint = {"A": "blueprint", "B": "run"}
    a1 = write_part(tmp_path / "a1", 1, range(6), rng, players=agent)
    a2 = write_part(tmp_path / "a2", 2, range(4), rng, players=agent)
    # the blueprint's part of seed 1 lost deal 5 in one seat; its seed 2 part comes first
    b2 = write_part(tmp_path / "b2", 2, range(4), rng, players=blueprint)
    b1 = write_part(tmp_path / "b1", 1, {"match1": range(6), "match2": range(5)}, rng, players=blueprint)
    r = mp.paired_difference([str(tmp_path / "a1"), str(tmp_path / "a2")], [str(tmp_path / "b2"), str(tmp_path / "b1")])
    assert r["deals"] == [5, 4]
    assert r["players"] == {"A": "libratus", "minus": "blueprint", "B": "run"}

    def deal(part, h):
        return (part["match1"][h] + part["match2"][h]) / 2

    diffs = np.array([deal(a1, h) - deal(b1, h) for h in range(5)] + [deal(a2, h) - deal(b2, h) for h in range(4)])
    mbb = diffs / 100 * 1000
    for k, col in enumerate(mp.COLUMNS):
        assert r[col]["mbb_per_hand"] == pytest.approx(mbb[:, k].mean())
        assert r[col]["ci95"] == pytest.approx(1.959964 * mbb[:, k].std(ddof=1) / np.sqrt(9), rel=1e-5)
    # the same deals 10 chips better each: exactly +100 mbb with no spread, which any
    # mismatch of deals (by position instead of hand number, a lost deal kept) would spread
    shifted = tmp_path / "shifted"
    os.makedirs(shifted)
    with open(tmp_path / "b1" / "summary.json") as f:
        summary = json.load(f)
    summary["players"] = agent
    with open(shifted / "summary.json", "w") as f:
        json.dump(summary, f)
    with open(tmp_path / "b1" / "aivat.csv", newline="") as f:
        rows = list(csv.reader(f))
    rows = rows[:1] + [[r[0], r[1], *[f"{float(x) + 10:.6f}" for x in r[2:]]] for r in reversed(rows[1:])]
    with open(shifted / "aivat.csv", "w", newline="") as f:
        csv.writer(f).writerows(rows)
    same = mp.paired_difference([str(shifted)], [str(tmp_path / "b1")])
    assert same["aivat"]["mbb_per_hand"] == pytest.approx(100.0)
    assert same["aivat"]["ci95"] == pytest.approx(0.0, abs=1e-6)
    assert (
        cli_main(
            ["pool", str(tmp_path / "a1"), str(tmp_path / "a2"), "--minus", str(tmp_path / "b1"), str(tmp_path / "b2")]
        )
        == 0
    )
    assert "minus A: blueprint" in capsys.readouterr().out


def test_a_paired_difference_needs_the_same_opponent_and_seeds(tmp_path):
    rng = np.random.default_rng(4)
    write_part(tmp_path / "a", 1, range(3), rng, players={"A": "libratus", "B": "run"})
    write_part(tmp_path / "other-b", 1, range(3), rng, players={"A": "blueprint", "B": "call"})
    write_part(tmp_path / "other-seed", 2, range(3), rng, players={"A": "blueprint", "B": "run"})
    with pytest.raises(mp.PoolError, match="same opponent"):
        mp.paired_difference([str(tmp_path / "a")], [str(tmp_path / "other-b")])
    with pytest.raises(mp.PoolError, match="same deal seed"):
        mp.paired_difference([str(tmp_path / "a")], [str(tmp_path / "other-seed")])
