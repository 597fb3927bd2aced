#!/usr/bin/env python3
"""Summarise an agent's JSON log (``pokerbot play --strategy libratus``, the player's
standard error; ``pokerbot match`` keeps it as ``<match>.<name>.stderr``): decisions
by source (and the turn's apart), decisions played from self-improver extensions, solves
by kind with median time and iterations, turn solves by solver (full depth with its river
cards a pass, or depth-limited), deadline-stopped solves, lost workers, and the time per
hand the agent spent replying.

    .venv/bin/python scripts/agent_log_summary.py match-results/match1.A-libratus.stderr [...]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter


def read_events(path: str) -> tuple[list[dict], int]:
    """The JSON events of an agent log, and how many lines that look like JSON are not
    (other lines, e.g. a traceback's, are skipped)."""
    events: list[dict] = []
    bad = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("{"):
                continue
            try:
                events.append(json.loads(line))
            except ValueError:
                bad += 1
    return events, bad


def _round_of(betting: str) -> str:
    """The round a solve's root is on, from its betting string (rounds split by '/')."""
    return ("preflop", "flop", "turn", "river")[min(betting.count("/"), 3)]


def _solve_figures(solves: list[dict]) -> dict:
    """How many solves, their median seconds and iterations, and the deadline-stopped."""
    return {
        "solves": len(solves),
        "median_seconds": statistics.median(s["seconds"] for s in solves),
        "median_iterations": statistics.median(s["iterations"] for s in solves),
        "stopped_early": sum(bool(s["stopped_early"]) for s in solves),
    }


def summarise(paths: list[str]) -> dict:
    decisions: list[dict] = []
    solves: list[dict] = []
    lost = replaced = bad = 0
    hands: set[tuple[str, int]] = set()
    for path in paths:
        events, unreadable = read_events(path)
        bad += unreadable
        for e in events:
            ev = e.get("event")
            if ev == "decision" and "source" in e:
                decisions.append(e)
                hands.add((path, e["hand"]))
            elif ev == "solve":
                solves.append(e)
            elif ev == "solve_lost":
                lost += 1
            elif ev == "solver_worker_replaced":
                replaced += 1
    reply = [e["reply_seconds"] for e in decisions]
    replies_by_source: dict[str, list[float]] = {}
    for e in decisions:
        replies_by_source.setdefault(e["source"], []).append(e["reply_seconds"])
    by_kind: dict[str, dict] = {}
    for kind in sorted({s["kind"] for s in solves}):
        ks = [s for s in solves if s["kind"] == kind]
        by_kind[kind] = {
            **_solve_figures(ks),
            "max_seconds": max(s["seconds"] for s in ks),
            "median_nodes": statistics.median(s["nodes"] for s in ks),
            # the solve's time (with the hand-over to the worker) past its deadline
            "max_past_deadline": max(s["seconds"] - s["deadline"] for s in ks if "deadline" in s)
            if any("deadline" in s for s in ks)
            else 0.0,
            "past_deadline_over_0.1s": sum(s["seconds"] - s["deadline"] > 0.1 for s in ks if "deadline" in s),
            "rounds": dict(sorted(Counter(_round_of(s["betting"]) for s in ks if "betting" in s).items())),
        }
    by_round: dict[str, dict] = {}
    for rnd in ("flop", "turn", "river"):
        rs = [s for s in solves if "betting" in s and _round_of(s["betting"]) == rnd]
        if rs:
            by_round[rnd] = {**_solve_figures(rs), "min_iterations": min(s["iterations"] for s in rs)}
    turn_solvers: dict[str, dict] = {}
    for solver in sorted({s["turn_solver"] for s in solves if "turn_solver" in s}):
        ts = [s for s in solves if s.get("turn_solver") == solver]
        cards = Counter(int(s.get("card_samples", 0)) for s in ts)
        turn_solvers[solver] = {**_solve_figures(ts), "card_samples": dict(sorted(cards.items()))}
    return {
        "decisions": len(decisions),
        "hands_with_a_decision": len(hands),
        "sources": dict(Counter(e["source"] for e in decisions).most_common()),
        "extensions": dict(Counter(e["extension"] for e in decisions if "extension" in e).most_common()),
        "solves": by_kind,
        "solves_by_round": by_round,
        "turn_solvers": turn_solvers,
        # where the turn's decisions came from (a solve: unsafe, safe, nested, solution)
        "turn_sources": dict(Counter(e["source"] for e in decisions if e.get("round") == 2).most_common()),
        "solves_lost": lost,
        "workers_replaced": replaced,
        "unreadable_lines": bad,
        "reply_seconds_total": sum(reply),
        "reply_seconds_per_hand_with_a_decision": sum(reply) / len(hands) if hands else 0.0,
        "reply_seconds_max": max(reply) if reply else 0.0,
        "reply_seconds_median": statistics.median(reply) if reply else 0.0,
        # per source: the median and 99th percentile of a decision's reply time
        "reply_seconds_by_source": {
            src: {"decisions": len(rs), "median": statistics.median(rs), "p99": percentile(rs, 0.99)}
            for src, rs in sorted(replies_by_source.items())
        },
    }


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of ``values``: the value at rank ceil(q * n) (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(math.ceil(q * len(ordered)) - 1, 0)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("logs", nargs="+", help="agent log files (JSON lines)")
    p.add_argument("--json", action="store_true", help="print JSON")
    args = p.parse_args(argv)
    try:
        s = summarise(args.logs)
    except OSError as e:
        print(f"agent_log_summary: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(s, indent=2))
        return 0
    print(f"{s['decisions']:,} decisions in {s['hands_with_a_decision']:,} hands")
    print("sources: " + ", ".join(f"{k} {v:,}" for k, v in s["sources"].items()))
    if s["extensions"]:
        print("from extensions: " + ", ".join(f"{k} {v:,}" for k, v in s["extensions"].items()))
    for kind, k in s["solves"].items():
        print(
            f"{kind} solves: {k['solves']:,}, median {k['median_seconds']:.3f} s (max {k['max_seconds']:.3f}), "
            f"median {k['median_iterations']:.0f} iterations, {k['stopped_early']} stopped at the deadline, "
            f"median {k['median_nodes']:.0f} nodes; at most {k['max_past_deadline']:.3f} s past the deadline "
            f"({k['past_deadline_over_0.1s']} over 0.1 s); by round: "
            + ", ".join(f"{r} {n:,}" for r, n in k["rounds"].items())
        )
    for rnd, k in s["solves_by_round"].items():
        print(
            f"  {rnd} solves: {k['solves']:,}, median {k['median_iterations']:.0f} iterations "
            f"(min {k['min_iterations']}), median {k['median_seconds']:.3f} s, "
            f"{k['stopped_early']} stopped at the deadline"
        )
    for solver, k in s["turn_solvers"].items():
        cards = ", ".join(f"{n:,} with {c} a pass" for c, n in k["card_samples"].items())
        print(
            f"  turn solves {solver}: {k['solves']:,}, median {k['median_iterations']:.0f} iterations, median "
            f"{k['median_seconds']:.3f} s, {k['stopped_early']} stopped at the deadline; river cards: {cards}"
        )
    if s["turn_sources"]:
        print("turn decisions by source: " + ", ".join(f"{k} {v:,}" for k, v in s["turn_sources"].items()))
    print(f"solves lost: {s['solves_lost']}, workers replaced: {s['workers_replaced']}")
    print(
        f"reply time: {s['reply_seconds_total']:.1f} s in all, {s['reply_seconds_per_hand_with_a_decision']:.3f} s "
        f"per hand with a decision, median {s['reply_seconds_median'] * 1000:.1f} ms, "
        f"max {s['reply_seconds_max']:.3f} s"
    )
    for src, r in s["reply_seconds_by_source"].items():
        print(
            f"  {src}: {r['decisions']:,} decisions, reply median {r['median'] * 1000:.2f} ms, "
            f"99th percentile {r['p99'] * 1000:.2f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
