#!/usr/bin/env python3
"""The blueprint player against the min-raise bot, dealt in memory (no dealer): how many
of its decisions fell back to check or call because the abstract tree could not follow
the hand, and what it did past the tree's raise cap (folds, calls, raises). The
blueprint takes both seats in turn.

    .venv/bin/python scripts/raise_war.py --blueprint blueprints/default.bp --hands 1000
"""

from __future__ import annotations

import argparse
import random

from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.bot.players.bots import MinRaiseStrategy
from pokerbot.protocol.betting import ActionType, BettingState
from pokerbot.protocol.gamedef import DEFAULT_GAME, bundled_game
from pokerbot.protocol.matchstate import MatchState


def raise_war(blueprint: str, hands: int, seed: int) -> dict:
    """Fallback decisions and decisions past the cap by kind, over ``hands`` hands."""
    game = bundled_game(DEFAULT_GAME)
    player = BlueprintStrategy(seed=seed, blueprint=blueprint)
    bot = MinRaiseStrategy()
    caps = [r.max_raises for r in player.bp.actions.rounds]
    rng = random.Random(seed)
    past_cap = {t.name.lower(): 0 for t in (ActionType.FOLD, ActionType.CALL, ActionType.RAISE)}
    decisions = 0
    for hand in range(hands):
        deck = list(range(52))
        rng.shuffle(deck)
        st = BettingState(game, hand, [deck[0:2], deck[2:4]])
        us = hand % 2
        while not st.finished:
            need = game.total_board_cards(st.round)
            if len(st.board_cards) < need:
                st.deal_board_cards(deck[4 + len(st.board_cards) : 4 + need])
            ms = MatchState(st.current_player, st)
            if st.current_player != us:
                st.apply(bot.act(ms))
                continue
            a = player.act(ms)
            decisions += 1
            if sum(x.type is ActionType.RAISE for x in st.actions[st.round]) > caps[st.round]:
                past_cap[a.type.name.lower()] += 1
            st.apply(a)
    return {
        "hands": hands,
        "raise_caps": caps,
        "decisions": decisions,
        "fallbacks": player.fallbacks,
        "past_cap": past_cap,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--blueprint", required=True, metavar="PATH", help="the blueprint store")
    p.add_argument("--hands", type=int, default=1000, help="hands (default 1000)")
    p.add_argument("--seed", type=int, default=9, help="cards and the player's seed (default 9)")
    args = p.parse_args()
    r = raise_war(args.blueprint, args.hands, args.seed)
    print(
        f"{r['hands']:,} hands against min-raise (raise caps per round {r['raise_caps']}): "
        f"{r['fallbacks']} of {r['decisions']:,} decisions fell back to check/call; "
        f"past the cap: {r['past_cap']['fold']} folds, {r['past_cap']['call']} calls, {r['past_cap']['raise']} raises"
    )


if __name__ == "__main__":
    main()
