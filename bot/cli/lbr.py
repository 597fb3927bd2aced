"""``pokerbot lbr``."""

from __future__ import annotations

import argparse
import os
import sys

import pokerbot.bot.cli.options as opt


def add(sub) -> None:
    from pokerbot.bot.strategies import STRATEGIES

    lb = sub.add_parser(
        "lbr", help="Local Best Response against a strategy: how much a one-step lookahead opponent wins (mbb/game)"
    )
    lb.add_argument("--strategy", default="blueprint", choices=sorted(STRATEGIES), help="the strategy LBR plays")
    opt.add_blueprint_option(lb, "its blueprint store (default: blueprints/default.bp)", metavar=None)
    lb.add_argument(
        "--setting",
        default="full",
        help="LBR's actions per round: full (default: fc/fcp/fcpa/fcpa, LBR may fold before the flop), fcpa "
        "(the paper's c/c/fcpa/fcpa), fcpa56 (56 turn/river sizes), fc (fold/call), or one code a round "
        "separated by '/' (c, fc, fcp, fca, fcpa, fcpa56)",
    )
    lb.add_argument("--hands", type=int, default=1000, help="hands, LBR's seat alternating (default 1,000)")
    opt.add_seed_option(lb, "the deals' and the strategy's seed")
    opt.add_workers_option(lb, "processes playing hands in parallel", 1, type=int)
    opt.add_out_dir_option(lb, "lbr-results", "hands.jsonl (resumable) and summary.json go here")
    opt.add_agent_options(lb)
    opt.add_json_option(lb, "the summary")
    opt.add_no_progress_option(lb)
    lb.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from pokerbot.blueprint_store.store import StoreError
    from pokerbot.bot.evaluation.lbr import LBRError, markdown_line, run_lbr
    from pokerbot.protocol.logs import configure

    configure("warning")
    blueprint, status = opt.blueprint_of(args, "lbr")
    if status:
        return status
    if args.hands < 1 or args.workers < 1:
        print("pokerbot lbr: --hands and --workers must be at least 1", file=sys.stderr)
        return 2
    options: dict = {}
    if args.strategy in ("libratus", "unsafe"):
        try:
            options = opt.agent_options(args, workers=0)
        except ValueError as e:
            print(f"pokerbot lbr: {e}", file=sys.stderr)
            return 2
    try:
        summary = run_lbr(
            args.strategy,
            args.hands,
            args.seed,
            args.setting,
            args.out,
            blueprint,
            args.workers,
            progress=not args.no_progress,
            options=options,
        )
    except (LBRError, StoreError, ValueError) as e:
        print(f"pokerbot lbr: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        c = summary["cross_fitted"]
        print(
            f"LBR ({summary['setting_name']}: {summary['setting']}) against {summary['strategy']}: "
            f"{c['mbb_per_game']:+,.1f} ± {c['ci95']:,.1f} mbb/game won by LBR (95 %, control variates, "
            f"variance {c['variance_ratio']:.1f}x lower; "
            f"raw {summary['mbb_per_game']:+,.1f} ± {summary['ci95']:,.1f}), "
            f"{summary['hands']:,} hands, {summary['seconds_per_hand']:.3f} s per hand; "
            f"{os.path.join(args.out, 'summary.json')}"
        )
        print("| strategy | setting | LBR, corrected | LBR, raw | variance cut | hands | time per hand |")
        print(markdown_line(summary))
    return 0
