"""``pokerbot play``."""

from __future__ import annotations

import argparse
import sys

import pokerbot.bot.cli.options as opt
from pokerbot.protocol.gamedef import GameDefError, load_gamedef


def play_seats(host: str, ports: list[int], game, strategies: list, connect_timeout: float, writer=None) -> int:
    """The seats of this process (one thread and event loop each after the first, one
    shared solver pool). The first seat runs in the main thread and takes the stop
    signals; when it ends, the process ends. Exit status: the worst of the seats'."""
    import threading

    from pokerbot.bot.players.acpc_player import play
    from pokerbot.protocol.dealer import run_event_loop

    status = [0] * len(ports)

    def seat(i: int) -> None:
        status[i] = run_event_loop(
            play(host, ports[i], game, strategies[i], connect_timeout, writer if i == 0 else None)
        )

    threads = [
        threading.Thread(target=seat, args=(i,), daemon=True, name=f"seat-{i + 1}") for i in range(1, len(ports))
    ]
    for t in threads:
        t.start()
    seat(0)
    for t in threads:
        t.join()
    return max(status)


def add(sub) -> None:
    from pokerbot.bot.strategies import STRATEGIES

    pl = sub.add_parser("play", help="play a match as an ACPC player: pokerbot play <host> <port>")
    pl.add_argument("host", help="dealer host")
    pl.add_argument("port", type=opt.port_number, help="dealer port for this seat")
    pl.add_argument(
        "ports",
        type=opt.port_number,
        nargs="*",
        metavar="PORT",
        help="more seats to play from this process (same host), sharing its solver workers",
    )
    opt.add_game_option(pl)
    pl.add_argument(
        "--strategy",
        default="libratus",
        choices=sorted(STRATEGIES),
        help="what to play (default libratus: blueprint, then real-time subgame solving)",
    )
    opt.add_seed_option(pl, "seed for the strategy's random choices", default=None)
    opt.add_blueprint_option(
        pl,
        "blueprint store for the blueprint, libratus and unsafe strategies (default "
        "$POKERBOT_BLUEPRINT, else blueprints/default.bp)",
    )
    opt.add_agent_options(pl)
    opt.add_threads_option(
        pl,
        "libratus/unsafe: solver threads (default auto: every CPU this process may use, for a bot that has "
        "the machine to itself; with several agents on one machine, give each its share; pokerbot match does)",
        "auto",
        type=opt.solver_threads,
        metavar="auto|N",
    )
    opt.add_workers_option(
        pl,
        "libratus/unsafe: warm solver processes (default 1; 0 solves in the player process, "
        "without the protection against a crashing or overrunning solve)",
        1,
    )
    opt.dealer_limit_options(pl, "the dealer's", ", which the agent's time budget respects")
    pl.add_argument(
        "--reply-grid-ms",
        type=float,
        default=5.0,
        metavar="MS",
        help="libratus/unsafe: replies are held to a multiple of this after the state arrived, so "
        "reply times do not depend on our cards (default 5; 0 disables)",
    )
    pl.add_argument("--connect-timeout", type=float, default=30.0, help="seconds to wait for the dealer (default 30)")
    pl.add_argument(
        "--strategy-log",
        default=None,
        metavar="PATH",
        help="append what the strategy would do with every hand at each of its decisions (for AIVAT: "
        "pokerbot aivat); written after each reply",
    )
    opt.add_log_level_option(
        pl,
        "info",
        "JSON log level (default info: the agent logs every decision and solve; debug adds "
        "every action of every strategy)",
    )
    pl.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.bot.strategies import make_strategy
    from pokerbot.protocol.logs import configure

    configure(args.log_level)
    ports = [args.port, *args.ports]
    agent = args.strategy in ("libratus", "unsafe")
    try:
        game = load_gamedef(args.game)
        options: dict = {}
        if agent:
            # one pool for every seat, started below once the strategies are known to load
            options = opt.agent_options(
                args,
                threads=args.threads,
                workers=0,
                t_response_ms=args.t_response,
                t_hand_ms=args.t_hand,
                t_per_hand_ms=args.t_per_hand,
                reply_grid_ms=args.reply_grid_ms,
            )
        elif args.strategy == "blueprint":  # its preflop and flop as the agent's options say
            from pokerbot.bot.agent.libratus import EARLY_ROUNDS

            options = {"purified_rounds": EARLY_ROUNDS if args.early_purify else ()}
            if args.early_threshold is not None:
                options["range_threshold"] = args.early_threshold
        strategies = [
            make_strategy(args.strategy, None if args.seed is None else args.seed + i, args.blueprint, **options)
            for i in range(len(ports))
        ]
    except (GameDefError, ValueError, OSError) as e:
        print(f"pokerbot play: {e}", file=sys.stderr)
        return 2
    if agent:
        from pokerbot.bot.agent.libratus import LibratusAgent

        agents = [s for s in strategies if isinstance(s, LibratusAgent)]  # all of them (libratus or unsafe)
        if args.workers > 0:
            from pokerbot.bot.agent.solver_pool import SolverPool

            pool = SolverPool(args.workers, threads=args.threads)
            for s in agents:
                s.pool = pool
        agents[0].prepare()  # kernels and workers warm before the first hand (process-wide)
        for s in agents[1:]:
            s.speed = agents[0].speed  # the full-depth turn solve's speed, measured once
    writer = None
    if args.strategy_log is not None:
        if len(ports) > 1:
            print("pokerbot play: --strategy-log logs one seat; give one port", file=sys.stderr)
            return 2
        from pokerbot.bot.players.strategy_log import StrategyLogWriter

        try:
            writer = StrategyLogWriter(args.strategy_log)
        except OSError as e:
            print(f"pokerbot play: cannot write the strategy log: {e}", file=sys.stderr)
            return 2
    try:
        return play_seats(args.host, ports, game, strategies, args.connect_timeout, writer)
    finally:
        if writer is not None:
            writer.close()
