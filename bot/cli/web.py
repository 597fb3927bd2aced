"""``pokerbot web``."""

from __future__ import annotations

import argparse
import sys
import time

import pokerbot.bot.cli.options as opt
from pokerbot.bot.cli.train_blueprint import ensure_blueprint


def add(sub) -> None:
    w2 = sub.add_parser(
        "web", help="play against a strategy yourself in a browser: pokerbot web, then open the address"
    )
    w2.add_argument(
        "--strategy",
        default="libratus",
        help="the bot: a strategy, optionally with options of pokerbot play (e.g. 'libratus --solve-round 4'); "
        "default libratus",
    )
    opt.add_blueprint_option(
        w2,
        "blueprint store for libratus, unsafe, blueprint and prober (default $POKERBOT_BLUEPRINT, else "
        "blueprints/default.bp, the quick one trained first if missing)",
    )
    w2.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    w2.add_argument("--port", type=opt.port_number, default=8000, help="port (default 8000)")
    w2.add_argument("--hands", type=opt.positive, default=1000, help="hands per sitting (default 1000)")
    opt.add_seed_option(w2, "card seed of the first sitting (default from the clock)", default=None)
    opt.add_game_option(w2)
    opt.add_out_dir_option(
        w2, "web-sittings", "directory for each sitting's dealer log and bot log (default web-sittings)"
    )
    opt.dealer_limit_options(w2, "the bot's")
    opt.add_no_train_option(w2)
    opt.add_log_level_option(w2)
    w2.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pokerbot.bot.evaluation.match import PlayerSpec
    from pokerbot.bot.strategies import STRATEGIES
    from pokerbot.protocol.logs import configure

    configure(args.log_level)
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        print(
            "pokerbot web: the web page needs the web extra: pip install 'pokerbot[web]' (scripts/setup --web)",
            file=sys.stderr,
        )
        return 2
    from pokerbot.bot.web.server import WebServer, serve

    game = opt.game_of(args, "web")
    if game is None:
        return 2
    if game.num_players != 2 or not game.is_nolimit:
        print("pokerbot web: the page plays heads-up no-limit games", file=sys.stderr)
        return 2
    spec = PlayerSpec("B", args.strategy)
    if not spec.ours:
        known = ", ".join(sorted(STRATEGIES))
        print(f"pokerbot web: unknown strategy {args.strategy!r}; one of: {known}", file=sys.stderr)
        return 2
    if spec.strategy in {"libratus", "unsafe", "blueprint", "prober"}:
        status = ensure_blueprint(args)
        if status:
            return status
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    server = WebServer(game, args.game, args.strategy, args.hands, seed, args.out, opt.dealer_limits(args))
    try:
        serve(server, args.host, args.port)
    except OSError as e:
        print(f"pokerbot web: cannot listen on {args.host}:{args.port}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0
