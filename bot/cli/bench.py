"""``pokerbot bench``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable

from pokerbot.bot.cli.options import add_blueprint_option, add_json_option, positive
from pokerbot.bot.cores import usable_cpus


def add(sub) -> None:
    b = sub.add_parser("bench", help="benchmarks that print their figures")
    b.add_argument(
        "what",
        choices=["evaluator", "dealer", "solver", "depth-limited", "mccfr", "store", "compile", "scale"],
        help="what to measure",
    )
    add_blueprint_option(
        b, "store, depth-limited: the blueprint to open (default $POKERBOT_BLUEPRINT, else blueprints/default.bp)"
    )
    b.add_argument(
        "--hands",
        type=positive,
        default=4_000_000,
        help="evaluator: random 7-card hands (default 4,000,000); dealer: hands per match (default 5,000)",
    )
    b.add_argument("--boards", type=positive, default=20_000, help="river boards for the batch path (default 20,000)")
    b.add_argument(
        "--repeats",
        type=positive,
        default=7,
        help="timed runs, the median is reported (default 7; the dealer bench uses at most 3)",
    )
    b.add_argument(
        "--threads",
        default=None,
        metavar="N|N,N,...",
        help="compile: the agent's kernels for solves on this many threads (default 1); scale: the thread "
        "counts to time (default 1, 2, 4, ... up to the CPUs this process may use); mccfr: the threads of the "
        "curve run again beside the one-core runs (default: the CPUs this process may use)",
    )
    b.add_argument(
        "--training",
        action="store_true",
        help="compile: also the quick preset's training kernels (card abstraction, MCCFR), compiled first",
    )
    b.add_argument(
        "--ceiling",
        action="store_true",
        help="scale: also what k independent one-thread jobs give together at each thread count (the machine's "
        "own ceiling for the same work), after the threaded runs",
    )
    add_json_option(b, "the figures")
    b.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.bot.bench import dealer as bench_dealer
    from pokerbot.bot.bench import evaluator as bench_evaluator
    from pokerbot.bot.bench import mccfr as bench_mccfr
    from pokerbot.bot.bench import solver as bench_solver
    from pokerbot.bot.bench import store as bench_store
    from pokerbot.protocol.logs import configure

    configure("warning")
    report: dict
    printer: Callable[[dict], None]
    if args.what == "evaluator":
        report = bench_evaluator.bench_evaluator(hands=args.hands, boards=args.boards, repeats=args.repeats)
        printer = bench_evaluator.print_evaluator_report
    elif args.what == "solver":
        report, printer = bench_solver.bench_solver(repeats=min(args.repeats, 5)), bench_solver.print_solver_report
    elif args.what == "dealer":
        hands = args.hands if args.hands != 4_000_000 else 5000
        report = bench_dealer.bench_dealer(hands=hands, repeats=min(args.repeats, 3))
        printer = bench_dealer.print_dealer_report
    elif args.what == "compile":
        from pokerbot.bot.bench import compile as bench_compile

        try:
            threads = 1 if args.threads is None else positive(args.threads)
        except argparse.ArgumentTypeError as e:
            print(f"pokerbot bench compile: --threads: {e}", file=sys.stderr)
            return 2
        report = bench_compile.bench_compile(threads, args.training)
        printer = bench_compile.print_compile_report
    elif args.what == "scale":
        from pokerbot.bot.bench import scale as bench_scale

        usable = usable_cpus()
        try:
            counts = (
                bench_scale.default_thread_counts(usable)
                if args.threads is None
                else bench_scale.parse_thread_counts(args.threads, usable)
            )
        except ValueError as e:
            print(f"pokerbot bench scale: --threads: {e}", file=sys.stderr)
            return 2
        from pokerbot.bot.bench.ceiling import CEILING_SECONDS

        ceiling = CEILING_SECONDS if args.ceiling else None
        report = bench_scale.bench_scale(counts, repeats=min(args.repeats, 5), ceiling_seconds=ceiling)
        printer = bench_scale.print_scale_report
    elif args.what == "mccfr":
        try:
            threads = None if args.threads is None else positive(args.threads)
        except argparse.ArgumentTypeError as e:
            print(f"pokerbot bench mccfr: --threads: {e}", file=sys.stderr)
            return 2
        if threads is not None and threads > usable_cpus():
            print(
                f"pokerbot bench mccfr: --threads: {threads} asked, but this process may use {usable_cpus()} CPUs",
                file=sys.stderr,
            )
            return 2
        report, printer = bench_mccfr.bench_mccfr(threads=threads), bench_mccfr.print_mccfr_report
    else:  # store, depth-limited: a blueprint's
        from pokerbot.bot.strategies import BLUEPRINT_ENV, DEFAULT_BLUEPRINT

        path = args.blueprint or os.environ.get(BLUEPRINT_ENV) or DEFAULT_BLUEPRINT
        if not os.path.exists(path):
            print(f"pokerbot bench {args.what}: no blueprint at {path} (--blueprint PATH)", file=sys.stderr)
            return 2
        if args.what == "store":
            report, printer = bench_store.bench_store(path), bench_store.print_store_report
        else:
            from pokerbot.bot.bench import depth_limited as bench_dl

            report = bench_dl.bench_depth_limited(path, repeats=min(args.repeats, 5))
            printer = bench_dl.print_depth_limited_report
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        printer(report)
    return 0
