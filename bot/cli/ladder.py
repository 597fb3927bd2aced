"""``pokerbot ladder``."""

from __future__ import annotations

import argparse
import os
import sys

import pokerbot.bot.cli.options as opt


def is_ours(spec: str) -> bool:
    from pokerbot.bot.evaluation.match import PlayerSpec

    return PlayerSpec("A", spec).ours


def add(sub) -> None:
    ld = sub.add_parser(
        "ladder",
        help="the strength table: duplicate matches with common random numbers and AIVAT, in resumable chunks, pooled",
    )
    ld.add_argument(
        "--rows",
        default="all",
        help="'all' (default: the agent, the river-only agent and the blueprint against each other and the "
        "benchmark bots), 'main' (the first three), row numbers, or 'A vs B' items, separated by commas",
    )
    ld.add_argument("--pairs", type=opt.positive, default=100, help="deal pairs per chunk (default 100: 200 hands)")
    ld.add_argument("--chunks", type=opt.non_negative, default=1, help="new chunks per row in this run (default 1)")
    ld.add_argument(
        "--seeds",
        default="1",
        help="the seeds chunks may take: FIRST-LAST or FIRST (default 1); disjoint ranges on different machines",
    )
    ld.add_argument(
        "--parallel",
        type=opt.positive,
        default=max(1, os.cpu_count() or 1),
        help="chunks played at once on this machine (default: the cores); 1 plays both seat orders at once",
    )
    ld.add_argument(
        "--sequential",
        action="store_true",
        help="play a chunk's two seat orders one after the other (with --parallel 1: for agents that solve on "
        "more than one thread, which would otherwise share the cores)",
    )
    opt.add_ray_option(ld, "run chunks as tasks on a Ray cluster ('auto')")
    opt.add_blueprint_option(ld, "the store our strategies play (default: blueprints/default.bp)", metavar=None)
    opt.add_game_option(ld)
    opt.dealer_limit_options(ld, "the dealer's")
    opt.add_out_dir_option(ld, "ladder", "the ladder's directory: a row per folder, a chunk per seed")
    ld.add_argument("--target", type=float, default=100.0, help="the interval to plan for, mbb/hand (default 100)")
    ld.add_argument(
        "--report",
        action="store_true",
        help="print the pooled table without playing (each row: its chunks of the latest commit and options)",
    )
    opt.add_json_option(ld, "the table")
    opt.add_no_progress_option(ld, "one line per chunk instead of a bar")
    ld.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.bot.evaluation import ladder
    from pokerbot.bot.progress import ProgressBar
    from pokerbot.bot.strategies import blueprint_path
    from pokerbot.protocol.logs import configure

    configure("warning")
    try:
        rows = ladder.parse_rows(args.rows)
        seeds = ladder.parse_seeds(args.seeds)
    except ladder.LadderError as e:
        print(f"pokerbot ladder: {e}", file=sys.stderr)
        return 2
    unknown = sorted({w for r in rows for w in (r.a, r.b) if not is_ours(w)})
    if unknown:
        print(f"pokerbot ladder: not one of our strategies: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if args.ray is not None and opt.ray_missing("ladder"):
        return 2
    blueprint = os.path.abspath(blueprint_path(args.blueprint))
    needs_blueprint = any(
        w.split()[0] in ("libratus", "unsafe", "blueprint", "prober") for r in rows for w in (r.a, r.b)
    )
    if needs_blueprint and not os.path.exists(blueprint):
        print(
            f"pokerbot ladder: no blueprint at {blueprint} (--blueprint PATH; pokerbot train-blueprint makes one)",
            file=sys.stderr,
        )
        return 2
    make = ladder.spec_maker(
        args.game,
        blueprint if needs_blueprint else None,
        args.pairs,
        opt.dealer_limits(args),
        concurrent=args.parallel == 1 and not args.sequential,
        at_once=1 if args.ray is not None else args.parallel,
    )
    identity = ladder.identity_of(make)
    try:
        specs = [] if args.report else ladder.plan_chunks(args.out, rows, args.chunks, args.pairs, seeds, make)
    except ladder.LadderError as e:
        print(f"pokerbot ladder: {e}", file=sys.stderr)
        return 2
    if specs:
        where = f"Ray at {args.ray}" if args.ray is not None else f"{args.parallel} at a time"
        print(
            f"pokerbot ladder: {len(specs)} chunks of {args.pairs} deal pairs ({where}) at {identity['commit']}, "
            f"into {args.out}/",
            file=sys.stderr,
        )
        bar = None if args.no_progress else ProgressBar(len(specs), "chunks", label="ladder")
        finished = [0]

        def on_done(spec, result) -> None:
            finished[0] += 1
            row = ladder.Row(spec.a, spec.b)
            if isinstance(result, Exception):
                message = f"{row}, seed {spec.seed}: FAILED: {result}"
            else:
                x = ladder.pool(ladder.read_records(args.out, row), identity, args.target)
                a = x["aivat"]
                pooled = f"{a['mean']:+,.0f} ± {a['ci95']:,.0f} mbb/hand"
                message = f"{row}, seed {spec.seed}: done; pooled {x['pairs']:,} pairs: {pooled}"
            if bar is not None:
                bar.write(message)
                bar.update(finished[0])
            else:
                print(message, file=sys.stderr)

        results = ladder.run_chunks(specs, args.parallel, args.ray, on_done)
        if bar is not None:
            bar.finish()
        failed = [r for r in results if isinstance(r, Exception)]
    else:
        failed = []
    # a report pools each row's chunks of its latest commit and options; a run, this code's
    lines = ladder.table(args.out, rows, None if args.report else identity, args.target)
    if args.json:
        print(ladder.as_json(lines))
    else:
        commits = sorted({x["identity"]["commit"] for x in lines if x.get("identity")} or {identity["commit"]})
        print(f"Ladder at {', '.join(commits)} (duplicate, common random numbers, AIVAT; A's mbb/hand, 95 %):")
        print(ladder.format_table(lines, args.target))
    if failed:
        print(f"pokerbot ladder: {len(failed)} chunks failed (played again on the next run)", file=sys.stderr)
        return 1
    return 0
