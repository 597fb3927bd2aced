#!/usr/bin/env python3
"""The self-improver's match: the agent against a bot that opens the first round with a
size the blueprint lacks (``prober``, 0.75 pot by default), before and after one
improvement run, in duplicate matches dealt from one seed.

    .venv/bin/python scripts/improvement_match.py [--hands 10000] [--seed 7] \
        [--probe-hands 2000] [--hours 1] [--threads N] [--out eval-improve/] [--blueprint PATH] [--concurrent]

Steps (each skipped when its output is already there, so an interrupted run resumes):
1. ``probe/``: a single match of ``--probe-hands`` hands, agent vs prober, on another
   seed: the logs the improver learns from (an earlier session's, as it would be in use).
2. ``improved.bp``: ``pokerbot improve`` on those logs (``--hours`` of solving).
3. ``before/``: the agent with the base blueprint vs prober, duplicate (runs beside 1-2).
4. ``after/``: the agent with the improved store vs the same prober (which plays the
   base blueprint), duplicate, the same seed, so hand i of ``after/`` deals the cards of
   hand i of ``before/`` to the same seats.
Then a table: the agent's paired (duplicate) mbb/hand before and after, raw and all-in
adjusted, and the change after - before, paired hand by hand across the two runs (the
same deals, so most of the card luck cancels); and the change split by kind of deal
(the prober opened first, raised our limp, or neither).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from pokerbot.bot.evaluation.match import follow_logs, hands_logged
from pokerbot.bot.evaluation.match_log import player_series, read_match_log
from pokerbot.bot.evaluation.stats import summarize
from pokerbot.bot.progress import ProgressBar
from pokerbot.protocol.betting import ActionType
from pokerbot.protocol.gamedef import DEFAULT_GAME, bundled_game
from pokerbot.protocol.matchstate import parse_state_line

#: One bar over every hand of the three matches (from their dealers' logs); the steps'
#: messages go above it. Made in main once the hands are known.
BAR: ProgressBar | None = None


def say(msg: str) -> None:
    line = f"[{time.strftime('%H:%M:%S')}] {msg}"
    if BAR is not None:
        BAR.write(line)
    else:
        print(line, flush=True)


def run(cmd: list[str], log_path: str, what: str) -> None:
    say(f"{what}: {' '.join(shlex.quote(c) for c in cmd)}")
    t0 = time.time()
    with open(log_path, "w") as f:
        status = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if status != 0:
        raise RuntimeError(f"{what} failed with status {status}; see {log_path}")
    say(f"{what}: done in {time.time() - t0:.0f} s")


def match_cmd(
    a: str, hands: int, seed: int, out: str, blueprint: str, duplicate: bool = True, concurrent: bool = False
) -> list[str]:
    cmd = [
        sys.executable,
        "-m",
        "pokerbot.bot.cli",
        "match",
        a,
        "prober",
        "--hands",
        str(hands),
        "--seed",
        str(seed),
        "--out",
        out,
        "--blueprint",
        blueprint,
        "--no-train",
    ]
    return cmd + (["--duplicate"] if duplicate else []) + (["--concurrent"] if concurrent else [])


def duplicate_matches(out: str) -> list[tuple[list, str, str]]:
    """The two matches of the duplicate match in ``out``: (hands, player A's name,
    dealer log) each."""
    game = bundled_game(DEFAULT_GAME)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    matches = []
    for m in summary["matches"]:
        hands, _ = read_match_log(m["log"], game)
        matches.append((hands, next(name for name in m["seats"] if name.startswith("A-")), m["log"]))
    if len(matches) != 2 or len(matches[0][0]) != len(matches[1][0]):
        raise RuntimeError(f"{out}: not a complete duplicate match")
    return matches


def agent_series(out: str, adjusted: bool) -> np.ndarray:
    """Chips per hand of player A (the agent), the two seat orders averaged: the
    duplicate series of ``pokerbot match``, hand by hand."""
    (h1, a1, _), (h2, a2, _) = duplicate_matches(out)
    return (player_series(h1, a1, adjusted) + player_series(h2, a2, adjusted)) / 2


#: Kinds of deal for the split of the change, by what the prober did first preflop.
KINDS = ("prober opens first", "prober raises our limp", "anything else")


def agent_records(out: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per match of a duplicate: player A's all-in adjusted chips per hand and each
    hand's kind (an index into KINDS: the prober's first raise preflop, if it made
    the hand's first raise, from the first position or after our limp)."""
    game = bundled_game(DEFAULT_GAME)
    records = []
    for hands, a, log in duplicate_matches(out):
        kinds = []
        with open(log, encoding="utf-8") as f:
            for line in f:
                if not line.startswith("STATE:"):
                    continue
                st = parse_state_line(line.rstrip("\n"), game).state
                names = line.rstrip("\n").split(":")[-1].split("|")
                first = next((i for i, act in enumerate(st.actions[0]) if act.type is ActionType.RAISE), None)
                kind = 2
                if first is not None and not names[st.actors[0][first]].startswith("A-"):
                    kind = 0 if first == 0 else 1 if first == 1 else 2
                kinds.append(kind)
        records.append((player_series(hands, a, True), np.array(kinds)))
    return records


