"""experiments/subgames_decompose.py: runs joined by draw, parts that add up to the whole."""

import json
import os

import numpy as np
import pytest

from experiments import subgames_decompose as dec


def write_run(path, rows, spots):
    os.makedirs(path)
    with open(os.path.join(path, "spots.json"), "w") as f:
        json.dump({"spots": spots, "hands": 100, "candidates": 40, "pot_mean": 1000.0, "pot_var": 250_000.0}, f)
    with open(os.path.join(path, "run.json"), "w") as f:
        json.dump({"config": {"sampling": "pot"}}, f)
    with open(os.path.join(path, "subgames.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def rows_of(variants, seed):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(6):
        values, parts = {}, {}
        for v in variants:
            a, b = rng.normal(0, 100, 2)
            values[v] = float(a + b)
            parts[v] = {"line": {"Ac Bc": float(a), "Ar0.77": float(b)}, "hand": {"q1": float(a), "q5": float(b)}}
        out.append({"index": i, "deal": i, "seat": i % 2, "betting": "r200c/cc/" if i % 3 else "r300r900c/r1800c/",
                    "pot": 400 if i % 3 else 3600, "values": values, "parts": parts})  # fmt: skip
    return out


def test_runs_on_the_same_draws_join_and_every_split_adds_up(tmp_path):
    spots = [{"index": i, "deal": i, "seat": i % 2} for i in range(6)]
    one, two = rows_of(["blueprint", "full"], 1), rows_of(["blueprint", "resolve"], 2)
    for r2, r1 in zip(two, one):
        r2["values"]["blueprint"] = r1["values"]["blueprint"]
        r2["parts"]["blueprint"] = r1["parts"]["blueprint"]
    write_run(tmp_path / "one", one, spots)
    write_run(tmp_path / "two", two, spots)
    rows, sample, sampling = dec.load([str(tmp_path / "one"), str(tmp_path / "two")])
    assert len(rows) == 6 and set(rows[0]["values"]) == {"blueprint", "full", "resolve"}
    pots = np.array([r["pot"] for r in rows], dtype=float)
    whole = np.array([r["values"]["resolve"] - r["values"]["full"] for r in rows])
    for parts in (
        dec.row_parts(rows, "resolve", "full", dec.line_into_turn),
        dec.row_parts(rows, "resolve", "full", dec.spr_group),
        dec.split_parts(rows, "resolve", "full", "line", dec.first_betting),
        dec.split_parts(rows, "resolve", "full", "hand", str),
    ):
        assert len(parts) > 1
        total = sum(dec.sg.estimate(d, pots, sample, sampling)[0] for d in parts.values())
        assert total == pytest.approx(dec.sg.estimate(whole, pots, sample, sampling)[0])
    assert set(dec.split_parts(rows, "resolve", "full", "line", dec.first_betting)) == {"Ac Bc", "Ar(ours)"}


def test_runs_drawn_otherwise_are_refused(tmp_path):
    write_run(tmp_path / "one", rows_of(["blueprint"], 1), [{"index": 0, "deal": 0, "seat": 0}])
    write_run(tmp_path / "two", rows_of(["full"], 1), [{"index": 0, "deal": 5, "seat": 1}])
    with pytest.raises(SystemExit, match="drawn otherwise"):
        dec.load([str(tmp_path / "one"), str(tmp_path / "two")])
