#!/usr/bin/env python3
"""Where a duplicate match's result comes from: the deal pairs grouped by the kinds of
solve the agent made in its two hands of the deal (none, unsafe, unsafe+safe, ...),
with each group's share of the paired result and its 95 % interval.

Against ``blueprint`` or ``unsafe`` with common random numbers, a pair in which the
agent never solved cancels exactly (both seats play the same strategy with the same
draws); the groups show how much of the result, and of its noise, each kind of solve
carries. The groups' contributions add up to the match's duplicate figure (all-in
adjusted, as ``pokerbot match`` prints it).

    .venv/bin/python scripts/duplicate_breakdown.py eval/vs-blueprint [--player A-libratus]

Several directories (matches with different seeds) are pooled into one table.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
from collections import Counter

import numpy as np

from pokerbot.bot.evaluation.match_log import player_series, read_match_log
from pokerbot.bot.evaluation.stats import Z95
from pokerbot.protocol.gamedef import GameDefError, load_gamedef
from scripts.agent_log_summary import read_events

#: Decision sources that mean the agent solved (or had to fall back from a solve).
SOLVE_SOURCES = ("unsafe", "safe", "nested", "previous-fallback", "blueprint-fallback")


def solve_kinds(path: str) -> dict[int, set[str]]:
    """Per hand, the solve-related sources of the agent's decisions in its JSON log."""
    out: dict[int, set[str]] = {}
    for e in read_events(path)[0]:
        if e.get("event") == "decision" and e.get("source") in SOLVE_SOURCES:
            out.setdefault(int(e["hand"]), set()).add(e["source"])
    return out


def _label(kinds: set[str]) -> str:
    if not kinds:
        return "no solve"
    return "+".join(k for k in SOLVE_SOURCES if k in kinds)


def breakdown(net: np.ndarray, labels: list[str], big_blind: int) -> list[dict]:
    """Groups of pairs by label: pairs, pairs that cancel exactly, and the group's
    contribution to the mean per hand (mbb, each pair is two hands) with its 95 %
    half-width; the last row is every pair."""
    n = len(net)
    scale = 1000.0 / big_blind / 2.0  # chips per pair -> mbb per hand
    rows = []
    tags = np.array(labels, dtype=object)
    for name in [k for k, _ in Counter(labels).most_common()] + ["all pairs"]:
        mask = np.ones(n, bool) if name == "all pairs" else tags == name
        part = np.where(mask, net, 0.0) * scale  # zero outside the group: contributions add up
        rows.append(
            {
                "group": name,
                "pairs": int(mask.sum()),
                "cancel": int((net[mask] == 0).sum()),
                "mbb_per_hand": float(part.mean()) if n else 0.0,
                "ci95": float(Z95 * part.std(ddof=1) / math.sqrt(n)) if n > 1 else None,
            }
        )
    return rows


def _pairs(directory: str, player: str | None, game: str | None) -> tuple[str, np.ndarray, list[str], int]:
    """One duplicate match: (agent's name, its net per deal pair, the pairs' labels,
    big blind)."""
    summary_path = os.path.join(directory, "summary.json")
    info = {}
    if os.path.exists(summary_path):
        with open(summary_path) as f:
            info = json.load(f)
    gdef = load_gamedef(game or info.get("game") or "holdem.nolimit.2p")  # a bundled name or a file
    if player is None:
        found = sorted(glob.glob(os.path.join(directory, "match1.A-*.stderr")))
        if not found:
            raise FileNotFoundError(f"no match1.A-*.stderr in {directory}: name the agent with --player")
        player = os.path.basename(found[0])[len("match1.") : -len(".stderr")]
    cache: dict = {}
    hands1, _ = read_match_log(os.path.join(directory, "match1.log"), gdef, cache=cache)
    hands2, _ = read_match_log(os.path.join(directory, "match2.log"), gdef, cache=cache)
    if [h.hand for h in hands1] != [h.hand for h in hands2]:
        raise ValueError(f"{directory}: the two logs do not hold the same hands (not a finished duplicate match)")
    net = player_series(hands1, player, adjusted=True) + player_series(hands2, player, adjusted=True)
    k1 = solve_kinds(os.path.join(directory, f"match1.{player}.stderr"))
    k2 = solve_kinds(os.path.join(directory, f"match2.{player}.stderr"))
    labels = [_label(k1.get(h.hand, set()) | k2.get(h.hand, set())) for h in hands1]
    return player, net, labels, gdef.big_blind


def analyse(directories: list[str], player: str | None = None, game: str | None = None) -> dict:
    """The pairs of one duplicate match, or of several (different seeds) pooled, each
    read from its two match logs and the agent's two logs."""
    parts = [_pairs(d, player, game) for d in directories]
    if len({p[0] for p in parts}) > 1 or len({p[3] for p in parts}) > 1:
        raise ValueError("pooled matches must have the same agent name and big blind")
    net = np.concatenate([p[1] for p in parts])
    labels = [lab for p in parts for lab in p[2]]
    return {
        "player": parts[0][0],
        "matches": len(parts),
        "pairs": len(net),
        "groups": breakdown(net, labels, parts[0][3]),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "directories",
        nargs="+",
        help="a duplicate match's directory (match1.log, match2.log, agent logs); several are pooled",
    )
    p.add_argument("--player", help="the agent's seat name, e.g. A-libratus (default: player A)")
    p.add_argument("--game", help="game name or file (default: summary.json's, else holdem.nolimit.2p)")
    p.add_argument("--json", action="store_true", help="print JSON")
    args = p.parse_args(argv)
    try:
        out = analyse(args.directories, args.player, args.game)
    except (OSError, ValueError, GameDefError) as e:
        print(f"duplicate_breakdown: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    pooled = f" of {out['matches']} matches pooled" if out["matches"] > 1 else ""
    print(f"{out['player']}: {out['pairs']:,} deal pairs{pooled}, all-in adjusted, mbb/hand (95 %)")
    print(f"{'solves in the pair':32s} {'pairs':>7s} {'cancel':>7s} {'contribution':>22s}")
    for g in out["groups"]:
        ci = "" if g["ci95"] is None else f" ± {g['ci95']:.1f}"
        print(f"{g['group']:32s} {g['pairs']:7,d} {g['cancel']:7,d} {g['mbb_per_hand']:+12.1f}{ci:>10s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
