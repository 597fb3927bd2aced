"""``pokerbot aivat``."""

from __future__ import annotations

import argparse
import os
import sys

from pokerbot.bot.cli.options import add_game_option, add_json_option
from pokerbot.protocol.gamedef import GameDefError, load_gamedef


def add(sub) -> None:
    av = sub.add_parser("aivat", help="AIVAT-corrected result of a player from a dealer log and its strategy log")
    av.add_argument("dealer_log", help="the dealer's log (ours or the reference dealer's)")
    av.add_argument("--player", required=True, help="the player's name in the log")
    av.add_argument(
        "--strategy-log", required=True, metavar="PATH", help="its strategy log (pokerbot play --strategy-log)"
    )
    av.add_argument(
        "--opponent-log",
        default=None,
        metavar="PATH",
        help="the opponent's strategy log, when it is one of ours (its decisions are corrected too)",
    )
    add_game_option(av)
    av.add_argument("--csv", default=None, metavar="PATH", help="write the per-hand corrections")
    add_json_option(av, "the figures")
    av.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    import numpy as np

    from pokerbot.bot.evaluation.aivat import AIVATError, correct_match, write_csv
    from pokerbot.bot.evaluation.stats import summarize

    try:
        game = load_gamedef(args.game)
        rows = correct_match(args.dealer_log, game, args.player, args.strategy_log, args.opponent_log)
    except (GameDefError, AIVATError, ValueError, OSError) as e:
        print(f"pokerbot aivat: {e}", file=sys.stderr)
        return 2
    if not rows:
        print(f"pokerbot aivat: no finished hands in {args.dealer_log}", file=sys.stderr)
        return 2
    if args.csv:
        write_csv(args.csv, [(os.path.basename(args.dealer_log), rows)])
    bb = game.big_blind
    out = {
        "player": args.player,
        "hands": len(rows),
        "two_sided": args.opponent_log is not None,
        "fallback_hands": sum(r.fallback for r in rows),
        **{k: summarize(np.array([getattr(r, k) for r in rows]), bb) for k in ("raw", "allin_adjusted", "aivat")},
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for k, label in (("raw", "raw"), ("allin_adjusted", "all-in adjusted"), ("aivat", "AIVAT")):
        s = out[k]
        ci = "n/a" if s["ci95"] is None else f"{s['ci95']:,.1f}"
        print(f"{args.player} {label:<16} {s['mbb_per_hand']:+10,.1f} ± {ci} mbb/hand (95 %), {s['hands']:,} hands")
    if out["fallback_hands"]:
        print(f"{out['fallback_hands']} hands could not be corrected (their all-in adjusted value stands in)")
    return 0
