"""``pokerbot blueprint``."""

from __future__ import annotations

import argparse
import sys


def add(sub) -> None:
    bi = sub.add_parser("blueprint", help="inspect a blueprint store: pokerbot blueprint info PATH")
    bi.add_argument("action", choices=["info"], help="what to do")
    bi.add_argument("path", help="the store")
    bi.add_argument(
        "--verify",
        action="store_true",
        help="also check every array's checksum and print the play digest (reads the whole file)",
    )
    bi.add_argument(
        "--hands",
        default="AA,KK,AKs,AKo,QJs,T9s,72o,32o",
        help="hands whose opening strategy to print (default AA,KK,AKs,AKo,QJs,T9s,72o,32o)",
    )
    bi.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.blueprint_store.info import print_info
    from pokerbot.blueprint_store.store import StoreError

    try:
        print_info(args.path, args.verify, [h.strip() for h in args.hands.split(",") if h.strip()])
    except StoreError as e:
        print(f"pokerbot blueprint: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"pokerbot blueprint: {e}", file=sys.stderr)
        return 2
    return 0
