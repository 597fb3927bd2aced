#!/usr/bin/env python3
"""The agent's acceptance matches: duplicate matches of ``libratus`` against each
benchmark opponent on our dealer, then one table of paired results.

    .venv/bin/python scripts/evaluate_agent.py [--hands 10000] [--seed 7] [--parallel 2] \
        [--opponents allin,raise-pot,random,call,blueprint,unsafe] [--out eval/] [--blueprint PATH] \
        [--common-random-numbers] [--concurrent] [--aivat]

``--hands`` is per seat order: a duplicate match plays it twice (so 10,000 means 20,000
hands). Each opponent's match goes to ``<out>/vs-<opponent>/``; an opponent whose
``summary.json`` is already there is not played again, so an interrupted evaluation
resumes where it stopped. The table gives mbb/hand of the agent, raw and all-in
adjusted, with 95 % intervals, the wall time per hand of each match and the agent's own
reply time per hand (from its log); with ``--aivat`` also the duplicate result
corrected by AIVAT and its variance ratio to duplicate alone. Matches run ``--parallel`` at a time (one core
each: the agent's solves are single-threaded).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from agent_log_summary import summarise

from pokerbot.bot.evaluation.match import follow_logs, hands_logged
from pokerbot.bot.progress import ProgressBar

OPPONENTS = ("allin", "raise-pot", "random", "call", "blueprint", "unsafe")


def run_one(opponent: str, args: argparse.Namespace, say=print) -> tuple[str, int]:
    out = os.path.join(args.out, f"vs-{opponent}")
    if os.path.exists(os.path.join(out, "summary.json")):
        return opponent, 0
    cmd = [
        sys.executable,
        "-m",
        "pokerbot.bot.cli",
        "match",
        "libratus",
        opponent,
        "--hands",
        str(args.hands),
        "--seed",
        str(args.seed),
        "--duplicate",
        "--out",
        out,
    ]
    if args.common_random_numbers:
        cmd.append("--common-random-numbers")
    if args.concurrent:
        cmd.append("--concurrent")
    if args.aivat:
        cmd.append("--aivat")
    if args.blueprint:
        cmd += ["--blueprint", args.blueprint]
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    say(f"[{time.strftime('%H:%M:%S')}] libratus vs {opponent}: {2 * args.hands:,} hands ...")
    with open(os.path.join(out, "match.txt"), "w") as f:
        status = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    say(f"[{time.strftime('%H:%M:%S')}] libratus vs {opponent}: done in {time.time() - t0:.0f} s (status {status})")
    return opponent, status


def row(opponent: str, out: str, aivat: bool = False) -> str:
    path = os.path.join(out, f"vs-{opponent}", "summary.json")
    if not os.path.exists(path):
        return f"| {opponent} | not played | | | |" + (" |" if aivat else "")
    with open(path) as f:
        s = json.load(f)
    d = s.get("duplicate") or {}
    raw, adj = d.get("raw"), d.get("allin_adjusted")
    if not raw:
        return f"| {opponent} | incomplete ({'; '.join(m.get('error') or '' for m in s['matches'])}) | | | |"
    hands = sum(m["hands_played"] for m in s["matches"])
    wall = sum(m["seconds"] for m in s["matches"]) / max(hands, 1)
    logs = [
        os.path.join(os.path.dirname(m["log"]), f"{m['name']}.{seat}.stderr")
        for m in s["matches"]
        for seat in m["seats"]
        if seat.startswith("A-")
    ]
    agent = summarise([p for p in logs if os.path.exists(p)])
    # the agent logs its decisions at info level (play's default); older logs may lack them
    reply = f"{agent['reply_seconds_total'] / max(hands, 1):.3f} s" if agent["decisions"] else "n/a"
    corrected = ""
    if aivat:
        v, ratio = d.get("aivat"), (s.get("aivat") or {}).get("variance_ratio_vs_duplicate")
        corrected = (
            f" {v['mbb_per_hand']:+,.0f} ± {v['ci95']:,.0f}" + (f" ({ratio:.1f}x)" if ratio else "") + " |"
            if v
            else " n/a |"
        )
    return (
        f"| {opponent} | {raw['mbb_per_hand']:+,.0f} ± {raw['ci95']:,.0f} | "
        f"{adj['mbb_per_hand']:+,.0f} ± {adj['ci95']:,.0f} |{corrected} {hands:,} | {wall:.3f} s / {reply} |"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=10_000, help="hands per seat order (default 10,000)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--opponents", default=",".join(OPPONENTS))
    p.add_argument("--parallel", type=int, default=2)
    p.add_argument("--out", default="eval")
    p.add_argument("--blueprint", default=None)
    p.add_argument(
        "--concurrent",
        action="store_true",
        help="play each duplicate match's two seat orders at the same time (two cores per match: "
        "use with --parallel 1)",
    )
    p.add_argument(
        "--common-random-numbers",
        action="store_true",
        help="one seed for both players (see pokerbot match): against blueprint, prober and unsafe the "
        "duplicate pairs then cancel up to the agent's first solve",
    )
    p.add_argument(
        "--aivat",
        action="store_true",
        help="also correct the duplicate results by AIVAT (a column with the variance ratio to duplicate alone)",
    )
    args = p.parse_args(argv)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    # one bar over every hand of the evaluation, from the dealers' logs (a match that is
    # already done counts as done); the matches' own lines go above it
    bar = ProgressBar(2 * args.hands * len(opponents), "hands", label="evaluation", stream=sys.stdout)
    dirs = [os.path.join(args.out, f"vs-{o}") for o in opponents]
    stop = threading.Event()
    follower = threading.Thread(target=follow_logs, args=(bar, dirs, stop), daemon=True)
    follower.start()
    try:
        with ThreadPoolExecutor(max(1, args.parallel)) as ex:
            results = list(ex.map(lambda o: run_one(o, args, bar.write), opponents))
    finally:
        stop.set()
        follower.join()
        bar.update(sum(hands_logged(d) for d in dirs))
        bar.finish()
    extra = " AIVAT (variance ratio) |" if args.aivat else ""
    print(f"\n| opponent | agent mbb/hand (raw, 95 %) | all-in adjusted |{extra} hands | time per hand: wall / agent |")
    print("|---|---:|---:|" + ("---:|" if args.aivat else "") + "---:|---:|")
    for o in opponents:
        print(row(o, args.out, args.aivat))
    return 0 if all(status == 0 for _, status in results) else 1


if __name__ == "__main__":
    sys.exit(main())