def print_change_by_kind(before: str, after: str, big_blind: int) -> None:
    """The paired change split by kind of deal: per deal, the sum over its two hands
    (one per seat order) of half the change in the hands of that kind; the kinds'
    means add up to the whole change. Kinds come from the ``before`` logs (the
    prober's first move and our limp are the blueprint's in both)."""
    b, a = agent_records(before), agent_records(after)
    n = len(b[0][0])
    print("\n| kind of deal (the agent's hand) | hands | change, all-in adjusted (95 %) |")
    print("|---|---:|---:|")
    for k, label in enumerate(KINDS):
        per_deal = np.zeros(n)
        count = 0
        for (vb, kinds), (va, _) in zip(b, a):
            mask = kinds == k
            per_deal += np.where(mask, (va - vb) / 2, 0.0)
            count += int(mask.sum())
        s = summarize(per_deal, big_blind)
        print(f"| {label} | {count:,} | {s['mbb_per_hand']:+,.0f} ± {s['ci95']:,.0f} |")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=10_000, help="hands per seat order (default 10,000: 20,000 in all)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--probe-hands", type=int, default=2000, help="hands of the match the improver learns from")
    p.add_argument("--hours", type=float, default=1.0, help="solving time of the improvement run")
    p.add_argument("--threads", type=int, default=None, help="improvement solver threads (default: every core)")
    p.add_argument("--out", default="eval-improve")
    p.add_argument("--blueprint", default=os.path.join("blueprints", "default.bp"))
    p.add_argument(
        "--concurrent",
        action="store_true",
        help="play each duplicate match's two seat orders at the same time (see pokerbot match)",
    )
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    blueprint = os.path.abspath(args.blueprint)
    probe = os.path.join(args.out, "probe")
    improved = os.path.join(args.out, "improved.bp")
    before = os.path.join(args.out, "before")
    after = os.path.join(args.out, "after")

    def improve_chain() -> None:
        if not os.path.exists(os.path.join(probe, "summary.json")):
            run(
                match_cmd("libratus", args.probe_hands, args.seed + 1000, probe, blueprint, duplicate=False),
                os.path.join(args.out, "probe.txt"),
                "match the improver learns from",
            )
        if not os.path.exists(improved):
            cmd = [
                sys.executable,
                "-m",
                "pokerbot.bot.cli",
                "improve",
                "--logs",
                probe,
                "--blueprint",
                blueprint,
                "--out",
                improved,
                "--hours",
                str(args.hours),
            ]
            if args.threads:
                cmd += ["--threads", str(args.threads)]
            run(cmd, os.path.join(args.out, "improve.txt"), "improvement run")
        if not os.path.exists(os.path.join(after, "summary.json")):
            agent = (
                f"{shlex.quote(sys.executable)} -m pokerbot.bot.cli play --strategy libratus "
                f"--blueprint {shlex.quote(os.path.abspath(improved))} --seed {args.seed}"
            )
            run(
                match_cmd(agent, args.hands, args.seed, after, blueprint, concurrent=args.concurrent),
                os.path.join(args.out, "after.txt"),
                "after: improved agent vs prober",
            )

    def before_match() -> None:
        if not os.path.exists(os.path.join(before, "summary.json")):
            run(
                match_cmd("libratus", args.hands, args.seed, before, blueprint, concurrent=args.concurrent),
                os.path.join(args.out, "before.txt"),
                "before: agent vs prober",
            )

    global BAR
    dirs = [probe, before, after]
    BAR = ProgressBar(args.probe_hands + 4 * args.hands, "hands", label="improvement match", stream=sys.stdout)
    stop = threading.Event()
    follower = threading.Thread(target=follow_logs, args=(BAR, dirs, stop), daemon=True)
    follower.start()
    try:
        with ThreadPoolExecutor(2) as ex:
            for f in [ex.submit(improve_chain), ex.submit(before_match)]:
                f.result()
    finally:
        stop.set()
        follower.join()
        BAR.update(sum(hands_logged(d) for d in dirs))
        BAR.finish()
        BAR = None

    bb = bundled_game(DEFAULT_GAME).big_blind
    print("\n| agent vs prober | mbb/hand raw (95 %) | all-in adjusted (95 %) | hands |")
    print("|---|---:|---:|---:|")
    rows = {}
    for label, out in (("before (base blueprint)", before), ("after (improved store)", after)):
        rows[label] = {adj: agent_series(out, adj) for adj in (False, True)}
        raw, adj = (summarize(rows[label][k], bb) for k in (False, True))
        print(
            f"| {label} | {raw['mbb_per_hand']:+,.0f} ± {raw['ci95']:,.0f} | "
            f"{adj['mbb_per_hand']:+,.0f} ± {adj['ci95']:,.0f} | {2 * raw['hands']:,} |"
        )
    b, a = rows["before (base blueprint)"], rows["after (improved store)"]
    if len(a[True]) == len(b[True]):
        raw, adj = (summarize(a[k] - b[k], bb) for k in (False, True))
        print(
            f"| change, paired by deal | {raw['mbb_per_hand']:+,.0f} ± {raw['ci95']:,.0f} | "
            f"{adj['mbb_per_hand']:+,.0f} ± {adj['ci95']:,.0f} | {2 * raw['hands']:,} |"
        )
        print_change_by_kind(before, after, bb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
