"""``pokerbot warm``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from pokerbot.bot.cli.options import add_blueprint_option, add_threads_option

#: The help of warm's options.
BLUEPRINT_HELP = (
    "blueprint store (default $POKERBOT_BLUEPRINT, else blueprints/default.bp); with none, the solver's "
    "kernels only (the blueprint's lookups compile when a player first opens one)"
)
EVALUATION_FIRST_HELP = (
    "the evaluation's kernels before the solver's, and no blueprint: a second warm-up started beside a first "
    "compiles them meanwhile (pokerbot match does that on two cores or more)"
)
DOUBLE_PRECISION_HELP = (
    "also the evaluation's kernels in double precision (the metrics': best responses and exploitability, which "
    "the tools and the tests use; the agent evaluates in the solver's precision)"
)
PROGRESS_HELP = "print progress as JSON lines on stdout: {stage, index, stages}, {compiling, compiled}, then {done}"


def add(sub) -> None:
    help_ = "load or compile (once per machine) every kernel the agent uses, then exit (image builds, first runs)"
    w = sub.add_parser("warm", help=help_)
    add_blueprint_option(w, BLUEPRINT_HELP)
    w.add_argument("--evaluation-first", action="store_true", help=EVALUATION_FIRST_HELP)
    w.add_argument("--double-precision", action="store_true", help=DOUBLE_PRECISION_HELP)
    w.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    add_threads_option(w, "also the kernels of solves on this many threads")
    w.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load (on a fresh checkout or image: compile) every kernel the agent uses, then exit."""
    from pokerbot.bot.strategies import blueprint_path, make_strategy
    from pokerbot.protocol.logs import configure
    from pokerbot.solver import kernel_cache
    from pokerbot.solver.warm_up import SOLVER_STAGES, load_solver_kernels

    configure("warning")
    t0 = time.time()
    compiled = 0

    def say(**what) -> None:
        if args.progress:
            print(json.dumps(what), flush=True)

    path = blueprint_path(args.blueprint)
    with_blueprint = (os.path.exists(path) or args.blueprint is not None) and not args.evaluation_first
    from pokerbot.bot.agent.libratus import LibratusAgent

    stages: tuple[str, ...] = LibratusAgent.KERNEL_STAGES if with_blueprint else SOLVER_STAGES
    if args.threads == 1:
        stages = tuple(s for s in stages if s != SOLVER_STAGES[-1])

    def stage(name: str) -> None:
        say(stage=name, index=stages.index(name), stages=len(stages))

    def started(kernel: str, depth: int) -> None:
        if depth == 0:
            say(compiling=kernel, compiled=compiled)

    def finished(kernel: str, seconds: float, depth: int, signature: str) -> None:
        nonlocal compiled
        compiled += 1

    with kernel_cache.watch(started, finished):
        if with_blueprint:
            try:
                agent = make_strategy("libratus", 0, args.blueprint, workers=0, threads=args.threads)
            except (ValueError, OSError) as e:
                print(f"pokerbot warm: {e}", file=sys.stderr)
                return 2
            assert isinstance(agent, LibratusAgent)  # what make_strategy("libratus") makes
            agent.prepare(stage, measure_speed=False)  # a warm-up loads kernels; a player measures
            if args.double_precision:  # the agent's kernels are loaded: this compiles the double ones only
                load_solver_kernels(args.threads, double_precision=True)
        else:
            load_solver_kernels(
                args.threads, stage, evaluation_first=args.evaluation_first, double_precision=args.double_precision
            )
    seconds = time.time() - t0
    say(done=round(seconds, 1), compiled=compiled)
    if not args.progress:
        what = "kernels ready" if with_blueprint else f"solver kernels ready (no blueprint at {path})"
        print(f"pokerbot warm: {what} in {seconds:.1f} s ({compiled} compiled)", flush=True)
    return 0
