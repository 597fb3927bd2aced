"""``pokerbot games``."""

from __future__ import annotations

import argparse
import sys

from pokerbot.protocol.gamedef import (
    DEFAULT_GAME,
    GameDefError,
    bundled_game_names,
    bundled_game_text,
    format_gamedef,
    load_gamedef,
)


def add(sub) -> None:
    g = sub.add_parser("games", help=f"list the bundled games, or print one (default game: {DEFAULT_GAME})")
    g.add_argument("name", nargs="?", help="a bundled game name or a game file to print")
    g.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.name:
        for name in bundled_game_names():
            print(name)
        return 0
    try:
        if args.name in bundled_game_names():
            print(bundled_game_text(args.name), end="")
        else:
            print(format_gamedef(load_gamedef(args.name)), end="")
    except GameDefError as e:
        print(f"pokerbot: {e}", file=sys.stderr)
        return 2
    return 0
