"""Where one variant wins or loses against another in ``pokerbot subgames`` runs: the
paired difference's estimate split by the line into the turn, our position, the pot,
the stack-to-pot ratio, the turn's first betting and our hand's class.

Runs on the same draws (same blueprints, opponent, seed and sampling; their spots are
checked to be the same) are joined by draw, so that variants scored in different runs
are paired. Each group's part is the pot-sampling estimate of the difference with the
other groups' draws counted as zero (the parts add up to the whole), with its 95 %
interval, in mbb a hand; the turn's first betting and the hand class come from the
values' splits each scored subgame keeps (``subgame_parts``).

    .venv/bin/python experiments/subgames_decompose.py RUN [RUN ...] --a full --b blueprint
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Callable

import numpy as np

from pokerbot.bot.evaluation import subgames as sg
from pokerbot.protocol.gamedef import bundled_game

GAME = bundled_game(sg.GAME)


def load(runs: list[str]) -> tuple[list[dict], sg.Sample, str]:
    """The draws of ``runs`` joined by index (values and parts of every variant), the
    sample they were drawn in and its sampling."""
    joined: dict[int, dict] = {}
    first: dict | None = None
    sampling = ""
    for run in runs:
        with open(os.path.join(run, "spots.json")) as f:
            spots = json.load(f)
        with open(os.path.join(run, "run.json")) as f:
            sampling = json.load(f)["config"]["sampling"]
        if first is None:
            first = spots
        n = min(len(first["spots"]), len(spots["spots"]))
        if first["spots"][:n] != spots["spots"][:n]:
            raise SystemExit(f"{run} was drawn otherwise than {runs[0]}")
        for i, row in sg.read_records(os.path.join(run, "subgames.jsonl")).items():
            into = joined.setdefault(i, {**row, "values": {}, "parts": {}})
            for v, x in row["values"].items():
                if v in into["values"] and into["values"][v] != x:
                    raise SystemExit(f"draw {i}: variant {v} differs between runs")
                into["values"][v] = x
            into["parts"].update(row.get("parts", {}))
    assert first is not None
    kept = {k: first[k] for k in ("hands", "candidates", "pot_mean", "pot_var")}
    sample = sg.Sample([], **kept)
    return [joined[i] for i in sorted(joined)], sample, sampling


def line_into_turn(row: dict) -> str:
    """The preflop and flop betting: raises a round."""
    preflop, flop = row["betting"].split("/")[:2]
    p = preflop.count("r")
    f = flop.count("r")
    before = "limped" if p == 0 else f"{p} raise" + "s" * (p > 1)
    on_flop = "checked" if f == 0 else f"{f} bet/raise" + "s" * (f > 1)
    return f"preflop {before}, flop {on_flop}"


def position(row: dict) -> str:
    return "A first on the turn (big blind)" if row["seat"] == 0 else "A last on the turn (button)"


def pot_group(row: dict) -> str:
    pot = row["pot"]
    for edge in (1_000, 3_000, 10_000):
        if pot <= edge:
            return f"pot <= {edge:,}"
    return "pot > 10,000"


def spr_group(row: dict) -> str:
    behind = GAME.stack[0] - row["pot"] / 2
    spr = behind / row["pot"]
    for edge in (1, 3, 10):
        if spr <= edge:
            return f"SPR <= {edge}"
    return "SPR > 10"


def first_betting(key: str) -> str:
    """A turn line with our own (scaled) bet sizes collapsed: "Ar0.72" -> "Ar(ours)"."""
    return re.sub(r"Ar\d\.\d\d", "Ar(ours)", key)


def row_parts(rows: list[dict], a: str, b: str, group: Callable[[dict], str]) -> dict[str, np.ndarray]:
    """Per group, the difference a - b of each draw, 0 outside the group."""
    out: dict[str, np.ndarray] = {}
    for i, row in enumerate(rows):
        g = group(row)
        out.setdefault(g, np.zeros(len(rows)))[i] = row["values"][a] - row["values"][b]
    return out


def split_parts(rows: list[dict], a: str, b: str, kind: str, name: Callable[[str], str]) -> dict[str, np.ndarray]:
    """Per group of a split the rows keep (``kind``: line or hand), a's part minus b's."""
    out: dict[str, np.ndarray] = {}
    for i, row in enumerate(rows):
        for sign, v in ((1.0, a), (-1.0, b)):
            for key, x in row["parts"][v][kind].items():
                out.setdefault(name(key), np.zeros(len(rows)))[i] += sign * x
    return out


def table(title: str, parts: dict[str, np.ndarray], rows: list[dict], sample: sg.Sample, sampling: str) -> str:
    pots = np.array([r["pot"] for r in rows], dtype=float)
    to_mbb = 1000.0 * sample.share / GAME.big_blind
    lines = [f"#### {title}", "", "| group | draws | mbb a hand (95 %) |", "|---|---:|---:|"]
    total = sum(parts.values())
    for g, d in sorted(parts.items(), key=lambda kv: sg.estimate(kv[1], pots, sample, sampling)[0]):
        if not d.any():
            continue  # the line was walked, but a and b play it alike
        mean, half = sg.estimate(d, pots, sample, sampling)
        lines.append(f"| {g} | {int(np.count_nonzero(d))} | {mean * to_mbb:+,.1f} ± {half * to_mbb:,.1f} |")
    mean, half = sg.estimate(total, pots, sample, sampling)
    lines.append(f"| all | {len(rows)} | {mean * to_mbb:+,.1f} ± {half * to_mbb:,.1f} |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", help="run directories of pokerbot subgames, on the same draws")
    p.add_argument("--a", default="full", help="the variant whose difference is split (default full)")
    p.add_argument("--b", default="blueprint", help="the variant it is compared to (default blueprint)")
    args = p.parse_args()
    rows, sample, sampling = load(args.runs)
    rows = [r for r in rows if args.a in r["values"] and args.b in r["values"]]
    print(f"{args.a} - {args.b}: {len(rows)} draws ({sampling} sampling)\n")
    for title, group in (
        ("line into the turn", line_into_turn),
        ("our position", position),
        ("pot at the turn", pot_group),
        ("stack-to-pot ratio at the turn", spr_group),
    ):
        print(table(title, row_parts(rows, args.a, args.b, group), rows, sample, sampling) + "\n")
    with_parts = [r for r in rows if args.a in r.get("parts", {}) and args.b in r.get("parts", {})]
    if len(with_parts) == len(rows):
        print(table("the turn's first betting", split_parts(rows, args.a, args.b, "line", first_betting), rows,
                    sample, sampling) + "\n")  # fmt: skip
        print(table("our hand's class on the turn (q1 weakest)", split_parts(rows, args.a, args.b, "hand", str),
                    rows, sample, sampling))  # fmt: skip


if __name__ == "__main__":
    main()
