"""``pokerbot warm``."""

from __future__ import annotations

import argparse
import sys
import time


def add(sub) -> None:
    w = sub.add_parser("warm", help="load or compile every kernel the agent uses, then exit (image builds, first runs)")
    w.add_argument(
        "--blueprint",
        default=None,
        metavar="PATH",
        help="blueprint store (default $POKERBOT_BLUEPRINT, else blueprints/default.bp)",
    )
    w.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Load (on a fresh checkout or image: compile) every kernel the agent uses, then exit."""
    from pokerbot.bot.strategies import make_strategy
    from pokerbot.protocol.logs import configure

    configure("warning")
    t0 = time.time()
    try:
        agent = make_strategy("libratus", 0, args.blueprint, workers=0)
    except (ValueError, OSError) as e:
        print(f"pokerbot warm: {e}", file=sys.stderr)
        return 2
    from pokerbot.bot.agent.libratus import LibratusAgent  # loaded by make_strategy

    assert isinstance(agent, LibratusAgent)  # what make_strategy("libratus") makes
    agent.prepare()
    print(f"pokerbot warm: kernels ready in {time.time() - t0:.1f} s", flush=True)
    return 0
