"""``pokerbot opponent``."""

from __future__ import annotations

import argparse
import sys

import pokerbot.bot.cli.options as opt


def add(sub) -> None:
    from pokerbot.bot.opponents import slumbot2017

    op = sub.add_parser(
        "opponent",
        help="build a program this project did not write as an opponent: pokerbot opponent build slumbot2017 "
        "--source DIR --out DIR",
        description="Build a public poker program (its source from a local copy or its repository), train it for "
        "holdem.nolimit.2p with its own tools, and write OUT/run <host> <port>, a player for pokerbot match, pokerbot "
        "play's dealers and the ACPC reference dealer. Resumable: the same command goes on where a build stopped.",
    )
    op.add_argument("action", choices=["build"], help="what to do")
    op.add_argument("name", choices=[slumbot2017.NAME], help="the program")
    op.add_argument(
        "--source",
        required=True,
        help=f"its source: a local copy of its repository (a folder or a git repository) or the repository's URL "
        f"({slumbot2017.REPOSITORY}, cloned; needs the internet)",
    )
    op.add_argument("--out", default=None, help="the folder to build in (default opponents/NAME)")
    opt.add_threads_option(op, "threads of its abstraction and training (default: every core)", "auto",
                           type=opt.solver_threads, metavar="auto|N")  # fmt: skip
    op.add_argument(
        "--batches",
        type=opt.positive,
        default=slumbot2017.BATCHES,
        help=f"training batches, a checkpoint each (default {slumbot2017.BATCHES})",
    )
    op.add_argument(
        "--iterations-per-batch",
        type=opt.positive,
        default=slumbot2017.ITERATIONS_PER_BATCH,
        help=f"targeted CFR iterations a thread in a batch (default {slumbot2017.ITERATIONS_PER_BATCH:,})",
    )
    op.add_argument(
        "--endgame",
        choices=slumbot2017.ENDGAMES,
        default="none",
        help="its endgame solving in play: none (its blueprint on every round; the default: stronger here, "
        "docs/evaluation.md) or river (the river re-solved by its CFR+ solver)",
    )
    op.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.bot.opponents.build import build_opponent
    from pokerbot.bot.opponents.recipe import BuildError
    from pokerbot.bot.opponents.slumbot2017 import Settings

    settings = Settings(
        threads=args.threads, batches=args.batches, iterations_per_batch=args.iterations_per_batch, endgame=args.endgame
    )
    try:
        build_opponent(args.name, args.source, args.out or f"opponents/{args.name}", settings)
    except BuildError as e:
        print(f"pokerbot opponent: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pokerbot opponent: stopped; the same command goes on where it stopped", file=sys.stderr)
        return 130
    return 0
