"""The ``pokerbot`` command."""

from __future__ import annotations

import argparse
import sys

from protocol.gamedef import DEFAULT_GAME, GameDefError, bundled_game_names, bundled_game_text, load_gamedef, format_gamedef


def _cmd_selfcheck(args: argparse.Namespace) -> int:
    from bot.selfcheck import run_selfcheck

    games = None
    if args.game:
        unknown = [g for g in args.game if g not in bundled_game_names()]
        if unknown:
            print(f"pokerbot: unknown game(s) {', '.join(unknown)}; bundled: {', '.join(bundled_game_names())}", file=sys.stderr)
            return 2
        games = args.game
    return 0 if run_selfcheck(args.hands, args.seed, games) else 1


def _cmd_bench(args: argparse.Namespace) -> int:
    from bot.bench import bench_evaluator, print_evaluator_report

    if args.what == "evaluator":
        print_evaluator_report(
            bench_evaluator(hands=args.hands, boards=args.boards, repeats=args.repeats), args.json
        )
    return 0


def _cmd_games(args: argparse.Namespace) -> int:
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


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pokerbot",
        description="A Libratus-style heads-up no-limit hold'em bot for the ACPC dealer protocol.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("selfcheck", help="play random hands of every bundled game through the rules and wire format")
    s.add_argument("--hands", type=_positive, default=2000, help="hands per game (default 2000)")
    s.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    s.add_argument("--game", action="append", help="check only this bundled game (repeatable)")
    s.set_defaults(func=_cmd_selfcheck)

    b = sub.add_parser("bench", help="benchmarks that print their figures")
    b.add_argument("what", choices=["evaluator"], help="what to measure")
    b.add_argument("--hands", type=_positive, default=4_000_000, help="random 7-card hands (default 4,000,000)")
    b.add_argument("--boards", type=_positive, default=20_000, help="river boards for the batch path (default 20,000)")
    b.add_argument("--repeats", type=_positive, default=7, help="timed runs; the median is reported (default 7)")
    b.add_argument("--json", action="store_true", help="print the figures as JSON")
    b.set_defaults(func=_cmd_bench)

    g = sub.add_parser("games", help=f"list the bundled games, or print one (default game: {DEFAULT_GAME})")
    g.add_argument("name", nargs="?", help="a bundled game name or a game file to print")
    g.set_defaults(func=_cmd_games)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
