"""``pokerbot match``."""

from __future__ import annotations

import argparse
import os
import sys

import pokerbot.bot.cli.options as opt
from pokerbot.bot.cli.train_blueprint import ensure_blueprint


def add(sub) -> None:
    from pokerbot.bot.strategies import STRATEGIES

    m = sub.add_parser(
        "match",
        help="play two players on our dealer and report mbb/hand with confidence intervals",
        description="Play two players on our dealer and report mbb/hand with confidence intervals. By default the "
        "dealer enforces the ACPC reference dealer's time limits (--t_response 600000 --t_hand 600000 "
        "--t_per_hand 7000: 7 s a hand on average, a competition's clock), and our agents spend what they allow; "
        "a smaller --t_per_hand makes a quicker match (the README's demo plays --t_per_hand 2000). An agent "
        "(libratus, unsafe) whose options name no --threads solves on its share of the CPUs: those this process "
        "may use divided among the agents the match runs at once (both seats; twice as many with --concurrent).",
    )
    m.add_argument(
        "player_a",
        nargs="?",
        default="libratus",
        help=f"a strategy ({', '.join(sorted(STRATEGIES))}), one with options of pokerbot play "
        "(e.g. 'libratus --solve-round 4'), or a command line run as '<cmd> <host> <port>' (default libratus)",
    )
    m.add_argument("player_b", nargs="?", default="random", help="the opponent, the same way (default random)")
    opt.add_game_option(m)
    m.add_argument("--hands", type=opt.positive, default=1000, help="hands per match (default 1000)")
    opt.add_seed_option(m, "card seed (default 1)", default=1)
    m.add_argument("--duplicate", action="store_true", help="replay the same cards with the seats swapped")
    m.add_argument(
        "--concurrent",
        action="store_true",
        help="with --duplicate: play the two seat orders at the same time (half the wall time on two "
        "cores when the players compute, e.g. solving agents)",
    )
    m.add_argument(
        "--common-random-numbers",
        action="store_true",
        help="give both players one seed: blueprint-based players then choose alike in the same "
        "situation, so a duplicate pair cancels wherever both play the blueprint",
    )
    m.add_argument(
        "--aivat",
        action="store_true",
        help="also report A's result corrected by AIVAT (our players log their strategy at every "
        "decision; per-hand corrections in OUT/aivat.csv; see docs/evaluation.md)",
    )
    opt.add_out_dir_option(m, "match-results", "directory for logs, summary.json, winnings.png (default match-results)")
    opt.dealer_limit_options(m, "dealer")
    opt.add_log_level_option(m)
    opt.add_blueprint_option(
        m,
        "blueprint store for the players libratus, unsafe and blueprint (default "
        "$POKERBOT_BLUEPRINT, else blueprints/default.bp, trained first if missing)",
    )
    opt.add_no_train_option(m)
    opt.add_no_progress_option(m, "no progress on stderr (by default a bar on a terminal, else a line every 30 s)")
    m.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.bot.evaluation import match
    from pokerbot.protocol.dealer import run_event_loop
    from pokerbot.protocol.logs import configure

    configure(args.log_level)
    game = opt.game_of(args, "match")
    if game is None:
        return 2
    limits = opt.dealer_limits(args)
    if any(
        match.PlayerSpec(seat, spec).solver_threads is not None
        for seat, spec in (("A", args.player_a), ("B", args.player_b))
    ):
        from pokerbot.bot.agent.solving import MIN_SOLVE_SECONDS
        from pokerbot.bot.agent.time_budget import TimeBudget, verify_solving_fits

        try:  # an agent could never solve: say so before anything starts
            verify_solving_fits(TimeBudget(args.t_response / 1000, args.t_hand / 1000, args.t_per_hand / 1000),
                                MIN_SOLVE_SECONDS)  # fmt: skip
        except ValueError as e:
            print(f"pokerbot match: {e}", file=sys.stderr)
            return 2
    if args.concurrent and not args.duplicate:
        print("pokerbot match: --concurrent needs --duplicate", file=sys.stderr)
        return 2
    if args.aivat and not match.PlayerSpec("A", args.player_a).ours:
        print("pokerbot match: --aivat needs player A to be one of our strategies", file=sys.stderr)
        return 2
    named = {match.PlayerSpec("A", args.player_a).strategy, match.PlayerSpec("B", args.player_b).strategy}
    warm = None
    share = match.agent_threads((args.player_a, args.player_b), args.concurrent)
    threads = [
        match.PlayerSpec(seat, spec, share).solver_threads
        for seat, spec in (("A", args.player_a), ("B", args.player_b))
    ]
    if any(t is not None for t in threads):
        # the agents' kernels load (first time: compile) in the background, while a
        # missing blueprint trains, so that the players start on a warm cache
        from pokerbot.bot.kernel_warm import BackgroundWarm
        from pokerbot.bot.strategies import blueprint_path

        known = blueprint_path(args.blueprint)
        training = not os.path.exists(known)
        # a second warm-up process halves the compiling on an idle machine; while the
        # quick blueprint trains the cores are busy already, and it would slow the training
        warm = BackgroundWarm(
            max(t for t in threads if t is not None), None if training else known, helpers=0 if training else None
        )
    try:
        if named & {"libratus", "unsafe", "blueprint", "prober"}:
            status = ensure_blueprint(args)
            if status:
                return status
        # the players start now: one that needs a kernel the warm-up is compiling waits
        # for it and loads it; the progress line says what the warm-up is at
        summary = run_event_loop(
            match.run(
                game,
                args.game,
                args.hands,
                args.seed,
                (args.player_a, args.player_b),
                args.duplicate,
                args.out,
                limits,
                args.common_random_numbers,
                args.concurrent,
                progress=not args.no_progress,
                aivat=args.aivat,
                starting=None if warm is None else warm.running_status,
            )
        )
    except (RuntimeError, ValueError, OSError) as e:
        print(f"pokerbot match: {e}", file=sys.stderr)
        return 1
    finally:
        if warm is not None:
            warm.close()
    match.print_summary(summary, args.out)
    return 0 if summary["ok"] else 1
