"""``pokerbot pool``."""

from __future__ import annotations

import argparse
import json

from pokerbot.bot.cli.options import add_json_option


def add(sub) -> None:
    pl = sub.add_parser(
        "pool",
        help="pool duplicate matches played in parts by deal; with --minus, two players paired by deal",
        description=(
            "Pool the output folders of `pokerbot match --duplicate --aivat` (same players, different "
            "--seed) into one result with its 95 %% interval. With --minus, score player A of the folders "
            "minus player A of the --minus folders on the same deals (matched by seed and hand) against "
            "the same player B."
        ),
    )
    pl.add_argument("dirs", nargs="+", metavar="DIR", help="output folders of pokerbot match --duplicate --aivat")
    pl.add_argument(
        "--minus",
        nargs="+",
        default=None,
        metavar="DIR",
        help="folders of another player A against the same B with the same seeds: the paired difference",
    )
    add_json_option(pl, "the pooled figures")
    pl.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.bot.evaluation.match_pool import PoolError, format_pool, paired_difference, pool

    try:
        r = paired_difference(args.dirs, args.minus) if args.minus else pool(args.dirs)
    except PoolError as e:
        raise SystemExit(f"pokerbot pool: {e}") from None
    print(json.dumps(r, indent=2) if args.json else format_pool(r))
    return 0
