"""``pokerbot improve``."""

from __future__ import annotations

import argparse
import sys

import pokerbot.bot.cli.options as opt


def add(sub) -> None:
    im = sub.add_parser(
        "improve",
        help="self-improvement: add responses to the opponents' first-round bet sizes "
        "that the blueprint lacks, into a new store",
    )
    im.add_argument(
        "--logs", nargs="+", required=True, metavar="PATH", help="dealer logs (*.log) or directories holding them"
    )
    opt.add_blueprint_option(im, "the store to improve (never modified)", required=True)
    opt.add_out_store_option(im, "the new store (written atomically)")
    im.add_argument("--us", default="libratus", help="a part of our player's name in the logs (default libratus)")
    im.add_argument("--k", type=opt.non_negative, default=3, help="gaps to fill (type 2), best first (default 3)")
    im.add_argument("--no-type1", action="store_true", help="do not add the most common missing size (type 1)")
    im.add_argument(
        "--hours", type=opt.positive_float, default=1.0, help="solving time shared by the additions (default 1)"
    )
    opt.add_threads_option(im, "solver threads (default: every core)", None)
    opt.add_seed_option(im, "seed (default 0)")
    im.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.blueprint_store.improve import improve
    from pokerbot.blueprint_store.store import StoreError
    from pokerbot.bot.progress import PhasedProgress

    bars = PhasedProgress(stream=sys.stdout)  # a bar per extension solved

    try:
        improve(
            args.blueprint,
            args.logs,
            args.out,
            us=args.us,
            k=args.k,
            seconds=args.hours * 3600.0,
            type1=not args.no_type1,
            threads=args.threads,
            seed=args.seed,
            log=bars.log,
            progress=bars,
        )
    except (StoreError, FileNotFoundError, ValueError) as e:
        bars.close()
        print(f"pokerbot improve: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        bars.close()
        print(f"pokerbot improve: {e}", file=sys.stderr)
        return 1
    bars.close()
    return 0
