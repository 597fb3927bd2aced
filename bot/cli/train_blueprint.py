"""``pokerbot train-blueprint``."""

from __future__ import annotations

import argparse
import os
import sys

import pokerbot.bot.cli.options as opt
from pokerbot.bot.shutdown import StopRequest, stop_on_signals


def add(sub) -> None:
    t = sub.add_parser("train-blueprint", help="train a hold'em blueprint (card abstraction, MCCFR) into a store")
    t.add_argument(
        "--preset",
        default="default",
        help="tiny (under two minutes, for tests and demos), default (about an hour on two cores) or large "
        "(overnight on 16 cores, about 9 GB; docs/cluster.md); default: default",
    )
    opt.add_out_store_option(t, "the store to write (written atomically)")
    opt.add_threads_option(t, "training threads (default: every core)", None)
    budget = t.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, default=None, help="training time (default: the preset's)")
    budget.add_argument(
        "--iterations",
        type=opt.positive,
        default=None,
        metavar="N",
        help="train for N MCCFR iterations instead of a time: the same budget on any machine and under any "
        "load (blueprints meant to be of equal strength, e.g. two seeds)",
    )
    opt.add_seed_option(t, "seed of the abstraction and training (default 0)")
    t.add_argument("--resume", action="store_true", help="continue from the checkpoint beside --out")
    opt.add_ray_option(
        t,
        "train sharded on a Ray cluster: its address (host:port), auto (the cluster this machine "
        "joined with ray start), or local (start one here); needs the cluster extra (docs/cluster.md)",
    )
    t.add_argument(
        "--shards", type=opt.positive, default=None, help="with --ray: shard actors (default: the cluster's CPUs)"
    )
    t.add_argument(
        "--shard-batch",
        type=opt.positive,
        default=2_000,
        help="with --ray: iterations per batch, between updates of the first round's strategy (default 2000)",
    )
    t.add_argument(
        "--no-memory-check",
        action="store_true",
        help="train even where the memory the preset needs (said before anything is allocated) "
        "is more than the machine has available",
    )
    t.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.blueprint_store.train import PRESETS
    from pokerbot.bot.progress import PhasedProgress

    if args.preset not in PRESETS:
        print(
            f"pokerbot train-blueprint: unknown preset {args.preset!r}; presets: {', '.join(PRESETS)}", file=sys.stderr
        )
        return 2
    if args.ray is not None:
        if opt.ray_missing("train-blueprint", " (scripts/setup --cluster)"):
            return 2
    elif args.shards is not None:
        print("pokerbot train-blueprint: --shards goes with --ray", file=sys.stderr)
        return 2
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    # a bar per phase (card abstraction rounds, then MCCFR) on a terminal, plain lines
    # every 30 s otherwise; messages above it, with the time since the start
    bars = PhasedProgress(stream=sys.stdout)
    # the first SIGINT or SIGTERM during MCCFR stops after its batch with a checkpoint;
    # before MCCFR, or a second one, interrupts at once
    announce = "stopping after this batch to write a checkpoint (--resume goes on from it; Ctrl-C again stops at once)"
    with stop_on_signals(StopRequest(), bars.log, announce, interrupt_until_polled=True) as stopping:
        return train(args, bars, stopping)


def train(args: argparse.Namespace, bars, stopping: StopRequest) -> int:
    from pokerbot.blueprint_store.train import TrainingStopped, train_blueprint

    try:
        train_blueprint(
            args.preset,
            args.out,
            threads=args.threads,
            seconds=None if args.minutes is None else args.minutes * 60.0,
            resume=args.resume,
            seed=args.seed,
            log=bars.log,
            progress=bars,
            ray=args.ray,
            shards=args.shards,
            shard_batch=args.shard_batch,
            check_memory=not args.no_memory_check,
            stop=stopping,
            iterations=args.iterations,
        )
    except TrainingStopped as e:
        bars.close()
        print(f"pokerbot train-blueprint: {e}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        bars.close()
        print(
            "pokerbot train-blueprint: interrupted before MCCFR started (a card abstraction already built is kept "
            "beside --out, and --resume reuses it)",
            file=sys.stderr,
        )
        return 130
    except (OSError, ValueError, ConnectionError, MemoryError) as e:
        bars.close()
        print(f"pokerbot train-blueprint: {e}", file=sys.stderr)
        return 1
    bars.close()
    return 0


def ensure_blueprint(args: argparse.Namespace) -> int:
    """The players that need a blueprint find it through the environment. With none
    given and no default store, the quick one (the tiny preset, about two minutes on
    two cores) is trained first unless --no-train; a missing store given with
    --blueprint or $POKERBOT_BLUEPRINT is an error."""
    from pokerbot.bot.strategies import BLUEPRINT_ENV, DEFAULT_BLUEPRINT, QUICK_BLUEPRINT, blueprint_path

    given = args.blueprint or os.environ.get(BLUEPRINT_ENV)
    path = blueprint_path(args.blueprint)
    strong = f"pokerbot train-blueprint --preset default --out {DEFAULT_BLUEPRINT}"
    if not os.path.exists(path):
        if given or args.no_train:
            print(f"pokerbot match: no blueprint at {path}; make one with `{strong}`", file=sys.stderr)
            return 2
        print(
            f"pokerbot match: no blueprint yet: training the quick one first ({QUICK_BLUEPRINT}, the tiny preset: "
            f"about 2 minutes on two cores, once; --no-train to stop instead). It beats the benchmark bots but is "
            f"far from the default blueprint: `{strong}` trains that (about 50 minutes on two cores).",
            flush=True,
        )
        # through the parser: every option of train-blueprint gets its default
        command = ["train-blueprint", "--preset", "tiny", "--out", QUICK_BLUEPRINT, "--seed", "0"]
        if os.path.isdir(QUICK_BLUEPRINT + ".ckpt"):
            command.append("--resume")
        parser = argparse.ArgumentParser(prog="pokerbot")
        add(parser.add_subparsers(dest="command"))
        status = run(parser.parse_args(command))
        if status:
            return status
        path = QUICK_BLUEPRINT
    elif path == QUICK_BLUEPRINT:
        print(f"pokerbot match: playing with the quick blueprint {path}; `{strong}` trains the strong one", flush=True)
    os.environ[BLUEPRINT_ENV] = os.path.abspath(path)
    return 0
