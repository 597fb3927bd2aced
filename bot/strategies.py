"""Our strategies by name (``make_strategy``): the benchmark bots, the blueprint, the
prober and the agent, behind one interface (``players.bots.Strategy``), and where the
players that need a blueprint find it (``blueprint_path``).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from pokerbot.bot.players.bots import (
    AllInStrategy,
    CallStrategy,
    FoldStrategy,
    MinRaiseStrategy,
    RaisePotStrategy,
    RandomStrategy,
    Strategy,
)


def _blueprint(seed: int | None = None, blueprint: str | None = None, **_options) -> Strategy:
    from pokerbot.bot.players.blueprint_player import BlueprintStrategy

    return BlueprintStrategy(seed, blueprint_path(blueprint))


def _prober(seed: int | None = None, blueprint: str | None = None) -> Strategy:
    from pokerbot.bot.players.prober import ProberStrategy

    return ProberStrategy(seed, blueprint_path(blueprint))


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
    s.name: s for s in (RandomStrategy, CallStrategy, RaisePotStrategy, MinRaiseStrategy, AllInStrategy, FoldStrategy)
}
STRATEGIES["blueprint"] = _blueprint
STRATEGIES["prober"] = lambda seed=None, blueprint=None, **_o: _prober(seed, blueprint)


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
    from pokerbot.bot.agent.libratus import LibratusAgent
    from pokerbot.bot.agent.solver_pool import SolverPool
    from pokerbot.bot.agent.solving import MIN_SOLVE_SECONDS
    from pokerbot.bot.agent.time_budget import (
        DEFAULT_T_HAND_MS,
        DEFAULT_T_PER_HAND_MS,
        DEFAULT_T_RESPONSE_MS,
        ReplyClock,
        TimeBudget,
        verify_solving_fits,
    )

    budget = TimeBudget(
        (t_response_ms or DEFAULT_T_RESPONSE_MS) / 1000,
        (t_hand_ms or DEFAULT_T_HAND_MS) / 1000,
        (t_per_hand_ms or DEFAULT_T_PER_HAND_MS) / 1000,
    )
    verify_solving_fits(budget, MIN_SOLVE_SECONDS)  # else the agent could never solve: say so now
    clock = ReplyClock() if reply_grid_ms is None else ReplyClock(reply_grid_ms / 1000)
    path = blueprint_path(blueprint)
    agent = LibratusAgent(seed, path, safe=safe, budget=budget, clock=clock, **options)
    if pool is None and workers > 0:
        # after the blueprint opened: a missing store fails before any process starts
        pool = SolverPool(workers, threads=agent.threads)
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
