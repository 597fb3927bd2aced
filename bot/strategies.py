"""Strategies: what a player does when it is its turn.

A strategy sees the parsed ``MatchState`` and returns an action; the client makes sure
it is legal before sending. The benchmark opponents live here; the blueprint and the
full agent plug in behind the same interface.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Protocol

from pokerbot.protocol.betting import CALL, FOLD, Action, ActionType, BettingState, raise_to
from pokerbot.protocol.matchstate import MatchState

from .strategy_query import ActionProbabilities, merge_columns, same_for_every_hand


class Strategy(Protocol):
    name: str

    def act(self, ms: MatchState) -> Action:
        """The action to take; called only when it is this player's turn."""
        ...

    def hand_over(self, ms: MatchState) -> None:
        """Called with the final state of every hand."""
        ...


class _Base:
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


def _raise(ms: MatchState, to: int | None) -> Action:
    """A raise to ``to`` (limit games: the fixed raise), or a call if none is legal."""
    state = ms.state
    bounds = state.raise_bounds()
    if bounds is None:
        return CALL
    if not state.game.is_nolimit:
        return Action(ActionType.RAISE)
    return raise_to(min(max(to if to is not None else bounds[0], bounds[0]), bounds[1]))


class RandomStrategy(_Base):
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


class FoldStrategy(_Base):
    """Check when checking is free, else fold: the weakest possible opponent (LBR's
    sanity check: it must win exactly 250 mbb/game with fold/call, 750 with pot bets)."""

    name = "fold"

    def act(self, ms: MatchState) -> Action:
        return FOLD if ms.state.can_fold() else CALL


class CallStrategy(_Base):
    """Always check or call."""

    name = "call"

    def act(self, ms: MatchState) -> Action:
        return CALL


class RaisePotStrategy(_Base):
    """Raise the size of the pot (after calling) whenever possible, else call."""

    name = "raise-pot"

    def act(self, ms: MatchState) -> Action:
        s = ms.state
        to_call = s.max_spent - s.spent[ms.viewer]
        return _raise(ms, s.max_spent + s.pot + to_call)


class AllInStrategy(_Base):
    """Raise all-in whenever possible, else call."""

    name = "allin"

    def act(self, ms: MatchState) -> Action:
        return _raise(ms, ms.state.game.stack[ms.viewer])


def _blueprint(seed: int | None = None, blueprint: str | None = None, **_options) -> Strategy:
    from .blueprint_player import BlueprintStrategy

    return BlueprintStrategy(seed, blueprint_path(blueprint))


class ProberStrategy:
    """A benchmark bot that probes the first round with a size the blueprint lacks:
    it plays the blueprint, but its first raise of the first round, whatever size the
    blueprint chose, is made at ``size`` times the pot (after calling). The opponent
    the self-improver is measured against (issue: self-improvement)."""

    name = "prober"

    def __init__(self, seed: int | None = None, blueprint: str | None = None, size: float | None = None) -> None:
        from .blueprint_player import BlueprintStrategy

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
            return _raise(ms, s.max_spent + int(round(self.size * (s.pot + to_call))))
        return a

    def action_probabilities(self, state: BettingState, seat: int) -> ActionProbabilities:
        """The blueprint's answer, its first raise of the first round (not all-in) moved
        to the probing size, as ``act`` does."""
        inner = self.inner.action_probabilities(state, seat)
        s = state
        if s.round != 0 or not s.game.is_nolimit or any(b.type is ActionType.RAISE for b in s.actions[0]):
            return inner
        to_call = s.max_spent - s.spent[seat]
        probe = _raise(MatchState(seat, s), s.max_spent + int(round(self.size * (s.pot + to_call))))
        actions = [probe if a.type is ActionType.RAISE and a.size < s.game.stack[seat] else a for a in inner.actions]
        return merge_columns(actions, inner.probabilities)

    def hand_over(self, ms: MatchState) -> None:
        self.inner.hand_over(ms)


