"""``pokerbot selfcheck``."""

from __future__ import annotations

import argparse
import sys

from pokerbot.bot.cli.options import add_seed_option, positive
from pokerbot.protocol.gamedef import bundled_game_names


def add(sub) -> None:
    s = sub.add_parser("selfcheck", help="play random hands of every bundled game through the rules and wire format")
    s.add_argument("--hands", type=positive, default=2000, help="hands per game (default 2000)")
    add_seed_option(s, "random seed (default 0)")
    s.add_argument("--game", action="append", help="check only this bundled game (repeatable)")
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.bot.selfcheck import run_selfcheck

    games = None
    if args.game:
        unknown = [g for g in args.game if g not in bundled_game_names()]
        if unknown:
            print(
                f"pokerbot: unknown game(s) {', '.join(unknown)}; bundled: {', '.join(bundled_game_names())}",
                file=sys.stderr,
            )
            return 2
        games = args.game
    return 0 if run_selfcheck(args.hands, args.seed, games) else 1
