"""``pokerbot slumbot``."""

from __future__ import annotations

import argparse
import os
import sys

import pokerbot.bot.cli.options as opt
from pokerbot.protocol.gamedef import load_gamedef


def add(sub) -> None:
    from pokerbot.bot.strategies import STRATEGIES

    sl = sub.add_parser("slumbot", help="play a strategy against Slumbot's public API (resumable)")
    sl.add_argument(
        "--hands", type=opt.positive, default=1000, help="hands in all, those already played included (default 1,000)"
    )
    sl.add_argument("--strategy", default="libratus", choices=sorted(STRATEGIES), help="ours (default libratus)")
    opt.add_blueprint_option(sl, "its blueprint store (default: blueprints/default.bp)", metavar=None)
    opt.add_seed_option(sl, "our strategy's seed")
    sl.add_argument(
        "--username",
        default=None,
        help="a Slumbot account (results on its leaderboard); password from $SLUMBOT_PASSWORD or asked for",
    )
    sl.add_argument("--base-url", default="https://slumbot.com", help="the server (default https://slumbot.com)")
    sl.add_argument("--rate", type=float, default=2.0, help="at most this many requests a second (default 2)")
    sl.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for an answer (default 30)")
    opt.add_out_dir_option(sl, "slumbot-results", "hands.jsonl, slumbot.log, strategy.jsonl, summary.json")
    opt.add_agent_options(sl)
    opt.add_workers_option(sl, "libratus/unsafe: solver processes (default 0)", 0)
    opt.add_threads_option(
        sl,
        "libratus/unsafe: solver threads (default auto: every CPU this process may use)",
        "auto",
        type=opt.solver_threads,
        metavar="auto|N",
    )
    opt.add_json_option(sl, "the summary")
    opt.add_no_progress_option(sl, "no progress bar")
    sl.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from pokerbot.bot.evaluation import slumbot
    from pokerbot.bot.strategies import make_strategy
    from pokerbot.protocol.logs import configure

    configure("warning")
    password = None
    if args.username:
        password = os.environ.get(slumbot.PASSWORD_ENV)
        if not password:
            if not sys.stdin.isatty():
                print(
                    f"pokerbot slumbot: --username needs a password: set ${slumbot.PASSWORD_ENV} "
                    "(there is no terminal to ask on)",
                    file=sys.stderr,
                )
                return 2
            import getpass

            password = getpass.getpass(f"Slumbot password for {args.username}: ")
    game = load_gamedef("holdem.nolimit.2p")
    agent = args.strategy in ("libratus", "unsafe")
    blueprint, status = opt.blueprint_of(args, "slumbot")
    if status:
        return status
    options: dict = {}
    if agent:
        # no dealer's clock: a budget for an opponent that waits (Slumbot's server does)
        limits = {"t_response_ms": 60_000, "t_hand_ms": 600_000, "t_per_hand_ms": 30_000}
        try:
            options = opt.agent_options(args, threads=args.threads, workers=args.workers, **limits)
        except ValueError as e:
            print(f"pokerbot slumbot: {e}", file=sys.stderr)
            return 2
    identity = {
        "strategy": args.strategy,
        "blueprint": blueprint,
        "options": {k: v for k, v in options.items() if k != "workers"},
        "seed": args.seed,
        "base_url": args.base_url,
        "username": args.username,
    }
    try:
        strategy = make_strategy(args.strategy, args.seed, blueprint, **options)
        prepare = getattr(strategy, "prepare", None)
        if prepare is not None:
            prepare()  # the agent's kernels and solver workers, before the first hand
        client = slumbot.Client(args.base_url, timeout=args.timeout, rate=args.rate)
        if args.username:
            client.login(args.username, password or "")
        summary = slumbot.run_slumbot(
            strategy, args.hands, args.out, game, client, identity, progress=not args.no_progress
        )
    except slumbot.Stopped as e:
        print(f"pokerbot slumbot: {e}; run the same command again to go on", file=sys.stderr)
        return 130
    except (slumbot.SlumbotError, slumbot.ActionStringError, ValueError, OSError) as e:
        print(f"pokerbot slumbot: {e}", file=sys.stderr)
        print(f"pokerbot slumbot: the hands played so far are in {args.out}/; run again to go on", file=sys.stderr)
        return 1
    finally:
        pool = getattr(locals().get("strategy"), "pool", None)
        if pool is not None:
            pool.close()
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0

    def fmt(s: dict) -> str:
        if s["ci95"] is None:
            return f"{s['mbb_per_hand']:+,.0f} mbb/hand" if s["mbb_per_hand"] is not None else "n/a"
        return f"{s['mbb_per_hand']:+,.0f} ± {s['ci95']:,.0f} mbb/hand"

    print(f"{args.strategy} against Slumbot, {summary['hands']:,} hands ({summary['seconds_per_hand']:.2f} s a hand):")
    print(f"  raw                       {fmt(summary['raw'])} (95 %)")
    if "baseline_corrected" in summary:
        print(f"  less Slumbot's baseline   {fmt(summary['baseline_corrected'])}")
    print(f"  AIVAT (our decisions)     {fmt(summary['aivat'])}  ({summary['aivat_fallback_hands']} hands uncorrected)")
    if summary["abandoned_hands"]:
        print(f"  {summary['abandoned_hands']} hands abandoned by a stop mid-hand (not counted)")
    print(f"  hands: {os.path.join(args.out, 'hands.jsonl')}, log: {os.path.join(args.out, 'slumbot.log')}")
    return 0
