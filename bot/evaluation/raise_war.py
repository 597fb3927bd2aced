"""The blueprint player in raise wars: hands against the min-raise bot dealt in memory
(no dealer), counting per round the decisions that fell back to check or call because
the abstract tree could not follow the hand, and what the player did past the tree's
raise cap. The blueprint takes both seats in turn."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.bot.players.bots import MinRaiseStrategy
from pokerbot.protocol.betting import ActionType, BettingState
from pokerbot.protocol.gamedef import GameDef
from pokerbot.protocol.matchstate import MatchState


@dataclass
class RaiseWarReport:
    hands: int
    raise_caps: list[int]  # the abstraction's raises per round
    decisions: int = 0
    #: per round: decisions that fell back to check or call
    fallbacks: list[int] = field(default_factory=list)
    #: per round: the player's actions past the cap, by kind (fold, call, raise)
    past_cap: list[dict[str, int]] = field(default_factory=list)


def raise_war(player: BlueprintStrategy, game: GameDef, hands: int, seed: int) -> RaiseWarReport:
    """``hands`` hands of ``player`` against min-raise on cards dealt with ``seed``."""
    bot = MinRaiseStrategy()
    caps = [r.max_raises for r in player.bp.actions.rounds]
    report = RaiseWarReport(hands, caps, 0, [0] * len(caps), [{"fold": 0, "call": 0, "raise": 0} for _ in caps])
    rng = random.Random(seed)
    for hand in range(hands):
        deck = game.deck()
        rng.shuffle(deck)
        holes = game.num_hole_cards
        st = BettingState(game, hand, [deck[0:holes], deck[holes : 2 * holes]])
        us = hand % 2
        while not st.finished:
            need = game.total_board_cards(st.round)
            if len(st.board_cards) < need:
                st.deal_board_cards(deck[2 * holes + len(st.board_cards) : 2 * holes + need])
            actor = st.current_player
            assert actor is not None  # someone acts in a hand that is not over, once its cards are dealt
            ms = MatchState(actor, st)
            if actor != us:
                st.apply(bot.act(ms))
                continue
            before = player.fallbacks
            a = player.act(ms)
            if not st.can_apply(a):
                raise AssertionError(f"illegal action {a} after {st.betting_string()}")
            report.decisions += 1
            report.fallbacks[st.round] += player.fallbacks - before
            if sum(x.type is ActionType.RAISE for x in st.actions[st.round]) > caps[st.round]:
                report.past_cap[st.round][a.type.name.lower()] += 1
            st.apply(a)
    return report
