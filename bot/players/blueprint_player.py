"""The blueprint-only player: plays a blueprint store in every round.

Each decision maps the hand's betting onto the store's abstract tree and plays the
blueprint's action for our cards at the real state (``blueprint_store.real_play``:
translation of off-tree raises, raise wars past the cap, the self-improver's
extensions). Only a line the tree cannot follow at all leaves the player checking or
calling (counted in ``fallbacks``).

Randomness: the uniform number behind each sampled action is a keyed hash of the
seed and the information state (hand number, position, betting, our cards), not the
next draw of a generator, so the same seed in the same situation makes the same
choice whatever came before. Two players with one seed then play identical lines
wherever both follow the blueprint: that is what ``pokerbot match --duplicate
--common-random-numbers`` uses to cancel the early rounds out of a duplicate match.
Without a seed the key is drawn from the operating system. Translation draws from a
generator seeded with the seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pokerbot.blueprint_store.real_play import PLAY_PURIFIED_ROUNDS, PLAY_THRESHOLD, BlueprintPlay
from pokerbot.blueprint_store.store import Blueprint
from pokerbot.bot.players.strategy_query import ActionProbabilities, blueprint_answer
from pokerbot.protocol.betting import CALL, Action, BettingState
from pokerbot.protocol.matchstate import MatchState
from pokerbot.solver.keyed import KeyedUniform


class BlueprintStrategy:
    name = "blueprint"

    def __init__(
        self,
        seed: int | None = None,
        blueprint: str | Blueprint | None = None,
        purified_rounds: Sequence[int] = PLAY_PURIFIED_ROUNDS,
        range_threshold: float = PLAY_THRESHOLD,
        threshold_rule: str = "hand",
    ) -> None:
        """``purified_rounds``: rounds (0-based) played with fold-call-bet purification
        (``blueprint_store.purification``); ``range_threshold``: the first rounds'
        thresholding (0: the strategy as trained), applied per hand or over the range
        (``threshold_rule``: ``BlueprintPlay``'s); by default as the agent plays its
        first rounds (``PLAY_PURIFIED_ROUNDS``, ``PLAY_THRESHOLD``)."""
        self.play = BlueprintPlay(blueprint, random.Random(seed), purified_rounds, range_threshold, threshold_rule)
        self.bp = self.play.bp
        self.keys = KeyedUniform(seed)
        self.fallbacks = 0  # decisions made outside the abstraction (check or call)

    def hand_over(self, ms: MatchState) -> None:
        """Remember the opponent's first raise of the first round (type-1 extensions)."""
        self.play.hand_over(ms)

    def act(self, ms: MatchState) -> Action:
        action = self.play.action(ms.state, ms.viewer, self.keys.at(ms.state, ms.viewer))
        if action is None:
            self.fallbacks += 1
            return CALL
        return action

    def action_probabilities(self, state: BettingState, seat: int) -> ActionProbabilities:
        """The blueprint's strategy at ``state`` for every hand (see ``strategy_query``),
        off-tree raises translated as in play; the real hand's walk is left as it was."""
        return blueprint_answer(self.play, state, seat)
