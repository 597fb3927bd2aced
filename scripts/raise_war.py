#!/usr/bin/env python3
"""The blueprint player against the min-raise bot, dealt in memory (no dealer): how many
of its decisions fell back to check or call because the abstract tree could not follow
the hand, and what it did past the tree's raise cap (``pokerbot.bot.evaluation.raise_war``).

    .venv/bin/python scripts/raise_war.py --blueprint blueprints/default.bp --hands 1000
"""

from __future__ import annotations

import argparse

from pokerbot.bot.evaluation.raise_war import raise_war
from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.protocol.gamedef import DEFAULT_GAME, bundled_game


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--blueprint", required=True, metavar="PATH", help="the blueprint store")
    p.add_argument("--hands", type=int, default=1000, help="hands (default 1000)")
    p.add_argument("--seed", type=int, default=9, help="cards and the player's seed (default 9)")
    args = p.parse_args()
    player = BlueprintStrategy(seed=args.seed, blueprint=args.blueprint)
    r = raise_war(player, bundled_game(DEFAULT_GAME), args.hands, args.seed)
    past = {k: sum(p[k] for p in r.past_cap) for k in ("fold", "call", "raise")}
    print(
        f"{r.hands:,} hands against min-raise (raise caps per round {r.raise_caps}): "
        f"{sum(r.fallbacks)} of {r.decisions:,} decisions fell back to check/call (per round {r.fallbacks}); "
        f"past the cap: {past['fold']} folds, {past['call']} calls, {past['raise']} raises"
    )


if __name__ == "__main__":
    main()