#: The prober's first-round raise size (pot fraction) when not told: this variable, else 0.75.
PROBE_SIZE_ENV = "POKERBOT_PROBE_SIZE"
DEFAULT_PROBE_SIZE = 0.75

#: Where the players that need a blueprint look for it when not told: this variable,
#: else DEFAULT_BLUEPRINT (what ``pokerbot train-blueprint --preset default`` writes),
#: else QUICK_BLUEPRINT (the tiny preset, what ``pokerbot match`` trains on first use).
BLUEPRINT_ENV = "POKERBOT_BLUEPRINT"
DEFAULT_BLUEPRINT = os.path.join("blueprints", "default.bp")
QUICK_BLUEPRINT = os.path.join("blueprints", "quick.bp")


def blueprint_path(blueprint: str | None = None) -> str:
    """The store a player opens: ``blueprint`` if given, else $POKERBOT_BLUEPRINT, else
    the default store, else the quick one when only it exists."""
    if blueprint:
        return blueprint
    if os.environ.get(BLUEPRINT_ENV):
        return os.environ[BLUEPRINT_ENV]
    if not os.path.exists(DEFAULT_BLUEPRINT) and os.path.exists(QUICK_BLUEPRINT):
        return QUICK_BLUEPRINT
    return DEFAULT_BLUEPRINT


STRATEGIES: dict[str, Callable[..., Strategy]] = {
    s.name: s for s in (RandomStrategy, CallStrategy, RaisePotStrategy, AllInStrategy, FoldStrategy)
}
STRATEGIES["blueprint"] = _blueprint
STRATEGIES["prober"] = lambda seed=None, blueprint=None, **_o: ProberStrategy(seed, blueprint_path(blueprint))


def _agent(
    seed: int | None = None,
    blueprint: str | None = None,
    safe: bool = True,
    workers: int = 0,
    pool=None,
    t_response_ms: int | None = None,
    t_hand_ms: int | None = None,
    t_per_hand_ms: int | None = None,
    reply_grid_ms: float | None = None,
    **options,
) -> Strategy:
    """The agent. ``pool``: a shared ``SolverPool``; else ``workers`` > 0 starts one
    of that many warm solver processes for this agent, 0 solves in this process.
    The dealer's limits (milliseconds) set its time budget; ``reply_grid_ms`` the
    reply-time grid."""
    from .agent import LibratusAgent
    from .solver_pool import SolverPool
    from .time_budget import DEFAULT_T_HAND_MS, DEFAULT_T_PER_HAND_MS, DEFAULT_T_RESPONSE_MS, ReplyClock, TimeBudget

    budget = TimeBudget(
        (t_response_ms or DEFAULT_T_RESPONSE_MS) / 1000,
        (t_hand_ms or DEFAULT_T_HAND_MS) / 1000,
        (t_per_hand_ms or DEFAULT_T_PER_HAND_MS) / 1000,
    )
    clock = ReplyClock() if reply_grid_ms is None else ReplyClock(reply_grid_ms / 1000)
    path = blueprint_path(blueprint)
    agent = LibratusAgent(seed, path, safe=safe, budget=budget, clock=clock, **options)
    if pool is None and workers > 0:
        pool = SolverPool(workers)  # after the blueprint opened: a missing store fails before any process starts
    agent.pool = pool
    return agent


STRATEGIES["libratus"] = _agent
STRATEGIES["unsafe"] = lambda seed=None, blueprint=None, **o: _agent(seed, blueprint, safe=False, **o)


def make_strategy(name: str, seed: int | None = None, blueprint: str | None = None, **options) -> Strategy:
    """The strategy ``name``; ``blueprint`` is the store for the strategies that play
    one; ``options`` go to the agent (solve_seconds, threads)."""
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(sorted(STRATEGIES))}")
    if name in ("blueprint", "libratus", "unsafe", "prober"):
        return STRATEGIES[name](seed, blueprint, **options)
    return STRATEGIES[name](seed)
