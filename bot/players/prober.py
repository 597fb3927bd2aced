"""The prober: the blueprint with its first raise of the first round moved to a size
the blueprint lacks (the opponent the self-improver is measured against)."""

from __future__ import annotations

import os

from pokerbot.bot.players.blueprint_player import BlueprintStrategy
from pokerbot.bot.players.bots import raise_or_call
from pokerbot.bot.players.strategy_query import ActionProbabilities, merge_columns
from pokerbot.protocol.betting import Action, ActionType, BettingState
from pokerbot.protocol.matchstate import MatchState

#: The prober's first-round raise size (pot fraction) when not told: this variable, else 0.75.
PROBE_SIZE_ENV = "POKERBOT_PROBE_SIZE"
DEFAULT_PROBE_SIZE = 0.75


class ProberStrategy:
    """A benchmark bot that probes the first round with a size the blueprint lacks:
    it plays the blueprint, but its first raise of the first round, whatever size the
    blueprint chose, is made at ``size`` times the pot (after calling). The opponent
    the self-improver is measured against (issue: self-improvement)."""

    name = "prober"

    def __init__(self, seed: int | None = None, blueprint: str | None = None, size: float | None = None) -> None:
        self.inner = BlueprintStrategy(seed, blueprint)
        self.size = float(os.environ.get(PROBE_SIZE_ENV, DEFAULT_PROBE_SIZE)) if size is None else size
        if not self.size > 0:
            raise ValueError(f"the probing size must be a positive pot fraction, got {self.size}")

    def act(self, ms: MatchState) -> Action:
        a = self.inner.act(ms)
        s = ms.state
        if (
            a.type is ActionType.RAISE
            and s.round == 0
            and s.game.is_nolimit
            and not any(b.type is ActionType.RAISE for b in s.actions[0])
            and a.size < s.game.stack[ms.viewer]
        ):
            to_call = s.max_spent - s.spent[ms.viewer]
            return raise_or_call(ms, s.max_spent + int(round(self.size * (s.pot + to_call))))
        return a

    def action_probabilities(self, state: BettingState, seat: int) -> ActionProbabilities:
        """The blueprint's answer, its first raise of the first round (not all-in) moved
        to the probing size, as ``act`` does."""
        inner = self.inner.action_probabilities(state, seat)
        s = state
        if s.round != 0 or not s.game.is_nolimit or any(b.type is ActionType.RAISE for b in s.actions[0]):
            return inner
        to_call = s.max_spent - s.spent[seat]
        probe = raise_or_call(MatchState(seat, s), s.max_spent + int(round(self.size * (s.pot + to_call))))
        actions = [probe if a.type is ActionType.RAISE and a.size < s.game.stack[seat] else a for a in inner.actions]
        return merge_columns(actions, inner.probabilities)

    def hand_over(self, ms: MatchState) -> None:
        self.inner.hand_over(ms)
