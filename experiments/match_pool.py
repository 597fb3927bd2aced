"""Duplicate matches played in parts, pooled by deal: the duplicate (all-in adjusted)
and duplicate-with-AIVAT results of several ``pokerbot match --duplicate --aivat`` output
folders as one match.

Each folder holds one duplicate pair (``match1``, ``match2``: the same deals, seats
swapped) scored in its ``aivat.csv``; a deal's value is the mean of player A's two
seats, as in the match's own summary. The parts must have the same players and game
and different deal seeds (the same seed would deal the same cards twice: not
independent). Prints mbb/hand with the 95 % interval over all deals.

    .venv/bin/python experiments/match_pool.py MATCH_DIR [MATCH_DIR ...]
"""

from __future__ import annotations

import argparse
import csv
import json
import os

import numpy as np

from pokerbot.bot.evaluation.stats import summarize
from pokerbot.protocol.gamedef import bundled_game

#: aivat.csv's columns pooled: the all-in adjusted result, AIVAT, AIVAT with the solves' values.
COLUMNS = ("allin_adjusted", "aivat", "aivat_solver")


class PoolError(ValueError):
    """The folders cannot be pooled (missing files, other players, the same deals)."""


def read_part(out_dir: str) -> tuple[dict, dict[str, np.ndarray]]:
    """A folder's summary and, per pooled column, its deals' duplicate values (mean of
    the two seats, in chips, deals played in both seats only)."""
    try:
        with open(os.path.join(out_dir, "summary.json")) as f:
            summary = json.load(f)
        with open(os.path.join(out_dir, "aivat.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, json.JSONDecodeError) as e:
        raise PoolError(f"{out_dir}: not a finished duplicate match with AIVAT ({e})") from e
    by_run: dict[str, dict[int, dict]] = {}
    try:
        for r in rows:
            by_run.setdefault(r["run"], {})[int(r["hand"])] = r
        if sorted(by_run) != ["match1", "match2"]:
            raise PoolError(
                f"{out_dir}: aivat.csv holds runs {sorted(by_run)}, not one duplicate pair (match1, match2)"
            )
        first, second = by_run["match1"], by_run["match2"]
        common = sorted(first.keys() & second.keys())
        values = {c: np.array([(float(first[h][c]) + float(second[h][c])) / 2 for h in common]) for c in COLUMNS}
    except (KeyError, TypeError, ValueError) as e:
        raise PoolError(f"{out_dir}: aivat.csv is malformed ({e!r})") from e
    return summary, values


def pool(out_dirs: list[str]) -> dict:
    """The pooled summaries (``summarize`` of each column over all deals), the deals per
    part, and the players."""
    if not out_dirs:
        raise PoolError("no match folders given")
    parts = [read_part(d) for d in out_dirs]
    first = parts[0][0]
    seeds = set()
    for d, (s, _) in zip(out_dirs, parts):
        if s.get("players") != first.get("players") or s.get("game") != first.get("game"):
            raise PoolError(
                f"{d}: players or game differ from {out_dirs[0]}'s: {s.get('players')} vs {first.get('players')}"
            )
        if s.get("seed") in seeds:
            raise PoolError(f"{d}: deal seed {s.get('seed')} already pooled (the same cards twice)")
        seeds.add(s.get("seed"))
    bb = bundled_game(first["game"]).big_blind
    out = {"players": first["players"], "deals": [len(v["aivat"]) for _, v in parts]}
    for c in COLUMNS:
        out[c] = summarize(np.concatenate([v[c] for _, v in parts]), bb)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dirs", nargs="+", help="output folders of pokerbot match --duplicate --aivat")
    args = p.parse_args(argv)
    try:
        r = pool(args.dirs)
    except PoolError as e:
        p.error(str(e))
    print(
        f"A: {r['players']['A']}  B: {r['players']['B']}  deals: {sum(r['deals'])} ({' + '.join(map(str, r['deals']))})"
    )
    names = {
        "allin_adjusted": "duplicate",
        "aivat": "duplicate with AIVAT",
        "aivat_solver": "  with the solves' values",
    }
    for c in COLUMNS:
        s = r[c]
        print(f"{names[c]:<26} {s['mbb_per_hand']:+8.1f} mbb/hand  ± {s['ci95']:.1f} (95 %)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
