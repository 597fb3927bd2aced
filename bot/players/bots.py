"""The benchmark bots: simple opponents that ignore their cards (random, call,
raise-pot, min-raise, all-in, fold), and the ``Strategy`` interface every player has. A strategy
sees the parsed ``MatchState`` and returns an action; the client makes sure it is legal
before sending."""

from __future__ import annotations

import random
from typing import Protocol

from pokerbot.bot.players.strategy_query import ActionProbabilities, same_for_every_hand
from pokerbot.protocol.betting import CALL, FOLD, Action, ActionType, BettingState, raise_to
from pokerbot.protocol.matchstate import MatchState


class Strategy(Protocol):
    name: str

    def act(self, ms: MatchState) -> Action:
        """The action to take; called only when it is this player's turn."""
        ...

    def hand_over(self, ms: MatchState) -> None:
        """Called with the final state of every hand."""
        ...


class BenchmarkBot:
    name = "base"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, ms: MatchState) -> Action:
        raise NotImplementedError

    def hand_over(self, ms: MatchState) -> None:
        pass

    def action_probabilities(self, state: BettingState, seat: int) -> ActionProbabilities:
        """A bot that ignores its cards and chooses without chance: what ``act`` sends,
        for every hand (see ``strategy_query``)."""
        return same_for_every_hand(state, [self.act(MatchState(seat, state))], [1.0])


def raise_or_call(ms: MatchState, to: int | None) -> Action:
    """A raise to ``to`` (limit games: the fixed raise), or a call if none is legal."""
    state = ms.state
    bounds = state.raise_bounds()
    if bounds is None:
        return CALL
    if not state.game.is_nolimit:
        return Action(ActionType.RAISE)
    return raise_to(min(max(to if to is not None else bounds[0], bounds[0]), bounds[1]))


class RandomStrategy(BenchmarkBot):
    """Like the reference example player: fold 6 %, otherwise call or raise half and
    half (probabilities renormalised over the legal actions), raise-to uniform in the
    legal range."""

    name = "random"
    FOLD_P, CALL_P, RAISE_P = 0.06, 0.47, 0.47

    def act(self, ms: MatchState) -> Action:
        state = ms.state
        bounds = state.raise_bounds()
        weights = [
            self.FOLD_P if state.can_fold() else 0.0,
            self.CALL_P,
            self.RAISE_P if bounds is not None else 0.0,
        ]
        u = self.rng.random() * sum(weights)
        if u < weights[0]:
            return FOLD
        if u < weights[0] + weights[1]:
            return CALL
        assert bounds is not None  # a raise has weight only when one is legal
        if not state.game.is_nolimit:
            return Action(ActionType.RAISE)
        return raise_to(self.rng.randint(bounds[0], bounds[1]))

    def action_probabilities(self, state: BettingState, seat: int) -> ActionProbabilities:
        """The same weights for every hand; a no-limit raise stands for every raise-to
        total in the legal range, equally likely."""
        bounds = state.raise_bounds()
        actions, weights = [FOLD, CALL], [self.FOLD_P if state.can_fold() else 0.0, self.CALL_P]
        if bounds is not None:
            actions.append(raise_to(bounds[0]) if state.game.is_nolimit else Action(ActionType.RAISE))
            weights.append(self.RAISE_P)
        keep = [i for i, w in enumerate(weights) if w > 0]
        answer = same_for_every_hand(state, [actions[i] for i in keep], [weights[i] for i in keep])
        if bounds is not None and state.game.is_nolimit:
            return ActionProbabilities(answer.actions, answer.probabilities, (bounds[0], bounds[1]))
        return answer


class FoldStrategy(BenchmarkBot):
    """Check when checking is free, else fold: the weakest possible opponent (LBR's
    sanity check: it must win exactly 250 mbb/game with fold/call, 750 with pot bets)."""

    name = "fold"

    def act(self, ms: MatchState) -> Action:
        return FOLD if ms.state.can_fold() else CALL


class CallStrategy(BenchmarkBot):
    """Always check or call."""

    name = "call"

    def act(self, ms: MatchState) -> Action:
        return CALL


class RaisePotStrategy(BenchmarkBot):
    """Raise the size of the pot (after calling) whenever possible, else call."""

    name = "raise-pot"

    def act(self, ms: MatchState) -> Action:
        s = ms.state
        to_call = s.max_spent - s.spent[ms.viewer]
        return raise_or_call(ms, s.max_spent + s.pot + to_call)


class MinRaiseStrategy(BenchmarkBot):
    """Raise the minimum whenever possible, else call: a raise war in every round until
    someone is all in (past any abstraction's raise cap)."""

    name = "min-raise"

    def act(self, ms: MatchState) -> Action:
        return raise_or_call(ms, None)


class AllInStrategy(BenchmarkBot):
    """Raise all-in whenever possible, else call."""

    name = "allin"

    def act(self, ms: MatchState) -> Action:
        return raise_or_call(ms, ms.state.game.stack[ms.viewer])
